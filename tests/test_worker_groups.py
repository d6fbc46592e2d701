"""The suite's scheduler (tests/conftest.py) keeps every test that reads a claim's session record in
one xdist worker, so each claim runs once: its own tests, and the tests parametrised by it."""

from __future__ import annotations

from pathlib import Path

from conftest import claim_group

from attnaudit.checks.discovery import discover

ROOT = Path(__file__).resolve().parents[1]


def test_a_claims_parametrised_tests_and_its_own_tests_share_one_group():
    claims = discover(entry_points=False).claims
    assert claims
    for claim in claims:
        module = ".".join(claim.source_module.removeprefix("attnaudit.claims.").split(".")[:2])
        check = claim.checks[0].name if claim.checks else "none"
        assert claim_group(ROOT, f"tests/test_mutations.py::test_x[{claim.id}::{check}]") == module
        assert claim_group(ROOT, f"tests/claims/test_baseline.py::test_x[{claim.id}]") == module
    own = ROOT / "tests" / "claims" / "georesolver" / "test_theorem_5_5.py"
    assert claim_group(ROOT, f"{own.relative_to(ROOT)}::test_m_rate_fails_for_both_alternatives") == \
        "georesolver.theorem_5_5"


def test_other_tests_are_their_own_scope():
    assert claim_group(ROOT, "tests/test_cli.py::test_help") is None
    operator_test = "tests/test_operators.py::test_registry_gradients[ida_attention[path=fast]]"
    assert claim_group(ROOT, operator_test) is None


def test_every_claim_test_file_reads_a_catalogue_module():
    from conftest import _claim_modules

    modules = set(_claim_modules().values())
    for path in sorted((ROOT / "tests" / "claims").glob("*/test_*.py")):
        assert claim_group(ROOT, f"{path.relative_to(ROOT)}::test") in modules, path
