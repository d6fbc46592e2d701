"""Theorem 5.2: exact retrieval holds for Dense-HIDA on the ball (softmax controls fail); the rank bound
and the separation d_min ≥ 2δ/(1−ρ²) are refuted by replayable witnesses; the proof's distance bound
d_H ≥ ‖x−y‖/(1−ρ²) fails for ρ > 1/√2, while the suite's d_H ≥ 2‖x−y‖ holds."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run, scaled_rhs

from attnaudit.claims.georesolver import theorem_5_2 as T

RETRIEVAL, RANK, DISTANCE = T.CLAIMS


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in T.CLAIMS}


def readings(record):
    return {r["id"]: r["verdict"] for r in record["readings"]}


def test_retrieval_confirmed_gap_closes_like_epsilon(records):
    record = records[RETRIEVAL.id]
    assert {s["id"]: s["status"] for s in record["proof"]["steps"]} == {"lemma-a": "agrees"}
    for name in ("matched-weight-to-one", "other-weights-bound"):
        assert [c["failed"] for c in evidence(record, name)["controls"]] == [True]
    ev = evidence(record, "matched-weight-to-one")
    assert abs(ev["fit"]["exponent"] - 1.0) < 0.01 and ev["final_gap"] < 1e-11


def test_retrieval_wrong_bound_turns_refuted():
    check = RETRIEVAL.check("other-weights-bound")
    altered = dataclasses.replace(check, evaluate=scaled_rhs(check.evaluate, 0.5), controls=())
    record = run(only(RETRIEVAL, altered))
    assert record["verdict"] == "refuted"


def test_rank_refuted_by_witnesses_proof_flawed_at_the_distance_bound(records):
    record = records[RANK.id]
    assert record["proof"]["first_false_step"] == "distance"
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {"rank": "refuted", "separation": "refuted"}
    witness = assert_witnessed(record, "paper-bound", RANK)
    assert witness["inputs"]["x"]["shape"][-2] == 2  # two keys suffice
    assert witness["lhs"] > 1.5 > witness["rhs"]
    assert_witnessed(record, "dmin-separation-bound", RANK)
    assert readings(record) == {"primary": "refuted", "suite-corrected": "confirmed"}
    for name in ("corrected-lower-bound", "corrected-separation"):
        assert [c["failed"] for c in evidence(record, name)["controls"]] == [True]


def test_distance_bound_refuted_corrected_form_confirmed(records):
    record = records[DISTANCE.id]
    assert record["clauses"][0]["verdict"] == "refuted"
    assert readings(record) == {"primary": "refuted", "tight-radius": "refuted",
                                "conformal-floor": "confirmed", "small-radius": "confirmed"}
    for name in ("paper-bound", "paper-bound-tight-radius"):
        witness = assert_witnessed(record, name, DISTANCE)
        assert witness["lhs"] < witness["rhs"]
    for name in ("conformal-floor", "paper-bound-small-radius", "distance-matches-mpmath"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
    assert "1/√2" in record["corrected"]["statement"]


def test_conformal_floor_is_sharp():
    """2‖x − y‖ cannot be raised: a 1% larger floor is violated by short pairs at the origin."""
    check = DISTANCE.check("conformal-floor")
    altered = dataclasses.replace(check, evaluate=scaled_rhs(check.evaluate, 1.01), controls=(),
                                  reading=None)
    assert run(only(DISTANCE, altered))["verdict"] == "refuted"
