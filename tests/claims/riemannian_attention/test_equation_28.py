"""Equation (28): the row term cancels in the softmax, the key-norm term shifts the log-odds."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run, scaled_rhs

from attnaudit.claims.riemannian_attention.equation_28 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_every_clause_decided_and_an_identity(record):
    assert record["derivation"]["steps"][0]["status"] == "agrees"
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {
        "decomposition": "confirmed", "row-constant": "confirmed", "key-norm-penalty": "confirmed"}
    assert record["identity"]
    for name in ("decomposition", "row-term-cancels", "key-norm-shifts-log-odds"):
        assert [c["failed"] for c in evidence(record, name)["controls"]] == [True]


def test_wrong_shift_is_witnessed():
    rel = CLAIM.check("key-norm-shifts-log-odds")
    bad = dataclasses.replace(rel, evaluate=scaled_rhs(rel.evaluate, 0.5), controls=())
    claim = only(CLAIM, bad)
    rec = run(claim)
    assert rec["verdict"] == "refuted"
    assert_witnessed(rec, bad.name, claim)
