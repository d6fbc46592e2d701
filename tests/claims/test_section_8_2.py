"""§8.2: all three maps land on the unit sphere (symbolically for φ_B, numerically for all three over
twelve decades of ‖c‖), and each check's wrong-map control fails."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import evidence, only, run, scaled_rhs

from attnaudit.claims.georesolver.section_8_2 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_with_absent_proof_and_failing_controls(record):
    assert record["verdict"] == "confirmed" and record["proof"]["status"] == "absent"
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    for name in ("phi_a-norm", "phi_b-norm", "phi_c-norm"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["cases"] == 3000
        assert [c["failed"] for c in ev["controls"]] == [True]


def test_a_wrong_radius_is_refuted():
    check = CLAIM.check("phi_b-norm")
    wrong = dataclasses.replace(check, evaluate=scaled_rhs(check.evaluate, 1.001), controls=())
    assert run(only(CLAIM, wrong))["verdict"] == "refuted"
