"""Theorem 6.1: the dimension-free HCC bound fails at large d_h (witness replays); the proof's
direction step is the false one; the dimension-aware bound holds behind a failing control."""

from __future__ import annotations

import pytest
from claimtest import assert_witnessed, evidence, run

from attnaudit.checks.relations import replay_witness
from attnaudit.claims.georesolver import theorem_6_1 as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_refuted_with_replayable_witness(record):
    witness = assert_witnessed(record, "reconstruction-error-bound", CLAIM)
    assert witness["inputs"]["k"]["shape"][-1] >= 64  # only high dimensions break it
    assert "√d_h" in record["corrected"]["statement"]


def test_proof_steps(record):
    assert record["proof"]["first_false_step"] == "direction"  # the paper's first step, in its order
    assert evidence(record, "direction-step")["status"] == "disagrees"
    radius = evidence(record, "radius-step")
    assert radius["status"] == "agrees" and [c["failed"] for c in radius["controls"]] == [True]


def test_dimension_aware_reading_confirmed(record):
    ev = evidence(record, "dimension-aware-bound")
    assert ev["status"] == "agrees" and ev["violations"] == 0
    assert [c["failed"] for c in ev["controls"]] == [True]
    assert {r["id"]: r["verdict"] for r in record["readings"]}["dimension-aware"] == "confirmed"


def test_low_dimension_keys_satisfy_the_bound(record):
    import torch

    case = {"k": torch.full((1, 4), 0.45, dtype=torch.float64), "b": torch.tensor([4]),
            "b_r": torch.tensor([6])}
    lhs, rhs, _ = spec.error_vs_bound()(case)
    assert float(lhs[0]) <= float(rhs[0])
    w = evidence(record, "reconstruction-error-bound")["witness"]
    assert replay_witness(CLAIM.check("reconstruction-error-bound"), w)["margin"] > 0
