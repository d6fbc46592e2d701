"""The report's content, once: a plain dict built from a results file, read by every renderer.

HTML, Typst and JUnit render this document; none of them re-derives a figure, so a number shown
on a page, in the PDF and in results.json is the same number (the figure strings come from
:func:`checks.results.figure`, as in the summary tables, and a claim's key figure is the record's
own ``figure``, written by :func:`checks.results.key_figure`).

Every claim carries both answers (DESIGN.md, "Evidence and verdicts"): the ``verdict`` on the
statement under its primary reading and the ``proof`` status of the paper's argument, with its
readings, each step's and check's role and reading, and each check's negative controls. The
records are the results layer's (:class:`checks.results.Record`), read with attribute access.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from attnaudit.checks.results import Difference, Evidence, Record, Step, figure, thaw
from attnaudit.checks.results import cell as stability_cell

# Worst first: the order of counts, badges and the default sort of the claims table.
VERDICTS = ("refuted", "error", "inconclusive", "unverifiable", "confirmed")
# The proof's answer, worst first in the same sense; "unjudged" where the record has none (an
# error record).
PROOF_STATUSES = ("flawed", "incomplete", "absent", "sound", "unjudged")
UNJUDGED = "unjudged"
STEP_STATUSES = ("disagrees", "undecided", "agrees")
ROLES = ("statement", "proof", "derivation", "vacuity")
# How a role is labelled: a "derivation" item is the suite's own step, not the paper's proof.
ROLE_LABELS = {"derivation": "suite's derivation"}
PRIMARY = "primary"
PLOTTED = ("scaling", "limit")
# What each kind of the gate's differences (checks.gate.Difference.kind) means, in words.
GATE_KINDS = {"changed": "verdict changed", "proof": "proof status changed", "new": "new claim",
              "vanished": "vanished", "error": "error"}


def slug(claim_id: str) -> str:
    """A claim's page name: ids are paper/label/part, and '/' cannot be in a file name."""
    return claim_id.replace("/", "__")


def key_figure(record: Record) -> str:
    """The one line that best says why the claim got its verdict: the record's own ``figure``
    (:func:`checks.results.key_figure`), its summary when nothing was measured; for an error its
    reason."""
    if record.verdict == "error":
        reason = (record.failure.reason if record.failure else "") or record.summary
        return (reason.splitlines() or [""])[0]
    return record.figure or record.summary


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def pretty(text: Any) -> str:
    """Raw SymPy text as mathematics for display: ``m**4`` → ``m⁴``, ``x**(1/2)`` → ``x^(1/2)``,
    ``4*(m + 1)`` → ``4·(m + 1)``, a zero-width interval ``[1, 1]`` → ``1 (exact)``. Other text
    is returned unchanged (the records keep their own text; this is display only)."""
    text = "" if text is None else str(text)
    # A zero-width interval "[1, 1]" (an exact value) as the single value.
    text = re.sub(r"\[\s*([-+]?[\d.]+(?:e[-+]?\d+)?)\s*,\s*\1\s*\]", r"\1 (exact)", text)
    if "**" not in text and not re.search(r"[\w)]\*[\w(]", text):
        return text
    text = re.sub(r"\*\*\(?(-?\d+)\)?(?![\w.(/])", lambda m: m.group(1).translate(_SUPERSCRIPT), text)
    text = text.replace("**", "^")
    return re.sub(r"(?<=[\w)])\s*\*\s*(?=[\w(])", "·", text)


def number(value: Any, digits: int = 4) -> str:
    """A value as shown everywhere in the report: floats to ``digits`` significant digits."""
    if isinstance(value, float):
        return "0" if value == 0 else f"{value:.{digits}g}"
    return "—" if value is None else str(value)


def interval(lo: Any, hi: Any) -> str:
    """``[lo, hi]`` to the precision that shows its width; a zero-width one as its single value."""
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (lo, hi)):
        return f"[{number(lo)}, {number(hi)}]"
    if lo == hi:
        return f"{number(float(lo))} (exact)"
    digits = 4
    while digits < 12 and number(float(lo), digits) == number(float(hi), digits):
        digits += 1
    return f"[{number(float(lo), digits)}, {number(float(hi), digits)}]"


def local_exponents(items: list[Any]) -> str:
    """``x 16–256: 1.02 [0.98, 1.06]; …`` from a fit's ``local_exponents``."""
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        x = item.get("x") if isinstance(item.get("x"), (list, tuple)) else [None, None]
        ci = item.get("ci") if isinstance(item.get("ci"), (list, tuple)) and len(item["ci"]) == 2 else None
        out.append(f"x {number(x[0])}–{number(x[-1])}: {number(item.get('exponent'))}"
                   + (f" {interval(*ci)}" if ci else ""))
    return "; ".join(out) or "—"


def _fact(label: str, value: Any, mono: bool = False) -> dict[str, Any]:
    return {"label": label, "value": number(value) if not isinstance(value, str) else value, "mono": mono}


# What a fit's exponent p is, by law (checks.fitting: log y is linear in the law's abscissa).
LAWS = {"power": "exponent", "exponential": "rate p of exp(p·x)", "polylog": "power p of (log x)^p"}


def evidence_facts(ev: Evidence) -> list[dict[str, Any]]:
    """What a check measured, as (label, text) facts: the same list on the HTML page and in the PDF.
    The kind's own fields differ (a relation has counts, a law a fit), hence ``ev.get``."""
    facts = []
    if ev.type == "relation":
        facts.append(_fact("relation", str(ev.get("relation") or "—")))
        cases = number(ev.get("cases")) + (" (plus hypothesis search)" if ev.get("hypothesis") else "")
        facts.append(_fact("cases", cases))
        facts.append(_fact("violations", ev.get("violations")))
        facts.append(_fact("closest relative margin", ev.get("closest_relative_margin")))
        if ev.get("sampler"):
            facts.append(_fact("sampler", str(ev["sampler"])))
    else:
        facts.append(_fact("quantity", ev.get("quantity")))
        variable = number(ev.get("variable"))
        if ev.type == "limit":
            variable += f" → {number(ev.get('point'))}; limit {number(ev.get('value'))}"
        facts.append(_fact("variable", variable))
        if ev.get("predicted"):
            facts.append(_fact("predicted", str(ev["predicted"])))
        fit = ev.fit
        if fit is not None:
            ci = fit.get("ci")
            lo, hi = ci if isinstance(ci, tuple) and len(ci) == 2 else (None, None)
            law = LAWS.get(str(fit.get("law") or "power"), LAWS["power"])
            r2 = ("flat to round-off, R² undefined" if fit.get("flat")
                  else f"R² {number(fit.get('r2'))}")
            facts.append(_fact(f"fitted {law}",
                               f"{number(fit.get('exponent'))} (95% CI {interval(lo, hi)}, "
                               f"{r2}, {number(fit.get('decades'), 3)} decades)"))
            facts.append(_fact(f"predicted {law}", f"{number(ev.get('predicted_exponent'))} "
                               f"({number(ev.get('order'))}; tolerance ± "
                               f"{number(ev.get('exponent_tolerance'))})"))
            if fit.get("drifting") is not None:
                facts.append(_fact("drifting", "yes: the local exponent changes along the sweep"
                                   if fit.get("drifting") else "no"))
            if fit.get("local_exponents"):
                facts.append(_fact("local exponents", local_exponents(thaw(fit["local_exponents"]))))
        if ev.get("decided_by_tolerance") is not None:
            facts.append(_fact("decided by the tolerance", "yes: without it the interval does not "
                               "agree" if ev.get("decided_by_tolerance") else "no"))
        if ev.get("decision"):
            facts.append(_fact("decision", str(ev["decision"])))
        if ev.get("family"):
            facts.append(_fact("family", str(ev["family"])))
        facts.extend(info_facts(ev))
    if ev.get("tolerance"):
        facts.append(_fact("tolerance", str(ev["tolerance"])))
    return facts


def info_facts(ev: Evidence) -> list[dict[str, Any]]:
    """A scaling law's informational columns (``ScalingLaw.info``), one value per grid point, each
    a fact marked as never compared; its further series are drawn in the plot instead."""
    info = ev.get("info")
    columns = info.get("columns") if isinstance(info, Mapping) else None
    if not isinstance(columns, Mapping):
        return []
    return [_fact(f"{name} (informational, not compared)", ", ".join(number(v, 3) for v in values), mono=True)
            for name, values in columns.items() if isinstance(values, tuple)]


def truncate(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def witness_facts(ev: Evidence) -> dict[str, Any] | None:
    w = ev.witness
    if w is None:
        return None
    facts = [_fact(str(ev.get("lhs") or "lhs"), number(w.lhs, 17), mono=True),
             _fact(str(ev.get("rhs") or "rhs"), number(w.rhs, 17), mono=True),
             _fact("tolerance", number(w.tol, 6), mono=True)]
    for name, spec in thaw(w.inputs).items():
        if isinstance(spec, dict) and "data" in spec:
            data = json.dumps(spec["data"], ensure_ascii=False, separators=(", ", ": "), default=str)
            shape = json.dumps(spec.get("shape"), separators=(", ", ": "), default=str)
            value = f"{number(spec.get('dtype'))}{shape} {truncate(data)}"
        else:
            value = number(spec.get("value") if isinstance(spec, dict) else spec)
        facts.append(_fact(f"input {name}", value, mono=True))
    head = (f"found by {number(w.found_by)}, case {number(w.case_index)}, "
            f"seed {number(w.seed)}, {number(w.device)}")
    return {"head": head, "facts": facts, "replay": w.replay or None}


def provenance_facts(p: dict[str, Any]) -> list[dict[str, Any]]:
    seconds = p.get("seconds")
    facts = [_fact("seed", p.get("seed")), _fact("profile", p.get("profile")),
             _fact("device, dtype", f"{number(p.get('device'))}, {number(p.get('dtype'))}"),
             _fact("time", f"{seconds:.2f} s" if isinstance(seconds, (int, float)) and math.isfinite(seconds)
                   else "not recorded (no timings.json)"),
             _fact("spec", f"{number(p.get('spec_file'))} (source hash {number(p.get('source_hash'))})",
                   mono=True)]
    versions = p.get("versions") or {}
    if isinstance(versions, dict) and versions:
        listed = ", ".join(f"{k} {number(v)}" for k, v in versions.items())
        facts.append(_fact("versions", listed, mono=True))
    return facts


def _controls(ev: Evidence) -> list[dict[str, Any]]:
    """A check's negative controls, each saying what its outcome means for the check."""
    out = []
    for c in ev.controls:
        failed = c.failed is True  # shown as text whatever a hand-edited file holds
        out.append({"check": number(c.check), "variant": number(c.variant), "failed": failed,
                    "outcome": "failed" if failed else "passed",
                    "meaning": "the check discriminates" if failed else "cannot discriminate (not evidence)",
                    "status": c.status, "summary": number(c.summary),
                    "contrast": c.contrast if isinstance(c.contrast, str) else None,
                    "hypothesis": str(c.hypothesis) if c.hypothesis else None})
    return out


def _reading_of(item: Step | Evidence, readings: Mapping[str, Any]) -> dict[str, Any]:
    """``reading_id`` (primary or an alternative's id) and ``reading_text`` (an alternative's text)."""
    if item.reading is None or item.reading == PRIMARY:
        return {"reading_id": PRIMARY, "reading_text": None}
    known = readings.get(item.reading)
    return {"reading_id": item.reading, "reading_text": known.text if known else None}


def _evidence(record: Record, finding: str | None) -> list[dict[str, Any]]:
    out = []
    readings = {r.id: r for r in record.readings}
    for ev in record.evidence:
        plotted = ev.type in PLOTTED and ev.fit is not None and ev.get("points") is not None
        role = ev.role if ev.role in ROLES else None
        out.append(ev.to_json() | _reading_of(ev, readings) | {
            "figure": pretty(figure(ev)), "facts": evidence_facts(ev), "witness_facts": witness_facts(ev),
            "plot_id": f"{slug(record.id)}__{ev.name}" if plotted else None,
            "role": role, "role_label": ROLE_LABELS.get(role or "", role), "controls": _controls(ev),
            "control_outcome": ev.control_outcome,
            # An agreeing statement check with no control cannot back a confirmation: say so.
            "uncontrolled": role == "statement" and ev.status == "agrees" and not ev.controls,
            # The proof's first false item, when it is this check (a proof check).
            "finding": finding is not None and role == "proof" and ev.name == finding,
        })
    return out


def _verdict_of_holds(step: Step) -> str | None:
    """A 'holds' step derives a truth value, which reads better as words than as 'True'."""
    if step.method != "holds":
        return None
    return {"True": "SymPy proves it", "False": "SymPy disproves it"}.get(str(step.derived))


def _derivation(record: Record, finding: str | None) -> dict[str, Any]:
    """The steps with their role, reading and status, and the two findings marked: the first
    false statement step of the primary reading (what refutes) and the proof's first false step
    (what makes the proof flawed)."""
    derivation = record.derivation
    readings = {r.id: r for r in record.readings}
    steps, statement_finding, proof_finding = [], None, None
    for i, s in enumerate(derivation.steps):
        role = s.role if s.role in ROLES else None
        step = s.to_json() | _reading_of(s, readings) | {
            "index": i + 1, "status": s.status, "role": role, "role_label": ROLE_LABELS.get(role or "", role),
            "derived_text": _verdict_of_holds(s), "marks": []}
        if (statement_finding is None and role == "statement" and step["reading_id"] == PRIMARY
                and s.status == "disagrees"):
            statement_finding = i + 1
            step["marks"].append("first false statement step")
        if proof_finding is None and finding is not None and role == "proof" and s.name == finding:
            proof_finding = i + 1
            step["marks"].append("the proof's first false step")
        step["finding"] = bool(step["marks"])
        steps.append(step)
    return {"steps": steps, "statement_finding": statement_finding, "proof_finding": proof_finding,
            "undecided": sum(s["status"] == "undecided" for s in steps),
            "first_disagreement": derivation.first_disagreement, "note": derivation.note}


def _proof(record: Record) -> dict[str, Any]:
    """The proof's answer: status ("unjudged" when none was audited), reason, first false step."""
    proof = record.proof
    return {"status": proof.status or UNJUDGED, "reason": proof.reason,
            "first_false_step": proof.first_false_step, "anchor": None}


def _readings(record: Record, steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """Each reading with its verdict, why, and the statement steps and checks that decide it
    (proof items decide the proof, not a reading); primary first."""
    out = []
    for r in record.readings:
        rid = PRIMARY if r.primary else r.id
        out.append({"id": r.id or rid, "text": r.text, "why": r.why, "primary": r.primary,
                    "verdict": r.verdict, "summary": r.summary,
                    "steps": [s["index"] for s in steps
                              if s["reading_id"] == rid and s["role"] != "proof"],
                    "checks": [e["name"] for e in evidence
                               if e["reading_id"] == rid and e["role"] != "proof"]})
    out.sort(key=lambda r: not r["primary"])  # stable: the primary first, the rest as recorded
    return out


def _clauses(record: Record) -> list[dict[str, Any]]:
    """Each quoted clause of the statement with its own verdict."""
    return [{"id": c.id, "quote": c.quote or "", "verdict": c.verdict, "summary": c.summary,
             "undefined": c.undefined or None} for c in record.clauses]


def _proof_steps(record: Record, steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
                 ) -> list[dict[str, Any]]:
    """The paper's quoted proof steps in source order, each with the items that check it (links
    to derivation steps and checks by name)."""
    by_name = {s["name"]: f"step-{s['index']}" for s in steps}
    by_name.update({e["name"]: f"check-{e['name']}" for e in evidence})
    return [{"id": st.id, "quote": st.quote, "status": st.status or "unjudged",
             "checked_by": [{"name": i, "anchor": by_name.get(i)} for i in st.items]}
            for st in record.proof.steps or ()]


def _claim(record: Record, seconds: float | None, gate: Difference | None,
           gated: bool, proof_locked: bool) -> dict[str, Any]:
    provenance = {
        "seed": record.seed, "profile": record.profile, "device": record.device,
        "dtype": record.dtype, "spec_file": record.spec_file,
        "source_hash": record.source_hash, "versions": dict(sorted(record.versions.items())),
        "seconds": seconds,
    }
    proof = _proof(record)
    finding = proof["first_false_step"] if proof["status"] == "flawed" else None
    derivation = _derivation(record, finding)
    evidence = _evidence(record, finding)
    if derivation["proof_finding"] is not None:
        proof["anchor"] = f"step-{derivation['proof_finding']}"
    elif any(ev["finding"] for ev in evidence):
        proof["anchor"] = f"check-{finding}"
    controls = [c for ev in evidence for c in ev["controls"]]
    matches = ("verdict and proof status match the baseline" if proof_locked
               else "verdict matches the baseline (which does not lock proof statuses)")
    return {
        "id": record.id, "slug": slug(record.id), "paper": record.paper,
        "label": record.label, "section": record.section,
        "kind": record.kind, "verdict": record.verdict, "proof": proof,
        "verdict_rank": rank(record.verdict, VERDICTS),
        "clauses": _clauses(record),
        "proof_steps": _proof_steps(record, derivation["steps"], evidence),
        "confirmation": record.confirmation if record.confirmation in ("identity", "empirical") else None,
        "summary": pretty(record.summary), "key_figure": pretty(key_figure(record)),
        "statement": record.statement, "reading": record.reading,
        "readings": _readings(record, derivation["steps"], evidence),
        "notes": record.notes, "derivation": derivation,
        "evidence": evidence,
        "controls": {"total": len(controls), "failed": sum(c["failed"] for c in controls),
                     "passed": sum(not c["failed"] for c in controls)},
        "corrected": thaw(record.corrected),
        "error": None if record.failure is None else record.failure.to_json(),
        "provenance": provenance,
        "provenance_facts": provenance_facts(provenance),
        # What the gate says about this claim; None when no baseline was given.
        "gate": None if not gated else (
            {"passes": True, "kind": "match", "text": matches} if gate is None
            else {"passes": False, "kind": gate.kind, "what": GATE_KINDS.get(gate.kind, gate.kind),
                  "text": gate.text}),
    }


def _counts(claims: list[dict[str, Any]]) -> dict[str, int]:
    counted = Counter(c["verdict"] for c in claims)
    return {v: counted.get(v, 0) for v in VERDICTS} | {
        v: n for v, n in sorted(counted.items()) if v not in VERDICTS}


def _proof_counts(claims: list[dict[str, Any]]) -> dict[str, int]:
    counted = Counter(c["proof"]["status"] for c in claims)
    return {v: counted.get(v, 0) for v in PROOF_STATUSES} | {
        v: n for v, n in sorted(counted.items()) if v not in PROOF_STATUSES}


def findings(claims: list[dict[str, Any]]) -> dict[str, Any]:
    """The front page's first section: refuted claims, then errors and inconclusive ones, then
    the confirmed, counted apart as identities (true by construction) and empirical confirmations."""
    confirmed = [c for c in claims if c["verdict"] == "confirmed"]
    return {"refuted": [c for c in claims if c["verdict"] == "refuted"],
            "errors": [c for c in claims if c["verdict"] == "error"],
            "inconclusive": [c for c in claims if c["verdict"] in ("inconclusive", "unverifiable")],
            "confirmed": len(confirmed),
            "identities": sum(c["confirmation"] == "identity" for c in confirmed),
            "empirical": sum(c["confirmation"] != "identity" for c in confirmed)}


def rank(value: str, order: tuple[str, ...]) -> int:
    """A value's place in ``order`` (worst first), unknown values last: the claims table's sort."""
    return order.index(value) if value in order else len(order)


def build_document(results: dict[str, Any], *, timings: dict[str, float] | None = None,
                   gate: list[Difference] | None = None, baseline: str | None = None,
                   source: str = "results.json", proof_locked: bool = True,
                   stability: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report document from a loaded results file (:func:`checks.results.load_document`).

    ``stability``: an ``attnaudit stability`` document; each claim then carries its stability
    cell (claims it does not cover: "not run").

    ``gate`` is the gate's differences against ``baseline`` (None: no baseline, gate not run);
    ``proof_locked`` says whether that baseline locks proof statuses (schema 1 locked verdicts only).
    """
    timings = timings or {}
    diffs = {d.id: d for d in gate or []}
    records = sorted(results["results"], key=lambda r: r.id)
    claims = [_claim(r, timings.get(r.id), diffs.get(r.id), gate is not None, proof_locked)
              for r in records]
    known = {p["key"]: p for p in results.get("papers") or []}
    papers = []
    for key in sorted({c["paper"] for c in claims}):
        mine = [c for c in claims if c["paper"] == key]
        meta = known.get(key, {})
        papers.append({"key": key, "title": meta.get("title") or key,
                       "authors": list(meta.get("authors") or []), "arxiv": meta.get("arxiv"),
                       "source_file": meta.get("source_file"), "total": len(mine),
                       "counts": _counts(mine), "proof_counts": _proof_counts(mine)})
    by_id = {c["id"]: c for c in claims}
    if stability is not None:
        entries = {e["id"]: e for e in stability.get("claims", [])}
        for c in claims:
            e = entries.get(c["id"])
            c["stability"] = ({"text": "not run", "stable": None} if e is None
                              else {"text": stability_cell(e), "stable": bool(e["stable"])})
    tables = [t | {"rows": [row | {"cells": [cell | {"measured": [
        m | ({"slug": by_id[m["claim"]]["slug"], "proof": by_id[m["claim"]]["proof"]["status"]}
             if m.get("claim") in by_id else {"slug": None, "proof": None})
        for m in cell.get("measured", [])]}
        for cell in row.get("cells", [])]} for row in t.get("rows", [])]}
        for t in results.get("tables") or []]
    return {
        "source": source,
        "total": len(claims),
        "findings": findings(claims),
        "counts": _counts(claims),
        "proof_counts": _proof_counts(claims),
        "papers": papers,
        "claims": claims,
        "tables": tables,
        "gate": None if gate is None else {
            "baseline": baseline,
            "passes": not gate,
            "proof_locked": proof_locked,
            # Differences for claims absent from this run (vanished) have no claim page.
            "differences": [{"kind": d.kind, "what": GATE_KINDS.get(d.kind, d.kind), "id": d.id,
                             "text": d.text} for d in gate],
        },
        "versions": claims[0]["provenance"]["versions"] if claims else {},
        "stability": None if stability is None else {
            "seeds": len(stability.get("seeds", [])), "profile": stability.get("profile"),
            "stable": sum(bool(e.get("stable")) for e in stability.get("claims", [])),
            "claims": len(stability.get("claims", []))},
    }
