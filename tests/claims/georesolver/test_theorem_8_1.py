"""Theorem 8.1: on the sphere μ_SIDA ∝ ε² (confirmed, softmax control fails) but ∝ θ⁻⁶, not θ⁻⁴;
μ_soft is not Θ(e^{−(1−cos θ)}/θ²); the ratio decays like ε², so no ε-free bound."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_interval_excludes, evidence, run, run_predicting

from attnaudit.claims.georesolver.theorem_8_1 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_refuted_with_excluding_intervals_and_flawed_proof(record):
    fit = assert_interval_excludes(record, "sida-pl-vs-theta", -4.0)
    assert abs(fit["exponent"] + 6) < 0.05
    assert_interval_excludes(record, "soft-pl-vs-theta", 0.0)


def test_eps_dependence_confirmed_with_failing_control(record):
    ev = evidence(record, "sida-pl-vs-eps")
    assert ev["status"] == "agrees" and abs(ev["fit"]["exponent"] - 2) < 0.02
    assert [c["failed"] for c in ev["controls"]] == [True]


def test_every_clause_refuted_and_first_false_step_the_papers_first(record):
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {
        "sida": "refuted", "soft": "refuted", "ratio": "refuted"}
    assert record["proof"]["first_false_step"] == "same-form"
    assert abs(evidence(record, "ratio-vs-inverse-eps")["fit"]["exponent"] + 2) < 0.05


def test_the_measured_exponent_as_prediction_confirms_the_eps_law():
    law = dataclasses.replace(CLAIM.check("sida-pl-vs-theta"), exponent=-6.0)
    assert run_predicting(CLAIM, law)["verdict"] == "inconclusive"  # agrees, but has no control


def test_a_wrong_eps_exponent_is_refuted():
    law = dataclasses.replace(CLAIM.check("sida-pl-vs-eps"), exponent=1.0, controls=())
    assert run_predicting(CLAIM, law)["verdict"] == "refuted"
