"""Corollary 2.7: for two keys on ℝ no spurious minima (behind a control that breaks the two-key
hypothesis) although the argument's premise μ_IDA > 0 is false on ℝ (proof flawed at its first quoted
step, never a refutation); the n-key reading is refuted by a replayable spurious minimum; linear
convergence holds on the segment between the keys (behind a failing control), its rate stated but not
derived, and from a start anywhere on ℝ it is refuted by a replayable witness."""

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


def _quoted(record):
    return {q["id"]: q["status"] for q in record["proof"]["steps"]}


def test_two_keys_no_spurious_minima_confirmed_proof_flawed(records):
    record = records[NO_SPURIOUS.id]
    assert record["proof"]["first_false_step"] == "premise"
    assert _quoted(record) == {"premise": "disagrees", "pl-implies": "agrees"}
    for name in ("local-minima-are-global", "global-minimum-found", "non-minima-are-strict-maxima"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["violations"] == 0 and ev["reading"] is None
    controls = evidence(record, "local-minima-are-global")["controls"]
    assert [(c["contrast"], c["failed"]) for c in controls] == [("hypothesis", True)]


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


def test_linear_convergence_on_the_segment_behind_a_failing_control(records):
    record = records[LINEAR.id]
    assert {r["id"]: r["verdict"] for r in record["readings"]} == {"primary": "confirmed",
                                                                   "real-line": "refuted"}
    bound = evidence(record, "gd-bound-time")
    assert (bound["reading"], bound["status"], bound["violations"]) == (None, "agrees", 0)
    assert [(c["contrast"], c["failed"]) for c in bound["controls"]] == [("prediction", True)]
    per_step = evidence(record, "gd-per-step-rate")
    assert (per_step["role"], per_step["step"], per_step["status"]) == ("proof", "pl-implies", "agrees")
    # Every quoted step holds on the segment; the rate itself is stated, not derived.
    assert _quoted(record) == {"premise": "agrees", "pl-implies": "agrees"}


def test_linear_convergence_from_anywhere_on_the_line_fails_beyond_a_stationary_point(records):
    record = records[LINEAR.id]
    inputs = assert_witnessed(record, "gd-bound-line", LINEAR)["inputs"]
    eps, delta, q0 = (torch.tensor(inputs[k]["data"], dtype=torch.float64) for k in ("eps", "delta", "q0"))
    q_minus, q_plus = tk.ida_stationary_points(eps, delta)
    assert bool((q0 > q_plus) | (q0 < q_minus))
    # No kernel has a PL constant on ℝ: softmax's ratio tends to 0 as well (the reading's why).
    soft = next(s for s in record["derivation"]["steps"] if s["name"].startswith("softmax too"))
    assert soft["status"] == "agrees"
