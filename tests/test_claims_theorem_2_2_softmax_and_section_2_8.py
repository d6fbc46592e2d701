"""GeoResolver Theorem 2.2 (softmax analysis) and §2.8 (degradation regime, ε recommendation):
each claim is run once in the quick profile; every refutation is pinned to its first false step,
its replayable witness or its excluding interval, and every confirming check is shown to refute a
deliberately false variant (wrong closed form, exponent, direction or constant).
"""

from __future__ import annotations

import dataclasses
import functools

import pytest
from claimtest import assert_interval_excludes, assert_witnessed, evidence, only, run

from claims.georesolver import section_2_8, theorem_2_2

SOFTMAX = next(c for c in theorem_2_2.CLAIMS if c.id == "georesolver/theorem-2.2/softmax")
DEGRADATION = section_2_8.CLAIMS[0]


@pytest.fixture(scope="module")
def softmax_record():
    return run(SOFTMAX)


@pytest.fixture(scope="module")
def degradation_record():
    return run(DEGRADATION)


# ── Theorem 2.2, softmax analysis ──


def test_theorem_2_2_module_keeps_the_ida_claim_and_adds_the_softmax_claim():
    assert [c.id for c in theorem_2_2.CLAIMS] == ["georesolver/theorem-2.2/ida",
                                                  "georesolver/theorem-2.2/softmax"]
    assert [c.name for c in theorem_2_2.CLAIMS[0].checks] == [
        "w11-closed-form", "eps-star-vs-n", "eps-star-vs-r", "eps-star-vs-delta"]


def test_softmax_first_false_step_is_the_reversed_inequality_on_d(softmax_record):
    record = softmax_record
    assert record["verdict"] == "refuted"
    steps = record["derivation"]["steps"]
    first = record["derivation"]["first_disagreement"]
    assert steps[first]["name"] == "with R <= R_max: d >= (R_max²/log((n−1)/(2δ)))²"
    # Every step before it (closed form, 1/(1−δ) <= 1+2δ, logs) is right; the later false steps are
    # the Ω((log n)²) order of the paper's own bound and the multi-head disjunction.
    assert all(s["agrees"] for s in steps[:first])
    false_names = {s["name"] for s in steps if not s["agrees"]}
    assert false_names == {
        "with R <= R_max: d >= (R_max²/log((n−1)/(2δ)))²",
        "(R_max²/log((n−1)/(2δ)))² = Ω((log n)²)",
        "H·d_h >= c(log n)² ⇒ d_h = Ω((log n)²) or H = Ω(log n)",
    }


def test_softmax_paper_necessary_condition_has_a_replayable_witness(softmax_record):
    witness = assert_witnessed(softmax_record, "paper-necessary-condition", SOFTMAX)
    inputs = witness["inputs"]
    n, d = inputs["n"]["value"], inputs["d"]["value"]
    r, delta = inputs["R"]["data"][0], inputs["delta"]["data"][0]
    # The witness retrieves (it is inside the exact region d <= d*) yet d is below the paper's bound.
    assert d >= n and d <= theorem_2_2.softmax_d_star(n, delta, r)
    assert d < theorem_2_2.paper_d_bound(n, delta, r) == pytest.approx(witness["rhs"])


def test_softmax_boundary_decreases_in_n_and_the_correction_says_so(softmax_record):
    fit = assert_interval_excludes(softmax_record, "retrieval-boundary-vs-n", 0.0)
    assert fit["ci"][1] < -0.15  # d* = R⁴/log²(…) falls like (log n)^−2
    corrected = softmax_record["corrected"]["statement"]
    assert "d <= d* = (R²/log((n−1)(1−δ)/δ))²" in corrected


def test_softmax_confirming_checks_agree(softmax_record):
    for name in ("w11-closed-form", "retrieval-region", "multihead-split-weight", "min-radius-vs-n"):
        assert evidence(softmax_record, name)["status"] == "agrees", name


def test_softmax_false_variants_of_the_confirming_checks_are_refuted():
    claim = SOFTMAX
    wrong = only(
        claim,
        dataclasses.replace(claim.check("w11-closed-form"),
                            evaluate=functools.partial(theorem_2_2.soft_w11_gap, d_power=1.0)),
        dataclasses.replace(claim.check("retrieval-region"),
                            evaluate=functools.partial(theorem_2_2.region_sides, reverse=True)),
        dataclasses.replace(claim.check("multihead-split-weight"),
                            evaluate=functools.partial(theorem_2_2.multihead_sides,
                                                       uniform_heads=False)),
        dataclasses.replace(claim.check("min-radius-vs-n"), exponent=0.5),
    )
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert_witnessed(record, "w11-closed-form", wrong)  # logit R²/d instead of R²/√d
    assert_witnessed(record, "retrieval-region", wrong)  # the paper's direction d >= d*
    assert_witnessed(record, "multihead-split-weight", wrong)
    assert_interval_excludes(record, "min-radius-vs-n", 0.5)


def test_softmax_boundary_law_agrees_with_the_corrected_direction():
    # Control: the same measurement read as the suite's 'bounded (non-increasing) in n' agrees, so
    # the refutation is the prediction's direction, not a defect of the measurement.
    law = dataclasses.replace(SOFTMAX.check("retrieval-boundary-vs-n"), order="O")
    record = run(only(SOFTMAX, law))
    assert record["verdict"] == "confirmed", record["summary"]


# ── §2.8, degradation regime and ε recommendation ──


def test_degradation_first_false_step_is_the_recommendation(degradation_record):
    record = degradation_record
    assert record["verdict"] == "refuted"
    steps = record["derivation"]["steps"]
    first = record["derivation"]["first_disagreement"]
    assert steps[first]["name"].startswith("ε = 0.01·E‖q−k‖² keeps ρ = ε(n−1)/d_min² < 1/2")
    assert first == len(steps) - 1 and all(s["agrees"] for s in steps[:first])


def test_degradation_recommendation_witness_and_rho_growth(degradation_record):
    witness = assert_witnessed(degradation_record, "recommended-eps-below-half", DEGRADATION)
    assert witness["lhs"] > 0.5
    if witness["found_by"] == "hypothesis":
        assert isinstance(witness["inputs"]["seed"]["value"], int)
    fit = assert_interval_excludes(degradation_record, "rho-at-recommended-eps-vs-n", 0.0)
    assert fit["ci"][0] > 1.0  # ρ grows faster than n at d = 64
    assert "n >= 51" in degradation_record["corrected"]["statement"]


def test_degradation_threshold_readings_agree(degradation_record):
    for name in ("majority-retrieval-below-half", "weight-lower-bound-in-rho", "worst-case-onset",
                 "deficit-vs-rho-worst-case", "deficit-vs-rho-gaussian"):
        assert evidence(degradation_record, name)["status"] == "agrees", name
    # Below ρ = 1/2 the weight stays above 2/3 (relative margin <= −1/3) and the simplices come
    # close to that (n = 64 gives 1/(1 + 0.5·63/63.5) ≈ 0.669).
    closest = evidence(degradation_record, "majority-retrieval-below-half")["closest_relative_margin"]
    assert -0.36 < closest <= -1 / 3
    # The worst-case bound is attained (regular simplices, stars) within round-off.
    tight = evidence(degradation_record, "weight-lower-bound-in-rho")["closest_relative_margin"]
    assert -1e-10 < tight <= 0


def test_degradation_false_variants_are_refuted():
    claim = DEGRADATION
    wrong = only(
        claim,
        # δ-retrieval with δ = 0.1 is not guaranteed by ρ < 1/2.
        dataclasses.replace(claim.check("majority-retrieval-below-half"),
                            evaluate=functools.partial(section_2_8.below_threshold_sides,
                                                       criterion=0.9)),
        dataclasses.replace(claim.check("weight-lower-bound-in-rho"),
                            evaluate=functools.partial(section_2_8.lower_bound_sides,
                                                       rho_factor=0.5)),
        # The paper's 1/2 as the worst-case onset of every criterion (majority included).
        dataclasses.replace(claim.check("worst-case-onset"),
                            evaluate=functools.partial(section_2_8.onset_sides,
                                                       formula=lambda c, n: 0.5 + 0 * c)),
        dataclasses.replace(claim.check("deficit-vs-rho-worst-case"), exponent=2.0),
        dataclasses.replace(claim.check("deficit-vs-rho-gaussian"), exponent=0.5),
    )
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert_witnessed(record, "majority-retrieval-below-half", wrong)
    assert_witnessed(record, "weight-lower-bound-in-rho", wrong)
    assert_witnessed(record, "worst-case-onset", wrong)
    assert_interval_excludes(record, "deficit-vs-rho-worst-case", 2.0)
    assert_interval_excludes(record, "deficit-vs-rho-gaussian", 0.5)


def test_degradation_recommendation_law_agrees_with_linear_growth():
    # Control: the measured ρ is Ω(n¹), so the law confirms growth where it refutes boundedness.
    law = dataclasses.replace(DEGRADATION.check("rho-at-recommended-eps-vs-n"), order="Ω",
                              exponent=1.0)
    record = run(only(DEGRADATION, law))
    assert record["verdict"] == "confirmed", record["summary"]


def test_same_seed_gives_identical_records(degradation_record):
    import json

    again = run(DEGRADATION)  # Hypothesis search, bisection and bootstrap all seeded
    assert json.dumps(again, sort_keys=True) == json.dumps(degradation_record, sort_keys=True)
