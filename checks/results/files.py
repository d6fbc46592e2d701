"""Results files: written atomically, read back with a one-line error when unreadable.

``results.json`` is ``{"format": "attnaudit.results/2", "results": [records sorted by id],
"tables": [the papers' summary tables with their measured column], "papers": [title, authors,
arXiv id and source file of each paper with a record]}``, byte-identical for one
seed, device and set of versions; ``timings.json`` beside it maps id to seconds, kept apart for
that reason. A bare JSON array of records (``attnaudit run --json`` prints one) is also read.
Every record read becomes a :class:`~attnaudit.checks.results.record.Record` (``Record.from_json``):
a verdict or proof status the engine never writes is an error naming the claim and the field.
Format 2 is format 1's record with every field the proof model added guaranteed; a file of
another format is an error that says to rerun ``attnaudit run``.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from attnaudit.checks.results.record import Record, ResultsError

RESULTS_FORMAT = "attnaudit.results/2"
RESULTS_NAME = "results.json"
TIMINGS_NAME = "timings.json"


def dumps(data: Any) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False, sort_keys=False) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write to a temporary file in the same directory, fsync, then rename over ``path``.

    A crash at any point leaves either the previous file or the new one, never a torn one. The
    file gets the user's umask like any other (``tempfile.mkstemp`` would make it 0600).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:  # O_EXCL: a fresh file of our own; mode 0o666 is narrowed by the umask
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_results(out: Path, records: list[dict[str, Any]], timings: dict[str, float],
                  tables: list[dict[str, Any]] | None = None,
                  papers: list[dict[str, Any]] | None = None) -> Path:
    records = sorted(records, key=lambda r: r["id"])
    write_atomic(Path(out) / TIMINGS_NAME, dumps(dict(sorted(timings.items()))))
    path = Path(out) / RESULTS_NAME
    write_atomic(path, dumps({"format": RESULTS_FORMAT, "results": records, "tables": tables or [],
                              "papers": papers or []}))
    return path


def read_json(path: Path, what: str) -> Any:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise ResultsError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{what} {path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None


def parse_results(data: Any, path: Path) -> tuple[list[Record], list[dict[str, Any]]]:
    """(records, tables) from a results document, or a one-line ResultsError."""
    tables: Any = []
    if isinstance(data, dict):
        if data.get("format") != RESULTS_FORMAT:
            raise ResultsError(f"results file {path} has format {data.get('format')!r}, "
                               f"not {RESULTS_FORMAT!r}: rerun 'attnaudit run --out DIR' to write it")
        records, tables = data.get("results"), data.get("tables", [])
    else:
        records = data
    if not isinstance(records, list) or not all(
        isinstance(r, dict) and isinstance(r.get("id"), str) and "verdict" in r for r in records
    ):
        raise ResultsError(f"results file {path} does not hold a list of records with id and verdict")
    try:
        typed = [Record.from_json(r) for r in records]
    except ResultsError as exc:
        raise ResultsError(f"results file {path}: {exc}") from None
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ResultsError(f"results file {path}: 'tables' is not a list of tables")
    return typed, tables


def load_document(path: Path) -> dict[str, Any]:
    """The whole results document: ``results`` (Records), ``tables`` and ``papers`` (empty for a
    bare array)."""
    data = read_json(path, "results file")
    records, tables = parse_results(data, path)
    papers = data.get("papers", []) if isinstance(data, dict) else []
    if not isinstance(papers, list) or not all(isinstance(p, dict) and "key" in p for p in papers):
        raise ResultsError(f"results file {path}: 'papers' is not a list of papers with a key")
    return {"results": records, "tables": tables, "papers": papers}


def load_timings(results_path: Path) -> dict[str, float]:
    """Seconds per claim from the timings.json beside a results file; {} when there is none."""
    path = Path(results_path).parent / TIMINGS_NAME
    if not path.exists():
        return {}
    data = read_json(path, "timings file")
    if not isinstance(data, dict):
        raise ResultsError(f"timings file {path} is not an object of id → seconds")
    return {k: float(v) for k, v in data.items() if isinstance(v, (int, float))}


def load_results(path: Path) -> list[Record]:
    return parse_results(read_json(path, "results file"), path)[0]


def load_tables(path: Path) -> list[dict[str, Any]]:
    return parse_results(read_json(path, "results file"), path)[1]


# ----------------------------------------------------------------------------- the journal

JOURNAL_DIR = "journal"
JOURNAL_FORMAT = "attnaudit.journal/1"
# What a journaled record must share with the run being resumed to stand for it: the spec, the
# operators and the engine (the source hash), the seed, the profile and the device; and the
# library versions, without which the record would not be byte-identical.
RESUME_KEYS = ("source_hash", "seed", "profile", "device", "versions")


def journal_path(out: Path, claim_id: str, seed: int | None = None) -> Path:
    """``OUT/journal/<id with / as __>.json`` (``…@seed<k>.json`` for a stability run's seeds)."""
    tail = "" if seed is None else f"@seed{seed}"
    return Path(out) / JOURNAL_DIR / f"{claim_id.replace('/', '__')}{tail}.json"


def journal_write(out: Path, record: dict[str, Any], seconds: float, *, per_seed: bool = False) -> None:
    """One completed claim, written atomically the moment it completes."""
    write_atomic(journal_path(out, record["id"], record["seed"] if per_seed else None),
                 dumps({"format": JOURNAL_FORMAT, "seconds": round(seconds, 3), "record": record}))


def journal_clear(out: Path) -> None:
    """A fresh run: drop the previous run's journal (and any temporary file a kill left)."""
    folder = Path(out) / JOURNAL_DIR
    if folder.is_dir():
        for path in folder.iterdir():
            if path.suffix in (".json", ".tmp"):
                path.unlink(missing_ok=True)


def journal_read(out: Path, claim_id: str, expect: dict[str, Any], *, per_seed: bool = False
                 ) -> tuple[dict[str, Any], float] | None:
    """The journaled (record, seconds) of ``claim_id`` when it matches ``expect`` on every
    :data:`RESUME_KEYS` and is no error; None otherwise (unreadable, stale, absent)."""
    path = journal_path(out, claim_id, expect["seed"] if per_seed else None)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != JOURNAL_FORMAT:
        return None
    record = data.get("record")
    if not isinstance(record, dict) or record.get("id") != claim_id or record.get("verdict") == "error":
        return None
    if any(record.get(k) != expect.get(k) for k in RESUME_KEYS):
        return None
    return record, float(data.get("seconds", 0.0))


def journal_sweep(out: Path) -> None:
    """Remove temporary files a killed run left in the journal (never a finished record)."""
    folder = Path(out) / JOURNAL_DIR
    if folder.is_dir():
        for path in folder.glob(".*.tmp"):
            path.unlink(missing_ok=True)


def check_record(record: dict[str, Any], path: Path) -> Record:
    """``record`` as a Record, or the one-line ResultsError of :func:`parse_results`."""
    try:
        return Record.from_json(record)
    except ResultsError as exc:
        raise ResultsError(f"results file {path}: {exc}") from None
