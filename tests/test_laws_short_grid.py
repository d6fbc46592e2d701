"""A scaling law on a stated short grid (ScalingLaw.min_decades with short_grid): the engine's fit,
its replicate-widened interval and its drift rule, over fewer than three decades."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from attnaudit.checks import ScalingLaw, tolerances
from attnaudit.checks.context import Context
from attnaudit.checks.laws import check_scaling

GRID = np.array([8.0, 16.0, 32.0, 64.0, 128.0])  # 1.2 decades


def _noisy(exponent):
    def measure(ctx, grid):
        noise = ctx.numpy_rng("noise").normal(0.0, 0.05, len(grid))
        return grid**exponent * np.exp(noise)

    return measure


def _law(**fields):
    base = {"name": "toy", "quantity": "y", "variable": "L", "exponent": -1.0, "order": "Θ",
            "grid": lambda ctx: GRID, "measure": _noisy(-1.0), "family": "toy", "replicates": 6,
            "tolerance": tolerances.Exact("toy"), "min_decades": 1.0, "short_grid": "toy: 1.2 decades"}
    return ScalingLaw(**(base | fields))


def test_a_short_grid_fits_with_replicates_and_says_so():
    ev = check_scaling(_law(), Context("toy/short", seed=0))
    assert ev["status"] == "agrees" and ev["short_grid"]["min_decades"] == 1.0
    assert "a short grid: 1.2 decades" in ev["summary"]
    wrong = check_scaling(_law(measure=_noisy(0.0)), Context("toy/short", seed=0))
    assert wrong["status"] == "disagrees"


def test_the_drift_rule_still_applies_on_a_short_grid():
    def bent(ctx, grid):  # slope 0 over the first half, −2 over the second
        return np.where(grid <= 32, 1.0, (grid / 32) ** -2.0) * np.exp(
            ctx.numpy_rng("noise").normal(0.0, 0.01, len(grid)))

    ev = check_scaling(_law(measure=bent), Context("toy/short", seed=0))
    assert ev["fit"]["drifting"] and ev["status"] != "agrees"


def test_without_a_stated_short_grid_the_engine_keeps_three_decades():
    plain = dataclasses.replace(_law(), min_decades=None, short_grid="")
    with pytest.raises(ValueError, match="1.20 decades; at least 3 are required"):
        check_scaling(plain, Context("toy/short", seed=0))
    with pytest.raises(ValueError, match="short_grid"):
        _law(short_grid=" ")
    with pytest.raises(ValueError, match=r"outside \[1, 3\)"):
        check_scaling(_law(min_decades=0.5), Context("toy/short", seed=0))
