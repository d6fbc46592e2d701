"""The verdict gate: compare a run's verdicts with the committed baseline.

The gate locks both answers of every claim, the verdict and the proof status. It fails on any
change of either, a claim that vanished, a claim new to the baseline (a baseline is reviewed like
code, so a new verdict is accepted explicitly) and any error. ``--accept`` rewrites the baseline
from a run, and refuses a run that holds errors. Baselines of schema 1 (verdicts only) are read,
their proof status unlocked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attnaudit.checks.results import ResultsError, dumps, read_json, write_atomic

BASELINE_SCHEMA = "attnaudit.baseline/2"
OLD_SCHEMA = "attnaudit.baseline/1"
DEFAULT_BASELINE = Path("claims/baseline.json")


@dataclass(frozen=True)
class Difference:
    kind: str  # changed | proof | vanished | new | error
    id: str
    text: str


def load_baseline(path: Path) -> dict[str, dict[str, str | None]]:
    """id → {"verdict", "proof"} (proof None for a schema-1 baseline)."""
    data = read_json(path, "baseline")
    schema = data.get("schema") if isinstance(data, dict) else None
    entries = data.get("claims" if schema == BASELINE_SCHEMA else "verdicts") if schema else None
    if schema not in (BASELINE_SCHEMA, OLD_SCHEMA) or not isinstance(entries, dict):
        raise ResultsError(f"baseline {path} is not an {BASELINE_SCHEMA} file")
    if schema == OLD_SCHEMA:
        return {cid: {"verdict": v, "proof": None} for cid, v in entries.items()}
    if not all(isinstance(e, dict) and "verdict" in e and "proof" in e for e in entries.values()):
        raise ResultsError(f"baseline {path}: every claim needs a verdict and a proof status")
    return entries


def proof_of(record: dict[str, Any]) -> str | None:
    proof = record.get("proof")
    return proof.get("status") if isinstance(proof, dict) else None


def selected(cid: str, selection: list[str] | tuple[str, ...]) -> bool:
    """Whether a run of the id prefixes ``selection`` (empty: everything) covers ``cid``."""
    return not selection or any(cid == p or cid.startswith(p.rstrip("/") + "/") for p in selection)


def compare(records: list[dict[str, Any]], baseline: dict[str, dict[str, str | None]],
            selection: list[str] | tuple[str, ...] = ()) -> list[Difference]:
    """The differences of a run from its baseline. A run of a ``selection`` of ids is compared
    on those alone: the baseline's other claims were not run, so they have not vanished."""
    diffs: list[Difference] = []
    current = {r["id"]: r for r in records}
    baseline = {cid: e for cid, e in baseline.items() if selected(cid, selection)}
    for cid in sorted(set(baseline) | set(current)):
        record, before = current.get(cid), baseline.get(cid)
        if record is None:
            diffs.append(Difference("vanished", cid, f"was {before['verdict']}, absent from this run"))
            continue
        now, proof = record["verdict"], proof_of(record)
        if now == "error":
            reason = (record.get("error") or {}).get("reason") or record.get("summary", "")
            diffs.append(Difference("error", cid, reason.splitlines()[0] if reason else "error"))
        elif before is None:
            diffs.append(Difference("new", cid, f"{now} · proof {proof} (not in the baseline: review "
                                                "it, then run 'attnaudit gate RESULTS --accept')"))
        elif now != before["verdict"]:
            diffs.append(Difference("changed", cid,
                                    f"{before['verdict']} → {now}: {record.get('summary', '')}"))
        elif before["proof"] is not None and proof != before["proof"]:
            reason = (record.get("proof") or {}).get("reason", "")
            diffs.append(Difference("proof", cid, f"proof {before['proof']} → {proof}: {reason}"))
    return diffs


def split_by_baseline(records: list[dict[str, Any]], papers: list[dict[str, Any]],
                      default: Path) -> list[tuple[Path, list[dict[str, Any]], bool]]:
    """(baseline path, its records, is a pack's) for each baseline a run is gated against.

    A pack's claims go to the pack's own ``baseline.json`` (recorded per paper in the results
    file); every other record to ``default``, which is checked whenever the run has such records
    or holds no pack at all (so that a run of the built-in claims alone is gated as before).
    """
    pack_of = {p["key"]: Path(p["baseline"]) for p in papers if p.get("baseline")}
    groups: dict[Path, list[dict[str, Any]]] = {}
    rest = []
    for r in records:
        if r.get("paper") in pack_of:
            groups.setdefault(pack_of[r["paper"]], []).append(r)
        else:
            rest.append(r)
    out = [(path, recs, True) for path, recs in sorted(groups.items())]
    if rest or not out:
        out.insert(0, (Path(default), rest, False))
    return out


def format_diff(diffs: list[Difference], baseline_path: Path, n_records: int) -> str:
    if not diffs:
        return f"gate: {n_records} verdicts match {baseline_path}"
    lines = [f"gate: {len(diffs)} difference(s) against {baseline_path}"]
    width = max(len(d.kind) for d in diffs)
    lines += [f"  {d.kind:<{width}}  {d.id}: {d.text}" for d in diffs]
    return "\n".join(lines)


def accept(records: list[dict[str, Any]], baseline_path: Path,
           selection: list[str] | tuple[str, ...] = ()) -> str:
    """Rewrite the baseline from a run. A run of a ``selection`` replaces the selected claims'
    entries and keeps the others of an existing baseline."""
    errors = [r["id"] for r in records if r["verdict"] == "error"]
    if errors:
        raise ResultsError(f"refusing to accept a run with errors: {', '.join(errors)}")
    kept = {}
    if selection and Path(baseline_path).exists():
        kept = {cid: e for cid, e in load_baseline(baseline_path).items() if not selected(cid, selection)}
    claims = dict(sorted((kept | {r["id"]: {"verdict": r["verdict"], "proof": proof_of(r)}
                                  for r in records}).items()))
    write_atomic(baseline_path, dumps({"schema": BASELINE_SCHEMA, "claims": claims}))
    return f"gate: baseline {baseline_path} now holds {len(claims)} verdicts and proof statuses"


def selection_of(papers: list[dict[str, Any]]) -> tuple[str, ...]:
    """The id selection a run was made of (recorded with each paper; empty: everything)."""
    return next((tuple(p["selection"]) for p in papers if isinstance(p.get("selection"), list)), ())


@dataclass(frozen=True)
class Group:
    """The records of a run gated against one baseline."""

    baseline: Path
    records: list[dict[str, Any]]
    is_pack: bool
    selection: tuple[str, ...]


def groups(document: dict[str, Any], default: Path, explicit: Path | None = None,
           results_path: Path | None = None) -> list[Group]:
    """Which baseline each record of a results document is gated against: with ``explicit``
    (``--baseline FILE``), that file for every record; otherwise a pack's claims against the
    pack's own baseline (its absolute path is in the results file; an older relative one is read
    from the results file's folder) and the rest against ``default``."""
    papers = document.get("papers", [])
    selection = selection_of(papers)
    records = document["results"]
    if explicit is not None:
        return [Group(Path(explicit), records, False, selection)]
    here = Path(results_path).parent if results_path is not None else Path(".")
    resolved = [p | {"baseline": str(here / p["baseline"])} if p.get("baseline") else p for p in papers]
    return [Group(path, recs, is_pack, selection)
            for path, recs, is_pack in split_by_baseline(records, resolved, default)]


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
