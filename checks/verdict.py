"""Verdicts from evidence, exactly as DESIGN.md defines them, and suite-derived corrections.

- refuted: a derivation step is false, a relation has a replayable witness, or a fitted
  exponent's interval excludes the prediction;
- inconclusive: nothing refutes but some evidence cannot decide (says what would);
- confirmed: every step agrees and every check agrees within its stated tolerance;
- unverifiable: the spec states that no checkable reading exists, and why.
(``error`` is given by the runner when a check itself fails.)
"""

from __future__ import annotations

from typing import Any

from checks.fitting import nearest_simple_exponent
from checks.model import Claim, Verdict


def decide(claim: Claim, steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
           ) -> tuple[Verdict, str]:
    if claim.unverifiable is not None:
        return Verdict.UNVERIFIABLE, claim.unverifiable
    false_steps = [s for s in steps if not s["agrees"]]
    disagreeing = [e for e in evidence if e["status"] == "disagrees"]
    undecided = [e for e in evidence if e["status"] == "undecided"]
    if false_steps or disagreeing:
        reasons = [f"proof step '{s['name']}' is false: paper {s['paper']}, derived {s['derived']}"
                   for s in false_steps[:1]]
        reasons += [f"{e['name']}: {e['summary']}" for e in disagreeing]
        return Verdict.REFUTED, "; ".join(reasons)
    if undecided:
        return Verdict.INCONCLUSIVE, "; ".join(f"{e['name']}: {e['decision']}" for e in undecided)
    n_steps, n_checks = len(steps), len(evidence)
    return Verdict.CONFIRMED, (f"{n_steps} derivation step{'s' * (n_steps != 1)} and "
                               f"{n_checks} check{'s' * (n_checks != 1)} agree")


def corrected_statement(claim: Claim, verdict: Verdict, evidence: list[dict[str, Any]]
                        ) -> dict[str, Any] | None:
    """What the evidence supports instead, marked as derived by the suite; None when not refuted.

    The spec's own ``correction`` (typically from its exact derivation) takes precedence; otherwise
    each refuted scaling law contributes the exponent the measurement supports.
    """
    if verdict is not Verdict.REFUTED:
        return None
    text = claim.correction(evidence) if claim.correction is not None else None
    basis = [e["name"] for e in evidence if e["status"] == "disagrees"]
    if text is None:
        parts = []
        for e in evidence:
            if e["status"] != "disagrees" or e["type"] != "scaling":
                continue
            fit = e["fit"]
            p = nearest_simple_exponent(fit["exponent"], tuple(fit["ci"]), e["exponent_tolerance"])
            parts.append(f"{e['quantity']} = Θ({e['variable']}^{p}) on {e['family']}, "
                         f"not {e['predicted']} (fitted {fit['exponent']:.4g}, "
                         f"95% CI [{fit['ci'][0]:.4g}, {fit['ci'][1]:.4g}])")
        text = "; ".join(parts) or None
    if text is None:
        return None
    return {"statement": text, "derived_by": "attnaudit", "basis": basis}
