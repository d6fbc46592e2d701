"""The real specs: they all load, and their ids are exactly catalogue ids."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from attnaudit.checks.discovery import discover
from attnaudit.checks.gate import load_baseline

CATALOGUE = Path(__file__).resolve().parents[1].parent / "shared" / "catalogue.toml"
BASELINE = Path(__file__).resolve().parents[1] / "claims" / "baseline.json"


def test_every_spec_loads_without_error():
    cat = discover("claims", entry_points=False)
    assert cat.errors == []
    assert cat.claims, "no claims discovered"
    assert set(cat.papers) == {c.paper for c in cat.claims}


@pytest.mark.skipif(not CATALOGUE.exists(), reason="shared/catalogue.toml is not beside the repo")
def test_claim_ids_are_catalogue_ids():
    ids = {c["id"] for c in tomllib.loads(CATALOGUE.read_text())["claim"]}
    unknown = sorted(c.id for c in discover("claims", entry_points=False).claims if c.id not in ids)
    assert unknown == []


def test_baseline_lists_exactly_the_discovered_claims():
    baseline = load_baseline(BASELINE)
    assert sorted(baseline) == sorted(c.id for c in discover("claims", entry_points=False).claims)
    assert all(entry["verdict"] != "error" for entry in baseline.values())


def test_every_summary_table_cell_points_at_a_real_claim_and_check():
    cat = discover("claims", entry_points=False)
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
    (table,) = discover("claims", entry_points=False).tables["georesolver"]
    assert table.label == "Table 3" and table.columns == ("Softmax", "Resolver (IDA)")
    assert len(table.rows) == 7
    assert [c.paper for c in table.rows[3].cells] == [r"\Theta(n^{-2})", r"\Theta(1)"]
