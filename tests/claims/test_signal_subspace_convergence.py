"""signal-subspace/convergence: in the stated model the query aligns with ±θ* at the 1/t rate for
both dimensions; without signal (the control) the gap does not close."""

import dataclasses

import pytest
from claimtest import evidence, only, run

from attnaudit.claims.signal_subspace import convergence as spec

CLAIM = spec.CLAIMS[0]
NAMES = [c.name for c in CLAIM.checks]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_with_failing_controls(record):
    assert record["verdict"] == "confirmed", record["summary"]
    assert record["proof"]["status"] == "absent"
    assert [c["failed"] for c in record["controls"]] == [True, True]


def test_gap_closes_at_rate_near_one(record):
    for name in NAMES:
        ev = evidence(record, name)
        assert ev["final_gap"] < 0.01
        assert 0.8 < ev["fit"]["exponent"] < 1.2


def test_a_wrong_rate_is_refuted():
    limit = dataclasses.replace(CLAIM.check(NAMES[0]), rate=2.0, controls=())
    assert run(only(CLAIM, limit))["verdict"] == "refuted"
