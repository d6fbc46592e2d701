"""``attnaudit new``: a claim from a template (quoted clauses and proof steps, a control with a
declared contrast, torch at module level) runs at once as inconclusive, naming the undecided step;
its test loads the pack alone and checks the quotes; a second ``new`` never overwrites."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attnaudit.checks.cli import main
from attnaudit.checks.scaffold import KINDS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("kind", KINDS)
def test_new_then_run_is_inconclusive_with_the_undecided_step_named(tmp_path, monkeypatch, capsys, kind):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "my-paper", "lemma-3.1", "--kind", kind, "--claims", "./mine"]) == 0
    written = capsys.readouterr().out
    assert "mine/my_paper/lemma_3_1.py" in written and "mine/tests/test_my_paper_lemma_3_1.py" in written
    assert main(["run", "my-paper/lemma-3.1", "--claims", "./mine", "--json"]) == 0
    [record] = json.loads(capsys.readouterr().out)
    assert record["verdict"] == "inconclusive"
    steps = {s["role"]: s for s in record["derivation"]["steps"]}
    step = steps["statement"]
    assert (step["status"], step["clause"]) == ("undecided", "main")
    assert f"'{step['name']}' undecided by SymPy" in record["summary"]  # named
    assert record["kind"] == kind
    # the statement is quoted clause by clause; the argument step by step (a conjecture has none)
    assert [c["id"] for c in record["clauses"]] == ["main"]
    if kind == "conjecture":
        assert record["proof"]["status"] == "absent"
    else:
        assert (steps["proof"]["step"], record["proof"]["status"]) == ("step-1", "incomplete")
    # its control declares a contrast and, a placeholder comparing the check with itself, passes:
    # the check cannot back a confirmation until the author writes a real one
    [ctl] = record["controls"]
    assert (ctl["contrast"], ctl["counts"], ctl["failed"]) == ("operator", True, False)
    # torch at module level, no function-local imports, no thread settings
    source = (tmp_path / "mine" / "my_paper" / "lemma_3_1.py").read_text()
    assert "\nimport torch\n" in source
    assert not [line for line in source.splitlines() if line.startswith(" ") and
                line.lstrip().startswith(("import ", "from "))]
    assert "thread" not in source and "__doc__" not in source.replace("sampler=sample.__doc__", "")
    # a plain folder name works too (no importable package of that name)
    assert main(["list", "--claims", "mine"]) == 0
    assert "my-paper/lemma-3.1" in capsys.readouterr().out


def test_a_pack_loads_alone_without_torch(tmp_path, monkeypatch):
    """discover_pack (what the written test uses) imports no built-in claim, and the spec's
    module-level torch stays deferred until a check runs."""
    monkeypatch.chdir(tmp_path)
    assert main(["new", "my-paper", "lemma-1", "--kind", "asymptotic", "--claims", "./mine"]) == 0
    probe = ("import sys; from attnaudit.checks.scaffold import discover_pack; "
             "cat = discover_pack('mine'); "
             "print([c.id for c in cat.claims], len(cat.errors), type(sys.modules['torch']).__name__, "
             "any(m.startswith('attnaudit.claims.') for m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=120)
    assert proc.stdout.split() == ["['my-paper/lemma-1']", "0", "_Deferred", "False"], proc.stderr


def test_new_twice_does_not_overwrite(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "my-paper", "lemma-1", "--kind", "identity", "--claims", "./mine"]) == 0
    module = tmp_path / "mine" / "my_paper" / "lemma_1.py"
    module.write_text(module.read_text() + "# the author's edit\n")
    capsys.readouterr()
    assert main(["new", "my-paper", "lemma-1", "--kind", "identity", "--claims", "./mine"]) == 2
    assert "exists" in capsys.readouterr().err
    assert module.read_text().endswith("# the author's edit\n")
    # a second claim of the same paper keeps the paper's __init__
    init = (tmp_path / "mine" / "my_paper" / "__init__.py").read_text()
    assert main(["new", "my-paper", "lemma-2", "--kind", "inequality", "--claims", "./mine"]) == 0
    assert (tmp_path / "mine" / "my_paper" / "__init__.py").read_text() == init


def _pytest(folder, cwd):
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           folder], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=300)


def test_the_written_test_passes_and_checks_the_quotes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "my-paper", "lemma-1", "--kind", "identity", "--claims", "./mine"]) == 0
    proc = _pytest("mine/tests", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed, 1 skipped" in proc.stdout and "no source text" in proc.stdout
    # with the paper's text beside the pack, every quote is looked up in it
    papers = tmp_path / "mine" / "papers"
    papers.mkdir()
    (papers / "my-paper.txt").write_text("… TODO: quote the first step of the paper's proof verbatim "
                                         "…  TODO: quote the clause   verbatim …")
    proc = _pytest("mine/tests", tmp_path)
    assert proc.returncode == 0 and "3 passed" in proc.stdout, proc.stdout + proc.stderr
    (papers / "my-paper.txt").write_text("TODO: quote the clause verbatim")
    proc = _pytest("mine/tests", tmp_path)
    assert proc.returncode == 1 and "proof step step-1" in proc.stdout, proc.stdout


@pytest.mark.parametrize("args", [["Bad Key", "lemma-1", "--kind", "identity"],
                                  ["ok", "lemma-1", "--kind", "theorem-ish"]])
def test_bad_names_are_usage_errors(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    assert main(["new", *args, "--claims", "./mine"]) == 2
    assert not (tmp_path / "mine").exists()
