"""Proposition 11.3 (K-slot quantisation error): refuted at d = 8 by a false statement step (volume
bound K^(-2/d)) and an excluding fit; confirmed at d = 2 behind a failing control; no argument."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_excluded, evidence, run, run_predicting

from attnaudit.claims.georesolver import proposition_11_3 as spec

CLAIM = spec.CLAIM


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_refuted_at_d8_with_the_zador_exponent(record):
    ev = evidence(record, f"distortion-vs-k-d{spec.DIM}")
    assert_excluded(ev)
    assert -0.3 < ev["fit"]["exponent"] < -0.15  # → −2/d = −1/4 from above on K ∈ [1, 1000]
    false = [s for s in record["derivation"]["steps"] if s["status"] == "disagrees"]
    assert [s["role"] for s in false] == ["statement"] and false[0]["derived"] == "K**(-1/4)"


def test_corrected_statement_claims_no_attainment_the_fit_excludes(record):
    fit = evidence(record, f"distortion-vs-k-d{spec.DIM}")["fit"]
    text = record["corrected"]["statement"]
    assert "attained" not in text
    if fit["ci"][0] > -2 / spec.DIM or fit["ci"][1] < -2 / spec.DIM:  # the interval excludes −2/d
        assert "consistent with" not in text and f"{fit['exponent']:.3g}" in text


def test_low_dimension_confirmed_behind_a_failing_control(record):
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings == {"primary": "refuted", "low-dimension": "confirmed", "online-k-means": "refuted"}
    ev = evidence(record, f"distortion-vs-k-d{spec.LOW_DIM}")
    assert -1.1 < ev["fit"]["exponent"] < -0.85
    assert [c["failed"] for c in ev["controls"]] == [True]


def test_a_wrong_prediction_turns_the_confirmation_into_a_refutation():
    check = dataclasses.replace(CLAIM.check(f"distortion-vs-k-d{spec.LOW_DIM}"), reading=None,
                                exponent=-1.5, controls=())
    assert run_predicting(CLAIM, check)["verdict"] == "refuted"


def test_part_one_online_k_means_regret_is_linear_with_the_constant_step(record):
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings["online-k-means"] == "refuted"
    ev = evidence(record, "online-k-means-regret-increment")
    assert_excluded(ev)
    assert ev["fit"]["exponent"] > 0.6
