"""Lemma 2.1 (exact retrieval): both limits hold, the matched weight's gap closes at the derived
rate ε¹, and softmax attention (the contrasted operator, which has no ε) fails both checks."""

from __future__ import annotations

import pytest
from claimtest import evidence, run

from attnaudit.claims.georesolver.lemma_2_1 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_both_clauses_hold_behind_failing_softmax_controls(record):
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    assert [s["status"] for s in record["proof"]["steps"]] == ["agrees"] * 3
    for name, clause in (("matched-weight-to-one", "matched"), ("other-weights-bound", "others")):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["role"] == "statement" and ev["clause"] == clause
        assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("operator", True)]


def test_rate_tolerance_is_the_closed_form_fit_bias():
    from attnaudit.claims.georesolver import lemma_2_1 as spec

    assert 0 < spec.RATE_TOL.value < 1e-3  # twice the most curved key set's bias, not a hand-set 0.01


def test_the_gap_closes_like_epsilon(record):
    ev = evidence(record, "matched-weight-to-one")
    lo, hi = ev["fit"]["ci"]
    assert lo - ev["exponent_tolerance"] <= 1.0 <= hi + ev["exponent_tolerance"]
    assert ev["final_gap"] < 1e-12
    control = ev["controls"][0]
    assert control["status"] == "disagrees"
