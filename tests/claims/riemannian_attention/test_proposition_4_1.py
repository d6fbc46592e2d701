"""Proposition 4.1: the Woodbury inverse holds (sign-flipped control fails); O(d) and O(r²) FLOPs."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run, run_predicting

from attnaudit.claims.riemannian_attention.proposition_4_1 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_both_clauses_confirmed_as_an_identity(record):
    clauses = {c["id"]: c["verdict"] for c in record["clauses"]}
    assert clauses == {"woodbury": "confirmed", "cost": "confirmed"}
    assert record["identity"]
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    for name in ("woodbury-is-inverse", "flops-vs-d", "flops-vs-r"):
        assert [c["failed"] for c in evidence(record, name)["controls"]] == [True]
    assert abs(evidence(record, "flops-vs-d")["fit"]["exponent"] - 1) < 1e-6


def test_wrong_predictions_refute():
    check = dataclasses.replace(CLAIM.check("flops-vs-r"), exponent=1.0, controls=())
    assert run_predicting(CLAIM, check)["verdict"] == "refuted"
    rel = CLAIM.check("woodbury-is-inverse")
    bad = dataclasses.replace(rel, evaluate=lambda c: (lambda lhs, rhs, tol: (lhs + 1e-3, rhs, tol))(
        *rel.evaluate(c)), controls=())
    claim = only(CLAIM, bad)
    record = run(claim)
    assert record["verdict"] == "refuted"
    assert_witnessed(record, bad.name, claim)
