"""The one Monte-Carlo interval type of the engine: estimates with an interval at a stated
confidence, Bonferroni-corrected over the comparisons a check makes (see ``tolerances.MonteCarlo``).

Specs measure a batch of independent trials and call :func:`mean` (or :func:`proportion` for a
count); the returned :class:`Estimate` carries the value, its standard error and the interval.

A ScalingLaw's or Limit's ``measure``/``gap`` never returns error bars: it returns one draw, and
the engine draws ``replicates=R`` of them (``ctx.replicate(r)``) and takes each point's standard
error from those draws (checks.laws).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attnaudit.checks.tolerances import MonteCarlo


@dataclass(frozen=True)
class Estimate:
    value: float
    stderr: float
    low: float
    high: float
    n: int

    def excludes(self, x: float) -> bool:
        return x < self.low or x > self.high


def _as_numpy(samples) -> np.ndarray:
    if hasattr(samples, "detach"):
        samples = samples.detach().double().cpu().numpy()
    return np.asarray(samples, dtype=float)


def mean(samples, tolerance: MonteCarlo, axis: int = -1) -> list[Estimate] | Estimate:
    """The sample mean with a normal interval at ``tolerance.per_comparison`` (along ``axis``)."""
    x = _as_numpy(samples)
    if x.shape[axis] < 2:
        raise ValueError("a Monte-Carlo interval needs at least 2 samples")
    from scipy import stats  # ~0.5 s to import: only where an interval is actually drawn

    m = x.mean(axis=axis)
    se = x.std(axis=axis, ddof=1) / np.sqrt(x.shape[axis])
    z = stats.norm.ppf(0.5 + tolerance.per_comparison / 2)
    n = x.shape[axis]
    if np.ndim(m) == 0:
        return Estimate(float(m), float(se), float(m - z * se), float(m + z * se), n)
    return [Estimate(float(a), float(b), float(a - z * b), float(a + z * b), n)
            for a, b in zip(np.ravel(m), np.ravel(se), strict=True)]


def proportion(successes: int, trials: int, tolerance: MonteCarlo) -> Estimate:
    """A proportion with its Wilson score interval at ``tolerance.per_comparison``.

    The closed form of the Wilson interval (scipy's ``binomtest(...).proportion_ci(method="wilson")``
    gives the same bounds, tested; it also computes a p-value, which costs ~0.5 ms a call).
    """
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {successes}/{trials}")
    from scipy.special import ndtri  # the normal quantile, without scipy.stats' import cost

    z = float(ndtri(0.5 + tolerance.per_comparison / 2))
    p, n = successes / trials, float(trials)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # Clip at the exact ends: 0 and 1 successes-fractions have one-sided intervals.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Estimate(p, math.sqrt(p * (1 - p) / n), low, high, int(trials))


def means_and_errors(samples) -> tuple[np.ndarray, np.ndarray]:
    """Per-row means and standard errors of ``samples (points, trials)``. Not for a ScalingLaw's
    ``measure``: a spec cannot supply error bars (set ``replicates=R``; the engine draws them)."""
    x = _as_numpy(samples)
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError("means_and_errors needs samples of shape (points, trials >= 2)")
    return x.mean(axis=1), x.std(axis=1, ddof=1) / np.sqrt(x.shape[1])
