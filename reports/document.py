"""The report's content, once: a plain dict built from a results file, read by every renderer.

HTML, Typst and JUnit render this document; none of them re-derives a figure, so a number shown
on a page, in the PDF and in results.json is the same number (the figure strings come from
:func:`checks.tables.figure`, as in the summary tables).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

from checks.gate import Difference
from checks.tables import figure

# Worst first: the order of counts, badges and the default sort of the claims table.
VERDICTS = ("refuted", "error", "inconclusive", "unverifiable", "confirmed")
PLOTTED = ("scaling", "limit")


def slug(claim_id: str) -> str:
    """A claim's page name: ids are paper/label/part, and '/' cannot be in a file name."""
    return claim_id.replace("/", "__")


def key_figure(record: dict[str, Any]) -> str:
    """The one line that best says why the claim got its verdict."""
    verdict, evidence = record["verdict"], record.get("evidence") or []
    steps = (record.get("derivation") or {}).get("steps") or []
    if verdict == "error":
        return ((record.get("error") or {}).get("reason") or record.get("summary") or "").splitlines()[0]
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


def number(value: Any, digits: int = 4) -> str:
    """A value as shown everywhere in the report: floats to ``digits`` significant digits."""
    if isinstance(value, float):
        return "0" if value == 0 else f"{value:.{digits}g}"
    return "—" if value is None else str(value)


def _fact(label: str, value: Any, mono: bool = False) -> dict[str, Any]:
    return {"label": label, "value": number(value) if not isinstance(value, str) else value, "mono": mono}


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
            facts.append(_fact("fitted exponent",
                               f"{number(fit.get('exponent'))} (95% CI [{number(lo)}, {number(hi)}], "
                               f"R² {number(fit.get('r2'))}, {number(fit.get('decades'), 3)} decades)"))
            facts.append(_fact("predicted exponent", f"{number(ev.get('predicted_exponent'))} "
                               f"({number(ev.get('order'))}; tolerance ± "
                               f"{number(ev.get('exponent_tolerance'))})"))
        if ev.get("decision"):
            facts.append(_fact("decision", str(ev["decision"])))
        if ev.get("family"):
            facts.append(_fact("family", str(ev["family"])))
    if ev.get("tolerance"):
        facts.append(_fact("tolerance", str(ev["tolerance"])))
    return facts


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


def _evidence(record: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for ev in record.get("evidence") or []:
        plotted = ev.get("type") in PLOTTED and "fit" in ev and "points" in ev
        out.append(ev | {"figure": figure(ev), "facts": evidence_facts(ev),
                         "witness_facts": witness_facts(ev),
                         "plot_id": f"{slug(record['id'])}__{ev.get('name', '')}" if plotted else None})
    return out


def _verdict_of_holds(step: dict[str, Any]) -> str | None:
    """A 'holds' step derives a truth value, which reads better as words than as 'True'."""
    if step.get("method") != "holds":
        return None
    return {"True": "SymPy proves it", "False": "SymPy disproves it"}.get(str(step.get("derived")))


def _derivation(record: dict[str, Any]) -> dict[str, Any]:
    derivation = record.get("derivation") or {}
    first = derivation.get("first_disagreement")
    steps = [s | {"index": i + 1, "first": i == first, "derived_text": _verdict_of_holds(s)}
             for i, s in enumerate(derivation.get("steps") or [])]
    return {"steps": steps, "first_disagreement": first, "note": derivation.get("note") or ""}


def _claim(record: dict[str, Any], seconds: float | None, gate: Difference | None,
           gated: bool) -> dict[str, Any]:
    versions = record.get("versions") or {}
    provenance = {
        "seed": record.get("seed"), "profile": record.get("profile"), "device": record.get("device"),
        "dtype": record.get("dtype"), "spec_file": record.get("spec_file"),
        "source_hash": record.get("source_hash"), "versions": dict(sorted(versions.items())),
        "seconds": seconds,
    }
    return {
        "id": record["id"], "slug": slug(record["id"]), "paper": record.get("paper", ""),
        "label": record.get("label", ""), "section": record.get("section", ""),
        "kind": record.get("kind", ""), "verdict": record["verdict"],
        "summary": record.get("summary", ""), "key_figure": key_figure(record),
        "statement": record.get("statement", ""), "reading": record.get("reading", ""),
        "notes": record.get("notes", ""), "derivation": _derivation(record),
        "evidence": _evidence(record), "corrected": record.get("corrected"),
        "error": record.get("error"),
        "provenance": provenance,
        "provenance_facts": provenance_facts(provenance),
        # What the verdict gate says about this claim; None when no baseline was given.
        "gate": None if not gated else (
            {"passes": True, "kind": "match", "text": "verdict matches the baseline"} if gate is None
            else {"passes": False, "kind": gate.kind, "text": gate.text}),
    }


def _counts(claims: list[dict[str, Any]]) -> dict[str, int]:
    counted = Counter(c["verdict"] for c in claims)
    return {v: counted.get(v, 0) for v in VERDICTS} | {
        v: n for v, n in sorted(counted.items()) if v not in VERDICTS}


def build_document(results: dict[str, Any], *, timings: dict[str, float] | None = None,
                   gate: list[Difference] | None = None, baseline: str | None = None,
                   source: str = "results.json") -> dict[str, Any]:
    """The report document from a loaded results file (:func:`checks.results.load_document`).

    ``gate`` is the gate's differences against ``baseline`` (None: no baseline, gate not run).
    """
    timings = timings or {}
    diffs = {d.id: d for d in gate or []}
    records = sorted(results["results"], key=lambda r: r["id"])
    claims = [_claim(r, timings.get(r["id"]), diffs.get(r["id"]), gate is not None) for r in records]
    known = {p["key"]: p for p in results.get("papers") or []}
    papers = []
    for key in sorted({c["paper"] for c in claims}):
        mine = [c for c in claims if c["paper"] == key]
        meta = known.get(key, {})
        papers.append({"key": key, "title": meta.get("title") or key,
                       "authors": list(meta.get("authors") or []), "arxiv": meta.get("arxiv"),
                       "source_file": meta.get("source_file"), "total": len(mine),
                       "counts": _counts(mine)})
    slugs = {c["id"]: c["slug"] for c in claims}
    tables = [t | {"rows": [row | {"cells": [cell | {"measured": [
        m | {"slug": slugs.get(m.get("claim"))} for m in cell.get("measured", [])]}
        for cell in row.get("cells", [])]} for row in t.get("rows", [])]}
        for t in results.get("tables") or []]
    return {
        "source": source,
        "total": len(claims),
        "counts": _counts(claims),
        "papers": papers,
        "claims": claims,
        "tables": tables,
        "gate": None if gate is None else {
            "baseline": baseline,
            "passes": not gate,
            # Differences for claims absent from this run (vanished) have no claim page.
            "differences": [{"kind": d.kind, "id": d.id, "text": d.text} for d in gate],
        },
        "versions": claims[0]["provenance"]["versions"] if claims else {},
    }
