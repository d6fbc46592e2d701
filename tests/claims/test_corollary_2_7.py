"""Corollary 2.7: for two keys on ℝ no spurious minima (confirmed behind a failing control) although
the argument's premise μ_IDA > 0 is false on ℝ (proof flawed, never a refutation); the n-key reading
is refuted by a replayable spurious minimum; linear convergence from any start is refuted by a
replayable witness, and holds on the segment between the keys (behind a failing control)."""

from __future__ import annotations

import pytest
import torch
from claimtest import assert_witnessed, evidence, run

from attnaudit.claims.georesolver import _two_key as tk
from attnaudit.claims.georesolver import corollary_2_7 as spec

NO_SPURIOUS, LINEAR = spec.CLAIMS


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in spec.CLAIMS}


def _premise_is_the_first_false_step(record, reading):
    steps = record["derivation"]["steps"]
    step = next(s for s in steps if s["name"] == record["proof"]["first_false_step"])
    assert record["proof"]["status"] == "flawed"
    assert (step["role"], step["reading"], step["status"]) == ("proof", reading, "disagrees")
    assert all(s["status"] == "agrees" for s in steps if s is not step)


def test_two_keys_no_spurious_minima_confirmed_proof_flawed(records):
    record = records[NO_SPURIOUS.id]
    assert record["verdict"] == "confirmed", record["summary"]
    _premise_is_the_first_false_step(record, None)
    for name in ("local-minima-are-global", "global-minimum-found", "non-minima-are-strict-maxima"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["violations"] == 0 and ev["reading"] is None
    controls = evidence(record, "local-minima-are-global")["controls"]
    assert [c["failed"] for c in controls] == [True]


def test_n_key_reading_refuted_by_a_replayable_spurious_minimum(records):
    record = records[NO_SPURIOUS.id]
    assert {r["id"]: r["verdict"] for r in record["readings"]} == {"primary": "confirmed",
                                                                   "n-keys": "refuted"}
    witness = assert_witnessed(record, "local-minima-are-global-n-keys", NO_SPURIOUS)
    assert witness["inputs"]["keys"]["shape"] == [1, 3]


def test_the_three_key_instance_of_the_issue_has_a_spurious_minimum():
    """Keys 0, 1, 2, values (0, 1, 0.3), y = 0, ε = 0.01: a local minimum near q = 2.01 whose loss
    is far above the global minimum."""
    t = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
    case = {"keys": t([[0.0, 1.0, 2.0]]), "values": t([[0.0, 1.0, 0.3]]), "y": t([0.0]),
            "eps": t([0.01]), "points": 400}
    lhs, rhs, tol = spec.local_minima_gap(case)
    assert lhs[0] - rhs[0] > 1e6 * tol[0]
    inst, is_min, loss, l_star, tol, qs = spec._figures(case)
    spurious = is_min & (loss - l_star[inst] > tol[inst])
    assert spurious.sum() == 1 and 2.0 < float(qs[spurious][0]) < 2.02
    assert 0.09 < float((loss - l_star[inst])[spurious][0]) < 0.1


def test_linear_convergence_refuted_on_the_line_by_a_start_beyond_a_stationary_point(records):
    record = records[LINEAR.id]
    assert record["verdict"] == "refuted"
    _premise_is_the_first_false_step(record, None)
    inputs = assert_witnessed(record, "gd-bound-line", LINEAR)["inputs"]
    eps, delta, q0 = (torch.tensor(inputs[k]["data"], dtype=torch.float64) for k in ("eps", "delta", "q0"))
    q_minus, q_plus = tk.ida_stationary_points(eps, delta)
    assert bool((q0 > q_plus) | (q0 < q_minus))


def test_segment_reading_confirmed_behind_a_failing_control(records):
    record = records[LINEAR.id]
    assert {r["id"]: r["verdict"] for r in record["readings"]} == {"primary": "refuted",
                                                                   "segment": "confirmed"}
    bound = evidence(record, "gd-bound-time")
    assert (bound["reading"], bound["status"]) == ("segment", "agrees")
    assert [c["failed"] for c in bound["controls"]] == [True]
    per_step = evidence(record, "gd-per-step-rate")
    assert (per_step["role"], per_step["status"]) == ("proof", "agrees")
