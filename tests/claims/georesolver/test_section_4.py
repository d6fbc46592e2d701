"""§4: the Karcher mean on the ball is unique: descent from many starts ends at one point (and at the
operator's), while on the sphere (the control) it splits between two poles."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import evidence, only, run, scaled_rhs

from attnaudit.claims.georesolver.section_4 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_unique_behind_a_failing_sphere_control(record):
    ev = evidence(record, "starts-agree")
    assert ev["status"] == "agrees" and ev["violations"] == 0
    control = ev["controls"][0]
    assert control["failed"] and control["status"] == "disagrees" and control["contrast"] == "hypothesis"
    # the paper cites the fact; the suite's steps are its own derivation
    assert {s["role"] for s in record["derivation"]["steps"]} == {"derivation"}
    assert evidence(record, "operator-agrees")["status"] == "agrees"


def test_spread_far_below_the_stopping_radius_is_not_claimed():
    """The spread is within 2·tol·(1 + max d) but not within a hundredth of it for every set."""
    check = CLAIM.check("starts-agree")
    altered = dataclasses.replace(check, evaluate=scaled_rhs(check.evaluate, 1e-3), controls=())
    assert run(only(CLAIM, altered))["verdict"] == "refuted"
