"""The report's content, once: a plain dict built from a results file, read by every renderer.

HTML, Typst and JUnit render this document; none of them re-derives a figure, so a number shown
on a page, in the PDF and in results.json is the same number (the figure strings come from
:func:`checks.tables.figure`, as in the summary tables, and a claim's key figure is the record's
own ``figure``, written by :func:`checks.tables.key_figure`).

Every claim carries both answers (DESIGN.md, "Evidence and verdicts"): the ``verdict`` on the
statement under its primary reading and the ``proof`` status of the paper's argument, with its
readings, each step's and check's role and reading, and each check's negative controls. Records
written before that model (no ``proof``, ``readings`` or ``controls``) still render: their proof is
shown as not judged and their one reading is the record's ``reading``.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from typing import Any

from attnaudit.checks.gate import Difference
from attnaudit.checks.tables import figure

# Worst first: the order of counts, badges and the default sort of the claims table.
VERDICTS = ("refuted", "error", "inconclusive", "unverifiable", "confirmed")
# The proof's answer, worst first in the same sense; "unjudged" where the record has none (an
# error record, or one written before proof statuses existed).
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


def legacy(record: dict[str, Any]) -> bool:
    """A record written before the proof model: no proof status, readings or controls."""
    return not isinstance(record.get("proof"), dict)


def key_figure(record: dict[str, Any]) -> str:
    """The one line that best says why the claim got its verdict: the record's own ``figure``
    (:func:`checks.tables.key_figure`); for an error its reason; for an old record, chosen here."""
    verdict, evidence = record["verdict"], record.get("evidence") or []
    steps = (record.get("derivation") or {}).get("steps") or []
    if verdict == "error":
        reason = (record.get("error") or {}).get("reason") or record.get("summary") or ""
        return (reason.splitlines() or [""])[0]
    if record.get("figure"):
        return str(record["figure"])
    if not legacy(record):
        return str(record.get("summary") or "")
    if verdict == "refuted":
        false = next((s for s in steps if not s.get("agrees")), None)
        if false is not None:
            return f"false proof step: {false['name']}"
        wanted = "disagrees"
    elif verdict == "inconclusive":
        wanted = "undecided"
    else:
        wanted = None
    chosen = [e for e in evidence if wanted is None or e.get("status") == wanted]
    chosen.sort(key=lambda e: e.get("type") not in PLOTTED)  # a fit says more than a count
    return figure(chosen[0]) if chosen else str(record.get("summary") or "")


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


def evidence_facts(ev: dict[str, Any]) -> list[dict[str, Any]]:
    """What a check measured, as (label, text) facts: the same list on the HTML page and in the PDF."""
    facts = []
    if ev.get("type") == "relation":
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
        if ev.get("type") == "limit":
            variable += f" → {number(ev.get('point'))}; limit {number(ev.get('value'))}"
        facts.append(_fact("variable", variable))
        if ev.get("predicted"):
            facts.append(_fact("predicted", str(ev["predicted"])))
        fit = ev.get("fit")
        if isinstance(fit, dict):
            ci = fit.get("ci")
            lo, hi = ci if isinstance(ci, (list, tuple)) and len(ci) == 2 else (None, None)
            law = LAWS.get(str(fit.get("law") or "power"), LAWS["power"])
            r2 = ("flat to round-off, R² undefined" if fit.get("flat")
                  else f"R² {number(fit.get('r2'))}")
            facts.append(_fact(f"fitted {law}",
                               f"{number(fit.get('exponent'))} (95% CI {interval(lo, hi)}, "
                               f"{r2}, {number(fit.get('decades'), 3)} decades)"))
            facts.append(_fact(f"predicted {law}", f"{number(ev.get('predicted_exponent'))} "
                               f"({number(ev.get('order'))}; tolerance ± "
                               f"{number(ev.get('exponent_tolerance'))})"))
        if isinstance(fit, dict) and fit.get("drifting") is not None:
            facts.append(_fact("drifting", "yes: the local exponent changes along the sweep"
                               if fit.get("drifting") else "no"))
        if isinstance(fit, dict) and fit.get("local_exponents"):
            facts.append(_fact("local exponents", local_exponents(fit["local_exponents"])))
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


def info_facts(ev: dict[str, Any]) -> list[dict[str, Any]]:
    """A scaling law's informational columns (``ScalingLaw.info``), one value per grid point, each
    a fact marked as never compared; its further series are drawn in the plot instead."""
    info = ev.get("info")
    columns = info.get("columns") if isinstance(info, dict) else None
    if not isinstance(columns, dict):
        return []
    return [_fact(f"{name} (informational, not compared)", ", ".join(number(v, 3) for v in values), mono=True)
            for name, values in columns.items() if isinstance(values, list)]


def truncate(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def witness_facts(ev: dict[str, Any]) -> dict[str, Any] | None:
    w = ev.get("witness")
    if not isinstance(w, dict):
        return None
    facts = [_fact(str(ev.get("lhs") or "lhs"), number(w.get("lhs"), 17), mono=True),
             _fact(str(ev.get("rhs") or "rhs"), number(w.get("rhs"), 17), mono=True),
             _fact("tolerance", number(w.get("tol"), 6), mono=True)]
    for name, spec in (w.get("inputs") or {}).items():
        if isinstance(spec, dict) and "data" in spec:
            data = json.dumps(spec["data"], ensure_ascii=False, separators=(", ", ": "), default=str)
            shape = json.dumps(spec.get("shape"), separators=(", ", ": "), default=str)
            value = f"{number(spec.get('dtype'))}{shape} {truncate(data)}"
        else:
            value = number(spec.get("value") if isinstance(spec, dict) else spec)
        facts.append(_fact(f"input {name}", value, mono=True))
    head = (f"found by {number(w.get('found_by'))}, case {number(w.get('case_index'))}, "
            f"seed {number(w.get('seed'))}, {number(w.get('device'))}")
    return {"head": head, "facts": facts, "replay": str(w["replay"]) if w.get("replay") else None}


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


def _reading_ids(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(r.get("id")): r for r in record.get("readings") or [] if isinstance(r, dict)}


def _controls(ev: dict[str, Any]) -> list[dict[str, Any]]:
    """A check's negative controls, each saying what its outcome means for the check."""
    out = []
    for c in ev.get("controls") or []:
        if not isinstance(c, dict):
            continue
        failed = c.get("failed") is True
        out.append({"check": number(c.get("check")), "variant": number(c.get("variant")),
                    "failed": failed, "outcome": "failed" if failed else "passed",
                    "meaning": ("the check discriminates" if failed
                                else "cannot discriminate (not evidence)"),
                    "status": c.get("status"), "summary": number(c.get("summary")),
                    "contrast": c.get("contrast") if isinstance(c.get("contrast"), str) else None,
                    "hypothesis": str(c["hypothesis"]) if c.get("hypothesis") else None,
                    # A control's own witness or values, shown under its variant's name.
                    "own_values": _control_values(c)})
    return out


def _control_values(c: dict[str, Any]) -> list[dict[str, Any]]:
    values = c.get("witness") if isinstance(c.get("witness"), dict) else c.get("values")
    if not isinstance(values, dict):
        return []
    return [_fact(str(k), v if isinstance(v, (str, int, float)) or v is None else json.dumps(v),
                  mono=True) for k, v in values.items()]


def controls_outcome(ev: dict[str, Any]) -> str:
    """The engine's ``control_outcome`` (checks.verdict decides it: discriminates, blind,
    setting-only, uncontrolled); for a record written before it, from the controls alone."""
    if ev.get("control_outcome"):
        return str(ev["control_outcome"])
    controls = ev.get("controls") or []
    if any(c.get("failed") is True for c in controls if isinstance(c, dict)):
        return "discriminates"
    return "blind" if controls else "uncontrolled"


def _reading_of(item: dict[str, Any], readings: dict[str, dict[str, Any]], old: bool
                ) -> dict[str, Any]:
    """``reading_id`` (primary or an alternative's id; None for an old record, whose checks carry
    free text instead) and ``reading_text`` (an alternative's text, or the old free text)."""
    reading = item.get("reading")
    if old:
        return {"reading_id": None, "reading_text": str(reading) if reading else None}
    if reading is None or reading == PRIMARY:
        return {"reading_id": PRIMARY, "reading_text": None}
    known = readings.get(str(reading))
    return {"reading_id": str(reading), "reading_text": str(known.get("text") or "") if known else None}


def _evidence(record: dict[str, Any], finding: str | None) -> list[dict[str, Any]]:
    out = []
    old, readings = legacy(record), _reading_ids(record)
    for ev in record.get("evidence") or []:
        plotted = ev.get("type") in PLOTTED and "fit" in ev and "points" in ev
        role = ev.get("role") if ev.get("role") in ROLES else None
        out.append(ev | _reading_of(ev, readings, old) | {
            "figure": pretty(figure(ev)), "facts": evidence_facts(ev), "witness_facts": witness_facts(ev),
            "plot_id": f"{slug(record['id'])}__{ev.get('name', '')}" if plotted else None,
            "role": role, "role_label": ROLE_LABELS.get(role or "", role), "controls": _controls(ev),
            "control_outcome": None if old else controls_outcome(ev),
            # An agreeing statement check with no control cannot back a confirmation: say so.
            "uncontrolled": (not old and role == "statement" and ev.get("status") == "agrees"
                             and not ev.get("controls")),
            # The proof's first false item, when it is this check (a proof check).
            "finding": finding is not None and role == "proof" and ev.get("name") == finding,
        })
    return out


def _verdict_of_holds(step: dict[str, Any]) -> str | None:
    """A 'holds' step derives a truth value, which reads better as words than as 'True'."""
    if step.get("method") != "holds":
        return None
    return {"True": "SymPy proves it", "False": "SymPy disproves it"}.get(str(step.get("derived")))


def step_status(step: dict[str, Any]) -> str:
    """agrees, disagrees or undecided; an old record's step has ``agrees`` only."""
    status = step.get("status")
    if status in STEP_STATUSES:
        return status
    return "agrees" if step.get("agrees") is True else "disagrees"


def _derivation(record: dict[str, Any], finding: str | None) -> dict[str, Any]:
    """The steps with their role, reading and status, and the two findings marked: the first
    false statement step of the primary reading (what refutes) and the proof's first false step
    (what makes the proof flawed). An old record marks its first disagreement, as it did."""
    derivation = record.get("derivation") or {}
    old, readings = legacy(record), _reading_ids(record)
    steps, statement_finding, proof_finding = [], None, None
    for i, s in enumerate(derivation.get("steps") or []):
        status, role = step_status(s), s.get("role") if s.get("role") in ROLES else None
        step = s | _reading_of(s, readings, old) | {
            "index": i + 1, "status": status, "role": role, "role_label": ROLE_LABELS.get(role or "", role),
            "derived_text": _verdict_of_holds(s), "marks": []}
        if old:
            if i == derivation.get("first_disagreement"):
                statement_finding = i + 1
                step["marks"].append("first disagreeing step")
        elif (statement_finding is None and role == "statement" and step["reading_id"] == PRIMARY
              and status == "disagrees"):
            statement_finding = i + 1
            step["marks"].append("first false statement step")
        if (proof_finding is None and finding is not None and role == "proof"
                and s.get("name") == finding):
            proof_finding = i + 1
            step["marks"].append("the proof's first false step")
        step["finding"] = bool(step["marks"])
        steps.append(step)
    return {"steps": steps, "statement_finding": statement_finding, "proof_finding": proof_finding,
            "undecided": sum(s["status"] == "undecided" for s in steps),
            "first_disagreement": derivation.get("first_disagreement"),
            "note": derivation.get("note") or ""}


def _proof(record: dict[str, Any]) -> dict[str, Any]:
    """The proof's answer: status ("unjudged" when the record has none), reason, first false step."""
    proof = record.get("proof") if isinstance(record.get("proof"), dict) else {}
    status = proof.get("status")
    status = status if isinstance(status, str) and status else UNJUDGED
    reason = proof.get("reason") or ("" if proof else "the record has no proof status "
                                     "(written before proof statuses existed)")
    first = proof.get("first_false_step")
    return {"status": status, "reason": str(reason), "first_false_step": None if first is None
            else str(first), "anchor": None}


def _readings(record: dict[str, Any], steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """Each reading with its verdict, why, and the statement steps and checks that decide it
    (proof items decide the proof, not a reading); primary first. An old record has one: its
    ``reading``, with the record's verdict."""
    if legacy(record):
        return [{"id": PRIMARY, "text": str(record.get("reading") or ""), "why": "", "primary": True,
                 "verdict": record["verdict"], "summary": str(record.get("summary") or ""),
                 "steps": [s["index"] for s in steps], "checks": [e.get("name") for e in evidence]}]
    out = []
    for r in record.get("readings") or []:
        if not isinstance(r, dict):
            continue
        rid = PRIMARY if r.get("primary") else str(r.get("id"))
        out.append({"id": str(r.get("id") or rid), "text": str(r.get("text") or ""),
                    "why": str(r.get("why") or ""), "primary": r.get("primary") is True,
                    "verdict": str(r.get("verdict") or record["verdict"]),
                    "summary": str(r.get("summary") or ""),
                    "steps": [s["index"] for s in steps
                              if s["reading_id"] == rid and s["role"] != "proof"],
                    "checks": [e.get("name") for e in evidence
                               if e["reading_id"] == rid and e["role"] != "proof"]})
    out.sort(key=lambda r: not r["primary"])  # stable: the primary first, the rest as recorded
    return out


def _clauses(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Each quoted clause of the statement with its own verdict (absent from older records)."""
    out = []
    for c in record.get("clauses") or []:
        if isinstance(c, dict):
            out.append({"id": str(c.get("id") or ""), "quote": str(c.get("quote") or ""),
                        "verdict": str(c.get("verdict") or record["verdict"]),
                        "summary": str(c.get("summary") or ""),
                        "undefined": str(c["undefined"]) if c.get("undefined") else None})
    return out


def _proof_steps(record: dict[str, Any], steps: list[dict[str, Any]], evidence: list[dict[str, Any]]
                 ) -> list[dict[str, Any]]:
    """The paper's quoted proof steps in source order, each with the items that check it (links
    to derivation steps and checks by name); empty for records without them."""
    proof = record.get("proof") if isinstance(record.get("proof"), dict) else {}
    by_name = {s.get("name"): f"step-{s['index']}" for s in steps}
    by_name.update({e.get("name"): f"check-{e.get('name')}" for e in evidence})
    out = []
    for st in proof.get("steps") or []:
        if not isinstance(st, dict):
            continue
        items = [i if isinstance(i, str) else str((i or {}).get("name") or (i or {}).get("id") or i)
                 for i in st.get("items") or []]
        out.append({"id": str(st.get("id") or ""), "quote": str(st.get("quote") or ""),
                    "status": str(st.get("status") or "unjudged"),
                    "checked_by": [{"name": i, "anchor": by_name.get(i)} for i in items]})
    return out


def _claim(record: dict[str, Any], seconds: float | None, gate: Difference | None,
           gated: bool, proof_locked: bool) -> dict[str, Any]:
    versions = record.get("versions") or {}
    provenance = {
        "seed": record.get("seed"), "profile": record.get("profile"), "device": record.get("device"),
        "dtype": record.get("dtype"), "spec_file": record.get("spec_file"),
        "source_hash": record.get("source_hash"), "versions": dict(sorted(versions.items())),
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
        "id": record["id"], "slug": slug(record["id"]), "paper": record.get("paper", ""),
        "label": record.get("label", ""), "section": record.get("section", ""),
        "kind": record.get("kind", ""), "verdict": record["verdict"], "proof": proof,
        "verdict_rank": rank(record["verdict"], VERDICTS),
        "legacy": legacy(record),
        "clauses": _clauses(record),
        "proof_steps": _proof_steps(record, derivation["steps"], evidence),
        "confirmation": (record.get("confirmation") if record.get("confirmation") in
                         ("identity", "empirical") else None),
        "summary": pretty(record.get("summary", "")), "key_figure": pretty(key_figure(record)),
        "statement": record.get("statement", ""), "reading": record.get("reading", ""),
        "readings": _readings(record, derivation["steps"], evidence),
        "notes": record.get("notes", ""), "derivation": derivation,
        "evidence": evidence,
        "controls": {"total": len(controls), "failed": sum(c["failed"] for c in controls),
                     "passed": sum(not c["failed"] for c in controls)},
        "corrected": record.get("corrected"),
        "error": record.get("error"),
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
    records = sorted(results["results"], key=lambda r: r["id"])
    claims = [_claim(r, timings.get(r["id"]), diffs.get(r["id"]), gate is not None, proof_locked)
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
        from attnaudit.checks.stability import cell

        entries = {e["id"]: e for e in stability.get("claims", [])}
        for c in claims:
            e = entries.get(c["id"])
            c["stability"] = ({"text": "not run", "stable": None} if e is None
                              else {"text": cell(e), "stable": bool(e["stable"])})
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
