"""Theorem 5.6: online C-HIDA started at the first c tokens has linear, not O(log T), regret against
the best fixed summaries (refuted by the fitted interval); the proof's convexity step is false; the
per-token cost is constant behind a failing control."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_excluded, evidence, only, run

from attnaudit.claims.georesolver import theorem_5_6 as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_refuted_with_flawed_proof(record):
    assert record["verdict"] == "refuted"
    assert record["proof"]["status"] == "flawed"
    ev = evidence(record, "regret-vs-t")
    assert_excluded(ev)
    # the regret at the largest T is a sizeable fraction of T: linear growth
    assert ev["points"]["y"][-1] > 0.02 * ev["points"]["x"][-1]
    seeded = ev["info"]["columns"]["regret, one token per cluster to start"]
    assert seeded[-1] < 0.01 * ev["points"]["y"][-1]  # informational: the seeded runs stay logarithmic


def test_per_token_cost_is_constant(record):
    ev = evidence(record, "per-token-flops-vs-n")
    assert ev["status"] == "agrees" and ev["fit"]["flat"]
    assert [c["failed"] for c in ev["controls"]] == [True]
    wrong = dataclasses.replace(CLAIM.check("per-token-flops-vs-n"), exponent=1.0, controls=())
    assert evidence(run(only(CLAIM, wrong)), "per-token-flops-vs-n")["status"] == "disagrees"


def test_tolerance_is_the_closed_form_bias():
    assert 0.3 < spec.LOG_BIAS.value < 0.5
