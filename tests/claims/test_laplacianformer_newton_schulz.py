"""laplacianformer/newton-schulz: order 2 per iteration (fit) and the solved Nyström system, each
behind a control that fails (a first-order step; stopping early)."""

import dataclasses

import pytest
from claimtest import evidence, run

from attnaudit.claims.laplacianformer import newton_schulz as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_with_failing_controls(record):
    assert record["verdict"] == "confirmed", record["summary"]
    assert record["proof"]["status"] == "absent"
    assert all(c["failed"] for c in record["controls"]) and len(record["controls"]) == 2


def test_fitted_order_is_two(record):
    ev = evidence(record, "order-per-iteration")
    assert abs(ev["fit"]["exponent"] - 2.0) < 0.01
    assert ev["fit"]["decades"] >= 4


def test_linear_order_prediction_is_refuted():
    law = dataclasses.replace(CLAIM.check("order-per-iteration"), exponent=1.0, controls=())
    assert run(dataclasses.replace(CLAIM, checks=(law,)))["verdict"] == "refuted"
