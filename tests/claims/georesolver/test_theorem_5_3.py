"""Theorem 5.3: on the geodesic the hyperbolic two-key problem is Theorem 2.6's in arclength (checked on
Dense-HIDA; the proof's Euclidean placement breaks the distance hypothesis); each of the three clauses
is refuted on its own (μ_HIDA ∝ ε² but Δ_H⁻⁶, μ_soft's rate doubles, the ratio falls like Δ_H⁻⁴); the
proof's first false step is its placement k₂ = (Δ_H, 0, …), then the expansion misses the factor 4."""

from __future__ import annotations

import pytest
from claimtest import assert_interval_excludes, evidence, run

from attnaudit.claims.georesolver.theorem_5_3 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_each_clause_refuted_on_its_own_evidence(record):
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {
        "mu-hida": "refuted", "mu-soft": "refuted", "ratio": "refuted"}
    fit = assert_interval_excludes(record, "pl-hida-vs-delta", -4.0)
    assert abs(fit["exponent"] + 6) < 0.05
    assert_interval_excludes(record, "pl-soft-vs-gap", 0.0)
    assert abs(evidence(record, "pl-hida-vs-eps")["fit"]["exponent"] - 2) < 0.05
    ratio = assert_interval_excludes(record, "ratio-vs-delta", -2.0)
    assert abs(ratio["exponent"] + 4) < 0.05
    assert "Δ_H⁶" in record["corrected"]["statement"]


def test_proof_flawed_at_the_placement_then_the_expansions(record):
    proof = record["proof"]
    assert (proof["status"], proof["first_false_step"]) == ("flawed", "placement")
    steps = {q["id"]: q["status"] for q in proof["steps"]}
    assert list(steps) == ["placement", "expansion-k1", "expansion-k2", "slope-zero", "curvature",
                           "conclusion"]
    assert set(steps.values()) == {"disagrees"}
    placement = next(s for s in record["derivation"]["steps"] if s.get("step") == "placement")
    assert placement["derived"] == "2*atanh(Delta_H)"


def test_reduction_holds_on_the_operator_and_the_literal_placement_fails(record):
    ev = evidence(record, "geodesic-reduction")
    assert (ev["role"], ev["status"]) == ("derivation", "agrees")
    assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("hypothesis", True)]
