"""Theorem 7.1: the bound holds with the derived constant 1/4 (and 0.24 or 0 fail); the 'gradients do
not vanish' reading is refuted by searched singular Jacobians that replay; the proof's Jacobian
diagonal is wrong."""

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


def test_confirmed_with_constant_quarter_and_flawed_proof(record):
    assert record["verdict"] == "confirmed" and record["proof"]["status"] == "flawed"
    ev = evidence(record, "constant-quarter")
    assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True, True]
    assert -1e-3 < ev["closest_relative_margin"] < 0  # the constant 1/4 is approached (sharp)


def test_no_vanishing_reading_refuted_by_a_replayable_singular_jacobian(record):
    alt = next(r for r in record["readings"] if r["id"] == "no-vanishing")
    assert alt["verdict"] == "refuted"
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
