"""fiber-bundle-ide/rmsnorm-lipschitz: the ε^{-1/2} law is exact (supremum at x = 0), so the
fit's slope is −1/2 and R² = 1 to round-off; the fixed-point and origin-free controls fail."""

import dataclasses

import pytest
from claimtest import evidence, run

from attnaudit.claims.fiber_bundle_ide import rmsnorm_lipschitz as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_with_failing_controls(record):
    assert record["verdict"] == "confirmed", record["summary"]
    assert record["proof"]["status"] == "absent"
    assert all(c["failed"] for c in record["controls"])


def test_slope_is_minus_half_and_r2_one(record):
    fit = evidence(record, "lipschitz-vs-eps")["fit"]
    assert abs(fit["exponent"] + 0.5) < 1e-10
    assert 1 - fit["r2"] < 1e-12
    assert evidence(record, "sup-times-sqrt-eps")["violations"] == 0


def test_wrong_exponent_is_refuted():
    law = dataclasses.replace(CLAIM.check("lipschitz-vs-eps"), exponent=-1.0, controls=())
    record = run(dataclasses.replace(CLAIM, checks=(law,)))
    assert record["verdict"] == "refuted"
