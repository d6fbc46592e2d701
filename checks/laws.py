"""Evidence for scaling laws and limits: measure along a grid, fit, compare with the prediction."""

from __future__ import annotations

from typing import Any

import numpy as np

from attnaudit.checks.context import Context
from attnaudit.checks.fitting import compare_exponent, fit_power_law, law_abscissa
from attnaudit.checks.model import Limit, ScalingLaw, describe_tolerance


def _as_array(values) -> np.ndarray:
    if hasattr(values, "detach"):
        values = values.detach().double().cpu().numpy()
    return np.asarray(values, dtype=float)


def _measured(result) -> tuple[np.ndarray, np.ndarray | None]:
    if isinstance(result, tuple):
        y, yerr = result
        return _as_array(y), _as_array(yerr)
    return _as_array(result), None


def _fit_evidence(ctx: Context, name: str, x, y, yerr, predicted: float, order: str,
                  tolerance: float, max_width: float, *, anchor_at_small_x: bool = False,
                  law: str = "power") -> dict[str, Any]:
    fit = fit_power_law(x, y, yerr, rng=ctx.numpy_rng(f"bootstrap:{name}"), law=law)
    status, why = compare_exponent(fit.ci, predicted, order, tolerance, max_width)
    # The predicted law (for plots) is drawn through the measurement at the asymptotic end: the
    # largest x for a scaling law, the smallest distance to the limit point for a limit.
    anchor = int(np.argmin(x) if anchor_at_small_x else np.argmax(x))
    return {
        "points": {"x": [float(v) for v in x], "y": [float(v) for v in y],
                   "yerr": None if yerr is None else [float(v) for v in yerr]},
        "fit": {"exponent": fit.exponent, "prefactor": fit.prefactor, "ci": list(fit.ci),
                "ci_level": 0.95, "r2": fit.r2, "band": [list(b) for b in fit.band],
                "decades": fit.decades, "law": fit.law, "flat": fit.flat},
        "predicted_exponent": predicted,
        "predicted_prefactor": float(y[anchor] / np.exp(predicted * law_abscissa(x, law)[anchor])),
        "order": order,
        "exponent_tolerance": tolerance,
        "status": status,
        "decision": why,
    }


def check_scaling(law: ScalingLaw, ctx: Context) -> dict[str, Any]:
    x = _as_array(law.grid(ctx))
    y, yerr = _measured(law.measure(ctx, x))
    if y.shape != x.shape:
        raise ValueError(f"scaling law {law.name!r}: measured {y.shape} values for {x.shape} points")
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
    } | _fit_evidence(ctx, law.name, x, y, yerr, law.exponent, law.order,
                      law.exponent_tolerance, law.max_ci_width, law=law.law)
    fit = ev["fit"]
    r2 = "flat to round-off" if fit["flat"] else f"R² {fit['r2']:.4f}"
    # A law flat to round-off fits an exponent of 1e-17 or so: it reads as the 0 it is.
    measured = _law_text(law.law, "", law.variable, 0.0 if fit["flat"] else fit["exponent"], digits=4)
    if law.info is not None:
        ev["info"] = _informational(law.info(ctx, x))
    ev["summary"] = (f"{law.quantity} ~ {measured} (95% CI [{fit['ci'][0]:.4g}, {fit['ci'][1]:.4g}], "
                     f"{r2}) vs predicted {ev['predicted']}: {ev['decision']}")
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
    body = {"power": f"{variable}^{e}", "exponential": f"exp({e}·{variable})",
            "polylog": f"(log {variable})^{e}"}[law]
    return f"{order}({body})" if order else body


def check_limit(limit: Limit, ctx: Context) -> dict[str, Any]:
    x = _as_array(limit.grid(ctx))
    gap, gap_err = _measured(limit.gap(ctx, x))
    if gap.shape != x.shape:
        raise ValueError(f"limit {limit.name!r}: measured {gap.shape} gaps for {x.shape} points")
    if np.any(gap < 0):
        raise ValueError(f"limit {limit.name!r}: the gap is a distance and must be >= 0")
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
        "final_gap": float(gap[np.argmin(to_point)]),
    }
    if np.any(gap == 0):
        # An exactly zero gap cannot be fitted on log axes; report it as exact attainment.
        raise ValueError(f"limit {limit.name!r}: the gap is exactly 0 at some grid point; "
                         "use a Relation for an identity that holds exactly")
    ev |= _fit_evidence(ctx, limit.name, to_point, gap, gap_err, limit.rate, "Θ",
                        limit.rate_tolerance, 0.5, anchor_at_small_x=True)
    ev["summary"] = (f"|{limit.quantity} − {limit.value}| shrinks like "
                     f"|{limit.variable} − {limit.point}|^{ev['fit']['exponent']:.4g} "
                     f"(95% CI [{ev['fit']['ci'][0]:.4g}, {ev['fit']['ci'][1]:.4g}]), "
                     f"derived rate {limit.rate:g}; gap {ev['final_gap']:.3g} at the closest point: "
                     f"{ev['decision']}")
    return ev
