"""A paper's own summary table with the measured counterpart of every entry, from the run's records.

The measured column is computed from the result records after the run (never from the specs),
so a figure in the table is the same number as in the claim's record. A reference to a claim
that did not run in this selection is shown as not run; one to a check the record lacks is a
defect of the table and says so.
"""

from __future__ import annotations

from typing import Any

from attnaudit.checks.model import Measured, SummaryTable
from attnaudit.checks.results import (  # noqa: F401 - defined once in the results layer, used here and by claims
    MAX_DIGITS,
    ROUNDOFF_EXPONENT,
    Evidence,
    figure,
    interval,
    key_figure,
    predicted,
)


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
    out |= {"type": ev.get("type"), "status": ev.get("status"), "figure": figure(Evidence.from_json(ev))}
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
