"""entropic-bound/rank-lower-bound: deficient models never beat the Eckart–Young excess, which is
positive, and rank r* attains 0; each check behind a control that fails."""

import dataclasses

import pytest
from claimtest import evidence, only, run, scaled_rhs

from attnaudit.claims.entropic_bound import rank_lower_bound as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_each_clause_behind_a_hypothesis_contrast(record):
    assert [c["id"] for c in record["clauses"]] == ["lower-bound", "deficient", "achievable"]
    assert [(c["contrast"], c["failed"]) for c in record["controls"]] == [("hypothesis", True)] * 3
    assert record["identity"]


def test_fits_reach_the_bound(record):
    ev = evidence(record, "deficient-excess-at-least-bound")
    assert ev["violations"] == 0 and ev["closest_relative_margin"] > -1e-6  # tight: ALS attains it


def test_a_larger_bound_is_refuted():
    check = CLAIM.check("deficient-excess-at-least-bound")
    moved = dataclasses.replace(check, evaluate=scaled_rhs(check.evaluate, 1.5), controls=())
    rec = run(only(CLAIM, moved))
    assert {c["id"]: c["verdict"] for c in rec["clauses"]}["lower-bound"] == "refuted"
