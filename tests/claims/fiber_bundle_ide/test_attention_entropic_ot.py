"""fiber-bundle-ide/attention-entropic-ot: softmax is the row-constrained entropic OT plan (POT)
to round-off; the two-marginal (Sinkhorn) reading is refuted by a replayable witness."""

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, run

from attnaudit.claims.fiber_bundle_ide import attention_entropic_ot as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_row_constrained_reading_confirmed(record):
    assert record["identity"] and record["clauses"][0]["id"] == "schrodinger"
    ev = evidence(record, "softmax-equals-row-ot")
    assert ev["violations"] == 0 and ev["cases"] >= 100
    assert [c["failed"] for c in ev["controls"]] == [True]


def test_two_marginal_reading_refuted_with_witness(record):
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings["two-marginal"] == "refuted"
    witness = assert_witnessed(record, "softmax-equals-sinkhorn", CLAIM)
    assert witness["lhs"] > 1e-3


def test_a_wrong_prediction_is_refuted():
    check = CLAIM.check("softmax-equals-row-ot")
    moved = dataclasses.replace(check, evaluate=_offset(check.evaluate), controls=())
    record = run(dataclasses.replace(CLAIM, checks=(moved,), alternatives=()))
    assert record["verdict"] == "refuted"


def _offset(evaluate):
    """The prediction moved from 0 to 1e-3 (an additive move: the right-hand side is 0)."""

    def altered(case):
        lhs, rhs, tol = evaluate(case)
        return lhs, rhs + 1e-3, tol

    return altered
