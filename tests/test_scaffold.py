"""``attnaudit new``: a claim from a template runs at once as inconclusive, naming the undecided
step; a second ``new`` never overwrites."""

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
    [step] = record["derivation"]["steps"]
    assert (step["role"], step["status"]) == ("statement", "undecided")
    assert f"'{step['name']}' undecided by SymPy" in record["summary"]  # named
    assert record["kind"] == kind
    # the written spec imports nothing numeric at module level (attnaudit list stays fast)
    source = (tmp_path / "mine" / "my_paper" / "lemma_3_1.py").read_text()
    assert not any(line.startswith(("import torch", "import numpy", "import operators"))
                   for line in source.splitlines())
    # a plain folder name works too (no importable package of that name)
    assert main(["list", "--claims", "mine"]) == 0
    assert "my-paper/lemma-3.1" in capsys.readouterr().out


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


def test_the_written_test_passes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "my-paper", "lemma-1", "--kind", "identity", "--claims", "./mine"]) == 0
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "mine/tests"], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("args", [["Bad Key", "lemma-1", "--kind", "identity"],
                                  ["ok", "lemma-1", "--kind", "theorem-ish"]])
def test_bad_names_are_usage_errors(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    assert main(["new", *args, "--claims", "./mine"]) == 2
    assert not (tmp_path / "mine").exists()
