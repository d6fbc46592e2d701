"""Engine mutators: the same check with its prediction moved, to show that the check can fail.

A check that agrees is mutated to a false prediction and must then disagree; a check that
disagrees is mutated to the prediction its own measurement supports and must then agree (so a
refutation comes from the measurement, not from a comparator that always fails). Used by the
mutation test over every check of every claim (``tests/test_mutations.py``), in place of
per-spec knobs.

- Relation: the bound moved past the tightest case the check measured (``<=``/``>=``), or the
  value moved by several tolerances (``==``); for a disagreeing relation, moved past its worst
  violation the other way.
- ScalingLaw: the predicted exponent moved outside the fitted interval (by the interval's width,
  the tolerance and a further ``EXPONENT_SHIFT``), or set to the fitted exponent when refuted.
- Limit: a wrong limit value (the gap offset by its largest measured value, so it no longer
  closes), or the derived rate set to the fitted one when refuted.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from attnaudit.checks.model import Limit, Relation, ScalingLaw

EXPONENT_SHIFT = 0.5  # beyond the interval and tolerance: a clearly wrong exponent


def _shift_relation(relation: Relation, shift: float) -> Relation:
    """``rhs`` moved by ``shift`` (in the relation's own units) on every case."""

    def evaluate(case):
        lhs, rhs, tol = relation.evaluate(case)
        return lhs, rhs + shift, tol

    return replace(relation, evaluate=evaluate, controls=())


def _relation_room(relation: Relation, ctx) -> tuple[float, float, float]:
    """Over the relation's random cases: (least room rhs − lhs in the relation's direction, or
    −max|lhs − rhs| for ``==``; the largest tolerance; the largest |rhs|)."""
    import numpy as np

    from attnaudit.checks.relations import evaluate_case

    room, tol, scale = np.inf, 0.0, 0.0
    for batch in relation.sample(ctx, ctx.generator(f"relation:{relation.name}")):
        v = evaluate_case(relation, batch)
        diff = {"<=": v["rhs"] - v["lhs"], ">=": v["lhs"] - v["rhs"],
                "==": -np.abs(v["rhs"] - v["lhs"])}[relation.rel]
        room = min(room, float(diff.min()))
        tol = max(tol, float(v["tol"].max()))
        scale = max(scale, float(np.abs(v["rhs"]).max()))
    return room, tol, scale


def mutate(check, evidence: dict[str, Any], ctx) -> tuple[Any, str]:
    """(the mutated check, what was changed); its status must be the opposite of ``evidence``'s."""
    agrees = evidence["status"] == "agrees"
    if isinstance(check, Relation):
        room, tol, scale = _relation_room(check, ctx)
        # a nudge beyond round-off of the compared values themselves, so a zero tolerance still moves
        nudge = 2 * tol + (1e-9 * scale if scale > 0 else 1e-300)
        if agrees:
            if check.rel == "==":
                return _shift_relation(check, 2 * (-room) + 2 * nudge), "value moved by several tolerances"
            sign = 1.0 if check.rel == "<=" else -1.0
            return _shift_relation(check, -sign * (room + nudge)), "bound moved past the tightest case"
        # Refuted: without the adversarial search, on the same random cases, the bound moved past
        # the worst violation must hold (the refutation came from the measured values).
        plain = replace(check, strategy=None)
        if check.rel == "==":
            return replace(plain, evaluate=_widen(check.evaluate, -room + nudge), controls=()), (
                "tolerance widened past the worst random violation")
        sign = 1.0 if check.rel == "<=" else -1.0
        return _shift_relation(plain, sign * (max(-room, 0.0) + nudge)), (
            "bound moved past the worst random violation")
    if isinstance(check, ScalingLaw):
        lo, hi = evidence["fit"]["ci"]
        width, tol = hi - lo, check.exponent_tolerance
        if agrees:
            step = width + 2 * tol + EXPONENT_SHIFT
            if check.order == "O":
                new = lo - step
            elif check.order == "Ω":
                new = hi + step
            else:
                new = hi + step
            return replace(check, exponent=new, controls=()), f"exponent {check.exponent:g} → {new:.3g}"
        new = evidence["fit"]["exponent"]
        return replace(check, exponent=new, order="Θ", controls=()), (
            f"exponent {check.exponent:g} → fitted {new:.3g}")
    if isinstance(check, Limit):
        if agrees:
            def gap(ctx_, grid, _gap=check.gap):
                import numpy as np

                from attnaudit.checks.laws import _measured

                g, err = _measured(_gap(ctx_, grid))
                offset = float(np.max(g))
                return (g + offset, err) if err is not None else g + offset

            return replace(check, gap=gap, controls=()), "limit value moved by the largest measured gap"
        new = evidence["fit"]["exponent"]
        if new <= 0:
            raise ValueError(f"limit {check.name!r}: fitted rate {new:.3g} is not a rate to adopt")
        return replace(check, rate=new, controls=()), f"rate {check.rate:g} → fitted {new:.3g}"
    raise TypeError(f"unknown check type {type(check).__name__}")


def _widen(evaluate, by: float):
    def widened(case):
        lhs, rhs, tol = evaluate(case)
        return lhs, rhs, tol + by

    return widened
