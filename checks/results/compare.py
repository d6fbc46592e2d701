"""The gate's comparison of a run's records with a baseline, for the gate command and the report.

A baseline (``attnaudit.baseline/2``) locks both answers of every claim, the verdict and the proof
status; one of schema 1 (verdicts only) is read with its proof statuses unlocked. A pack's claims
are compared with the pack's own baseline (recorded per paper in the results file).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attnaudit.checks.results.files import read_json
from attnaudit.checks.results.record import Record, ResultsError

BASELINE_SCHEMA = "attnaudit.baseline/2"
OLD_SCHEMA = "attnaudit.baseline/1"


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


def proof_of(record: Record) -> str | None:
    return record.proof.status


def selected(cid: str, selection: Sequence[str]) -> bool:
    """Whether a run of the id prefixes ``selection`` (empty: everything) covers ``cid``."""
    return not selection or any(cid == p or cid.startswith(p.rstrip("/") + "/") for p in selection)


def compare(records: Sequence[Record], baseline: Mapping[str, Mapping[str, str | None]],
            selection: Sequence[str] = ()) -> list[Difference]:
    """The differences of a run from its baseline. A run of a ``selection`` of ids is compared
    on those alone: the baseline's other claims were not run, so they have not vanished."""
    diffs: list[Difference] = []
    current = {r.id: r for r in records}
    baseline = {cid: e for cid, e in baseline.items() if selected(cid, selection)}
    for cid in sorted(set(baseline) | set(current)):
        record, before = current.get(cid), baseline.get(cid)
        if record is None:
            diffs.append(Difference("vanished", cid, f"was {before['verdict']}, absent from this run"))
            continue
        now, proof = record.verdict, proof_of(record)
        if now == "error":
            reason = (record.failure.reason if record.failure else "") or record.summary
            diffs.append(Difference("error", cid, reason.splitlines()[0] if reason else "error"))
        elif before is None:
            diffs.append(Difference("new", cid, f"{now} · proof {proof} (not in the baseline: review "
                                                "it, then run 'attnaudit gate RESULTS --accept')"))
        elif now != before["verdict"]:
            diffs.append(Difference("changed", cid, f"{before['verdict']} → {now}: {record.summary}"))
        elif before["proof"] is not None and proof != before["proof"]:
            diffs.append(Difference("proof", cid,
                                    f"proof {before['proof']} → {proof}: {record.proof.reason}"))
    return diffs


def split_by_baseline(records: Sequence[Record], papers: Sequence[Mapping[str, Any]],
                      default: Path) -> list[tuple[Path, list[Record], bool]]:
    """(baseline path, its records, is a pack's) for each baseline a run is gated against.

    A pack's claims go to the pack's own ``baseline.json`` (recorded per paper in the results
    file); every other record to ``default``, which is checked whenever the run has such records
    or holds no pack at all (so that a run of the built-in claims alone is gated as before).
    """
    pack_of = {p["key"]: Path(p["baseline"]) for p in papers if p.get("baseline")}
    groups: dict[Path, list[Record]] = {}
    rest = []
    for r in records:
        if r.paper in pack_of:
            groups.setdefault(pack_of[r.paper], []).append(r)
        else:
            rest.append(r)
    out = [(path, recs, True) for path, recs in sorted(groups.items())]
    if rest or not out:
        out.insert(0, (Path(default), rest, False))
    return out


def selection_of(papers: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The id selection a run was made of (recorded with each paper; empty: everything)."""
    return next((tuple(p["selection"]) for p in papers if isinstance(p.get("selection"), list)), ())


@dataclass(frozen=True)
class Group:
    """The records of a run gated against one baseline."""

    baseline: Path
    records: list[Record]
    is_pack: bool
    selection: tuple[str, ...]


def groups(document: Mapping[str, Any], default: Path, explicit: Path | None = None,
           results_path: Path | None = None) -> list[Group]:
    """Which baseline each record of a results document (:func:`load_document`) is gated against:
    with ``explicit`` (``--baseline FILE``), that file for every record; otherwise a pack's claims
    against the pack's own baseline (its absolute path is in the results file; an older relative
    one is read from the results file's folder) and the rest against ``default``."""
    papers = document.get("papers", [])
    selection = selection_of(papers)
    records = document["results"]
    if explicit is not None:
        return [Group(Path(explicit), records, False, selection)]
    here = Path(results_path).parent if results_path is not None else Path(".")
    resolved = [p | {"baseline": str(here / p["baseline"])} if p.get("baseline") else p for p in papers]
    return [Group(path, recs, is_pack, selection)
            for path, recs, is_pack in split_by_baseline(records, resolved, default)]
