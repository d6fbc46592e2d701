"""laplacianformer/gaussian-oversuppression: true under the 1/e matching (the slope-matched Gaussian,
its control, fails), refuted under the slope matching (an alternative reading, with a witness)."""

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.laplacianformer import gaussian_oversuppression as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_primary_confirmed_behind_failing_control(record):
    assert record["verdict"] == "confirmed", record["summary"]
    assert record["proof"]["status"] == "absent"
    ev = evidence(record, "mid-mass-gaussian-below-laplacian")
    assert ev["violations"] == 0 and [c["failed"] for c in ev["controls"]] == [True]


def test_slope_matched_reading_refuted_with_witness(record):
    assert {r["id"]: r["verdict"] for r in record["readings"]}["slope-matched"] == "refuted"
    witness = assert_witnessed(record, "slope-matched-mid-mass", CLAIM)
    assert witness["lhs"] > 0


def test_reversed_prediction_is_refuted():
    check = CLAIM.check("mid-mass-gaussian-below-laplacian")
    flipped = dataclasses.replace(check, rel=">=", controls=())
    record = run(only(CLAIM, flipped))
    assert record["verdict"] == "refuted"
