"""Theorem 2.10: IDA at an exact match returns the stored noisy label, so the η-dependent part of
the test error is first order in η in every reading (statement refuted by a false statement step
and fitted intervals excluding η²); the proof is flawed (its W_ij expansion, its 4α²η², its dropped
O(ε²n²/d_min⁴) term); independence of d_h and the exact expectation hold behind failing controls."""

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
    assert record["verdict"] == "refuted"
    assert record["proof"]["status"] == "flawed"
    steps = record["derivation"]["steps"]
    first = next(s for s in steps if s["name"] == record["proof"]["first_false_step"])
    assert first["role"] == "proof" and first["derived"] == "epsilon/(4*p)"  # first order, not ε²
    false_statement = [s for s in steps if s["role"] == "statement" and s["status"] == "disagrees"]
    assert [s["method"] for s in false_statement] == ["leading-order"]
    assert false_statement[0]["derived"] == "4*W_ii**2*eta"  # Θ(η) for every n, not O(η²)
    assert sum(s["status"] != "agrees" for s in steps if s["role"] == "statement") == 1
    assert {r["id"]: r["verdict"] for r in record["readings"]} == {
        "primary": "refuted", "zero-one": "refuted", "fresh-queries": "refuted"}


def test_noise_enters_at_first_order_in_every_reading(record):
    for name in ("test-error-vs-eta", "test-01-error-vs-eta", "fresh-test-error-vs-eta"):
        law = evidence(record, name)
        assert_excluded(law)
        assert abs(law["fit"]["exponent"] - 1) < 0.05


def test_dropped_term_decides_the_proof_not_the_statement(record):
    law = evidence(record, "test-error-vs-n")
    assert law["role"] == "proof"
    assert_excluded(law)


def test_confirmed_parts_discriminate(record):
    for name in ("test-error-vs-dh", "exact-expectation"):
        ev = evidence(record, name)
        assert (ev["status"], ev["role"]) == ("agrees", "statement")
        assert [c["failed"] for c in ev["controls"]] == [True]


def test_tolerances_cover_their_systematic_effects():
    excess = [spec.equidistant_error(spec.C_EPS, e, spec.ETA_LAW_N, 0.0)
              - spec.equidistant_error(spec.C_EPS, 0.0, spec.ETA_LAW_N, 0.0) for e in spec.ETA_GRID]
    assert abs(closed_form_bias(np.array(spec.ETA_GRID), np.array(excess), 1.0)) < spec.ETA_TOL.value
    # Under ε = c·d_min²/n, W_ii ∈ (1/(1+c), 1]: E_test moves by ≤ (1+c)² across any d_h range.
    assert 2 * math.log(1 + spec.C_EPS) / math.log(1024) < spec.DH_TOL.value / 3

