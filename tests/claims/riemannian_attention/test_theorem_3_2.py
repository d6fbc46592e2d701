"""Theorem 3.2 as stated: its first clause (heterogeneous, i.e. span ≥ 2, ⇒ no O(d) factorisation) is
false: a span-2 family has rank d + 8 < d(d+1)/2 from d = 5 and an exact universal factorisation of
dimension 3d + 6; the bound min{span, d(d+1)/2}, the full-span Ω(d²) and the vectorised tightness
hold; the review's repair and its Euclidean-part objection hold."""

from __future__ import annotations

import pytest
from claimtest import assert_witnessed, evidence, run

from attnaudit import operators
from attnaudit.checks.context import Context
from attnaudit.checks.measure import numerical_rank
from attnaudit.claims.riemannian_attention._stacks import family
from attnaudit.claims.riemannian_attention.theorem_3_2 import CLAIMS, span_two_gap

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_first_clause_refuted_by_span_two_the_rest_hold(record):
    clauses = {c["id"]: c["verdict"] for c in record["clauses"]}
    assert clauses["no-linear-factorisation"] == "refuted"
    assert {k: v for k, v in clauses.items() if k != "no-linear-factorisation"} == {
        "span-bound": "confirmed", "quadratic-when-full-span": "confirmed", "tight": "confirmed"}
    witness = assert_witnessed(record, "heterogeneous-needs-sym", CLAIM)
    assert witness["inputs"]["q"]["shape"][-1] >= 5
    assert evidence(record, "heterogeneous-needs-sym")["violations"] == 4 * 3  # d = 5…8, 3 cases each
    assert {r["id"]: r["verdict"] for r in record["readings"]}["full-span"] == "confirmed"


def test_span_two_ranks_and_linear_universal_factorisation():
    ctx = Context("t", seed=0)
    for d in (5, 8):
        q, k, u, _ = family(ctx, ctx.generator(f"two{d}"), "two", 2, (d + 1) * (d + 2) + 12, d)
        rank, _, _ = numerical_rank(operators.metric_scores(q, k, uq=u, uk=u, path="direct"))
        assert rank.tolist() == [d + 8] * 2 and d + 8 < d * (d + 1) // 2
        gap, _, tol = span_two_gap({"q": q, "k": k, "u": u})
        assert bool((gap <= tol).all())


def test_full_span_rank_is_quadratic():
    ctx = Context("t", seed=0)
    for d in (3, 6):
        q, k, u, _ = family(ctx, ctx.generator("x"), "full", 2, (d + 1) * (d + 2) + 12, d)
        rank, _, _ = numerical_rank(operators.metric_scores(q, k, uq=u, uk=u, path="direct"))
        assert rank.tolist() == [(d + 1) * (d + 2)] * 2
