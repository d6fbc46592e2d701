"""mha-identification/rebalancing: confirmed (proof absent) on Adam, whose updates put a quarter or
more of their norm in the orbit's tangent space; the projected-off component is first-order null.
The SGD reading is refuted: an invariant loss has its gradient orthogonal to the orbit."""

from __future__ import annotations

import pytest
from claimtest import assert_witnessed, evidence, run

from attnaudit.checks import Context
from attnaudit.claims.mha_identification import rebalancing as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_adam_overlaps_and_the_fix_is_first_order_null(record):
    assert [c["id"] for c in record["clauses"]] == ["overlap", "rebalancing"]
    for name in ("adam-updates-overlap", "removed-component-first-order-null"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]


def test_sgd_reading_refuted_by_step_and_witness(record):
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings == {"primary": "confirmed", spec.SGD_READING: "refuted"}
    witness = assert_witnessed(record, "sgd-updates-overlap", CLAIM)
    assert witness["rhs"] < 1e-14  # SGD's fraction: round-off
    step = next(s for s in record["derivation"]["steps"] if s["reading"] == spec.SGD_READING)
    assert step["status"] == "disagrees"


def test_the_decisive_fractions():
    ctx = Context(CLAIM.id, seed=0)
    case = next(spec._sample(ctx, ctx.generator("t")))
    _, adam, _ = spec.fraction_sides(case)
    _, sgd, _ = spec.fraction_sides(case, "sgd")
    assert 0.1 < float(adam.min()) and float(adam.max()) < 0.9
    assert float(sgd.max()) < 1e-14
