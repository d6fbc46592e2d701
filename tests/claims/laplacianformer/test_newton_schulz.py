"""laplacianformer/newton-schulz: order 2 per iteration (fit, behind a first-order step that fails)
and the solved Nyström system decide the 'solve' clause; 'avoiding costly inversion' is undefined
(no cost model)."""

import dataclasses

import pytest
from claimtest import evidence, run

from attnaudit.claims.laplacianformer import newton_schulz as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_solve_clause_confirmed_cost_clause_undefined(record):
    clauses = {c["id"]: c for c in record["clauses"]}
    assert clauses["solve"]["verdict"] == "confirmed", clauses["solve"]["summary"]
    assert clauses["avoids"]["undefined"]
    contrasts = [(c["contrast"], c["failed"]) for c in record["controls"]]
    assert sorted(contrasts) == [("operator", True), ("setting", True)]


def test_fitted_order_is_two(record):
    ev = evidence(record, "order-per-iteration")
    assert abs(ev["fit"]["exponent"] - 2.0) < 0.01
    assert ev["fit"]["decades"] >= 4


def test_linear_order_prediction_is_refuted():
    law = dataclasses.replace(CLAIM.check("order-per-iteration"), exponent=1.0, controls=())
    rec = run(dataclasses.replace(CLAIM, checks=(law,)))
    assert {c["id"]: c["verdict"] for c in rec["clauses"]}["solve"] == "refuted"
