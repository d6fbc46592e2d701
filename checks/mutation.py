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

A drifting fit supports no single exponent: a refuted drifting law is mutated to ``O`` of the
largest exponent any of its intervals (global or local) reaches, which its measurement supports.

:func:`scale_tolerance` is the second mutation: the same check with its tolerance times 10. A
statement check's status must not change (a decision that a tenfold tolerance turns was the
tolerance's, not the measurement's).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
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
            # Moved past the tightest random case, the bound fails on that case already: the
            # adversarial search, which could only add violations, is not run again.
            plain = replace(check, strategy=None)
            if check.rel == "==":
                return _shift_relation(plain, 2 * (-room) + 2 * nudge), "value moved by several tolerances"
            sign = 1.0 if check.rel == "<=" else -1.0
            return _shift_relation(plain, -sign * (room + nudge)), "bound moved past the tightest case"
        # Refuted: without the adversarial search, on the same random cases, the bound moved past
        # the worst violation must hold (the refutation came from the measured values).
        plain = replace(check, strategy=None)
        if check.rel == "==":
            # the right side set to the measured left (a widened tolerance would be as wide as the
            # values themselves, which the engine refuses): agreeing values must read agrees
            return replace(plain, evaluate=_matched(check.evaluate), controls=()), (
                "right side set to the measured left side")
        sign = 1.0 if check.rel == "<=" else -1.0
        return _shift_relation(plain, sign * (max(-room, 0.0) + nudge)), (
            "bound moved past the worst random violation")
    if isinstance(check, ScalingLaw):
        lo, hi = evidence["fit"]["ci"]
        cis = [(lo, hi)] + [tuple(w["ci"]) for w in evidence["fit"].get("local_exponents", [])]
        width = max(b - a for a, b in cis)
        tol = check.exponent_tolerance
        low, high = min(a for a, _ in cis), max(b for _, b in cis)
        if agrees:
            step = width + 2 * tol + EXPONENT_SHIFT
            if check.order in ("O", "unbounded"):
                new = low - step
                return replace(check, exponent=new, order="O", controls=()), (
                    f"{check.order} → O(exponent {new:.3g})")
            new = high + step
            order = "Θ" if check.order == "subpolynomial" else check.order
            return replace(check, exponent=new, order=order, controls=()), (
                f"exponent {check.exponent:g} → {new:.3g}")
        if evidence["fit"].get("drifting") or check.order in ("unbounded", "subpolynomial"):
            return replace(check, exponent=high, order="O", controls=()), (
                f"{check.order} → O(exponent {high:.3g}), the largest any interval reaches")
        # What the measurement supports: a bound at the far end of what it reached (one-sided), or
        # its fitted exponent, however wide its interval (the refutation excluded, it did not
        # need a narrow interval).
        if check.order == "O":
            return replace(check, exponent=high, controls=()), f"O bound → O(exponent {high:.3g})"
        if check.order == "Ω":
            return replace(check, exponent=low, controls=()), f"Ω bound → Ω(exponent {low:.3g})"
        new = evidence["fit"]["exponent"]
        return replace(check, exponent=new, order="Θ", max_ci_width=max(check.max_ci_width, width),
                       controls=()), f"exponent {check.exponent:g} → fitted {new:.3g}"
    if isinstance(check, Limit):
        if agrees:
            offset = float(max(evidence["points"]["y"]))

            def gap(ctx_, grid, _gap=check.gap):
                import numpy as np

                return np.asarray(_as_numpy(_gap(ctx_, grid))) + offset

            return replace(check, gap=gap, controls=()), "limit value moved by the largest measured gap"
        new = evidence["fit"]["exponent"]
        if new <= 0:
            raise ValueError(f"limit {check.name!r}: fitted rate {new:.3g} is not a rate to adopt")
        return replace(check, rate=new, controls=()), f"rate {check.rate:g} → fitted {new:.3g}"
    raise TypeError(f"unknown check type {type(check).__name__}")


def _as_numpy(values):
    if hasattr(values, "detach"):
        return values.detach().double().cpu().numpy()
    return values


TOLERANCE_FACTOR = 10.0


def scale_tolerance(check, factor: float = TOLERANCE_FACTOR) -> tuple[Any, str]:
    """(the check with its tolerance times ``factor``, what was changed). A relation's evaluated
    tolerance is scaled; a fit's tolerance object is rebuilt with its numbers scaled, keeping its
    kind (a ``Systematic`` stays hand-set)."""
    if isinstance(check, Relation):
        def evaluate(case, _evaluate=check.evaluate):
            lhs, rhs, tol = _evaluate(case)
            return lhs, rhs, tol * factor

        return replace(check, evaluate=evaluate, controls=()), f"tolerance × {factor:g}"
    if isinstance(check, (ScalingLaw, Limit)):
        return replace(check, tolerance=_scaled(check.tolerance, factor), controls=()), (
            f"exponent tolerance × {factor:g}")
    raise TypeError(f"unknown check type {type(check).__name__}")


def _scaled(tolerance, factor: float):
    from attnaudit.checks import tolerances

    if isinstance(tolerance, tolerances.Systematic):
        return replace(tolerance, value=tolerance.value * factor)
    if isinstance(tolerance, tolerances.FitBias):
        return replace(tolerance, margin=tolerance.margin * factor, floor=tolerance.floor * factor)
    if isinstance(tolerance, tolerances.Exact):
        return tolerance
    return _Scaled(tolerance, factor)


class _Scaled:
    """Any other tolerance with a ``value``, times a factor."""

    def __init__(self, inner, factor: float) -> None:
        self.inner, self.factor = inner, factor

    @property
    def value(self) -> float:
        return self.factor * float(self.inner.value)

    def describe(self) -> str:
        from attnaudit.checks.model import describe_tolerance

        return f"{self.factor:g} × ({describe_tolerance(self.inner)})"


def _matched(evaluate):
    def matched(case):
        lhs, _, tol = evaluate(case)
        return lhs, lhs, tol

    return matched


# ── the mutation test over a claim: what tests/test_mutations.py, a pack's tests and
# 'attnaudit mutate' share ─────────────────────────────────────────────────────────────────


# Refutations that a tenfold tolerance would turn, listed with why: reported, never failed. Each
# is an alternative reading, never a headline.
KNOWN_TOLERANCE_SENSITIVE = {
    "georesolver/proposition-11.3::online-k-means-regret-increment":
        "the online-k-means alternative's O(T⁰) refutation (T^0.82) clears its closed-form fit bias "
        "(±0.436, 2 × 0.218 on this grid) by 0.36 only; tenfold, the bias swamps it",
}


@dataclass(frozen=True)
class Outcome:
    """One mutation of one check: ``passed`` True (the check can fail / the verdict held), False
    (the mutation test fails: ``detail`` says why), or None (not applicable: ``detail`` says why)."""

    claim: str
    check: str
    mutation: str  # "prediction" or "tolerance"
    passed: bool | None
    change: str
    detail: str


def prediction_flip(claim, check, record: dict[str, Any], ctx) -> Outcome:
    """The check with its prediction moved flips its outcome; a statement check that agreed then
    refutes its reading, a proof check that agreed then makes the proof flawed. An undecided check
    (a drifting fit, a straddled bound) must still be able to fail: moved as if it agreed, past
    every interval it measured, it disagrees."""
    from attnaudit.checks.runner import run_check
    from attnaudit.checks.verdict import proof_status, reading_verdict

    original = next(e for e in record["evidence"] if e["name"] == check.name)
    basis = original | {"status": "agrees"} if original["status"] == "undecided" else original
    mutant, change = mutate(check, basis, ctx)
    mutated = run_check(mutant, ctx) | {"controls": []}
    expected = "disagrees" if basis["status"] == "agrees" else "agrees"
    if mutated["status"] != expected:
        return Outcome(claim.id, check.name, "prediction", False, change,
                       f"{change}: {mutated['status']}, not {expected}: {mutated['summary']}")
    if original["status"] == "agrees":
        evidence = [mutated if e["name"] == check.name else e for e in record["evidence"]]
        steps = record["derivation"]["steps"]
        if check.role == "statement":
            verdict, _ = reading_verdict(steps, evidence, check.reading)
            if verdict.value != "refuted":
                return Outcome(claim.id, check.name, "prediction", False, change,
                               f"{change}: the check disagrees but its reading reads {verdict.value}")
        elif check.role == "proof" and check.step is not None:
            status = proof_status(claim, steps, evidence)["status"]
            if status != "flawed":
                return Outcome(claim.id, check.name, "prediction", False, change,
                               f"{change}: the check disagrees but the proof reads {status}")
    return Outcome(claim.id, check.name, "prediction", True, change, f"{change}: {original['status']} "
                   f"→ {mutated['status']}")


def tolerance_hold(claim, check, record: dict[str, Any], ctx) -> Outcome:
    """A statement check's verdict is the measurement's, not its tolerance's: with the check's
    tolerance times ``TOLERANCE_FACTOR`` the verdict of the reading it decides stays the same (a
    check whose own status turns fails only when the verdict turns with it). Not applicable
    (``passed`` None) to an exact comparison, to an agreement under a stated tolerance (a wider one
    only widens what agrees) and where the wider tolerance would reach the bound itself."""
    from attnaudit.checks import tolerances
    from attnaudit.checks.runner import run_check
    from attnaudit.checks.verdict import decide, reading_verdict

    original = next(e for e in record["evidence"] if e["name"] == check.name)

    def skipped(why: str) -> Outcome:
        return Outcome(claim.id, check.name, "tolerance", None, f"tolerance × {TOLERANCE_FACTOR:g}", why)

    if getattr(check.tolerance, "value", None) == 0 or isinstance(check.tolerance, tolerances.Exact):
        return skipped("an exact comparison: ten times no tolerance is none")
    monotone = getattr(check, "order", "Θ") in ("Θ", "O", "Ω")  # "unbounded" subtracts its tolerance
    if (original["status"] == "agrees" and monotone
            and not isinstance(check.tolerance, tolerances.Systematic)):
        # A wider tolerance only widens what agrees (a relation's violations and a fit's excluded
        # exponents can only shrink; drift, judged with the tolerance, only lessens), and only a
        # hand-set Systematic one can turn an agreement undecided: nothing to rerun.
        return skipped("an agreement under a stated tolerance stays one under a wider tolerance")
    mutant, change = scale_tolerance(check, TOLERANCE_FACTOR)
    try:
        mutated = run_check(mutant, ctx)
    except ValueError as exc:
        if "as wide as the bound" not in str(exc):
            raise
        # Tenfold, the tolerance would reach the bound itself: the engine refuses to compare, so
        # no verdict can be turned by it; the check's own tolerance is below the bound.
        return skipped(f"{change}: the tenfold tolerance reaches the bound ({exc})")
    if mutated["status"] == original["status"]:
        return Outcome(claim.id, check.name, "tolerance", True, change,
                       f"{change}: still {original['status']}")
    evidence = [mutated | {"controls": original.get("controls", []),
                           "control_outcome": original.get("control_outcome")}
                if e["name"] == check.name else e for e in record["evidence"]]
    steps = record["derivation"]["steps"]
    if check.reading is None:
        before, after = record["verdict"], decide(claim, steps, evidence)["verdict"].value
    else:
        before = next(r["verdict"] for r in record["readings"] if r["id"] == check.reading)
        after = reading_verdict(steps, evidence, check.reading)[0].value
    if after != before:
        return Outcome(claim.id, check.name, "tolerance", False, change,
                       f"{change}: the verdict turns {before} → {after}: {mutated['summary']}")
    return Outcome(claim.id, check.name, "tolerance", True, change,
                   f"{change}: the check turns {original['status']} → {mutated['status']}, the verdict "
                   f"stays {before}")


def mutate_claim(claim, record: dict[str, Any], ctx) -> list[Outcome]:
    """Both mutations of every check of a claim whose ``record`` ran in ``ctx`` (the tolerance
    mutation for statement checks only)."""
    out = []
    for check in claim.checks:
        out.append(prediction_flip(claim, check, record, ctx))
        if check.role != "statement":
            continue
        known = KNOWN_TOLERANCE_SENSITIVE.get(f"{claim.id}::{check.name}")
        out.append(Outcome(claim.id, check.name, "tolerance", None, f"tolerance × {TOLERANCE_FACTOR:g}",
                           f"listed as tolerance-sensitive: {known}") if known
                   else tolerance_hold(claim, check, record, ctx))
    return out
