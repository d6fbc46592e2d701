"""Conjecture 3.4 (evidence run): heterogeneous metrics do not stop the collapse (rate log 2, not 0,
measured on stacks computed in full, no order coded); the 'slower-collapse' reading (order 2 instead
of 3) is confirmed."""

from __future__ import annotations

import dataclasses
import math

import pytest
from claimtest import assert_excluded, evidence, run, run_predicting

from attnaudit.claims.riemannian_attention.conjecture_3_4 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_refuted_on_the_stated_reading_by_excluding_intervals(record):
    assert [c["verdict"] for c in record["clauses"]] == ["refuted"]
    for name in ("no-collapse-strength-1", "no-collapse-strength-2"):
        ev = evidence(record, name)
        assert_excluded(ev)
        assert abs(ev["fit"]["exponent"] - math.log(2)) < 0.01 and max(ev["points"]["y"]) > 1e6
    assert "evidence, not proof" in CLAIM.notes.lower()


def test_slower_collapse_reading_confirmed(record):
    reading = next(r for r in record["readings"] if r["id"] == "slower-collapse")
    assert reading["verdict"] == "confirmed"
    ctl = evidence(record, "order-two-collapse")["controls"]
    assert [(c["contrast"], c["failed"]) for c in ctl] == [("operator", True)]


def test_moved_prediction_turns_the_confirmation_into_a_refutation():
    check = dataclasses.replace(CLAIM.check("order-two-collapse"), exponent=math.log(3), reading=None,
                                controls=())
    assert run_predicting(CLAIM, check)["verdict"] == "refuted"
