"""Witness files: where they go, how they are found again, and how they are replayed."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from attnaudit.checks.model import describe_tolerance
from attnaudit.checks.results import ResultsError, dumps, parse_results, read_json, write_atomic

WITNESS_DIR = "witnesses"
WITNESS_SCHEMA = "attnaudit.witness/1"


def witness_filename(claim_id: str, check: str) -> str:
    return f"{claim_id.replace('/', '__')}__{check}.json"


def _witnesses(records: list[dict[str, Any]]):
    for record in records:
        for ev in record.get("evidence", []):
            if isinstance(ev, dict) and ev.get("witness"):
                yield ev["witness"]


def attach_witness_files(records: list[dict[str, Any]], folders: dict[str, str] | None = None) -> None:
    """Name each witness's file (relative to the results directory) and its replay command. A
    pack folder's claim needs that folder to replay: ``folders`` (paper key → the absolute
    ``--claims`` folder) puts it in the witness (``claims``) and in the command, so the witness
    replays from any directory."""
    folders = folders or {}
    for w in _witnesses(records):
        rel = f"{WITNESS_DIR}/{witness_filename(w['claim'], w['check'])}"
        w["file"] = rel
        folder = folders.get(str(w["claim"]).split("/", 1)[0])
        if folder is not None:
            w["claims"] = [folder]
        w["replay"] = f"attnaudit replay {rel}" + (f" --claims {shlex.quote(folder)}" if folder else "")


def claims_of(witnesses: list[dict[str, Any]]) -> list[str]:
    """The ``--claims`` folders the witnesses were stored with (those that still exist)."""
    folders = {f for w in witnesses for f in w.get("claims") or () if isinstance(f, str)}
    return sorted(f for f in folders if Path(f).is_dir())


def write_witness_files(records: list[dict[str, Any]], out: Path) -> list[Path]:
    paths = []
    for w in _witnesses(records):
        path = Path(out) / w["file"]
        write_atomic(path, dumps(w))
        paths.append(path)
    return paths


def load_witnesses(path: Path) -> list[dict[str, Any]]:
    data = read_json(path, "witness file")
    if isinstance(data, dict) and data.get("schema") == WITNESS_SCHEMA:
        return [data]
    if isinstance(data, list) or (isinstance(data, dict) and "results" in data):
        return [ev.witness.to_json() for r in parse_results(data, path)[0] for ev in r.evidence if ev.witness]
    raise ResultsError(f"{path} is neither a witness ({WITNESS_SCHEMA}) nor a results file")


def replay(witness: dict[str, Any], catalogue, stream=None) -> bool:
    """Re-evaluate one witness and print both sides; True when it still violates the relation."""
    from attnaudit.checks.model import Relation

    stream = sys.stdout if stream is None else stream  # the current stdout, not the one at import

    by_id = {c.id: c for c in catalogue.claims}
    claim = by_id.get(witness.get("claim"))
    if claim is None:
        raise ResultsError(f"witness names claim {witness.get('claim')!r}, which no spec defines")
    try:
        check = claim.check(witness["check"])
    except KeyError as exc:
        raise ResultsError(exc.args[0]) from None
    if not isinstance(check, Relation):
        raise ResultsError(f"{claim.id} check {check.name!r} is not a relation; nothing to replay")
    from attnaudit.checks.relations import replay_witness  # torch: only when a witness replays

    try:
        values = replay_witness(check, witness)
    except (KeyError, TypeError, ValueError) as exc:
        raise ResultsError(f"witness for {claim.id}/{check.name} has unusable inputs: {exc}") from None
    failing = values["margin"] > 0
    inputs = ", ".join(f"{k}{_shape(v)}" for k, v in witness["inputs"].items())
    print(f"{claim.id} [{check.name}]  {check.lhs} {check.rel} {check.rhs}", file=stream)
    print(f"  inputs     {inputs}  (seed {witness.get('seed')}, found by "
          f"{witness.get('found_by')}{', shrunk' if witness.get('shrunk') else ''})", file=stream)
    print(f"  lhs        {check.lhs} = {values['lhs']!r}", file=stream)
    print(f"  rhs        {check.rhs} = {values['rhs']!r}", file=stream)
    print(f"  tolerance  {values['tol']!r}  ({describe_tolerance(check.tolerance)})", file=stream)
    verdict = "VIOLATED" if failing else "holds (the witness no longer fails)"
    print(f"  margin     {values['margin']!r}  → {verdict}", file=stream)
    return failing


def _shape(spec: dict[str, Any]) -> str:
    if "value" in spec:
        return f"={spec['value']!r}"
    return f"[{'x'.join(str(s) for s in spec['shape'])}]"
