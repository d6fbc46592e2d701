"""Scaling-law fits: log-log least squares, a seeded bootstrap interval, R², and the comparison
with a predicted exponent.

The interval is a percentile bootstrap over points (pairs), or a parametric bootstrap when the
points carry standard errors (Monte-Carlo measurements). Both are seeded, so one seed gives
one interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_DECADES = 3.0
# The shortest grid a scaling law may state (ScalingLaw.min_decades, with its reason): one decade,
# over which a local slope is still resolved by the fit's interval, which says how well.
MIN_SHORT_DECADES = 1.0
CI_LEVEL = 0.95
BOOTSTRAP_SAMPLES = 2000


# A measurement flat to round-off: log y varies by less than this across the grid (a relative
# spread of a few hundred float64 ulps). Its R² is meaningless (0/0), so the fit says "flat".
FLAT_LOG_SPREAD = 1e-12


@dataclass(frozen=True)
class PowerLawFit:
    exponent: float
    prefactor: float
    ci: tuple[float, float]
    r2: float | None  # None for a law flat to round-off, where R² is 0/0
    band: list[tuple[float, float]]  # confidence band of the fitted line at each x
    decades: float
    law: str = "power"
    flat: bool = False


def law_abscissa(x, law: str) -> np.ndarray:
    """The abscissa on which log y is linear: log x (power), x (exponential), log log x (polylog)."""
    x = np.asarray(x, dtype=float)
    if law == "power":
        return np.log(x)
    if law == "exponential":
        return x
    if law == "polylog":
        if np.any(x <= 1):
            raise ValueError("a polylog law (log x)^p needs x > 1")
        return np.log(np.log(x))
    raise ValueError(f"unknown law {law!r}")


def decades(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    return float(np.log10(x.max() / x.min()))


def fit_power_law(
    x, y, yerr=None, *, rng: np.random.Generator, n_boot: int = BOOTSTRAP_SAMPLES,
    min_decades: float = MIN_DECADES, law: str = "power",
) -> PowerLawFit:
    """Fit ``y = c · x**p`` (or ``c·exp(p·x)``, ``c·(log x)**p`` per ``law``) by least squares on
    ``log y`` against the law's abscissa. Power and polylog laws need ``min_decades`` of x; an
    exponential law needs ``min_decades`` of y (the decades its rate is measured over)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-d of one length, got {x.shape} and {y.shape}")
    if len(x) < 4:
        raise ValueError(f"a scaling fit needs at least 4 points, got {len(x)}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("a scaling fit needs finite measurements (got NaN or inf)")
    if np.any(y <= 0) or (law != "exponential" and np.any(x <= 0)):
        raise ValueError("a log-log fit needs positive x and y (measure a magnitude)")
    span = decades(x) if law != "exponential" else decades(y)
    flat = bool(np.ptp(np.log(y)) < FLAT_LOG_SPREAD)
    if span < min_decades - 1e-9 and not (law == "exponential" and flat):
        raise ValueError(f"the {'values span' if law == 'exponential' else 'grid spans'} "
                         f"{span:.2f} decades; at least {min_decades:g} are required")
    lx, ly = law_abscissa(x, law), np.log(y)
    p, a = np.polyfit(lx, ly, 1)
    resid = ly - (a + p * lx)
    ss_tot = float(np.sum((ly - ly.mean()) ** 2))
    r2 = None if flat else 1.0 - float(np.sum(resid**2)) / ss_tot

    if yerr is not None:
        # Parametric: redraw each point within its standard error (on the log scale).
        sl = np.asarray(yerr, dtype=float) / y
        draws = ly[None, :] + rng.standard_normal((n_boot, len(x))) * sl[None, :]
        lx_b = np.broadcast_to(lx, draws.shape)
    else:
        idx = rng.integers(0, len(x), size=(n_boot, len(x)))
        lx_b, draws = lx[idx], ly[idx]
    slopes, intercepts = _batched_lstsq(lx_b, draws)
    alpha = (1.0 - CI_LEVEL) / 2.0
    lo, hi = np.quantile(slopes, [alpha, 1.0 - alpha])
    lines = intercepts[:, None] + slopes[:, None] * lx[None, :]
    band_lo, band_hi = np.quantile(lines, [alpha, 1.0 - alpha], axis=0)
    with np.errstate(over="ignore"):  # a hopeless fit may give an infinite band: report it
        band = [(float(np.exp(b0)), float(np.exp(b1))) for b0, b1 in zip(band_lo, band_hi, strict=True)]
    return PowerLawFit(float(p), float(np.exp(a)), (float(lo), float(hi)), r2, band, span, law, flat)


def closed_form_bias(x, y_exact, exponent: float, law: str = "power") -> float:
    """Fitted exponent of exact (closed-form) values over a grid minus the asymptotic exponent.

    This is the systematic error pre-asymptotic curvature puts into a fit on that grid; a spec
    passes it to ``tolerances.FitBias`` rather than guessing a tolerance.
    """
    x, y = np.asarray(x, dtype=float), np.abs(np.asarray(y_exact, dtype=float))
    return float(np.polyfit(law_abscissa(x, law), np.log(y), 1)[0] - exponent)


def _batched_lstsq(lx: np.ndarray, ly: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Slopes and intercepts of many simple regressions at once (rows are replicates)."""
    mx, my = lx.mean(axis=1, keepdims=True), ly.mean(axis=1, keepdims=True)
    sxx = np.sum((lx - mx) ** 2, axis=1)
    sxy = np.sum((lx - mx) * (ly - my), axis=1)
    # A resample that drew one x only has no slope; it carries no information, so drop it.
    ok = sxx > 0
    slopes = sxy[ok] / sxx[ok]
    return slopes, (my[ok, 0] - slopes * mx[ok, 0])


def compare_exponent(
    ci: tuple[float, float], predicted: float, order: str, tolerance: float, max_width: float
) -> tuple[str, str]:
    """Status of a measured exponent interval against the prediction: agrees, disagrees or undecided.

    ``Θ``: the interval (widened by the stated tolerance) must contain the prediction. ``O``: the
    measured exponent must not exceed it; ``Ω``: must not fall below it. An interval wider than
    ``max_width`` that does not exclude the prediction is undecided.
    """
    lo, hi = ci
    lo_t, hi_t = lo - tolerance, hi + tolerance
    width = hi - lo
    if order == "Θ":
        if predicted < lo_t or predicted > hi_t:
            return "disagrees", f"interval [{lo:.4g}, {hi:.4g}] ± {tolerance:g} excludes {predicted:g}"
        if width > max_width:
            return "undecided", f"interval width {width:.3g} exceeds {max_width:g}: widen the grid"
        return "agrees", f"interval [{lo:.4g}, {hi:.4g}] ± {tolerance:g} contains {predicted:g}"
    if order == "O":
        if lo_t > predicted:
            return "disagrees", f"exponent ≥ {lo:.4g} exceeds the bound {predicted:g}"
        if hi <= predicted + tolerance:
            return "agrees", f"exponent ≤ {hi:.4g} is within the bound {predicted:g}"
        return "undecided", f"interval [{lo:.4g}, {hi:.4g}] straddles the bound {predicted:g}"
    if order == "Ω":
        if hi_t < predicted:
            return "disagrees", f"exponent ≤ {hi:.4g} falls below the bound {predicted:g}"
        if lo >= predicted - tolerance:
            return "agrees", f"exponent ≥ {lo:.4g} meets the bound {predicted:g}"
        return "undecided", f"interval [{lo:.4g}, {hi:.4g}] straddles the bound {predicted:g}"
    raise ValueError(f"unknown order {order!r}")


def nearest_simple_exponent(value: float, ci: tuple[float, float], tolerance: float) -> str:
    """The simplest fraction (denominator ≤ 4) inside the widened interval, for corrected statements."""
    from fractions import Fraction

    lo, hi = ci[0] - tolerance, ci[1] + tolerance
    for den in (1, 2, 3, 4):
        frac = Fraction(round(value * den), den)
        if lo <= float(frac) <= hi:
            return str(frac)
    return f"{value:.3g}"


# ── local exponents: does the fitted law hold across the grid? ──────────────────────────────

# The round-off of a fitted exponent itself: a least-squares slope of float64 logs is good to
# ~1e-13 on any grid a spec uses; 1e-9 is far below any exponent a claim distinguishes. It is the
# slack of the "bare" comparisons (no stated tolerance) and of the drift test, so that an exact
# law whose interval is [p ± 1 ulp] still contains p.
FIT_ROUNDOFF = 1e-9

# Local windows. Each local fit needs >= 4 points (a bootstrap interval over fewer is meaningless:
# with 3 points a third of the pair resamples have no slope) and the windows share their end
# points, so that together they cover the grid once. At most 3 windows: the start, the middle and
# the asymptotic end show a trend (an exponent drifting toward 0, say) while each window keeps as
# many points, and so as narrow an interval, as possible; more windows on the same grid only
# widen every local interval. A grid of 7 points gives its two halves, 13 points three thirds.
MIN_WINDOW_POINTS = 4
MAX_WINDOWS = 3


def local_windows(n: int) -> list[tuple[int, int]]:
    """``(start, stop)`` index ranges of the local windows over a sorted grid of ``n`` points:
    consecutive, sharing their end points, the last one ending at the grid's end."""
    if n < MIN_WINDOW_POINTS + 1:
        return [(0, n)] if n >= MIN_WINDOW_POINTS else []
    m = MAX_WINDOWS if n >= 3 * MIN_WINDOW_POINTS - 2 else 2
    width = max(MIN_WINDOW_POINTS, -(-(n + m - 1) // m))
    starts = sorted({min(i * (width - 1), n - width) for i in range(m)})
    return [(s, s + width) for s in starts]


def local_exponents(x, y, yerr=None, *, rng: np.random.Generator, law: str = "power",
                    n_boot: int = BOOTSTRAP_SAMPLES) -> list[dict]:
    """The law fitted on each local window (ordered along the grid toward its largest x), each
    with its own bootstrap interval: ``[{"x": [lo, hi], "exponent", "ci"}]``."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    es = None if yerr is None else np.asarray(yerr, dtype=float)[order]
    out = []
    for a, b in local_windows(len(xs)):
        f = fit_power_law(xs[a:b], ys[a:b], None if es is None else es[a:b], rng=rng,
                          n_boot=n_boot, min_decades=0.0, law=law)
        out.append({"x": [float(xs[a]), float(xs[b - 1])], "exponent": 0.0 if f.flat else f.exponent,
                    "ci": [float(f.ci[0]), float(f.ci[1])]})
    return out


def is_drifting(local: list[dict], tolerance: float = 0.0) -> bool:
    """Whether two local intervals, each widened by the stated exponent tolerance (the systematic
    error the spec declares for a fit, e.g. a closed form's pre-asymptotic bias, which differs from
    window to window by up to about twice itself) and by round-off, fail to overlap."""
    slack = tolerance + FIT_ROUNDOFF
    lows = [w["ci"][0] - slack for w in local]
    highs = [w["ci"][1] + slack for w in local]
    return bool(local) and max(lows) > min(highs)


def excludes(ci, predicted: float, tolerance: float) -> bool:
    """Whether ``predicted`` lies outside ``ci`` widened by ``tolerance`` (and round-off)."""
    slack = tolerance + FIT_ROUNDOFF
    return predicted < ci[0] - slack or predicted > ci[1] + slack
