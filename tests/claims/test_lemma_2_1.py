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


def test_confirmed_with_sound_proof_and_failing_softmax_controls(record):
    assert record["verdict"] == "confirmed" and record["proof"]["status"] == "sound"
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    for name in ("matched-weight-to-one", "other-weights-bound"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["role"] == "statement"
        assert [c["failed"] for c in ev["controls"]] == [True]


def test_the_gap_closes_like_epsilon(record):
    ev = evidence(record, "matched-weight-to-one")
    lo, hi = ev["fit"]["ci"]
    assert lo - ev["exponent_tolerance"] <= 1.0 <= hi + ev["exponent_tolerance"]
    assert ev["final_gap"] < 1e-12
    control = ev["controls"][0]
    assert control["status"] == "disagrees"
