"""The verdict gate: compare a run's verdicts with the committed baseline.

The gate locks both answers of every claim, the verdict and the proof status. It fails on any
change of either, a claim that vanished, a claim new to the baseline (a baseline is reviewed like
code, so a new verdict is accepted explicitly) and any error. ``--accept`` rewrites the baseline
from a run, and refuses a run that holds errors. Baselines of schema 1 (verdicts only) are read,
their proof status unlocked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attnaudit.checks.results import (  # noqa: F401 - the comparison lives in the results layer (the report's too)
    BASELINE_SCHEMA,
    OLD_SCHEMA,
    Difference,
    Group,
    Record,
    ResultsError,
    compare,
    dumps,
    groups,
    load_baseline,
    proof_of,
    selected,
    selection_of,
    split_by_baseline,
    write_atomic,
)

DEFAULT_BASELINE = Path("claims/baseline.json")


def format_diff(diffs: list[Difference], baseline_path: Path, n_records: int) -> str:
    if not diffs:
        return f"gate: {n_records} verdicts match {baseline_path}"
    lines = [f"gate: {len(diffs)} difference(s) against {baseline_path}"]
    width = max(len(d.kind) for d in diffs)
    lines += [f"  {d.kind:<{width}}  {d.id}: {d.text}" for d in diffs]
    return "\n".join(lines)


def accept(records: list[Record], baseline_path: Path,
           selection: list[str] | tuple[str, ...] = ()) -> str:
    """Rewrite the baseline from a run. A run of a ``selection`` replaces the selected claims'
    entries and keeps the others of an existing baseline."""
    errors = [r.id for r in records if r.verdict == "error"]
    if errors:
        raise ResultsError(f"refusing to accept a run with errors: {', '.join(errors)}")
    kept = {}
    if selection and Path(baseline_path).exists():
        kept = {cid: e for cid, e in load_baseline(baseline_path).items() if not selected(cid, selection)}
    claims = dict(sorted((kept | {r.id: {"verdict": r.verdict, "proof": proof_of(r)}
                                  for r in records}).items()))
    write_atomic(baseline_path, dumps({"schema": BASELINE_SCHEMA, "claims": claims}))
    return f"gate: baseline {baseline_path} now holds {len(claims)} verdicts and proof statuses"


def gate(document: dict[str, Any], default: Path, explicit: Path | None = None,
         results_path: Path | None = None) -> list[tuple[Group, list[Difference]]]:
    """Each group with its differences. A pack's baseline that does not exist is an error that
    says so (a ResultsError), never a run of claims all "new"."""
    out = []
    for group in groups(document, default, explicit, results_path):
        if group.is_pack and not group.baseline.exists():
            raise ResultsError(f"the pack's baseline {group.baseline} does not exist (review the run, "
                               "then 'attnaudit gate RESULTS --accept' writes it)")
        out.append((group, compare(group.records, load_baseline(group.baseline), group.selection)))
    return out


def accept_all(document: dict[str, Any], default: Path, explicit: Path | None = None,
               results_path: Path | None = None) -> list[str]:
    """Accept every group's records into its own baseline (a pack's into the pack's alone)."""
    return [accept(g.records, g.baseline, g.selection)
            for g in groups(document, default, explicit, results_path)]
