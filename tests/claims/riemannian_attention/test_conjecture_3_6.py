"""Conjecture 3.6 (evidence run): the located transition does not move like τ/L over L = 8…128."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from claimtest import evidence, only, run

from attnaudit.checks.runner import run_claim
from attnaudit.claims.riemannian_attention.conjecture_3_6 import CLAIMS, LENGTHS, TAU

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_the_short_grid_fit_excludes_minus_one_with_the_drift_rule_applied(record):
    law = evidence(record, "transition-slope-in-l")
    assert law["status"] == "disagrees" and law["replicates"] == 8
    low, high = law["fit"]["ci"]
    assert -0.5 < low < high < 0.5  # a slope near 0, its interval far from −1
    assert law["short_grid"]["decades"] == pytest.approx(np.log10(128 / 8))
    assert len(law["fit"]["local_exponents"]) == 2 and not law["fit"]["drifting"]
    assert "evidence, not proof" in CLAIM.notes.lower()


def test_located_transitions_do_not_follow_tau_over_l(record):
    points = evidence(record, "transition-slope-in-l")["points"]
    y = np.array(points["y"])
    assert points["x"] == list(map(float, LENGTHS)) and len(points["yerr"]) == 5
    assert y[-1] / y[0] > 0.5  # τ/L would shrink 16-fold
    assert np.all(y > 4 * TAU / np.array(LENGTHS))  # the transition sits far above τ/L


def test_a_short_grid_must_say_why_and_keep_two_windows():
    law = CLAIM.checks[0]
    with pytest.raises(ValueError, match="short_grid"):
        dataclasses.replace(law, short_grid="")
    too_few = dataclasses.replace(law, grid=lambda ctx: np.array([8.0, 16.0, 64.0, 128.0]))
    record, _ = run_claim(only(CLAIM, too_few), seed=0, profile="quick", device="cpu")
    assert record["verdict"] == "error" and "at least 5 points" in record["summary"]
