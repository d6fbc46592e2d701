"""Theorem 2.8: the small-ε and general bounds refuted by shrunk, replayable witnesses with the proof
flawed at its quoted E_ij step; width independence refuted on random embeddings within the hypothesis
(widening raises the effective rank), while the earlier sandwich reading is set aside as blind (its
controls change only the setting)."""

from __future__ import annotations

import math

import pytest
import torch
from claimtest import assert_witnessed, evidence, run

from attnaudit import operators
from attnaudit.checks import Context
from attnaudit.claims.georesolver import theorem_2_8 as T

SMALL_EPS, GENERAL, WIDTH = T.CLAIMS


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in T.CLAIMS}


def verdicts(record):
    return {r["id"]: r["verdict"] for r in record["readings"]}


def test_small_eps_refuted_by_a_two_point_witness_proof_flawed_at_e_ij(records):
    record = records[SMALL_EPS.id]
    assert record["proof"]["first_false_step"] == "e-entries"
    assert [q["status"] for q in record["proof"]["steps"][:2]] == ["agrees", "disagrees"]
    witness = assert_witnessed(record, "paper-bound", SMALL_EPS)
    assert witness["found_by"] == "hypothesis" and witness["inputs"]["x"]["shape"][-2] == 2
    statement = [s for s in record["derivation"]["steps"] if s["role"] == "statement"]
    assert [s["status"] for s in statement] == ["disagrees"]
    frobenius = evidence(record, "frobenius-lower-bound")
    assert (frobenius["status"], frobenius["role"], frobenius["step"]) == ("agrees", "proof", "frobenius")


def test_general_refuted_as_rendered_alternatives_get_their_own_verdicts(records):
    record = records[GENERAL.id]
    assert record["proof"]["first_false_step"] == "e-entries"
    steps = {q["id"]: q["status"] for q in record["proof"]["steps"]}
    # the Gershgorin interval and Lemma 0's Frobenius estimate hold; the general bound is never derived
    assert (steps["gershgorin"], steps["spectrum"], steps["lemma0-frobenius"]) == ("agrees",) * 3
    assert steps["lemma0-general"] == "unchecked"
    literal = evidence(record, "literal-upper-bound")
    assert literal["violations"] == literal["cases"]  # every admissible configuration
    assert_witnessed(record, "literal-upper-bound", GENERAL)
    assert evidence(record, "proof-intermediate-upper-bound")["status"] == "disagrees"
    # reversed holds behind a softmax-kernel control that fails; the lost fraction bar is vacuous
    assert verdicts(record) == {"primary": "refuted", "fraction-bar": "inconclusive", "reversed": "confirmed"}
    controls = evidence(record, "reversed-lower-bound")["controls"]
    assert [(c["contrast"], c["failed"]) for c in controls] == [("operator", True)]
    # Lemma 0's Frobenius estimate is attained by the regular simplex: margin at round-off level
    assert -1e-9 < evidence(record, "frobenius-lower-bound")["closest_relative_margin"] <= 0


def test_width_independence_refuted_within_the_hypothesis(records):
    record = records[WIDTH.id]
    first = [s for s in record["derivation"]["steps"] if s["role"] == "statement" and s["reading"] is None]
    assert [s["status"] for s in first] == ["disagrees"]  # ∂eff-rank/∂a > 0
    widening = evidence(record, "rank-not-raised-by-widening")
    assert widening["reading"] is None and widening["violations"] > 0.9 * widening["cases"]
    assert_witnessed(record, "rank-not-raised-by-widening", WIDTH)
    gap = evidence(record, "rank-gap-vs-width")
    assert gap["status"] == "disagrees" and abs(gap["fit"]["exponent"] + 2) < 0.05  # gap ~ d_h⁻²
    assert gap["replicates"] == T.WIDTH_REPLICATES
    # the argument rests on the small-ε bound, false under the hypothesis; d_min does grow
    assert record["proof"]["first_false_step"] == "bound"
    assert {q["id"]: q["status"] for q in record["proof"]["steps"]} == {"bound": "disagrees",
                                                                       "tighter": "agrees"}


def test_sandwich_reading_is_blind_and_dmin_fixed_is_confirmed(records):
    record = records[WIDTH.id]
    assert verdicts(record) == {"primary": "refuted", "sandwich": "inconclusive", "dmin-fixed": "confirmed"}
    for name in ("dmax-upper-bound-over-width", "corrected-lower-bound-over-width"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees"
        assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("setting", False)]
    fixed = evidence(record, "eff-rank-vs-width-dmin-fixed")
    assert fixed["status"] == "agrees" and fixed["fit"]["ci"][1] < 0
    assert [(c["contrast"], c["failed"]) for c in fixed["controls"]] == [("hypothesis", True)]


def test_the_issues_family_rises_towards_n_with_width():
    """n = 32, σ = 1, ε = 1 (outside the hypothesis at small d_h): mean eff-rank rises towards n."""
    ctx = Context("width-test", seed=0)
    gen = ctx.generator("w")
    points = [T.gaussian_points_in_width(ctx, gen, f"w{d}", 2000, 32, d) for d in (2, 8, 32, 128)]
    means = [float(operators.effective_rank(operators.ida_kernel(x, eps=1.0)).mean()) for x in points]
    assert means == sorted(means) and means[0] < 6 and means[-1] > 31.9


def test_bartlett_points_have_the_gaussian_distance_distribution():
    ctx = Context("bartlett-test", seed=0)
    batch, count, width = 4000, 16, 40
    bartlett = T.gaussian_points_in_width(ctx, ctx.generator("b"), "b", batch, count, width)
    direct = torch.randn(batch, count, width, generator=ctx.generator("d"), dtype=ctx.dtype)
    ranks = [operators.effective_rank(operators.ida_kernel(x, eps=float(width))) for x in (bartlett, direct)]
    error = math.hypot(*(float(r.std()) / math.sqrt(batch) for r in ranks))
    assert abs(float(ranks[0].mean() - ranks[1].mean())) < 4 * error  # 4 standard errors
    assert bartlett.shape == (batch, count, count)
