"""Theorem 5.3: on the geodesic the hyperbolic two-key problem is Theorem 2.6's in arclength (checked on
Dense-HIDA, the proof's Euclidean placement fails); μ_HIDA ∝ ε² but Δ_H⁻⁶, not Δ_H⁻⁴; the proof's
expansion d_H(0,q)² = q² + O(q⁴) misses the factor 4."""

from __future__ import annotations

import pytest
from claimtest import assert_interval_excludes, evidence, run

from attnaudit.claims.georesolver.theorem_5_3 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_refuted_by_the_delta_exponent_proof_flawed_at_the_expansion(record):
    assert (record["verdict"], record["proof"]["status"]) == ("refuted", "flawed")
    assert record["proof"]["first_false_step"].startswith("the proof's expansion d_H(q, k₁)²")
    fit = assert_interval_excludes(record, "pl-hida-vs-delta", -4.0)
    assert abs(fit["exponent"] + 6) < 0.05
    assert_interval_excludes(record, "pl-soft-vs-gap", 0.0)
    assert abs(evidence(record, "pl-hida-vs-eps")["fit"]["exponent"] - 2) < 0.05
    ratio = assert_interval_excludes(record, "ratio-vs-delta", -2.0)
    assert abs(ratio["exponent"] + 4) < 0.05


def test_reduction_holds_on_the_operator_and_the_literal_placement_fails(record):
    ev = evidence(record, "geodesic-reduction")
    assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
    assert "Δ_H⁶" in record["corrected"]["statement"]
