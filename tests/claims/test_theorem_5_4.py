"""Theorem 5.4: Definition 5.2's index sets obey the stated bound for every counted (n, w, g, i) and
FP-HIDA's FLOPs and pattern memory are O(n log n); confirmed behind failing controls."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import evidence, only, run

from attnaudit.claims.georesolver import theorem_5_4 as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_with_failing_controls(record):
    assert record["verdict"] == "confirmed"
    assert record["proof"]["status"] == "sound"
    for name in ("index-set-size-bound", "flops-vs-n", "pattern-memory-vs-n"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees"
        assert [c["failed"] for c in ev["controls"]] == [True]


def test_sizes_counted_up_to_1e5_and_fit_is_near_one(record):
    ev = evidence(record, "index-set-size-bound")
    assert ev["cases"] >= 50 and ev["violations"] == 0
    fit = evidence(record, "flops-vs-n")["fit"]
    assert max(evidence(record, "flops-vs-n")["points"]["x"]) == 1e5
    assert 0.98 < fit["exponent"] < 1.1 and fit["decades"] > 3.5
    assert "index-set bytes (n·S·9)" in evidence(record, "flops-vs-n")["info"]["columns"]


def test_wrong_prediction_refutes():
    law = dataclasses.replace(CLAIM.check("flops-vs-n"), exponent=0.5, controls=())
    rec = run(only(CLAIM, law))
    assert rec["verdict"] == "refuted"


def test_stated_bound_matches_definition():
    assert spec.stated_bound(100000, 17, 17) == 35 + 17 + 36 + 1
    assert spec.size_stats(100000, 17, 17)[0] <= spec.stated_bound(100000, 17, 17)
