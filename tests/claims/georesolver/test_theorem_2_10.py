"""Theorem 2.10: IDA at an exact match returns the stored noisy label, so the η-dependent part of
the test error is first order in η in every reading (the noise-bound clause refuted by a false
statement step and fitted intervals excluding η²); the proof is flawed at its first false quoted step
(W_ij = α_i/(n−1) + O(ε²n/d_min⁴)), then its 4α²η² and its dropped O(ε²n²/d_min⁴) term; the suite's
exact expectation holds behind a failing control, independence of d_h within a hand-set tolerance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from claimtest import assert_excluded, evidence, run

from attnaudit.checks.fitting import closed_form_bias
from attnaudit.claims.georesolver import theorem_2_10 as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_statement_refuted_proof_flawed(record):
    assert record["proof"]["first_false_step"] == "other-weights"
    assert {q["id"]: q["status"] for q in record["proof"]["steps"]} == {
        "self-weight": "agrees", "self-expansion": "agrees", "other-weights": "disagrees",
        "prediction": "agrees", "expectation": "disagrees", "summing": "disagrees", "width": "unchecked"}
    steps = record["derivation"]["steps"]
    first = next(s for s in steps if s.get("step") == "other-weights")
    assert first["role"] == "proof" and first["derived"] == "epsilon/(4*p)"  # first order, not ε²
    statement = [s for s in steps if s["role"] == "statement"]
    assert [(s["method"], s["status"], s["clause"]) for s in statement] == [
        ("leading-order", "disagrees", "noise-bound")]
    assert statement[0]["derived"] == "4*W_ii**2*eta"  # Θ(η) for every n, not O(η²)
    assert {c["id"]: c["verdict"] for c in record["clauses"]}["noise-bound"] == "refuted"
    assert {r["id"]: r["verdict"] for r in record["readings"]} == {
        "primary": "refuted", "zero-one": "refuted", "fresh-queries": "refuted"}


def test_noise_enters_at_first_order_in_every_reading(record):
    for name in ("test-error-vs-eta", "test-01-error-vs-eta", "fresh-test-error-vs-eta"):
        law = evidence(record, name)
        assert_excluded(law)
        assert abs(law["fit"]["exponent"] - 1) < 0.05 and law["replicates"] == spec.REPLICATES


def test_dropped_term_decides_the_proof_not_the_statement(record):
    law = evidence(record, "test-error-vs-n")
    assert (law["role"], law["step"]) == ("proof", "summing")
    assert_excluded(law)


def test_width_and_the_exact_expectation(record):
    # E_test does not grow with d_h, but the ε policy pins it for every geometry: the clause is vacuous.
    width = evidence(record, "test-error-vs-dh")
    assert (width["clause"], width["role"], width["status"]) == ("width-free", "statement", "agrees")
    assert abs(width["fit"]["exponent"]) < spec.DH_TOL.value
    clause = next(c for c in record["clauses"] if c["id"] == "width-free")
    assert clause["verdict"] == "inconclusive" and clause["summary"].startswith("vacuous")
    # The suite's exact expectation matches the Monte Carlo; the proof's 4α²η² does not.
    exact = evidence(record, "exact-expectation")
    assert (exact["status"], exact["role"]) == ("agrees", "derivation")
    assert [(c["contrast"], c["failed"]) for c in exact["controls"]] == [("prediction", True)]


def test_tolerances_cover_their_systematic_effects():
    excess = [spec.equidistant_error(spec.C_EPS, e, spec.ETA_LAW_N, 0.0)
              - spec.equidistant_error(spec.C_EPS, 0.0, spec.ETA_LAW_N, 0.0) for e in spec.ETA_GRID]
    assert abs(closed_form_bias(np.array(spec.ETA_GRID), np.array(excess), 1.0)) < spec.ETA_TOL.value
    # Under ε = c·d_min²/n, W_ii ∈ (1/(1+c), 1]: E_test stays in [L, U] for every geometry, and the
    # tolerance is the largest log-slope that range allows over d_h = 2 … 2048 (a step in the middle).
    low, high = spec.pinned_range(spec.DH_LAW_ETA, spec.C_EPS)
    assert low < spec.equidistant_error(spec.C_EPS, spec.DH_LAW_ETA, spec.DH_LAW_N, 1.0) < high
    assert spec.DH_TOL.value == pytest.approx(1.5 * math.log(high / low) / math.log(1024))
    x = np.log(np.logspace(np.log10(2), np.log10(2048), 21))
    step = np.where(x > x.mean(), math.log(high), math.log(low))
    assert np.polyfit(x, step, 1)[0] <= spec.DH_TOL.value * 1.05

