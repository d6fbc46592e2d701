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


def test_each_map_lands_on_the_sphere_an_identity_with_failing_controls(record):
    assert record["confirmation"] == "identity"
    assert {c["id"] for c in record["clauses"]} == {"phi_a", "phi_b", "phi_c"}
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    for name in ("phi_a-norm", "phi_b-norm", "phi_c-norm"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["cases"] == 3000
        assert [c["failed"] for c in ev["controls"]] == [True]


def test_a_wrong_radius_is_refuted():
    check = CLAIM.check("phi_b-norm")
    wrong = dataclasses.replace(check, evaluate=scaled_rhs(check.evaluate, 1.001), controls=())
    assert run(only(CLAIM, wrong))["verdict"] == "refuted"
