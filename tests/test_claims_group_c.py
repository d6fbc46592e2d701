"""Group C specs (GeoResolver Lemma 2.4 score-gradient maximum, Lemma 2.5, Theorem 2.8): the real
verdicts, and for every kind of check they use, altered variants showing it can go either way
(a true statement confirmed, a false one refuted with a witness or an excluding interval)."""

from __future__ import annotations

import dataclasses
import math

import pytest
import sympy as sp
from claimtest import assert_excluded, assert_refuted_with_witness, evidence, only, run, scaled_rhs

from checks import Context, Kind
from checks.relations import replay_witness
from claims.georesolver import lemma_2_4, lemma_2_5, theorem_2_8

SCORE = lemma_2_4.CLAIMS[0]
SOFTMAX, IDA = lemma_2_5.CLAIMS[:2]
RANK = theorem_2_8.CLAIMS[0]


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in (SCORE, SOFTMAX, IDA, RANK)}


# ── the real claims ──


def test_score_gradient_max_is_confirmed(records):
    record = records[SCORE.id]
    assert record["verdict"] == "confirmed", record["summary"]
    assert all(step["agrees"] for step in record["derivation"]["steps"])
    assert record["corrected"] is None
    # The bound is attained: the closest approach is at round-off level, not a loose margin.
    assert -1e-9 < evidence(record, "bound")["closest_relative_margin"] <= 0


def test_softmax_is_refuted_by_its_order_step_and_the_fit(records):
    record = records[SOFTMAX.id]
    assert record["verdict"] == "refuted"
    steps = record["derivation"]["steps"]
    first = steps[record["derivation"]["first_disagreement"]]
    assert first["method"] == "leading-order" and first["derived"] == "-2/n"
    assert all(s["agrees"] for s in steps[:-1])  # the intermediate expressions are right
    law = evidence(record, "order-in-n")
    assert_excluded(law)
    assert abs(law["fit"]["exponent"] + 1) < law["exponent_tolerance"]
    assert evidence(record, "second-derivative")["status"] == "agrees"
    assert "Θ(n^-1)" in record["corrected"]["statement"]


def test_ida_statement_refuted_proof_regime_confirmed(records):
    record = records[IDA.id]
    assert record["verdict"] == "refuted"
    steps = record["derivation"]["steps"]
    assert [s["name"] for s in steps if not s["agrees"]] == [steps[-1]["name"]]
    assert_excluded(evidence(record, "fixed-eps"))
    assert abs(evidence(record, "fixed-eps")["fit"]["exponent"] + 1) < 0.01
    assert evidence(record, "proof-regime")["status"] == "agrees"
    assert evidence(record, "second-derivative")["status"] == "agrees"
    corrected = record["corrected"]["statement"]
    assert "Θ(n^-1)" in corrected and "Θ(n)" in corrected


def test_theorem_2_8_refuted_with_a_minimal_replayable_witness(records):
    record = records[RANK.id]
    assert record["derivation"]["steps"][record["derivation"]["first_disagreement"]]["name"] \
        .startswith("E = K − ε⁻¹I")
    witness = assert_refuted_with_witness(record, "paper-bound")
    assert witness["found_by"] == "hypothesis" and witness["shrunk"]
    assert witness["inputs"]["x"]["shape"][-2] == 2  # shrunk to two points
    replayed = replay_witness(RANK.check("paper-bound"), witness)
    assert replayed["margin"] > 0 and replayed["lhs"] == pytest.approx(witness["lhs"])
    assert evidence(record, "corrected-lower-bound")["status"] == "agrees"
    assert "full rank" in record["corrected"]["statement"]


# ── altered variants: each kind of check can go the other way ──


def test_wrong_maximum_constant_and_location_are_refuted():
    wrong = 18 / (16 * math.sqrt(2))
    max_value = dataclasses.replace(SCORE.check("max-value"),
                                    evaluate=lemma_2_4.max_value_gap(wrong))
    argmax = dataclasses.replace(SCORE.check("argmax"), evaluate=lemma_2_4.argmax_gap(0.5))
    record = run(only(SCORE, max_value, argmax))
    assert_refuted_with_witness(record, "max-value")
    assert_refuted_with_witness(record, "argmax")


def test_gradient_bound_refuted_when_too_small_confirmed_when_loose():
    too_small = dataclasses.replace(SCORE.check("bound"), evaluate=lemma_2_4.bound_gap(18 / 32))
    record = run(only(SCORE, too_small))
    witness = assert_refuted_with_witness(record, "bound")
    assert replay_witness(too_small, witness)["margin"] > 0
    assert evidence(record, "bound")["hypothesis"]["examples"] > 0
    loose = dataclasses.replace(SCORE.check("bound"),
                                evaluate=lemma_2_4.bound_gap(18 / (16 * math.sqrt(2))))
    assert run(only(SCORE, loose))["verdict"] == "confirmed"


def test_identity_relations_refute_a_slightly_wrong_closed_form():
    for claim, name in ((SCORE, "gradient-norm"), (SOFTMAX, "second-derivative"),
                        (IDA, "second-derivative")):
        check = claim.check(name)
        altered = dataclasses.replace(check, evaluate=scaled_rhs(check.evaluate, 1 + 1e-9),
                                      strategy=None)
        assert_refuted_with_witness(run(only(claim, altered)), name)


def test_softmax_true_exponent_is_confirmed():
    law = dataclasses.replace(SOFTMAX.check("order-in-n"), exponent=-1.0, grid=decades)
    record = run(only(SOFTMAX, law))
    assert record["verdict"] == "confirmed"
    assert record["corrected"] is None


def decades(ctx):
    """A lighter grid for altered laws: one point a decade over the same three decades."""
    return lemma_2_5._n_grid(ctx)[::3]


def test_ida_scaling_laws_go_both_ways():
    fixed = dataclasses.replace(IDA.check("fixed-eps"), exponent=-1.0, grid=decades)
    regime = dataclasses.replace(IDA.check("proof-regime"), exponent=0.0, grid=decades)
    record = run(only(IDA, fixed, regime))
    assert evidence(record, "fixed-eps")["status"] == "agrees"
    assert_excluded(evidence(record, "proof-regime"))
    assert record["verdict"] == "refuted"


def test_ida_theta_one_regime_of_the_correction():
    """The correction says ε = cρ²/n² gives Θ(1): measured, that law is confirmed."""
    law = dataclasses.replace(
        IDA.check("proof-regime"), name="square-regime", exponent=0.0, grid=decades,
        measure=lemma_2_5._ida_measure(lambda m: lemma_2_5.C_PROOF / m**2))
    assert run(only(IDA, law))["verdict"] == "confirmed"


def test_effective_rank_true_bound_confirmed_false_bound_refuted():
    at_most_n = dataclasses.replace(RANK.check("paper-bound"), name="at-most-n", rhs="n",
                                    evaluate=theorem_2_8.full_rank_gap)
    assert run(only(RANK, at_most_n))["verdict"] == "confirmed"
    at_least_n = dataclasses.replace(at_most_n, name="at-least-n", rel=">=")
    assert_refuted_with_witness(run(only(RANK, at_least_n)), "at-least-n")


# ── the numbers the tolerances rest on ──


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_exponent_tolerances_cover_the_pre_asymptotic_curvature(profile):
    grid = lemma_2_5._n_grid(Context("x", seed=0, profile=profile))
    assert math.log10(grid.max() / grid.min()) >= 3
    n, eps, rho, c = lemma_2_5.n, lemma_2_5.eps, lemma_2_5.rho, lemma_2_5.c
    ida = lemma_2_5.CURVATURE_IDA
    cases = [
        (lemma_2_5.CURVATURE_SOFT, -1, SOFTMAX.check("order-in-n")),
        (ida.subs({eps: 1, rho: 1}), -1, IDA.check("fixed-eps")),
        (ida.subs(lemma_2_5.PROOF_REGIME).subs({c: lemma_2_5.C_PROOF, rho: 1}), 1,
         IDA.check("proof-regime")),
    ]
    for expr, limit_exponent, law in cases:
        bias = lemma_2_5._local_slope_deviation(expr, n, grid, limit_exponent)
        assert bias < law.exponent_tolerance / 1.9


def test_curvature_at_the_gradient_maximum():
    a, eps = sp.symbols("a epsilon", positive=True)
    g = a / (a**2 + eps) ** 2
    a_star = sp.sqrt(eps / 3)
    ratio = sp.simplify(sp.diff(g, a, 2).subs(a, a_star) * a_star**2 / (2 * g.subs(a, a_star)))
    assert ratio == -sp.Rational(3, 4) and lemma_2_4.CURVATURE == 0.75


def test_claims_are_well_formed():
    assert SCORE.kind is Kind.IDENTITY
    assert SOFTMAX.kind is Kind.ASYMPTOTIC and IDA.kind is Kind.ASYMPTOTIC
    assert RANK.kind is Kind.INEQUALITY
    assert [c.id for c in (SCORE, SOFTMAX, IDA, RANK)] == [
        "georesolver/lemma-2.4/score-gradient-max", "georesolver/lemma-2.5/softmax",
        "georesolver/lemma-2.5/ida", "georesolver/theorem-2.8/small-eps"]
    assert isinstance(lemma_2_4.CLAIMS, tuple) and isinstance(theorem_2_8.CLAIMS, tuple)
