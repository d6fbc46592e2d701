"""checks.search (grid then bracketed refinement, sign changes, WorstCase) and checks.grids."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attnaudit.checks import Context, grids, search


def _rows(*values):
    return torch.tensor(values, dtype=torch.float64)


def test_minimise_refines_between_grid_points_to_the_true_minimiser():
    centre = _rows(0.3141592653589793, 0.7182818284590452, 0.07)
    grid = torch.linspace(0, 1, 11, dtype=torch.float64).expand(3, -1)
    found = search.minimise(lambda x: (x - centre[:, None]).square(), grid)
    torch.testing.assert_close(found.x, centre, rtol=1e-10, atol=0)
    # Offset by 1, the values tie within √eps of the minimiser: it is located that far, the value exactly.
    found = search.minimise(lambda x: (x - centre[:, None]).square() + 1.0, grid)
    torch.testing.assert_close(found.x, centre, rtol=1e-6, atol=0)
    assert torch.all(found.value == 1.0)


def test_maximise_of_a_flat_peak_reaches_its_value_to_round_off():
    # ‖∂S/∂q‖'s profile 2t/(t²+1)²: maximum at t = 1/√3, value 3√3/8.
    grid = torch.logspace(-4, 4, 96, dtype=torch.float64).expand(2, -1)
    found = search.maximise(lambda t: 2 * t / (t.square() + 1).square(), grid)
    assert torch.allclose(found.value, torch.full((2,), 3 * math.sqrt(3) / 8, dtype=torch.float64),
                          rtol=4e-16, atol=0)
    torch.testing.assert_close(found.x, torch.full((2,), 1 / math.sqrt(3), dtype=torch.float64),
                               rtol=1e-7, atol=0)


def test_minimum_at_the_grid_end_or_on_a_plateau_is_the_grid_point():
    grid = torch.linspace(0, 1, 5, dtype=torch.float64).expand(2, -1)
    # Row 0 decreasing (minimum at the end); row 1 constant (neighbours tie: no bracket).
    found = search.minimise(lambda x: torch.stack([1 - x[0], 0 * x[1] + 2]), grid)
    assert found.x.tolist() == [1.0, 0.0] and found.value.tolist() == [0.0, 2.0]


def test_minimise_never_returns_more_than_the_grid_best_and_rejects_a_flat_grid():
    grid = torch.linspace(-1, 1, 9, dtype=torch.float64).expand(1, -1)
    values = lambda x: torch.cos(7 * x)  # noqa: E731 - several local minima
    assert float(search.minimise(values, grid).value[0]) <= float(values(grid).min())
    with pytest.raises(ValueError, match="instances, points"):
        search.minimise(values, grid[0])


def test_sign_changes_finds_every_root_and_first_only_the_first():
    roots = _rows(0.3, 0.6)
    grid = torch.linspace(0, 1, 9, dtype=torch.float64).expand(2, -1)

    def sign_of(x, rows):  # row 0: one root at 0.3; row 1: roots at 0.6 and 0.9
        value = (x - roots[rows, None]) * torch.where(rows[:, None] == 1, x - 0.9, torch.ones_like(x))
        return torch.sign(value)

    rows, lo, hi, s_lo = search.sign_changes(sign_of, grid, candidates=3, rounds=30)
    assert rows.tolist() == [0, 1, 1] and s_lo.tolist() == [-1.0, 1.0, -1.0]
    torch.testing.assert_close((lo + hi) / 2, _rows(0.3, 0.6, 0.9), rtol=0, atol=1e-15)
    rows, lo, hi, _ = search.sign_changes(sign_of, grid, candidates=1, rounds=50, first_only=True)
    assert rows.tolist() == [0, 1]
    torch.testing.assert_close((lo + hi) / 2, roots, rtol=0, atol=1e-14)
    # An exact zero on the grid: a change for first_only (its cell ends there), none otherwise.
    on_grid = lambda x, rows: torch.sign(x - 0.25)  # noqa: E731
    assert search.sign_changes(on_grid, grid, candidates=1, rounds=5)[0].numel() == 0
    rows, lo, hi, _ = search.sign_changes(on_grid, grid, candidates=1, rounds=5, first_only=True)
    assert rows.tolist() == [0, 1] and torch.all(hi == 0.25)


def test_worst_case_searches_once_per_run_and_reads_both_ways():
    calls = []

    def searched(ctx, n):
        calls.append(n)
        return {"x": torch.full((2,), float(n))}, float(n)

    worst = search.WorstCase("toy", searched, lambda ctx, n: 1.5 * n if n > 2 else 0.0)
    ctx = Context("x", seed=0)
    assert worst.measure()(ctx, np.array([1.0, 4.0])).tolist() == [1.0, 6.0]
    assert [c["x"][0].item() for c in worst.cases(ctx, [(1.0,), (4.0,)])] == [1.0, 4.0]
    assert worst.at(ctx, 4.0).searched == 4.0 and worst.supremum(ctx, 4.0) == 6.0
    assert calls == [1.0, 4.0]  # the measure searched; the cases and the supremum reused it
    worst.at(Context("x", seed=1), 4.0)
    assert calls == [1.0, 4.0, 4.0]  # another run searches afresh


def test_grids_are_log_spaced_per_profile_and_read_only():
    quick, full = Context("x", seed=0), Context("x", seed=0, profile="full")
    grid = grids.log_grid(1e-7, 1e-3, quick=5, full=9)
    assert grid(quick).tolist() == pytest.approx([1e-7, 1e-6, 1e-5, 1e-4, 1e-3], rel=1e-13)
    assert len(grid(full)) == 9 and [len(g) for g in grid.profiles] == [5, 9]
    grid(quick)[0] = 5.0  # a caller's copy
    assert grid(quick)[0] == pytest.approx(1e-7)
    assert grids.log_integer_grid(1, 1000, quick=4, full=7)(quick).tolist() == [1, 10, 100, 1000]
    assert grids.geometric(2, 4, 6).tolist() == [2, 8, 32, 128, 512, 2048]
    assert grids.fixed([1, 2, 3])(full).tolist() == grids.fixed([1, 2, 3])(quick).tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="0 < low < high"):
        grids.log_spaced(0.0, 1.0, 5)
