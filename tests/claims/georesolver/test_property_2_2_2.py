"""Property 2.2.2 (scale sensitivity): the identity and the weights' rescaling hold, and the same
check refutes the rescaling with the exponent of λ moved (its negative control)."""

from __future__ import annotations

import pytest
import torch
from claimtest import evidence, run

from attnaudit.claims.georesolver.property_2_2_2 import CLAIMS, scaled_weights_gap

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_behind_a_failing_control_with_a_sound_proof(record):
    assert [(s["id"], s["status"]) for s in record["proof"]["steps"]] == [("distances", "agrees"),
                                                                          ("regularization", "agrees")]
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    assert {s["role"] for s in record["derivation"]["steps"]} == {"statement", "proof"}
    ev = evidence(record, "weights-scale-to-eps")
    assert ev["status"] == "agrees" and ev["reading"] is None and ev["hypothesis"]["examples"] > 0
    assert [c["failed"] for c in ev["controls"]] == [True]
    assert [r["id"] for r in record["readings"]] == ["primary"]


def test_the_control_exponent_is_far_outside_round_off():
    q = torch.tensor([[[0.0]]], dtype=torch.float64)
    k = torch.tensor([[[0.0], [1.0]]], dtype=torch.float64)
    case = {"q": q, "k": k, "lam": torch.tensor([10.0], dtype=torch.float64),
            "eps": torch.tensor([1.0], dtype=torch.float64)}
    lhs, rhs, tol = scaled_weights_gap(case)
    assert abs(float(lhs - rhs)) <= float(tol)
    lhs, rhs, tol = scaled_weights_gap(case, eps_power=1)
    assert abs(float(lhs - rhs)) > 1e6 * float(tol)
