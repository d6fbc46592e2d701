"""Property 2.2.1 (translation invariance): the IDA reading holds with a control that fails; the
side sentence about softmax, an alternative reading, is refuted by a replayable witness."""

from __future__ import annotations

import pytest
from claimtest import assert_witnessed, evidence, run

from attnaudit.claims.georesolver.property_2_2_1 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_primary_reading_confirmed_behind_a_failing_control(record):
    assert CLAIM.proof_absent and CLAIM.identity  # no argument given; true by the kernel's construction
    primary = evidence(record, "outputs-unchanged")
    assert primary["status"] == "agrees" and primary["reading"] is None
    assert [(c["contrast"], c["failed"]) for c in primary["controls"]] == [("operator", True)]
    assert primary["controls"][0] in record["controls"]


def test_softmax_sentence_is_an_alternative_reading_and_refuted(record):
    readings = {r["id"]: r for r in record["readings"]}
    assert [r["id"] for r in record["readings"] if r["primary"]] == ["primary"]
    assert readings["softmax-sentence"]["verdict"] == "refuted"
    assert_witnessed(record, "softmax-outputs-unchanged", CLAIM)
    step = next(s for s in record["derivation"]["steps"] if s["reading"] == "softmax-sentence")
    assert step["status"] == "disagrees" and step["role"] == "statement"


def test_three_clauses_each_decided_behind_an_operator_control(record):
    decided = {"invariance": "distances-unchanged", "weights": "outputs-unchanged",
               "softmax-contrast": "softmax-shift-reweights"}
    assert [c["id"] for c in record["clauses"]] == list(decided)
    for clause, name in decided.items():
        ev = evidence(record, name)
        assert ev["clause"] == clause and ev["status"] == "agrees"
        assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("operator", True)]
