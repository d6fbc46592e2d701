"""Searches a spec runs to find a worst (or best) case: a grid, then a bracketed refinement; sign
changes on a grid, bisected; and :class:`WorstCase`, a search plus extremal constructions run once
per claim run and read both as a supremum (a :class:`ScalingLaw`'s measure) and as the instances
the search ended on (a :class:`Relation`'s cases).

The refinement is SciPy's elementwise bracketing minimiser (``scipy.optimize.elementwise.
find_minimum``, Chandrupatla's method: golden section safeguarded by parabolic steps), which runs
one bracket per instance in one vectorised loop; the spec's function stays a batched torch function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from attnaudit.checks.bisection import bisect_monotone
from attnaudit.checks.context import Context

# The refinement stops when the bracket is this small relative to the point (or the three values of
# the bracket tie): a flat extremum located to relative η moves the value by O(η²), so 1e-12 leaves
# the value exact to round-off; ties end it earlier where the function is flat to round-off.
X_RTOL = 1e-12
MAX_ITERATIONS = 200


@dataclass(frozen=True)
class Extremum:
    """Per instance: where the extremum was found (``x``) and the function's value there."""

    x: torch.Tensor
    value: torch.Tensor


def minimise(fn: Callable[[torch.Tensor], torch.Tensor], grid: torch.Tensor, *,
             xrtol: float = X_RTOL) -> Extremum:
    """The minimum of ``fn`` per instance: the best point of ``grid``, then a bracketed refinement
    between its two neighbours.

    ``fn`` maps points ``(B, K)`` (row ``b`` for instance ``b``) to values ``(B, K)``; ``grid`` is
    ``(B, G)``, sorted along each row (``expand`` a grid shared by every instance). Where the best grid
    point is an end of the grid, or its neighbours tie with it, no bracket holds a lower interior
    point and the grid point is the answer (the minimum over ``[grid[0], grid[-1]]`` lies there
    for a function unimodal between grid points). The refinement never returns a value above the
    grid's best.
    """
    from scipy.optimize.elementwise import find_minimum

    if grid.ndim != 2:
        raise ValueError(f"a search grid is (instances, points), got shape {tuple(grid.shape)}")
    points, values = grid, fn(grid)
    j = values.argmin(dim=1)
    width = points.shape[1]
    inner = ((j > 0) & (j < width - 1)).cpu().numpy()
    at = lambda t, k: t.gather(1, k.clamp(0, width - 1)[:, None])[:, 0]  # noqa: E731
    best_x, best = at(points, j), at(values, j)
    if not inner.any():
        return Extremum(best_x, best)
    host = lambda t: t.detach().cpu().numpy()  # noqa: E731
    rows = np.nonzero(inner)[0]
    bracket = tuple(host(at(points, j + step))[rows] for step in (-1, 0, 1))

    def on_rows(x: np.ndarray, which: np.ndarray) -> np.ndarray:
        probe = best_x.clone()
        index = torch.as_tensor(which.astype(np.int64), device=probe.device)
        probe[index] = torch.as_tensor(x, dtype=probe.dtype, device=probe.device)
        return host(fn(probe[:, None])[:, 0])[which.astype(np.int64)]

    result = find_minimum(on_rows, bracket, args=(rows,), maxiter=MAX_ITERATIONS,
                          tolerances={"xrtol": xrtol})
    refined_x, refined = (torch.as_tensor(v, dtype=best.dtype, device=best.device)
                          for v in (result.x, result.f_x))
    index = torch.as_tensor(rows, device=best.device)
    # An invalid bracket (neighbours tying with the grid's best) comes back as NaN: keep the grid's.
    better = torch.isfinite(refined_x) & torch.isfinite(refined) & (refined < best[index])
    best_x, best = best_x.clone(), best.clone()
    best_x[index] = torch.where(better, refined_x, best_x[index])
    best[index] = torch.where(better, refined, best[index])
    return Extremum(best_x, best)


def maximise(fn: Callable[[torch.Tensor], torch.Tensor], grid: torch.Tensor, *,
             xrtol: float = X_RTOL) -> Extremum:
    """The maximum of ``fn`` per instance (:func:`minimise` of ``−fn``)."""
    found = minimise(lambda x: -fn(x), grid, xrtol=xrtol)
    return Extremum(found.x, -found.value)


def sign_changes(sign_of: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], grid: torch.Tensor, *,
                 candidates: int, rounds: int, first_only: bool = False, what: str = "sign change"
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Every cell of ``grid`` ``(B, G)`` (sorted rows) across which ``sign_of`` changes, bisected
    (:func:`checks.bisection.bisect_monotone`, ``candidates`` points per round): ``(rows, lo, hi,
    sign at lo)``, one entry per cell found; ``first_only`` keeps each instance's first cell.

    ``sign_of(x, rows)`` gives the signs ``(P, K)`` at points ``x`` ``(P, K)`` of instances ``rows``
    ``(P,)``. With ``first_only`` a cell ending at an exact zero counts as a change (its bracket ends
    at the zero); otherwise a change is a strict one (an exact zero on the grid is skipped).
    """
    every = torch.arange(grid.shape[0], device=grid.device)
    signs = sign_of(grid, every)
    change = signs[:, :-1] * signs[:, 1:] <= 0 if first_only else signs[:, :-1] * signs[:, 1:] < 0
    if first_only:
        found = change.any(dim=1)
        rows, cell = every[found], change.to(torch.int8).argmax(dim=1)[found]
    else:
        rows, cell = torch.nonzero(change, as_tuple=True)
    s_lo = signs[rows, cell]
    if rows.numel() == 0:
        empty = grid.new_zeros(0)
        return rows, empty, empty, s_lo
    lo, hi = bisect_monotone(lambda x: sign_of(x, rows) == s_lo[:, None], grid[rows, cell],
                             grid[rows, cell + 1], candidates=candidates, rounds=rounds, what=what)
    return rows, lo, hi, s_lo


@dataclass(frozen=True)
class Found:
    """What a worst-case search found at one point of a sweep: the instances it ended on (a case
    for a Relation), the best value among them and the best value among the constructions."""

    case: dict[str, Any]
    searched: float
    constructed: float

    @property
    def worst(self) -> float:
        return max(self.searched, self.constructed)


@dataclass(frozen=True)
class WorstCase:
    """The worst case of a quantity at each point of a sweep: ``search(ctx, *point)`` returns
    ``(case, best value)`` (the instances it ended on, as a case dict), ``constructions(ctx,
    *point)`` the best value of the extremal constructions (or None). Each point is searched once per
    claim run (the context's memo, under ``name`` and the point), whichever check asks first.
    """

    name: str
    search: Callable[..., tuple[dict[str, Any], float]]
    constructions: Callable[..., float] | None = None

    def at(self, ctx: Context, *point: Any) -> Found:
        def compute() -> Found:
            case, searched = self.search(ctx, *point)
            built = self.constructions(ctx, *point) if self.constructions else -np.inf
            return Found(case, float(searched), float(built))

        return ctx.cached(("attnaudit.worst-case", self.name, *point), compute)

    def supremum(self, ctx: Context, *point: Any) -> float:
        """The largest value found at ``point``: searched or constructed."""
        return self.at(ctx, *point).worst

    def measure(self, point: Callable[[float], tuple] = lambda x: (x,)
                ) -> Callable[[Context, Any], np.ndarray]:
        """A ScalingLaw measure: the supremum at each grid value ``x``, at ``point(x)``."""
        def measure(ctx: Context, grid) -> np.ndarray:
            return np.array([self.supremum(ctx, *point(x)) for x in grid])

        return measure

    def cases(self, ctx: Context, points: Iterable[tuple]) -> Iterator[dict[str, Any]]:
        """The instances the search ended on at each of ``points`` (a Relation's sample)."""
        for point in points:
            yield self.at(ctx, *point).case
