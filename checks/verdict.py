"""Two answers per claim, apart, exactly as DESIGN.md defines them.

**verdict** (is the statement true under its primary reading?), from the ``statement`` steps and
checks of that reading:

- refuted: a statement step disagrees, or a statement check disagrees (a replayable witness, a
  fitted exponent's interval excluding the prediction, a limit whose gap does not close);
- inconclusive: nothing refutes but something cannot decide (an undecided step or check), or no
  agreeing check is backed by a failing negative control (so nothing shown could have failed);
- confirmed: every statement step and check agrees and at least one agreeing check has a control
  that failed; checks whose controls all passed cannot discriminate and are set aside;
- unverifiable: the spec states that no checkable reading exists, and why.
(``error`` is given by the runner when a check itself fails.)

**proof** (does the paper's argument establish it?), from the ``proof`` steps and checks of every
reading: flawed (the first false one is named) > incomplete (some undecided, or none checked) >
sound; absent when the source gives no argument. A false proof item never refutes.

Alternative readings get a verdict each by the same rule; they never change the headline.
"""

from __future__ import annotations

from typing import Any

from attnaudit.checks.fitting import nearest_simple_exponent
from attnaudit.checks.model import PRIMARY, Claim, ProofStatus, Verdict


def _of_reading(items: list[dict[str, Any]], reading: str | None, role: str) -> list[dict[str, Any]]:
    return [i for i in items if i.get("reading") == reading and i.get("role") == role]


def _status(item: dict[str, Any]) -> str:
    return item["status"]


def controls_outcome(ev: dict[str, Any]) -> str:
    """``discriminates`` (a control failed), ``blind`` (every control passed) or ``uncontrolled``."""
    controls = ev.get("controls") or []
    if any(c["failed"] for c in controls):
        return "discriminates"
    return "blind" if controls else "uncontrolled"


def reading_verdict(steps: list[dict[str, Any]], evidence: list[dict[str, Any]],
                    reading: str | None) -> tuple[Verdict, str]:
    """The verdict of one reading from its statement steps and checks."""
    s_steps = _of_reading(steps, reading, "statement")
    s_checks = _of_reading(evidence, reading, "statement")
    false_steps = [s for s in s_steps if _status(s) == "disagrees"]
    disagreeing = [e for e in s_checks if _status(e) == "disagrees"]
    if false_steps or disagreeing:
        reasons = [f"statement step '{s['name']}' is false: paper {s['paper']}, derived {s['derived']}"
                   for s in false_steps[:1]]
        reasons += [f"{e['name']}: {e['summary']}" for e in disagreeing]
        return Verdict.REFUTED, "; ".join(reasons)
    undecided = [f"step '{s['name']}' undecided by SymPy" for s in s_steps if _status(s) == "undecided"]
    undecided += [f"{e['name']}: {e.get('decision', e['summary'])}" for e in s_checks
                  if _status(e) == "undecided"]
    if undecided:
        return Verdict.INCONCLUSIVE, "; ".join(undecided)
    if not s_checks:
        if s_steps:
            return Verdict.INCONCLUSIVE, (f"{len(s_steps)} statement step(s) agree but no numerical "
                                          "check with a negative control tests the statement")
        return Verdict.INCONCLUSIVE, "nothing tests the statement itself (only proof steps)"
    backed = [e for e in s_checks if controls_outcome(e) == "discriminates"]
    blind = [e["name"] for e in s_checks if controls_outcome(e) == "blind"]
    if not backed:
        why = (f"the controls of {', '.join(blind)} passed too, so these checks cannot discriminate"
               if blind else "no agreeing check has a negative control that fails")
        return Verdict.INCONCLUSIVE, why
    text = (f"{len(s_checks)} statement check{'s' * (len(s_checks) != 1)} "
            f"agree{'s' * (len(s_checks) == 1)}"
            f" ({len(backed)} with a failing control)")
    if s_steps:
        text += f" and {len(s_steps)} statement step{'s' * (len(s_steps) != 1)}"
    if blind:
        text += f"; set aside as blind (their controls passed): {', '.join(blind)}"
    return Verdict.CONFIRMED, text


def proof_status(claim: Claim, steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
                 ) -> dict[str, Any]:
    """``{status, first_false_step, reason}`` over the proof items of every reading."""
    if claim.proof_absent is not None:
        return {"status": ProofStatus.ABSENT.value, "first_false_step": None,
                "reason": claim.proof_absent}
    items = ([("step", s) for s in steps if s.get("role") == "proof"]
             + [("check", e) for e in evidence if e.get("role") == "proof"])
    false = [(kind, i) for kind, i in items if _status(i) == "disagrees"]
    if false:
        kind, first = false[0]
        detail = (f"paper {first['paper']}, derived {first['derived']}" if kind == "step"
                  else first["summary"])
        return {"status": ProofStatus.FLAWED.value, "first_false_step": first["name"],
                "reason": f"{kind} '{first['name']}' is false: {detail}"}
    undecided = [i["name"] for _, i in items if _status(i) == "undecided"]
    if undecided:
        return {"status": ProofStatus.INCOMPLETE.value, "first_false_step": None,
                "reason": f"undecided: {', '.join(undecided)}"}
    if not items:
        return {"status": ProofStatus.INCOMPLETE.value, "first_false_step": None,
                "reason": "no step of the paper's argument is checked"}
    return {"status": ProofStatus.SOUND.value, "first_false_step": None,
            "reason": f"{len(items)} proof item{'s' * (len(items) != 1)} "
                      f"agree{'s' * (len(items) == 1)}"}


def decide(claim: Claim, steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
           ) -> dict[str, Any]:
    """``{verdict, summary, proof, readings}`` for a claim whose steps and checks have run."""
    proof = proof_status(claim, steps, evidence)
    readings = [{"id": PRIMARY, "text": claim.reading, "why": claim.reading_why, "primary": True}]
    readings += [{"id": r.id, "text": r.text, "why": r.why, "primary": False}
                 for r in claim.alternatives]
    if claim.unverifiable is not None:
        for r in readings:
            r |= {"verdict": Verdict.UNVERIFIABLE.value, "summary": claim.unverifiable}
        return {"verdict": Verdict.UNVERIFIABLE, "summary": claim.unverifiable, "proof": proof,
                "readings": readings}
    for r in readings:
        v, why = reading_verdict(steps, evidence, None if r["primary"] else r["id"])
        r |= {"verdict": v.value, "summary": why}
    primary = readings[0]
    return {"verdict": Verdict(primary["verdict"]), "summary": primary["summary"], "proof": proof,
            "readings": readings}


def corrected_statement(claim: Claim, verdict: Verdict, evidence: list[dict[str, Any]]
                        ) -> dict[str, Any] | None:
    """What the evidence supports instead, marked as derived by the suite; None when not refuted.

    The spec's own ``correction`` (typically from its exact derivation) takes precedence; otherwise
    each refuted statement scaling law of the primary reading contributes the exponent the
    measurement supports.
    """
    if verdict is not Verdict.REFUTED:
        return None
    primary = _of_reading(evidence, None, "statement")
    text = claim.correction(evidence) if claim.correction is not None else None
    basis = [e["name"] for e in primary if e["status"] == "disagrees"]
    if text is None:
        parts = []
        for e in primary:
            if e["status"] != "disagrees" or e["type"] != "scaling" or e["fit"].get("law") != "power":
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
