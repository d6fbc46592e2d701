"""Lemma 5.1: (a) the matched weight tends to 1 at rate ε on Euclidean, hyperbolic and spherical
kernels (softmax controls fail); (b) both effective-rank bounds fail on the ball and the sphere, with
the proof flawed where the Frobenius estimate is read as an upper bound."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, run, run_predicting

from attnaudit.claims.georesolver.lemma_5_1 import CLAIMS

A, B = CLAIMS
GEOMETRIES = ("euclidean", "hyperbolic", "spherical")


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in CLAIMS}


def test_a_confirmed_on_three_metrics(records):
    record = records[A.id]
    assert {s["id"]: s["status"] for s in record["proof"]["steps"]} == dict.fromkeys(
        ("diagonal", "off-diagonal", "weight"), "agrees")
    for g in GEOMETRIES:
        ev = evidence(record, f"matched-weight-to-one-{g}")
        assert ev["status"] == "agrees" and abs(ev["fit"]["exponent"] - 1) < 0.01
        assert ev["exponent_tolerance"] < 1e-3  # the closed-form worst case's fit bias
        assert [c["failed"] for c in ev["controls"]] == [True]


def test_a_wrong_rate_turns_refuted():
    check = A.check("matched-weight-to-one-hyperbolic")
    record = run_predicting(A, dataclasses.replace(check, rate=2.0, controls=()))
    assert record["verdict"] == "refuted"


def test_b_refuted_everywhere_with_witnesses(records):
    record = records[B.id]
    assert record["proof"]["first_false_step"] == "frobenius"
    clauses = {c["id"]: c["verdict"] for c in record["clauses"]}
    assert clauses == {"small-eps": "refuted", "general": "refuted"}
    assert {r["id"]: r["verdict"] for r in record["readings"]} == {
        "primary": "refuted", "lower-bound": "confirmed", "with-remainder": "refuted"}
    for bound in ("small-eps", "general"):
        for g in ("hyperbolic", "spherical"):
            name = f"{bound}-bound-{g}"
            ev = evidence(record, name)
            assert ev["violations"] == ev["cases"]  # every admissible configuration
            assert_witnessed(record, name, B)


def test_b_corrected_lower_bound_holds_and_is_attained(records):
    for g in ("hyperbolic", "spherical"):
        ev = evidence(records[B.id], f"lower-bound-{g}")
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
        assert -1e-9 < ev["closest_relative_margin"] <= 0  # attained by two points
