"""§2.8 degradation: the recommendation ε = 0.01·E‖q−k‖² is refuted (a false statement step, a replayable
witness with ρ >= 1/2 and ρ growing with n); the paper gives no argument (proof absent); the threshold
read as a sufficient condition for retrieval, and the suite's onset readings, are confirmed behind
failing controls."""

from __future__ import annotations

import numpy as np
import pytest
from claimtest import assert_interval_excludes, assert_witnessed, evidence, run

from attnaudit.checks.fitting import closed_form_bias
from attnaudit.claims.georesolver.section_2_8 import CLAIMS, derivation, worst_weight

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_recommendation_refuted_by_a_false_step_a_witness_and_the_growth_of_rho(record):
    assert [c["id"] for c in record["clauses"]] == ["recommendation"]
    primary = [s for s in record["derivation"]["steps"] if s["reading"] is None]
    assert [s["status"] for s in primary] == ["agrees", "disagrees"]  # E‖q−k‖² = 2dσ²; ρ < 1/2 fails
    assert assert_witnessed(record, "recommended-eps-below-half", CLAIM)["lhs"] > 0.5
    fit = assert_interval_excludes(record, "rho-at-recommended-eps-vs-n", 0.0)
    assert evidence(record, "rho-at-recommended-eps-vs-n")["replicates"] == 4
    assert fit["ci"][0] > 1.0  # faster than n at d = 64
    assert record["corrected"]["basis"] == ["recommended-eps-below-half", "rho-at-recommended-eps-vs-n"]


def test_no_argument_in_the_source(record):
    assert record["proof"]["first_false_step"] is None
    assert all(e["role"] == "statement" for e in record["evidence"])


def test_threshold_and_onset_readings_confirmed_behind_failing_controls(record):
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings == {"primary": "refuted", "below-half-retrieves": "confirmed", "onset": "confirmed"}
    controlled = [e for e in record["evidence"] if e["reading"] is not None]
    assert len(controlled) == 5
    assert all([c["failed"] for c in e["controls"]] == [True] for e in controlled)
    assert sorted(c["contrast"] for e in controlled for c in e["controls"]) == [
        "hypothesis", "prediction", "prediction", "prediction", "prediction"]
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"] if s["reading"] is not None)


def test_below_half_margin_and_the_tight_worst_case_bound(record):
    # Below ρ = 1/2 the weight stays above 2/3 (relative margin <= −1/3), and the 64-simplex comes close
    # (1/(1 + 0.5·63/63.5) ≈ 0.669); the worst-case bound is attained (simplices, stars) to round-off.
    closest = evidence(record, "majority-retrieval-below-half")["closest_relative_margin"]
    assert 1 - 2 * worst_weight(0.5, 64) - 0.02 < closest <= -1 / 3
    assert -1e-10 < evidence(record, "weight-lower-bound-in-rho")["closest_relative_margin"] <= 0


def test_deficit_tolerance_covers_the_closed_form_bias():
    for points in (7, 31):  # both profiles' ρ grids
        grid = np.logspace(-5, -2, points)
        rho = grid * 63 / (63 + grid)
        bias = closed_form_bias(grid, rho / (1 + rho), 1.0)
        for name in ("deficit-vs-rho-worst-case", "deficit-vs-rho-gaussian"):
            assert CLAIM.check(name).exponent_tolerance >= 2 * abs(bias)


def test_derivation_decides_every_step():
    assert all(s.status != "undecided" for s in derivation())
