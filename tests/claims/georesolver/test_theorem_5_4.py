"""Theorem 5.4: the proof's steps check out (Definition 5.2's index sets obey its bound for every
counted (n, w, g, i); the gather does 2(d_h + d_v) FLOPs per entry); FP-HIDA's FLOPs and pattern
memory fit n log n with exponents just above 1 on 16 … 10⁵ (|S|/log n still rising), which only the
hand-set prefactor tolerance turns into agreement: the clauses read undecided."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import evidence, run, run_predicting

from attnaudit.claims.georesolver import _hida_cost
from attnaudit.claims.georesolver import theorem_5_4 as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_proof_steps_check_out(record):
    assert {s["id"]: s["status"] for s in record["proof"]["steps"]} == dict.fromkeys(
        ("parts", "set-bound", "log", "sum", "per-entry", "total", "memory"), "agrees")
    ev = evidence(record, "index-set-size-bound")
    assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]


def test_fits_rest_on_the_hand_set_tolerance(record):
    for name in ("flops-vs-n", "pattern-memory-vs-n"):
        ev = evidence(record, name)
        assert ev["status"] == "undecided" and ev["decided_by_tolerance"], name
        assert ev["fit"]["ci"][0] > 1.0, name  # the bare interval lies just above 1


def test_sizes_counted_up_to_1e5_and_fit_is_near_one(record):
    ev = evidence(record, "index-set-size-bound")
    assert ev["cases"] >= 50 and ev["violations"] == 0
    fit = evidence(record, "flops-vs-n")["fit"]
    assert max(evidence(record, "flops-vs-n")["points"]["x"]) == 1e5
    assert 0.98 < fit["exponent"] < 1.1 and fit["decades"] > 3.5
    assert "index-set bytes (n·S·9)" in evidence(record, "flops-vs-n")["info"]["columns"]


def test_wrong_prediction_refutes():
    law = dataclasses.replace(CLAIM.check("flops-vs-n"), exponent=0.5, controls=())
    rec = run_predicting(CLAIM, law)
    assert rec["verdict"] == "refuted"


def test_stated_bound_matches_definition():
    assert spec.stated_bound(100000, 17, 17) == 35 + 17 + 36 + 1
    assert _hida_cost.size_stats(100000, 17, 17)[0] <= spec.stated_bound(100000, 17, 17)
