"""The real specs: they all load, and their ids are exactly catalogue ids."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from attnaudit.checks.discovery import discover
from attnaudit.checks.gate import load_baseline

ROOT = Path(__file__).resolve().parents[1]

CATALOGUE = Path(__file__).resolve().parents[1].parent / "shared" / "catalogue.toml"
BASELINE = Path(__file__).resolve().parents[1] / "claims" / "baseline.json"


def test_every_spec_loads_without_error():
    cat = discover(entry_points=False)
    assert cat.errors == []
    assert cat.claims, "no claims discovered"
    assert set(cat.papers) == {c.paper for c in cat.claims}


@pytest.mark.skipif(not CATALOGUE.exists(), reason="shared/catalogue.toml is not beside the repo")
def test_claim_ids_are_catalogue_ids():
    ids = {c["id"] for c in tomllib.loads(CATALOGUE.read_text())["claim"]}
    unknown = sorted(c.id for c in discover(entry_points=False).claims if c.id not in ids)
    assert unknown == []


def test_baseline_lists_exactly_the_discovered_claims():
    baseline = load_baseline(BASELINE)
    assert sorted(baseline) == sorted(c.id for c in discover(entry_points=False).claims)
    assert all(entry["verdict"] != "error" for entry in baseline.values())


def test_every_summary_table_cell_points_at_a_real_claim_and_check():
    cat = discover(entry_points=False)
    by_id = {c.id: c for c in cat.claims}
    assert "georesolver" in cat.tables
    for paper, tables in cat.tables.items():
        for table in tables:
            for ref in table.references():
                assert ref.claim.split("/", 1)[0] == paper
                assert ref.claim in by_id, f"{table.label}: {ref.claim} is not a discovered claim"
                if ref.check is not None:
                    by_id[ref.claim].check(ref.check)  # KeyError names the known checks


def test_georesolver_table_3_reproduces_the_paper_entries():
    (table,) = discover(entry_points=False).tables["georesolver"]
    assert table.label == "Table 3" and table.columns == ("Softmax", "Resolver (IDA)")
    assert len(table.rows) == 7
    assert [c.paper for c in table.rows[3].cells] == [r"\Theta(n^{-2})", r"\Theta(1)"]


# ── the clauses model (issue 22) and the engine's plumbing (issue 23), on every built-in claim ──


def test_every_claim_quotes_the_clauses_of_its_statement():
    unquoted = sorted(c.id for c in discover(entry_points=False).claims if not c.clauses)
    assert unquoted == [], f"claims without quoted clauses: {unquoted}"


def test_every_control_declares_its_contrast():
    undeclared = sorted(f"{c.id}:{check.name}:{ctl.variant}" for c in discover(entry_points=False).claims
                        for check in c.checks for ctl in check.controls if ctl.contrast is None)
    assert undeclared == [], f"controls with no declared contrast: {undeclared}"


def test_no_spec_sets_threads_or_imports_torch_inside_a_function():
    import re

    pattern = re.compile(r"single_thread|^[ \t]+import torch\b", re.MULTILINE)
    offenders = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "claims").rglob("*.py")
                       if pattern.search(p.read_text(encoding="utf-8")))
    assert offenders == [], f"threads or function-local torch imports in: {offenders}"


def test_listing_the_catalogue_imports_no_torch():
    import subprocess
    import sys

    code = ("import sys; from attnaudit.checks.discovery import discover; cat = discover(); "
            "assert not cat.errors, cat.errors; m = sys.modules.get('torch'); "
            "print(type(m).__name__ if m is not None else 'absent')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() in ("_Deferred", "absent"), (
        "discovering the catalogue imported torch: a spec uses torch or `from attnaudit.operators.x "
        "import y` at module level (use `operators.y` inside functions)")
