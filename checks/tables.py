"""A paper's own summary table with the measured counterpart of every entry, from the run's records.

The measured column is computed from the result records after the run (never from the specs),
so a figure in the table is the same number as in the claim's record. A reference to a claim
that did not run in this selection is shown as not run; one to a check the record lacks is a
defect of the table and says so.
"""

from __future__ import annotations

from typing import Any

from attnaudit.checks.model import Measured, SummaryTable

# A fitted exponent of an exactly flat law comes out at round-off level (1e-16, 7e-20): below this it
# is printed as 0, so that a figure does not suggest a tiny but real power.
ROUNDOFF_EXPONENT = 1e-12


def _num(value: float, digits: int = 3) -> str:
    return "0" if abs(value) < ROUNDOFF_EXPONENT else f"{value:.{digits}g}"


# An interval is printed with as many significant digits as show its two ends apart, up to this
# many; narrower than that it is one value, marked exact to that many digits (a deterministic
# fit's interval is exact to round-off, and [-0.5, -0.5] would read as a bug).
MAX_DIGITS = 7


def interval(lo: float, hi: float) -> str:
    """``[lo, hi]`` to the precision that shows its width, or ``v (exact to 7 digits)`` when even
    that shows none."""
    for digits in range(3, MAX_DIGITS + 1):
        a, b = _num(lo, digits), _num(hi, digits)
        if a != b:
            return f"[{a}, {b}]"
    return f"{a} (exact to {MAX_DIGITS} digits)"


def _law(law: str, var: str, exponent: str) -> str:
    return {"exponential": f"exp({exponent}·{var})", "polylog": f"(log {var})^{exponent}"}.get(
        law, f"{var}^{exponent}")


def predicted(ev: dict[str, Any]) -> str:
    """The prediction a fitted exponent is compared with, in the fit's own form (``Θ(n^-2)``,
    ``O((log T)^1)``, ``Ω(exp(1.1·l))``); '' when the check has none."""
    order, exponent = ev.get("order"), ev.get("predicted_exponent")
    if order is None or exponent is None:
        return ""
    law = (ev.get("fit") or {}).get("law", "power")
    if order == "subpolynomial":
        return f"{ev['variable']}^o(1)"
    if order == "unbounded":
        return "unbounded"
    if ev.get("type") == "limit":
        return f"{order}(|{ev['variable']} − {ev['point']}|^{_num(exponent)})"
    return f"{order}({_law(law, ev['variable'], _num(exponent))})"


def figure(ev: dict[str, Any]) -> str:
    """One line for a check: a fit as exponent, interval and the prediction it is compared with;
    a relation as its counts."""
    kind = ev.get("type")
    if kind in ("scaling", "limit") and "fit" in ev:
        fit = ev["fit"]
        exponent, ci = _num(fit["exponent"]), f"95% CI {interval(*fit['ci'])}"
        versus = predicted(ev)
        tail = f" vs predicted {versus}" if versus else ""
        if kind == "limit":
            return f"gap ∝ |{ev['variable']} − {ev['point']}|^{exponent} ({ci}){tail}"
        law = _law(fit.get("law", "power"), ev["variable"], exponent)
        return f"{ev['quantity']} ∝ {law} ({ci}){tail}"
    if kind == "relation":
        if ev.get("violations"):
            return f"{ev['relation']}: violated on {ev['violations']} of {ev['cases']} cases"
        return f"{ev['relation']}: holds on {ev['cases']} cases"
    return str(ev.get("summary", ""))


def measure_reference(ref: Measured, records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"claim": ref.claim, "check": ref.check}
    record = records.get(ref.claim)
    if record is None:
        return out | {"verdict": None, "figure": "not run in this selection"}
    out["verdict"] = record["verdict"]
    if ref.check is None:
        return out | {"figure": None}
    ev = next((e for e in record.get("evidence", []) if e.get("name") == ref.check), None)
    if ev is None:
        reason = ("the claim errored" if record["verdict"] == "error"
                  else "the record has no such check (a defect of the table)")
        return out | {"figure": f"check {ref.check!r} missing: {reason}"}
    # ``status`` is the check's own outcome (agrees/disagrees/undecided); ``verdict`` the claim's.
    out |= {"type": ev.get("type"), "status": ev.get("status"), "figure": figure(ev)}
    if "fit" in ev:
        out |= {"quantity": ev.get("quantity"), "variable": ev.get("variable"),
                "exponent": ev["fit"]["exponent"], "ci": list(ev["fit"]["ci"]),
                "predicted_exponent": ev.get("predicted_exponent"), "order": ev.get("order"),
                "predicted": ev.get("predicted")}
    return out


def fill_table(table: SummaryTable, paper: str, records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "paper": paper,
        "key": table.key,
        "label": table.label,
        "section": table.section,
        "title": table.title,
        "columns": list(table.columns),
        "rows": [
            {"label": row.label,
             "cells": [{"column": column, "paper": cell.paper,
                        "measured": [measure_reference(m, records) for m in cell.measured]}
                       for column, cell in zip(table.columns, row.cells, strict=True)]}
            for row in table.rows
        ],
    }


def fill_tables(tables: dict[str, tuple[SummaryTable, ...]], records: list[dict[str, Any]]
                ) -> list[dict[str, Any]]:
    """Every table of every paper that has at least one record in this run."""
    by_id = {r["id"]: r for r in records}
    papers = {r.get("paper") for r in records}
    return [fill_table(t, paper, by_id) for paper in sorted(tables) if paper in papers
            for t in tables[paper]]


def key_figure(verdict: str, steps: list[dict[str, Any]], evidence: list[dict[str, Any]]) -> str:
    """The one figure that carries a claim's verdict, for the terminal line and the claims table.

    Refuted: the first false statement step, else the first disagreeing statement check of the
    primary reading. Otherwise: the first primary statement check backed by a failing control,
    else the first undecided one, else the first check.
    """
    primary = [e for e in evidence if e.get("reading") is None and e.get("role") == "statement"]
    if verdict == "refuted":
        step = next((s for s in steps if s.get("reading") is None and s.get("role") == "statement"
                     and s["status"] == "disagrees"), None)
        if step is not None:
            return f"step '{step['name']}' is false"
        chosen = next((e for e in primary if e["status"] == "disagrees"), None)
    else:
        chosen = (next((e for e in primary if any(c["failed"] for c in e.get("controls", []))), None)
                  or next((e for e in primary if e["status"] == "undecided"), None)
                  or next(iter(primary or evidence), None))
    return "" if chosen is None else figure(chosen)
