"""signal-subspace/convergence: in the stated model the query aligns with ±θ* at about the 1/t
rate for both dimensions (d = 32 below 1 in this window); a constant step (the hypothesis control)
does not close the gap at that rate; every run recovers ±θ*, and about half −θ*."""

import dataclasses

import pytest
from claimtest import evidence, only, run

from attnaudit.claims.signal_subspace import convergence as spec

CLAIM = spec.CLAIMS[0]
NAMES = [c.name for c in CLAIM.checks if c.name.startswith("alignment")]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_controls_by_contrast(record):
    by = {(c["check"], c["contrast"]): c["failed"] for c in record["controls"]}
    assert by[("alignment-d8", "hypothesis")] and by[("recovered-up-to-sign", "prediction")]
    assert {c["id"]: c["verdict"] for c in record["clauses"]}["sign"] == "confirmed"


def test_gap_closes_at_rate_near_one(record):
    for name in NAMES:
        ev = evidence(record, name)
        assert ev["final_gap"] < 0.01
        assert 0.8 < ev["fit"]["exponent"] < 1.2


def test_a_wrong_rate_is_refuted():
    limit = dataclasses.replace(CLAIM.check(NAMES[0]), rate=2.0, controls=())
    assert evidence(run(only(CLAIM, limit)), limit.name)["status"] == "disagrees"
