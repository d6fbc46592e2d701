"""Conjecture 3.6 (evidence run): the located transition does not move like τ/L over L = 8…128."""

from __future__ import annotations

import pytest
from claimtest import assert_witnessed, run

from attnaudit.claims.riemannian_attention.conjecture_3_6 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_slope_excludes_minus_one_and_the_witness_replays(record):
    assert record["verdict"] == "refuted"
    w = assert_witnessed(record, "transition-slope-in-l", CLAIM)
    assert abs(w["lhs"]) > w["tol"] and w["tol"] < 0.5  # lhs: the slope less −1
    assert "evidence, not proof" in CLAIM.notes.lower()


def test_located_transitions_are_in_the_record_and_do_not_follow_tau_over_l(record):
    import numpy as np

    table = record["attached"]["transitions"]
    y, ci = np.array(table["U2_star"]), np.array(table["ci95"])
    assert table["L"] == [8, 16, 32, 64, 128] and len(y) == len(ci) == 5
    assert np.all((ci[:, 0] <= y) & (y <= ci[:, 1]))
    assert y[-1] / y[0] > 0.5          # τ/L would shrink 16-fold
    assert np.all(y > 4 * np.array(table["tau_over_L"]))  # the transition sits far above τ/L
