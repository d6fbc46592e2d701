"""The report's content, once: a plain dict built from a results file, read by every renderer.

HTML, Typst and JUnit render this document; none of them re-derives a figure, so a number shown
on a page, in the PDF and in results.json is the same number (the figure strings come from
:func:`checks.tables.figure`, as in the summary tables).
"""

from __future__ import annotations

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


def _evidence(record: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for ev in record.get("evidence") or []:
        plotted = ev.get("type") in PLOTTED and "fit" in ev and "points" in ev
        out.append(ev | {"figure": figure(ev),
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
    return {
        "id": record["id"], "slug": slug(record["id"]), "paper": record.get("paper", ""),
        "label": record.get("label", ""), "section": record.get("section", ""),
        "kind": record.get("kind", ""), "verdict": record["verdict"],
        "summary": record.get("summary", ""), "key_figure": key_figure(record),
        "statement": record.get("statement", ""), "reading": record.get("reading", ""),
        "notes": record.get("notes", ""), "derivation": _derivation(record),
        "evidence": _evidence(record), "corrected": record.get("corrected"),
        "error": record.get("error"),
        "provenance": {
            "seed": record.get("seed"), "profile": record.get("profile"),
            "device": record.get("device"), "dtype": record.get("dtype"),
            "spec_file": record.get("spec_file"), "source_hash": record.get("source_hash"),
            "versions": dict(sorted(versions.items())), "seconds": seconds,
        },
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
