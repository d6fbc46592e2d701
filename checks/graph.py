"""The paper as a graph of results: what each proof uses, what rests on what, what the abstract's
promises come to.

A claim's ``uses`` (``Claim.uses``: another claim's id and the quoted words of the argument that
invoke it) are its out-edges. Once every record of a run exists, :func:`annotate` adds to each
record, from the records alone:

- ``uses``: each edge with the used claim's verdict in this run (None when that claim did not run);
- ``used_by``: the ids of this run's records whose argument uses it;
- ``rests_on``: every refuted or unverifiable result the argument reaches through ``uses``,
  transitively, each with the chain ``through`` which it is reached (the shortest, ties broken by
  id). Transitively, because the paper establishes a used result only through that result's own
  argument: a corollary of a theorem whose proof uses a refuted lemma rests on that lemma too,
  whatever the theorem's own verdict; ``through`` says how far off it is.

A neighbour never changes a record's own verdict or proof status. The same run gives the same
fields, byte for byte (everything is sorted).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

# What readers derive from the annotated records (dependants, the abstract's contributions) is in
# the results layer, which the report reads.
from attnaudit.checks.results import NOT_ESTABLISHED


def annotate(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add ``uses`` verdicts, ``used_by`` and ``rests_on`` to every record, in place; returns them.
    Idempotent: the fields are recomputed from each record's ``uses`` edges."""
    by_id = {r["id"]: r for r in records}
    used_by: dict[str, set[str]] = {cid: set() for cid in by_id}
    for r in records:
        r["uses"] = [{"claim": u["claim"], "quote": u["quote"],
                      "verdict": by_id[u["claim"]]["verdict"] if u["claim"] in by_id else None}
                     for u in r.get("uses") or []]
        for u in r["uses"]:
            if u["claim"] in used_by:
                used_by[u["claim"]].add(r["id"])
    for r in records:
        r["used_by"] = sorted(used_by[r["id"]])
        r["rests_on"] = _rests_on(r["id"], by_id)
    return records


def _rests_on(start: str, by_id: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Breadth first from ``start`` along ``uses``: every reachable record not established, with
    the shortest chain of ids between ``start`` and it (exclusive of both)."""
    parent: dict[str, str | None] = {start: None}
    queue = deque([start])
    found = []
    while queue:
        here = queue.popleft()
        for nxt in sorted(u["claim"] for u in by_id[here].get("uses") or []):
            if nxt in parent or nxt not in by_id:
                continue
            parent[nxt] = here
            queue.append(nxt)
            if by_id[nxt]["verdict"] in NOT_ESTABLISHED:
                chain, at = [], parent[nxt]
                while at is not None and at != start:
                    chain.append(at)
                    at = parent[at]
                found.append({"claim": nxt, "verdict": by_id[nxt]["verdict"], "through": chain[::-1]})
    return sorted(found, key=lambda f: (len(f["through"]), f["claim"]))


def edges(records: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """(user, used) for every edge whose two ends are records of this run, sorted."""
    records = list(records)
    ids = {r["id"] for r in records}
    return sorted({(r["id"], u["claim"]) for r in records for u in r.get("uses") or [] if u["claim"] in ids})
