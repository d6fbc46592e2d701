"""The results layer (attnaudit.checks.results): the one typed record the engine writes through and
the report reads, torch-free, and the only part of the engine the report imports."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest
from claimtest import run
from conftest import FALSE

from attnaudit.checks.discovery import LoadError, discover
from attnaudit.checks.executor import Job, crash_record
from attnaudit.checks.results import (
    Evidence,
    Record,
    ResultsError,
    Witness,
    dumps,
    parse_results,
)
from attnaudit.checks.runner import load_error_record, run_claim

ROOT = Path(__file__).resolve().parents[1]
LAYER = "attnaudit.checks.results"


def _imports(path: Path) -> list[str]:
    """Every module ``path`` imports (absolute names; a relative import resolved in reports)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            names.append(f"attnaudit.reports.{base}".rstrip(".") if node.level else base)
            if node.module in ("attnaudit.checks", "attnaudit") or node.level and not base:
                names += [f"{base}.{a.name}" for a in node.names]  # from attnaudit.checks import gate
    return names


def test_reports_import_nothing_of_the_engine_but_the_results_layer():
    modules = sorted((ROOT / "reports").rglob("*.py"))
    assert len(modules) >= 9
    for path in modules:
        engine = [n for n in _imports(path) if n == "attnaudit.checks" or n.startswith("attnaudit.checks.")]
        wrong = [n for n in engine if not (n == LAYER or n.startswith(LAYER + "."))]
        assert not wrong, f"{path.relative_to(ROOT)} imports {wrong}"
        for old in ("checks", "claims", "operators"):  # nor the top-level names of old packs
            assert not [n for n in _imports(path) if n == old or n.startswith(old + ".")], path


def test_the_layer_imports_without_torch():
    heavy = "('torch', 'numpy', 'sympy', 'scipy', 'attnaudit.reports')"
    code = f"import sys\nimport attnaudit.checks.results\nprint([m for m in {heavy} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def _false_claim():
    namespace: dict = {}
    exec(compile(FALSE, "false.py", "exec"), namespace)  # noqa: S102 - the test's own claim source
    return namespace["CLAIMS"][0]


@pytest.fixture(scope="module")
def real_records() -> list[dict]:
    """A built-in claim with steps, relations, scaling laws and a control; a refuted relation with a
    shrunk witness; the error records of a claim that raised, of a spec that did not load and of a
    claim process that gave none."""
    cid = "georesolver/theorem-2.6/softmax"
    builtin = next(c for c in discover(entry_points=False).claims if c.id == cid)
    false, _ = run_claim(_false_claim(), seed=0, profile="quick", device="cpu")
    raising = dataclasses.replace(_false_claim(), id="toy/raises", derivation=lambda: 1 / 0,
                                  no_derivation=None)
    raised, _ = run_claim(raising, seed=0, profile="quick", device="cpu")
    broken = LoadError("toy/broken", "claims/toy/broken.py", "SyntaxError", "toy", 3)
    loaded = load_error_record(broken, seed=0, profile="quick", device="cpu")
    job = Job("toy/lost", 0, "quick", "cpu", "claims/toy/lost.py", 1.0, None, "pkg", (), (),
              {"paper": "toy", "label": "Lost", "dtype": "float64", "source_hash": "abc"})
    return [run(builtin), false, raised, loaded, crash_record(job, "the worker process exited")]


def test_a_record_reads_back_to_the_same_json_key_for_key(real_records):
    for data in real_records:
        record = Record.from_json(data)
        assert record.to_json() == data and dumps(record.to_json()) == dumps(data), data["id"]
        assert Record.from_json(record.to_json()) == record
    builtin, false, raised, loaded, lost = map(Record.from_json, real_records)
    assert builtin.derivation.steps and {e.type for e in builtin.evidence} == {"relation", "scaling"}
    assert builtin.controls == tuple(c for e in builtin.evidence for c in e.controls) != ()
    (ev,) = false.evidence
    assert isinstance(ev.witness, Witness) and ev.witness.shrunk and ev.witness.check == "reversed"
    assert ev.status == "disagrees" and ev["cases"] == 500 and ev.fit is None
    for error in (raised, loaded, lost):
        assert error.verdict == "error" and error.failure is not None and error.proof.status is None
    assert raised.failure.traceback and "ZeroDivisionError" in raised.summary
    assert loaded.failure.line == 3 and "line" in loaded.to_json()["error"]
    assert "line" not in lost.to_json()["error"] and lost.label == "Lost"


def test_the_error_records_are_one_constructor():
    made = Record.error("p/x", "p", "boom", file="f.py", seed=1)
    assert made.to_json()["error"] == {"file": "f.py", "reason": "boom"}
    assert made.summary == "boom" and made.proof.to_json() == {"status": None, "first_false_step": None,
                                                               "reason": ""}


@pytest.mark.parametrize("change, field", [
    ({"verdict": "mostly-true"}, "verdict"),
    ({"proof": {"status": "plausible", "first_false_step": None, "reason": ""}}, "proof.status"),
    ({"clauses": [{"id": "c1", "verdict": "maybe"}]}, "clauses[c1].verdict"),
    ({"readings": [{"id": "primary", "verdict": "perhaps"}]}, "readings[primary].verdict"),
])
def test_a_value_the_engine_never_writes_is_a_one_line_error_naming_claim_and_field(
        real_records, tmp_path, change, field):
    data = real_records[1] | change
    with pytest.raises(ResultsError) as exc:
        Record.from_json(data)
    message = str(exc.value)
    assert message.startswith(f"claim toy/false: {field} is ") and ", not one of " in message
    assert "\n" not in message
    named = re.escape(f"results file {tmp_path}: claim toy/false: {field}")
    with pytest.raises(ResultsError, match=f"^{named}"):
        parse_results([data], tmp_path)


def test_a_record_without_a_proof_object_is_refused():
    with pytest.raises(ResultsError, match="^claim p/x: proof is not an object$"):
        Record.from_json({"id": "p/x", "verdict": "confirmed", "proof": None})


def test_records_and_their_parts_are_frozen(real_records):
    record = Record.from_json(real_records[0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.verdict = "confirmed"  # type: ignore[misc]
    ev = record.evidence[0]
    assert isinstance(ev, Evidence)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.status = "agrees"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ev.details["cases"] = 1  # type: ignore[index]  # its JSON is read-only too
    assert isinstance(record.evidence, tuple) and isinstance(record.derivation.steps, tuple)
