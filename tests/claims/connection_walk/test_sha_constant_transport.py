"""connection-walk/sha-constant-transport: confirmed (proof absent): SHA equals the constant-transport
walk to round-off, the transposed transport (control) does not, and a wrong transport refutes."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.connection_walk import sha_constant_transport as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_behind_failing_controls(record):
    assert record["identity"] and record["clauses"][0]["quote"]
    assert [c["contrast"] for c in record["controls"]] == ["prediction", "setting"]
    for name in ("sha-equals-constant-walk", "walk-nonnegative-stochastic"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
        assert ev["closest_relative_margin"] < -0.5


def test_the_transposed_transport_is_witnessed():
    wrong = dataclasses.replace(CLAIM.check("sha-equals-constant-walk"), controls=(),
                                evaluate=lambda case: spec.walk_sides(case, transposed=True))
    altered = only(CLAIM, wrong)
    record = run(altered)
    assert record["verdict"] == "refuted"
    assert assert_witnessed(record, wrong.name, altered)["lhs"] > 1e-3
