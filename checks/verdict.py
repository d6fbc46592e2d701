"""Two answers per claim, apart, exactly as DESIGN.md defines them.

**verdict** (is the statement true under its primary reading?): the conjunction of its clauses,
each decided by the ``statement`` steps and checks that name it (the worst clause decides:
refuted > unverifiable, when a clause is undefined as written > inconclusive > confirmed). A
clause shown by a ``vacuity`` item to hold for every operator of its kind reads inconclusive. Per
clause:

- refuted: a statement step disagrees, or a statement check disagrees (a replayable witness, a
  fitted exponent's interval excluding the prediction, a limit whose gap does not close);
- inconclusive: nothing refutes but something cannot decide (an undecided step or check), or no
  agreeing check is backed by a failing negative control (so nothing shown could have failed);
- confirmed: every statement step and check agrees and at least one agreeing check has a control
  that failed whose contrast keeps the statement's setting (another operator, one hypothesis
  broken, the prediction moved); checks whose controls all passed cannot discriminate and are set
  aside, and a control that changes only the setting never counts;
- unverifiable: the spec states that no checkable reading exists, and why.
(``error`` is given by the runner when a check itself fails.)

**proof** (does the paper's argument establish it?), from the quoted steps of the paper's argument
(``Claim.proof_steps``, in source order) and the ``proof`` items that check them: flawed (the
first false step in the paper's order is named) > incomplete (a step undecided or unchecked, none
quoted, or a stated gap) > sound; absent when the source gives no argument. The suite's own
``derivation`` items are shown and never make a proof sound. A false proof item never refutes.

Alternative readings get a verdict each by the same rule; they never change the headline.
"""

from __future__ import annotations

from typing import Any

from attnaudit.checks.fitting import nearest_simple_exponent
from attnaudit.checks.model import PRIMARY, Claim, Clause, ProofStatus, Verdict
from attnaudit.checks.results import Evidence, controls_outcome  # noqa: F401 - the engine's and the report's one rule


def _of_reading(items: list[dict[str, Any]], reading: str | None, role: str) -> list[dict[str, Any]]:
    return [i for i in items if i.get("reading") == reading and i.get("role") == role]


def _status(item: dict[str, Any]) -> str:
    return item["status"]


def _items_verdict(s_steps: list[dict[str, Any]], s_checks: list[dict[str, Any]]) -> tuple[Verdict, str]:
    """The verdict of one reading or clause from its statement steps and checks."""
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
        return Verdict.INCONCLUSIVE, "no statement step or check tests it yet"
    outcomes = {e["name"]: controls_outcome(Evidence.from_json(e)) for e in s_checks}
    backed = [n for n, o in outcomes.items() if o == "discriminates"]
    blind = [n for n, o in outcomes.items() if o == "blind"]
    setting = [n for n, o in outcomes.items() if o == "setting-only"]
    if not backed:
        if blind:
            why = f"the controls of {', '.join(blind)} passed too, so these checks cannot discriminate"
        elif setting:
            why = (f"the controls of {', '.join(setting)} change only the setting, which shows nothing "
                   "about the statement")
        else:
            why = "no agreeing check has a negative control that fails"
        return Verdict.INCONCLUSIVE, why
    text = (f"{len(s_checks)} statement check{'s' * (len(s_checks) != 1)} "
            f"agree{'s' * (len(s_checks) == 1)}"
            f" ({len(backed)} with a failing control)")
    if s_steps:
        text += f" and {len(s_steps)} statement step{'s' * (len(s_steps) != 1)}"
    if blind:
        text += f"; set aside as blind (their controls passed): {', '.join(blind)}"
    if setting:
        text += f"; set aside (their controls change only the setting): {', '.join(setting)}"
    return Verdict.CONFIRMED, text


def reading_verdict(steps: list[dict[str, Any]], evidence: list[dict[str, Any]],
                    reading: str | None) -> tuple[Verdict, str]:
    """The verdict of one reading from its statement steps and checks (all clauses together)."""
    return _items_verdict(_of_reading(steps, reading, "statement"),
                          _of_reading(evidence, reading, "statement"))


# Which clause verdict the conjunction reports: a refuted clause refutes the statement; an undefined
# one leaves it unverifiable; a clause nothing decides leaves it inconclusive.
_WORST = (Verdict.REFUTED, Verdict.UNVERIFIABLE, Verdict.INCONCLUSIVE, Verdict.CONFIRMED)


def clause_verdicts(claim: Claim, steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
                    ) -> list[dict[str, Any]]:
    """``[{id, quote, undefined, verdict, summary}]``, one per clause of the statement (a claim that
    quotes none has one clause, ``statement``, with no quote: its whole primary reading)."""
    clauses: tuple[Clause | None, ...] = claim.clauses or (None,)
    out = []
    for clause in clauses:
        cid = getattr(clause, "id", None)
        mine = (lambda item, cid=cid: claim.clause_of(item.get("clause")) == cid) if cid else (lambda _: True)
        s_steps = [s for s in _of_reading(steps, None, "statement") if mine(s)]
        s_checks = [e for e in _of_reading(evidence, None, "statement") if mine(e)]
        vacuity = [i for i in _of_reading(steps, None, "vacuity") + _of_reading(evidence, None, "vacuity")
                   if mine(i) and _status(i) == "agrees"]
        undefined = getattr(clause, "undefined", None)
        if undefined is not None:
            verdict, summary = Verdict.UNVERIFIABLE, f"undefined as written: {undefined}"
        elif cid and not s_steps and not s_checks:
            verdict, summary = Verdict.INCONCLUSIVE, f"no statement step or check tests clause '{cid}' yet"
        else:
            verdict, summary = _items_verdict(s_steps, s_checks)
            if verdict is Verdict.CONFIRMED and vacuity:
                verdict = Verdict.INCONCLUSIVE
                summary = (f"vacuous: {vacuity[0]['name']} shows it holds for every operator of its "
                           f"kind in the stated setting ({summary})")
        out.append({"id": cid or "statement", "quote": getattr(clause, "quote", None),
                    "undefined": undefined, "verdict": verdict.value, "summary": summary})
    return out


def conjunction(clauses: list[dict[str, Any]]) -> tuple[Verdict, str]:
    """The primary verdict: the worst clause decides, and the summary names it."""
    verdicts = [Verdict(c["verdict"]) for c in clauses]
    worst = min(verdicts, key=_WORST.index)
    if len(clauses) == 1:
        return worst, clauses[0]["summary"]
    if worst is Verdict.CONFIRMED:
        return worst, f"all {len(clauses)} clauses confirmed: " + "; ".join(
            f"{c['id']}: {c['summary']}" for c in clauses)
    named = [c for c in clauses if c["verdict"] == worst.value]
    return worst, "; ".join(f"clause '{c['id']}' {worst.value}: {c['summary']}" for c in named)


def _item_status(items: list[dict[str, Any]]) -> str:
    if not items:
        return "unchecked"
    statuses = {_status(i) for i in items}
    return ("disagrees" if "disagrees" in statuses else "undecided" if "undecided" in statuses
            else "agrees")


def proof_status(claim: Claim, steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
                 ) -> dict[str, Any]:
    """``{status, first_false_step, reason, steps}`` from the paper's quoted proof steps, in the
    order they stand in the source. Items the suite adds (role ``derivation``) are shown beside
    them and never make a proof sound."""
    items = [("step", s) for s in steps if s.get("role") == "proof"] + \
            [("check", e) for e in evidence if e.get("role") == "proof"]
    quoted = []
    for ps in claim.proof_steps:
        mine = [(kind, i) for kind, i in items if i.get("step") == ps.id]
        quoted.append({"id": ps.id, "quote": ps.quote, "status": _item_status([i for _, i in mine]),
                       "items": [i["name"] for _, i in mine], "_items": mine})
    derived = [i for i in steps + evidence if i.get("role") == "derivation"]
    suite = (f"; the suite's own derivation ({len(derived)} item{'s' * (len(derived) != 1)}) is "
             "shown but never makes a proof sound") if derived else ""

    def result(status: ProofStatus, reason: str, first: str | None = None) -> dict[str, Any]:
        return {"status": status.value, "first_false_step": first, "reason": reason,
                "steps": [{k: v for k, v in q.items() if k != "_items"} for q in quoted]}

    if claim.proof_absent is not None:
        return result(ProofStatus.ABSENT, claim.proof_absent)
    for q in quoted:
        if q["status"] == "disagrees":
            kind, first = next((k, i) for k, i in q["_items"] if _status(i) == "disagrees")
            detail = (f"paper {first['paper']}, derived {first['derived']}" if kind == "step"
                      else first["summary"])
            return result(ProofStatus.FLAWED, f"step '{q['id']}' (\u201c{_short(q['quote'])}\u201d) is "
                          f"false: {kind} '{first['name']}': {detail}", q["id"])
    if not quoted:
        return result(ProofStatus.INCOMPLETE, "no step of the paper's argument is quoted and checked"
                      + suite)
    open_steps = [q["id"] for q in quoted if q["status"] != "agrees"]
    if open_steps:
        return result(ProofStatus.INCOMPLETE, "undecided or unchecked: " + ", ".join(open_steps))
    if claim.proof_gap is not None:
        return result(ProofStatus.INCOMPLETE, f"the quoted steps do not reach the conclusion: "
                      f"{claim.proof_gap}")
    return result(ProofStatus.SOUND, f"{len(quoted)} quoted step{'s' * (len(quoted) != 1)} of the "
                  f"paper's argument check{'s' * (len(quoted) == 1)} out" + suite)


def _short(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def decide(claim: Claim, steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
           ) -> dict[str, Any]:
    """``{verdict, summary, proof, readings, clauses}`` for a claim whose steps and checks have run."""
    proof = proof_status(claim, steps, evidence)
    readings = [{"id": PRIMARY, "text": claim.reading, "why": claim.reading_why, "primary": True}]
    readings += [{"id": r.id, "text": r.text, "why": r.why, "primary": False}
                 for r in claim.alternatives]
    if claim.unverifiable is not None:
        for r in readings:
            r |= {"verdict": Verdict.UNVERIFIABLE.value, "summary": claim.unverifiable}
        clauses = [{"id": c.id, "quote": c.quote, "undefined": c.undefined,
                    "verdict": Verdict.UNVERIFIABLE.value, "summary": claim.unverifiable}
                   for c in claim.clauses] or [{"id": "statement", "quote": None, "undefined": None,
                                                "verdict": Verdict.UNVERIFIABLE.value,
                                                "summary": claim.unverifiable}]
        return {"verdict": Verdict.UNVERIFIABLE, "summary": claim.unverifiable, "proof": proof,
                "readings": readings, "clauses": clauses}
    clauses = clause_verdicts(claim, steps, evidence)
    verdict, summary = conjunction(clauses)
    readings[0] |= {"verdict": verdict.value, "summary": summary}
    for r in readings[1:]:
        v, why = reading_verdict(steps, evidence, r["id"])
        r |= {"verdict": v.value, "summary": why}
    return {"verdict": verdict, "summary": summary, "proof": proof, "readings": readings,
            "clauses": clauses}


def confirmation_kind(claim: Claim, verdict: Verdict) -> str | None:
    """``identity`` (true by construction of the operator), ``empirical``, or None (not confirmed)."""
    if verdict is not Verdict.CONFIRMED:
        return None
    return "identity" if claim.identity is not None else "empirical"


def corrected_statement(claim: Claim, verdict: Verdict, evidence: list[dict[str, Any]]
                        ) -> dict[str, Any] | None:
    """What the evidence supports instead, marked with who derived it; None when not refuted.

    The spec's own ``correction`` (typically from its exact derivation) takes precedence, labelled
    as its author's (``attnaudit`` for a built-in claim, the spec's author for a pack's); otherwise
    each refuted statement scaling law of the primary reading contributes the exponent the
    measurement supports.
    """
    if verdict is not Verdict.REFUTED:
        return None
    primary = _of_reading(evidence, None, "statement")
    text = claim.correction(evidence) if claim.correction is not None else None
    basis = [e["name"] for e in primary if e["status"] == "disagrees"]
    # The spec's own text is its author's: the suite's when the spec is a built-in claim.
    # (from the module that defines the correction: a claim built outside discovery, as the tests
    # import them, has no source_module)
    authors = (getattr(claim.correction, "__module__", None) or "", claim.source_module)
    derived_by = ("attnaudit" if any(a.startswith("attnaudit.claims.") for a in authors)
                  else "the spec's author (correction=)")
    if text is None:
        derived_by = "attnaudit"
        parts = []
        for e in primary:
            if e["status"] != "disagrees" or e["type"] != "scaling" or e["fit"].get("law") != "power":
                continue
            if e["fit"].get("drifting"):
                continue  # a drifting fit measures no single exponent: nothing to correct it to
            fit = e["fit"]
            p = nearest_simple_exponent(fit["exponent"], tuple(fit["ci"]), e["exponent_tolerance"])
            parts.append(f"{e['quantity']} = Θ({e['variable']}^{p}) on {e['family']}, "
                         f"not {e['predicted']} (fitted {fit['exponent']:.4g}, "
                         f"95% CI [{fit['ci'][0]:.4g}, {fit['ci'][1]:.4g}])")
        text = "; ".join(parts) or None
    if text is None:
        return None
    return {"statement": text, "derived_by": derived_by, "basis": basis}
