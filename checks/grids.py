"""Grids of a sweep: log-spaced floats and integers, geometric sequences, and the per-profile grid
functions a :class:`ScalingLaw` or :class:`Limit` takes (``grid(ctx) -> array``).

The arrays are NumPy float64 (what the fits read); integer grids hold whole numbers as floats.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attnaudit.checks.context import Context


def log_spaced(low: float, high: float, count: int) -> np.ndarray:
    """``count`` points log-spaced over ``[low, high]``, both ends included."""
    if not 0 < low < high or count < 2:
        raise ValueError(f"a log-spaced grid needs 0 < low < high and >= 2 points, got [{low:g}, {high:g}], "
                         f"{count}")
    return np.logspace(np.log10(low), np.log10(high), int(count))


def log_spaced_integers(low: float, high: float, count: int) -> np.ndarray:
    """:func:`log_spaced`, rounded to whole numbers; repeats dropped (so possibly fewer points)."""
    return np.unique(np.round(log_spaced(low, high, count)))


def geometric(first: float, ratio: float, count: int) -> np.ndarray:
    """``first · ratio**k`` for ``k = 0 … count − 1``."""
    return float(first) * float(ratio) ** np.arange(int(count), dtype=float)


class Grid:
    """A grid function (``grid(ctx)``): the ``quick`` array in the quick profile, ``full`` in the
    full one; both stay readable (``grid.quick``, ``grid.profiles``) for a spec that computes
    something over every profile's grid, e.g. a closed form's fit bias."""

    def __init__(self, *, quick: Sequence[float] | np.ndarray, full: Sequence[float] | np.ndarray):
        self.quick, self.full = (np.asarray(a, dtype=float) for a in (quick, full))
        for a in (self.quick, self.full):
            a.setflags(write=False)

    @property
    def profiles(self) -> tuple[np.ndarray, np.ndarray]:
        return self.quick, self.full

    def __call__(self, ctx: Context) -> np.ndarray:
        return ctx.pick(quick=self.quick, full=self.full).copy()

    def __repr__(self) -> str:
        return f"Grid(quick={self.quick.tolist()}, full={self.full.tolist()})"


def per_profile(*, quick: Sequence[float] | np.ndarray, full: Sequence[float] | np.ndarray) -> Grid:
    """A grid function: ``quick`` in the quick profile, ``full`` in the full one."""
    return Grid(quick=quick, full=full)


def fixed(values: Sequence[float] | np.ndarray) -> Grid:
    """A grid function: the same ``values`` in both profiles."""
    return Grid(quick=values, full=values)


def log_grid(low: float, high: float, *, quick: int, full: int) -> Grid:
    """A grid function: ``quick`` (or ``full``) points log-spaced over ``[low, high]``."""
    return per_profile(quick=log_spaced(low, high, quick), full=log_spaced(low, high, full))


def log_integer_grid(low: float, high: float, *, quick: int, full: int) -> Grid:
    """A grid function: whole numbers log-spaced over ``[low, high]`` (:func:`log_spaced_integers`)."""
    return per_profile(quick=log_spaced_integers(low, high, quick), full=log_spaced_integers(low, high, full))
