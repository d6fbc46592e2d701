"""Evidence for scaling laws and limits: measure along a grid, fit, compare with the prediction."""

from __future__ import annotations

from typing import Any

import numpy as np

from attnaudit.checks.context import Context
from attnaudit.checks.fitting import (
    FIT_ROUNDOFF,
    MIN_DECADES,
    MIN_SHORT_DECADES,
    MIN_WINDOW_POINTS,
    compare_exponent,
    excludes,
    fit_power_law,
    is_drifting,
    law_abscissa,
    local_exponents,
)
from attnaudit.checks.model import Limit, ScalingLaw, describe_tolerance
from attnaudit.checks.tolerances import Systematic


def _as_array(values) -> np.ndarray:
    if hasattr(values, "detach"):
        values = values.detach().double().cpu().numpy()
    return np.asarray(values, dtype=float)


TUPLE_REJECTED = ("{what} {name!r}: {fn} returned a tuple (values, standard errors); a spec cannot "
                  "supply an error bar: set replicates=R (the engine draws R replicates of the "
                  "measurement, each with ctx.replicate(r), and takes the mean and its standard "
                  "error per point)")


def _draw(fn, ctx: Context, x: np.ndarray, r: int, *, what: str, name: str, fn_name: str
          ) -> np.ndarray:
    """One replicate of a measurement along the grid (replicate 0 is the run's own context).

    Kept in the replicate's memo for the claim run, keyed by the measure function and the grid: a
    control that moves only the prediction, or a mutant of the same check, re-decides on the same
    draw instead of measuring again (a control that swaps the measure is another function)."""
    rctx = ctx.replicate(r)
    key = ("attnaudit.measured", fn, x.dtype.str, x.tobytes())
    if key in rctx.memo:
        return rctx.memo[key]
    result = fn(rctx, x)
    if isinstance(result, tuple):
        raise ValueError(TUPLE_REJECTED.format(what=what, name=name, fn=fn_name))
    y = _as_array(result)
    if y.shape != x.shape:
        noun = "values" if what == "scaling law" else "gaps"
        raise ValueError(f"{what} {name!r}: measured {y.shape} {noun} for {x.shape} points")
    y = y.copy()  # the spec keeps its own array; this one is shared by every check reading the draw
    y.setflags(write=False)
    rctx.memo[key] = y
    return y


def _points(draws: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None]:
    """Mean per point and, over R >= 2 draws, its standard error (a single draw has none)."""
    stack = np.stack(draws)
    if len(draws) == 1:
        return stack[0], None
    return stack.mean(axis=0), stack.std(axis=0, ddof=1) / np.sqrt(len(draws))


def _measure_and_decide(fn, ctx: Context, x: np.ndarray, replicates: int, decide, *, what: str,
                        name: str, fn_name: str) -> dict[str, Any]:
    """Draw the replicates, decide, and for a single draw that would refute, draw once more.

    A fit over single-draw points cannot refute by interval exclusion (its points have no error
    bar); a deterministic measurement (flop counts, closed forms) needs none. So a refutation from
    one draw is re-measured with ``ctx.replicate(1)``: bitwise identical values are deterministic
    and the refutation stands; otherwise the two draws are the replicates (R = 2) and decide.
    """
    replicates = int(replicates)
    draws = [_draw(fn, ctx, x, r, what=what, name=name, fn_name=fn_name) for r in range(replicates)]
    ev = decide(draws)
    deterministic = None
    if replicates >= 2:
        deterministic = all(np.array_equal(d, draws[0]) for d in draws[1:])
    ev |= {"replicates": replicates, "replicates_requested": replicates,
           "second_replicate_drawn": False, "deterministic": deterministic}
    if replicates == 1 and ev["status"] == "disagrees":
        second = _draw(fn, ctx, x, 1, what=what, name=name, fn_name=fn_name)
        if second.tobytes() == draws[0].tobytes():
            ev["deterministic"] = True
            ev["decision"] += " (a deterministic measurement: a second replicate is bitwise identical)"
        else:
            ev = decide([draws[0], second]) | {
                "replicates": 2, "replicates_requested": 1, "second_replicate_drawn": True,
                "deterministic": False}
            ev["decision"] += (" (one draw cannot refute: the engine drew a second replicate and "
                               "decided on the two)")
    return ev


def _small_sample(yerr: np.ndarray | None, replicates: int) -> np.ndarray | None:
    """The standard errors the parametric bootstrap draws with, widened for the few replicates they
    come from: ×t(0.975, R−1)/z(0.975) (Student's t; 6.5 at R = 2, 1.6 at R = 4), since a standard
    error estimated from R draws is itself uncertain and a normal redraw would understate the
    interval (seen: a true n⁻¹ law under lognormal noise refuted at R = 4)."""
    if yerr is None or replicates < 2:
        return yerr
    from scipy import stats

    return yerr * float(stats.t.ppf(0.975, replicates - 1) / stats.norm.ppf(0.975))


def _fit_evidence(ctx: Context, name: str, x, draws, predicted: float, order: str,
                  tolerance_obj: Any, tolerance: float, max_width: float, *,
                  anchor_at_small_x: bool = False, law: str = "power",
                  min_decades: float = MIN_DECADES) -> dict[str, Any]:
    y, yerr = _points(draws)
    spread = _small_sample(yerr, len(draws))
    fit = fit_power_law(x, y, spread, rng=ctx.numpy_rng(f"bootstrap:{name}"), law=law,
                        min_decades=min_decades)
    local = local_exponents(x, y, spread, rng=ctx.numpy_rng(f"bootstrap-local:{name}"), law=law)
    drifting = is_drifting(local, tolerance)
    poly = None
    if order == "unbounded" and law != "exponential" and np.all(np.asarray(x) > 1):
        poly = local_exponents(x, y, spread, rng=ctx.numpy_rng(f"bootstrap-polylog:{name}"),
                               law="polylog")
    status, why, by_tol = _decide(fit, local, drifting, predicted, order, tolerance, max_width, poly)
    if by_tol and isinstance(tolerance_obj, Systematic):
        status = "undecided"
        why += f"; decided by a hand-set tolerance (±{tolerance:g}): without it the interval does not agree"
    # The predicted law (for plots) is drawn through the measurement at the asymptotic end: the
    # largest x for a scaling law, the smallest distance to the limit point for a limit.
    anchor = int(np.argmin(x) if anchor_at_small_x else np.argmax(x))
    return {
        "points": {"x": [float(v) for v in x], "y": [float(v) for v in y],
                   "yerr": None if yerr is None else [float(v) for v in yerr],
                   "draws": [[float(v) for v in d] for d in draws]},
        "fit": {"exponent": fit.exponent, "prefactor": fit.prefactor, "ci": list(fit.ci),
                "ci_level": 0.95, "r2": fit.r2, "band": [list(b) for b in fit.band],
                "decades": fit.decades, "law": fit.law, "flat": fit.flat,
                "drifting": drifting, "local_exponents": local}
               | ({} if poly is None else {"local_polylog_exponents": poly}),
        "predicted_exponent": predicted,
        "predicted_prefactor": float(y[anchor] / np.exp(predicted * law_abscissa(x, law)[anchor])),
        "order": order,
        "exponent_tolerance": tolerance,
        "decided_by_tolerance": by_tol,
        "status": status,
        "decision": why,
    }


def _local_range(local: list[dict]) -> str:
    e = [w["exponent"] for w in local]
    return (f"local exponents from {e[0]:.3g} (x in [{local[0]['x'][0]:.3g}, {local[0]['x'][1]:.3g}]) "
            f"to {e[-1]:.3g} (x in [{local[-1]['x'][0]:.3g}, {local[-1]['x'][1]:.3g}]), "
            f"range [{min(e):.3g}, {max(e):.3g}]")


def _decide(fit, local, drifting: bool, predicted: float, order: str, tol: float,
            max_width: float, poly=None) -> tuple[str, str, bool]:
    """(status, why, decided_by_tolerance) of a fit and its local exponents against the order."""
    if order in ("unbounded", "subpolynomial"):
        return _decide_growth(fit, local, order, tol, poly) + (False,)
    glob, why = compare_exponent(fit.ci, predicted, order, tol, max_width)
    bare, _ = compare_exponent(fit.ci, predicted, order, FIT_ROUNDOFF, max_width)
    end = local[-1] if local else None
    if order == "Θ":
        if drifting:
            if all(excludes(w["ci"], predicted, tol) for w in local):
                return "disagrees", (f"drifting: every local interval excludes {predicted:g} "
                                     f"({_local_range(local)})"), False
            return "undecided", (f"drifting: {_local_range(local)}; the law does not hold across the grid, "
                                 f"so no Θ is confirmed"), False
        return glob, why, glob == "agrees" and bare != "agrees"
    # O / Ω: the bound side is tested on the global fit and on the asymptotic end's local fit.
    if end is None:
        return glob, why, glob == "agrees" and bare != "agrees"
    loc, lwhy = compare_exponent(tuple(end["ci"]), predicted, order, tol, np.inf)
    loc_bare, _ = compare_exponent(tuple(end["ci"]), predicted, order, FIT_ROUNDOFF, np.inf)
    at_end = f"at the asymptotic end (x in [{end['x'][0]:.3g}, {end['x'][1]:.3g}]) {lwhy}"
    if loc == "disagrees":
        return "disagrees", f"{at_end}; globally {why}", False
    if glob == "disagrees" and not drifting:
        return "disagrees", f"{why}; {at_end}", False
    if glob == "agrees" and loc == "agrees":
        by_tol = bare != "agrees" or loc_bare != "agrees"
        drift = "; drifting: " + _local_range(local) if drifting else ""
        return "agrees", f"{why}; {at_end}{drift}", by_tol
    return "undecided", (f"globally {why}; {at_end}"
                         + (f"; drifting: {_local_range(local)}" if drifting else "")), False


SUBPOLYNOMIAL_SMALL = 0.1  # an exponent below 0.1 at the grid's end: under a tenth of a decade per decade


def _decide_growth(fit, local, order: str, tol: float, poly=None) -> tuple[str, str]:
    """``unbounded``: the quantity grows without bound. No finite grid proves that; what is tested
    is growth at least like a positive power of log x at every scale of the grid. Agrees when every
    local interval (the global one too), less the tolerance, lies above 0, and (power and polylog
    laws, x > 1) the local polylog exponents (log y against log log x: 1 for log x at every scale)
    do not fall along the grid: the last one's interval reaches the first one's. A bounded
    increasing quantity (1 − 1/x, say) has positive local exponents too, but they fall like 1/x;
    log log x, which falls like 1/log log x, is not confirmed either (undecided). Disagrees when
    the last window's interval plus the tolerance lies at or below 0 (it has stopped growing where
    the grid ends). Otherwise undecided.

    ``subpolynomial`` (Θ(x^{o(1)})): the local exponents' magnitudes do not increase along the grid
    (each at most the previous one's, within the later interval), and the last window's interval,
    widened by the tolerance, contains 0 or lies within ±SUBPOLYNOMIAL_SMALL: agrees. The last
    interval outside ±(SUBPOLYNOMIAL_SMALL + tolerance) with magnitudes not decreasing from the
    first window: disagrees (a polynomial rate at the end). Otherwise undecided.
    """
    if not local:
        raise ValueError(f"order {order!r} needs local exponents: at least {MIN_WINDOW_POINTS} grid points")
    rng_text = _local_range(local)
    end = local[-1]
    if order == "unbounded":
        cis = [w["ci"] for w in local] + [list(fit.ci)]
        falling = poly is not None and poly[-1]["ci"][1] + tol < poly[0]["ci"][0]
        if all(ci[0] - tol > FIT_ROUNDOFF for ci in cis) and not falling:
            return "agrees", ("grows at every scale of the grid, at least like a power of log: every "
                              f"local interval lies above 0 ({rng_text})")
        if end["ci"][1] + tol <= FIT_ROUNDOFF:
            return "disagrees", (f"stops growing at the grid's end: the last local interval "
                                 f"[{end['ci'][0]:.3g}, {end['ci'][1]:.3g}] lies at or below 0 ({rng_text})")
        if falling:
            return "undecided", (f"grows, but slower than any power of log at the grid's end: the local "
                                 f"polylog exponent falls from {poly[0]['exponent']:.3g} to "
                                 f"{poly[-1]['exponent']:.3g} (bounded growth is not excluded)")
        return "undecided", f"growth not shown at every scale: some local interval reaches 0 ({rng_text})"
    mags = [abs(w["exponent"]) for w in local]
    non_increasing = all(
        mags[i + 1] <= mags[i] + (local[i + 1]["ci"][1] - local[i + 1]["ci"][0]) / 2 + tol + FIT_ROUNDOFF
        for i in range(len(local) - 1))
    small = SUBPOLYNOMIAL_SMALL + tol
    lo, hi = end["ci"]
    near_zero = (lo - tol <= 0 <= hi + tol) or (-small <= lo and hi <= small)
    if non_increasing and near_zero:
        return "agrees", (f"local exponents shrink toward 0 and the last interval [{lo:.3g}, {hi:.3g}] "
                          f"is within ±{small:.3g} ({rng_text})")
    if (lo > small or hi < -small) and mags[-1] >= mags[0] - (hi - lo) / 2 - tol - FIT_ROUNDOFF:
        return "disagrees", (f"a polynomial rate at the grid's end: the last interval [{lo:.3g}, "
                             f"{hi:.3g}] lies outside ±{small:.3g} and the local exponents do not "
                             f"shrink ({rng_text})")
    return "undecided", f"local exponents do not show a rate tending to 0 ({rng_text})"


def _short_grid(law: ScalingLaw, x: np.ndarray) -> float:
    """The decades a law's fit needs: the engine's, or the law's stated shorter span, which must
    keep two local windows (the drift rule compares them) and at least MIN_SHORT_DECADES."""
    if law.min_decades is None:
        return MIN_DECADES
    if not MIN_SHORT_DECADES <= law.min_decades < MIN_DECADES:
        raise ValueError(f"scaling law {law.name!r}: min_decades {law.min_decades:g} is outside "
                         f"[{MIN_SHORT_DECADES:g}, {MIN_DECADES:g})")
    if len(x) < MIN_WINDOW_POINTS + 1:
        raise ValueError(f"scaling law {law.name!r}: a short grid needs at least {MIN_WINDOW_POINTS + 1} "
                         "points, so that the drift rule compares two local windows")
    return float(law.min_decades)


def check_scaling(law: ScalingLaw, ctx: Context) -> dict[str, Any]:
    x = _as_array(law.grid(ctx))
    min_decades = _short_grid(law, x)
    ev = {
        "type": "scaling",
        "name": law.name,
        "reading": law.reading,
        "quantity": law.quantity,
        "variable": law.variable,
        "predicted": law.predicted or _law_text(law.law, law.order, law.variable, law.exponent),
        "family": law.family,
        "tolerance": describe_tolerance(law.tolerance),
        "role": law.role,
    }

    def decide(draws):
        return _fit_evidence(ctx, law.name, x, draws, law.exponent, law.order, law.tolerance,
                             law.exponent_tolerance, law.max_ci_width, law=law.law, min_decades=min_decades)

    ev |= _measure_and_decide(law.measure, ctx, x, law.replicates, decide, what="scaling law",
                              name=law.name, fn_name="measure")
    fit = ev["fit"]
    r2 = "flat to round-off" if fit["flat"] else f"R² {fit['r2']:.4f}"
    # A law flat to round-off fits an exponent of 1e-17 or so: it reads as the 0 it is.
    measured = _law_text(law.law, "", law.variable, 0.0 if fit["flat"] else fit["exponent"], digits=4)
    if law.info is not None:
        ev["info"] = _informational(law.info(ctx, x))
    short = ""
    if law.min_decades is not None:
        ev["short_grid"] = {"decades": fit["decades"], "min_decades": min_decades, "why": law.short_grid}
        short = f", a short grid: {fit['decades']:.2g} decades"
    ev["summary"] = (f"{law.quantity} ~ {measured} (95% CI [{fit['ci'][0]:.4g}, {fit['ci'][1]:.4g}], "
                     f"{r2}{short}) vs predicted {ev['predicted']}: {ev['decision']}")
    return ev


def _informational(info: dict[str, Any]) -> dict[str, Any]:
    """A scaling law's informational measurements as plain JSON: ``columns`` (name → one value per
    grid point) and ``series`` (further curves for the plot: label, x, y). Never compared."""
    columns = {str(k): [float(v) for v in _as_array(vals)] for k, vals in info.get("columns", {}).items()}
    series = [{"label": str(s["label"]), "x": [float(v) for v in _as_array(s["x"])],
               "y": [float(v) for v in _as_array(s["y"])]} for s in info.get("series", [])]
    if any(len(s["x"]) != len(s["y"]) for s in series):
        raise ValueError("an informational series needs one y per x")
    return {"columns": columns, "series": series}


def _law_text(law: str, order: str, variable: str, p: float, digits: int = 3) -> str:
    e = f"{p:.{digits}g}"
    if order == "unbounded":
        return f"unbounded in {variable}"
    if order == "subpolynomial":
        return f"Θ({variable}^o(1))"
    body = {"power": f"{variable}^{e}", "exponential": f"exp({e}·{variable})",
            "polylog": f"(log {variable})^{e}"}[law]
    return f"{order}({body})" if order else body


def check_limit(limit: Limit, ctx: Context) -> dict[str, Any]:
    x = _as_array(limit.grid(ctx))
    # Distance to the limit point: the fit is of log gap against log |x − point| (or 1/x at ∞).
    to_point = 1.0 / x if limit.point in ("oo", "∞", "inf") else np.abs(x - float(limit.point))
    ev = {
        "type": "limit",
        "name": limit.name,
        "reading": limit.reading,
        "quantity": limit.quantity,
        "variable": limit.variable,
        "value": limit.value,
        "point": limit.point,
        "family": limit.family,
        "tolerance": describe_tolerance(limit.tolerance),
        "role": limit.role,
    }

    def decide(draws):
        for gap in draws:
            if np.any(gap < 0):
                raise ValueError(f"limit {limit.name!r}: the gap is a distance and must be >= 0")
        gap = _points(draws)[0]
        if np.any(gap == 0):
            # An exactly zero gap cannot be fitted on log axes; report it as exact attainment.
            raise ValueError(f"limit {limit.name!r}: the gap is exactly 0 at some grid point; "
                             "use a Relation for an identity that holds exactly")
        return {"final_gap": float(gap[np.argmin(to_point)])} | _fit_evidence(
            ctx, limit.name, to_point, draws, limit.rate, "Θ", limit.tolerance,
            limit.rate_tolerance, 0.5, anchor_at_small_x=True)

    ev |= _measure_and_decide(limit.gap, ctx, x, limit.replicates, decide, what="limit",
                              name=limit.name, fn_name="gap")
    ev["summary"] = (f"|{limit.quantity} − {limit.value}| shrinks like "
                     f"|{limit.variable} − {limit.point}|^{ev['fit']['exponent']:.4g} "
                     f"(95% CI [{ev['fit']['ci'][0]:.4g}, {ev['fit']['ci'][1]:.4g}]), "
                     f"derived rate {limit.rate:g}; gap {ev['final_gap']:.3g} at the closest point: "
                     f"{ev['decision']}")
    return ev
