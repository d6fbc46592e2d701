"""Theorem 3.2: ranks meet min{span, d(d+1)/2}; the vectorised factorisation is exact; the review's two
objections hold (span 2 gives O(d) rank; homogeneous needs ≥ d)."""

from __future__ import annotations

import pytest
from claimtest import assert_witnessed, evidence, run

from attnaudit.claims.riemannian_attention.theorem_3_2 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_and_readings(record):
    assert record["verdict"] == "confirmed"
    for name in ("rank-lower-bound", "vectorised-factorisation"):
        assert [c["failed"] for c in evidence(record, name)["controls"]] == [True]
    verdicts = {r["id"]: r["verdict"] for r in record["readings"]}
    assert verdicts == {"primary": "confirmed", "nonconstant-family": "refuted",
                        "euclidean-part": "confirmed"}
    assert_witnessed(record, "nonconstant-needs-sym", CLAIM)


def test_full_span_rank_is_quadratic():
    from attnaudit import operators
    from attnaudit.checks.context import Context
    from attnaudit.checks.measure import numerical_rank
    from attnaudit.claims.riemannian_attention._ranks import family

    ctx = Context("t", seed=0)
    for d in (3, 6):
        q, k, u, _ = family(ctx, ctx.generator("x"), "full", 2, (d + 1) * (d + 2) + 12, d)
        rank, _, _ = numerical_rank(operators.metric_scores(q, k, uq=u, uk=u, path="direct"))
        assert rank.tolist() == [(d + 1) * (d + 2)] * 2
