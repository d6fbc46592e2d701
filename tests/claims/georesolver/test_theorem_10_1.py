"""Theorem 10.1: the stated bound is refuted by replayable witnesses (it is quadratic in V); the
proof's own bound holds; the limit fails for a generic query and holds, like ε, on a prototype."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run, scaled_rhs

from attnaudit.claims.georesolver.theorem_10_1 import BOUND_CLAIM, LIMIT_CLAIM


@pytest.fixture(scope="module")
def bound():
    return run(BOUND_CLAIM)


@pytest.fixture(scope="module")
def limit():
    return run(LIMIT_CLAIM)


def test_bound_refuted_with_replayable_witness(bound):
    assert bound["proof"]["first_false_step"] == "ratio"
    witness = assert_witnessed(bound, "paper-bound", BOUND_CLAIM)
    assert witness["lhs"] > witness["rhs"] > 0


def test_proof_bound_confirmed_with_failing_control(bound):
    alt = next(r for r in bound["readings"] if r["id"] == "proof-bound")
    assert alt["verdict"] == "confirmed"
    ev = evidence(bound, "proof-bound")
    assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
    assert -1 < ev["closest_relative_margin"] < 0


def test_a_too_tight_proof_bound_is_refuted():
    check = BOUND_CLAIM.check("proof-bound")
    check = dataclasses.replace(check, evaluate=scaled_rhs(check.evaluate, 0.01),
                                reading=None, controls=(), strategy=None)
    rec = run(only(BOUND_CLAIM, check))
    assert rec["verdict"] == "refuted"


def test_limit_refuted_for_generic_query_and_confirmed_on_prototype(limit):
    assert limit["proof"]["first_false_step"] == "concentrates"
    ev = evidence(limit, "error-to-zero-generic-query")
    assert ev["status"] == "disagrees" and ev["fit"]["ci"][1] < 0.5
    on = evidence(limit, "error-to-zero-on-prototype")
    assert on["status"] == "agrees" and abs(on["fit"]["exponent"] - 1) < 0.05
    assert [c["failed"] for c in on["controls"]] == [True]
    alt = next(r for r in limit["readings"] if r["id"] == "on-prototype")
    assert alt["verdict"] == "confirmed"
