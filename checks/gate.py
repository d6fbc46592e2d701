"""The verdict gate: compare a run's verdicts with the committed baseline.

The gate fails on any verdict change, a claim that vanished, a claim new to the baseline (a
baseline is reviewed like code, so a new verdict is accepted explicitly) and any error.
``--accept`` rewrites the baseline from a run, and refuses a run that holds errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checks.results import ResultsError, dumps, read_json, write_atomic

BASELINE_SCHEMA = "attnaudit.baseline/1"
DEFAULT_BASELINE = Path("claims/baseline.json")


@dataclass(frozen=True)
class Difference:
    kind: str  # changed | vanished | new | error
    id: str
    text: str


def load_baseline(path: Path) -> dict[str, str]:
    data = read_json(path, "baseline")
    if not isinstance(data, dict) or data.get("schema") != BASELINE_SCHEMA or not isinstance(
        data.get("verdicts"), dict
    ):
        raise ResultsError(f"baseline {path} is not an {BASELINE_SCHEMA} file")
    return data["verdicts"]


def compare(records: list[dict[str, Any]], baseline: dict[str, str]) -> list[Difference]:
    diffs: list[Difference] = []
    current = {r["id"]: r for r in records}
    for cid in sorted(set(baseline) | set(current)):
        record, before = current.get(cid), baseline.get(cid)
        if record is None:
            diffs.append(Difference("vanished", cid, f"was {before}, absent from this run"))
            continue
        now = record["verdict"]
        if now == "error":
            reason = (record.get("error") or {}).get("reason") or record.get("summary", "")
            diffs.append(Difference("error", cid, reason.splitlines()[0] if reason else "error"))
        elif before is None:
            diffs.append(Difference("new", cid, f"{now} (not in the baseline: review it, "
                                                "then run 'attnaudit gate RESULTS --accept')"))
        elif now != before:
            diffs.append(Difference("changed", cid, f"{before} → {now}: {record.get('summary', '')}"))
    return diffs


def format_diff(diffs: list[Difference], baseline_path: Path, n_records: int) -> str:
    if not diffs:
        return f"gate: {n_records} verdicts match {baseline_path}"
    lines = [f"gate: {len(diffs)} difference(s) against {baseline_path}"]
    width = max(len(d.kind) for d in diffs)
    lines += [f"  {d.kind:<{width}}  {d.id}: {d.text}" for d in diffs]
    return "\n".join(lines)


def accept(records: list[dict[str, Any]], baseline_path: Path) -> str:
    errors = [r["id"] for r in records if r["verdict"] == "error"]
    if errors:
        raise ResultsError(f"refusing to accept a run with errors: {', '.join(errors)}")
    verdicts = {r["id"]: r["verdict"] for r in sorted(records, key=lambda r: r["id"])}
    write_atomic(baseline_path, dumps({"schema": BASELINE_SCHEMA, "verdicts": verdicts}))
    return f"gate: baseline {baseline_path} now holds {len(verdicts)} verdicts"
