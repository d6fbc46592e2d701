"""Lemma 9.1 (DMG surprise count): refuted by a false statement step and by (log T)-fits that exclude
the O(log T) bound for every parameter set and both triggers; the proof is flawed at the
supermartingale step; the suite's Θ(T) reading is confirmed behind a failing control, and moving its
exponent turns it into a refutation."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_excluded, evidence, run, run_predicting

from attnaudit.claims.georesolver import lemma_9_1 as spec

CLAIM = spec.CLAIM


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_refuted_by_statement_step_and_every_log_fit(record):
    false = [s for s in record["derivation"]["steps"]
             if s["role"] == "statement" and s["status"] == "disagrees"]
    assert [s["derived"] for s in false] == ["T*p"]
    for tag in (*spec.MEAN_SETS, "loss"):
        ev = evidence(record, f"count-vs-log-t-{tag}")
        assert_excluded(ev)
        assert ev["fit"]["ci"][0] > 5.0  # (log T)^p with p far above 1: a power of T
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings == {"primary": "refuted", "loss-trigger": "refuted", "suite-corrected": "confirmed"}


def test_proof_flawed_at_the_supermartingale(record):
    assert record["proof"]["first_false_step"] == "define-m"  # "Define the supermartingale"
    sigma = next(s for s in record["derivation"]["steps"] if s["name"].startswith("under the null E[σ_t]"))
    assert sigma["status"] == "disagrees" and sigma["derived"] == "sigma_0/sqrt(pi)"


def test_linear_growth_is_the_decisive_figure(record):
    ev = evidence(record, "count-vs-t-a")
    assert ev["replicates"] == spec.REPLICATES and ev["points"]["yerr"] is not None  # engine error bars
    assert ev["status"] == "agrees" and abs(ev["fit"]["exponent"] - 1.0) < 0.1
    assert [c["failed"] for c in ev["controls"]] == [True]
    assert "Θ(T)" in record["corrected"]["statement"]
    # The count is a rate times T: between 1e-3 and 0.1 surprises per step on every set.
    for tag in (*spec.MEAN_SETS, "loss"):
        points = evidence(record, f"count-vs-log-t-{tag}")["points"]
        assert 1e-3 < points["y"][-1] / points["x"][-1] < 0.1


def test_a_wrong_exponent_turns_the_confirmation_into_a_refutation():
    check = dataclasses.replace(CLAIM.check("count-vs-t-a"), reading=None, exponent=0.5, controls=())
    record = run_predicting(CLAIM, check)
    assert record["verdict"] == "refuted"
    assert_excluded(evidence(record, "count-vs-t-a"))
