"""Every built-in claim's verdict and proof status are the baseline's (claims/baseline.json), by the
gate's own comparison: one test per claim, on the session's one record of it (claimtest.run, shared
with the claim's own tests and its mutation tests). The files under tests/claims/<paper>/ therefore
assert only the computed facts the gate does not lock (evidence, witnesses, clauses, readings, the
first false step, what an altered check does)."""

from __future__ import annotations

from pathlib import Path

import claimtest
import pytest

import attnaudit.claims
from attnaudit.checks.discovery import discover
from attnaudit.checks.gate import compare, load_baseline
from attnaudit.checks.results import Record

CATALOGUE = discover(entry_points=False)  # the built-in claims (installed packs aside)
BASELINE = load_baseline(Path(next(iter(attnaudit.claims.__path__))) / "baseline.json")


def test_the_baseline_lists_exactly_the_catalogue():
    assert not CATALOGUE.errors, [(e.id, e.reason) for e in CATALOGUE.errors]
    assert sorted(c.id for c in CATALOGUE.claims) == sorted(BASELINE)


@pytest.mark.parametrize("claim", [pytest.param(c, id=c.id) for c in CATALOGUE.claims])
def test_verdict_and_proof_status_are_the_baselines(claim):
    record = claimtest.run(claim)
    differences = compare([Record.from_json(record)], {claim.id: BASELINE[claim.id]})
    assert not differences, "; ".join(f"{d.kind}: {d.text}" for d in differences)
