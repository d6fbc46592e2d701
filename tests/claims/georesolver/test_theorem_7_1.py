"""Theorem 7.1: the inequality clause holds with the derived constant 1/4 (and 0.24 or 0 fail); the
theorem's own 'in particular … gradients do not vanish' clause is refuted by searched singular
Jacobians at bounded inputs that replay (d = 1: W_g x = z* ≈ −1.27846); the proof's Jacobian diagonal
is wrong."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.georesolver.theorem_7_1 import CLAIMS, ratio_gap

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_inequality_clause_holds_with_constant_quarter(record):
    clauses = {c["id"]: c["verdict"] for c in record["clauses"]}
    assert clauses == {"inequality": "confirmed", "positive": "refuted"}
    assert record["proof"]["first_false_step"] == "diagonal"
    ev = evidence(record, "constant-quarter")
    assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True, True]
    assert -1e-3 < ev["closest_relative_margin"] < 0  # the constant 1/4 is approached (sharp)


def test_positive_clause_refuted_by_a_replayable_singular_jacobian(record):
    witness = assert_witnessed(record, "jacobian-nonsingular", CLAIM)
    x = torch.tensor(witness["inputs"]["x"]["data"])
    w = torch.tensor(witness["inputs"]["w"]["data"])
    assert x.norm() <= 2 and torch.linalg.matrix_norm(w, ord=2) <= 2 + 1e-12


def test_the_papers_jacobian_diagonal_is_witnessed_wrong(record):
    assert_witnessed(record, "paper-jacobian-diagonal", CLAIM)


def test_a_smaller_constant_is_refuted():
    check = dataclasses.replace(CLAIM.check("constant-quarter"), evaluate=lambda c: ratio_gap(c, 0.2),
                                controls=(), strategy=None)
    assert run(only(CLAIM, check))["verdict"] == "refuted"


def test_one_dimensional_gate_is_singular_at_bounded_z_star():
    from attnaudit import operators

    z = torch.tensor(-1.0, dtype=torch.float64)
    for _ in range(60):  # Newton on f(z) = 1 + z(1 − σ(z)), the 1-d Jacobian over σ(z)
        s = torch.sigmoid(z)
        z = z - (1 + z * (1 - s)) / ((1 - s) - z * s * (1 - s))
    assert abs(float(z) + 1.27846) < 1e-5
    jac = operators.hypergate_jacobian(z.reshape(1, 1), torch.ones(1, 1, 1, dtype=torch.float64))
    assert abs(float(jac.reshape(()))) < 1e-15  # ∂h/∂x = 0 at |x| = 1.28, W_g = 1: bounded inputs
