"""Claim packs: installed packages (entry point group ``attnaudit.claims``) and ``--claims PATH``
folders, beside the built-in claims; clashes and broken packs; each pack's own baseline."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from attnaudit.checks import discovery
from attnaudit.checks.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "example_pack"


def _pack(root: Path, name: str, key: str, init_extra: str = "", module: str | None = None) -> Path:
    """A pack folder ``root/name`` with PAPER of ``key`` and one claim module (EXAMPLE's claim,
    its id moved to ``key``)."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(textwrap.dedent(f"""
        from attnaudit.checks import Paper
        {init_extra}
        PAPER = Paper(key="{key}", title="Pack {name}", authors=("T",), arxiv=None, source_file="-")
    """))
    src = module if module is not None else (
        EXAMPLE / "attnaudit_example" / "pythagoras.py").read_text().replace("example/", f"{key}/")
    (folder / "claim_1.py").write_text(src)
    return folder


def _ids(cat) -> set[str]:
    return {c.id for c in cat.claims}


def test_a_folder_pack_is_added_beside_the_built_in_claims(tmp_path):
    cat = discovery.discover(folders=(_pack(tmp_path, "mine", "mine"),), entry_points=False)
    assert "mine/identity-1" in _ids(cat)
    assert any(i.startswith("georesolver/") for i in _ids(cat))
    assert cat.baselines["mine"] == str(tmp_path / "mine" / "baseline.json")
    assert not cat.errors


def test_a_folder_laid_out_like_claims_adds_each_paper(tmp_path):
    root = tmp_path / "mine"
    _pack(root, "paper_one", "paper-one")
    _pack(root, "paper_two", "paper-two")
    (root / "__init__.py").write_text('"""a package of papers, like claims/"""\n')
    cat = discovery.discover(folders=(root,), entry_points=False)
    assert {"paper-one/identity-1", "paper-two/identity-1"} <= _ids(cat) and not cat.errors


def test_two_packs_with_one_paper_key_clash_naming_both_sources(tmp_path):
    a, b = _pack(tmp_path / "a", "one", "same"), _pack(tmp_path / "b", "two", "same")
    cat = discovery.discover(folders=(a, b), entry_points=False)
    [error] = cat.errors
    assert error.paper == "same" and "clashes" in error.reason
    assert "a/one" in error.reason and "b/two" in error.reason
    assert "same/identity-1" in _ids(cat)  # the first stays
    # a pack may not reuse a built-in paper key either
    c = _pack(tmp_path / "c", "geo", "georesolver")
    cat = discovery.discover(folders=(c,), entry_points=False)
    assert [e.paper for e in cat.errors] == ["georesolver"]
    assert "package attnaudit.claims" in cat.errors[0].reason


def test_a_broken_pack_becomes_an_error_record_and_hides_nothing(tmp_path, monkeypatch, capsys):
    broken = _pack(tmp_path, "broken", "broken", init_extra="import no_such_module_here")
    good = _pack(tmp_path, "good", "good")
    cat = discovery.discover(folders=(broken, good), entry_points=False)
    [error] = cat.errors
    assert error.paper == "broken" and "ModuleNotFoundError" in error.reason
    assert "good/identity-1" in _ids(cat) and len([i for i in _ids(cat) if i.startswith("georesolver/")]) > 10
    # the same through an entry point: an installed pack whose module does not import
    eps = [EntryPoint("ghost", "no_such_pack_module", discovery.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(discovery, "installed_packs", lambda: eps)
    cat = discovery.discover()
    assert [e.id for e in cat.errors] == ["ghost/<package>"]
    assert any(i.startswith("georesolver/") for i in _ids(cat))
    # the built-in claims still run beside it
    code = main(["run", "georesolver/property-2.2.1", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)[0]["verdict"] == "confirmed"


def test_a_missing_claims_folder_is_a_usage_error(tmp_path, capsys):
    assert main(["list", "--claims", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A temporary environment with the example pack installed (editable, offline) from a copy."""
    tmp = tmp_path_factory.mktemp("packenv")
    pack = tmp / "pack"
    shutil.copytree(EXAMPLE, pack)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    # the project's own environment (torch, sympy, pip, setuptools) seen from the new one
    Path(purelib, "_attnaudit_parent.pth").write_text(sysconfig.get_path("purelib") + "\n")
    environ = dict(os.environ, PYTHONPATH=str(ROOT), PIP_NO_INDEX="1")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "-e", str(pack)], check=True, env=environ, cwd=tmp, capture_output=True)
    return python, pack, environ, tmp


def _attnaudit(env, *args):
    python, _, environ, tmp = env
    return subprocess.run([str(python), "-m", "attnaudit", *args], capture_output=True, text=True,
                          env=environ, cwd=tmp, timeout=300)


def test_the_example_pack_installs_lists_runs_reports_and_gates(env):
    _, pack, _, tmp = env
    listed = _attnaudit(env, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {r["id"]: r for r in json.loads(listed.stdout)}
    assert rows["example/identity-1"]["paper"] == "example"
    assert any(i.startswith("georesolver/") for i in rows)

    run = _attnaudit(env, "run", "example", "--out", "out")
    assert run.returncode == 0, run.stderr
    document = json.loads((tmp / "out" / "results.json").read_text())
    [record] = document["results"]
    assert record["verdict"] == "confirmed"
    [paper] = document["papers"]
    assert paper["key"] == "example" and paper["pack"].startswith("pack example")
    assert Path(tmp, paper["baseline"]).resolve() == (pack / "attnaudit_example" / "baseline.json")

    report = _attnaudit(env, "report", "out/results.json", "--no-pdf")
    assert report.returncode == 0, report.stderr
    assert "gate passes" in report.stdout  # against the pack's own baseline
    assert "An example paper for claim packs" in (tmp / "out" / "report" / "index.html").read_text()

    gate = _attnaudit(env, "gate", "out/results.json")
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "1 verdicts match" in gate.stdout and "baseline.json" in gate.stdout

    # flip the verdict in the installed pack: the pack's own baseline fails the gate
    claim = pack / "attnaudit_example" / "pythagoras.py"
    claim.write_text(claim.read_text().replace("\nONE = 1\n", "\nONE = 2\n"))
    run = _attnaudit(env, "run", "example", "--out", "flipped")
    assert run.returncode == 0, run.stderr
    gate = _attnaudit(env, "gate", "flipped/results.json")
    assert gate.returncode == 1
    assert "changed  example/identity-1: confirmed → refuted" in gate.stdout


def test_a_folder_pack_runs_replays_and_gates_against_its_own_baseline(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(EXAMPLE / "attnaudit_example", tmp_path / "mine" / "attnaudit_example")
    claim = tmp_path / "mine" / "attnaudit_example" / "pythagoras.py"
    claim.write_text(claim.read_text().replace("\nONE = 1\n", "\nONE = 2\n"))  # refuted
    assert main(["run", "example", "--claims", "./mine", "--out", "out"]) == 0
    [witness] = (tmp_path / "out" / "witnesses").glob("*.json")
    capsys.readouterr()
    assert main(["replay", str(witness), "--claims", "./mine"]) == 0
    assert "VIOLATED" in capsys.readouterr().out
    assert main(["gate", "out/results.json"]) == 1  # against mine/attnaudit_example/baseline.json
    out = capsys.readouterr().out
    assert "mine/attnaudit_example/baseline.json" in out and "confirmed → refuted" in out
    assert "claims/baseline.json" not in out  # a run of pack claims alone leaves it aside


def _refuted_pack(root: Path) -> Path:
    """The example pack copied under ``root/mine`` with a second, refuted claim (ONE = 2)."""
    folder = root / "mine" / "attnaudit_example"
    shutil.copytree(EXAMPLE / "attnaudit_example", folder)
    src = (folder / "pythagoras.py").read_text()
    (folder / "wrong.py").write_text(src.replace("\nONE = 1\n", "\nONE = 2\n")
                                     .replace("example/identity-1", "example/identity-2"))
    (folder / "baseline.json").unlink()
    return root / "mine"


def test_the_pack_flow_works_from_any_directory(tmp_path, monkeypatch, capsys):
    """run in one directory; report, replay, gate, gate of a subset and accept from others: the
    pack's baseline is found from the pack, and only the pack's is written."""
    pack = _refuted_pack(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    assert main(["run", "--claims", str(pack), "--out", "out"]) == 0  # the pack alone
    document = json.loads((tmp_path / "a" / "out" / "results.json").read_text())
    assert [r["id"] for r in document["results"]] == ["example/identity-1", "example/identity-2"]
    [paper] = document["papers"]
    assert paper["baseline"] == str(pack / "attnaudit_example" / "baseline.json")
    results = str(tmp_path / "a" / "out" / "results.json")
    capsys.readouterr()
    monkeypatch.chdir(tmp_path / "b")
    # no baseline yet: an error that says so, exit 2, nothing written
    assert main(["gate", results]) == 2
    err = capsys.readouterr().err
    assert "baseline.json does not exist" in err and "--accept" in err
    assert main(["gate", results, "--accept"]) == 0
    assert "now holds 2 verdicts" in capsys.readouterr().out
    assert list((tmp_path / "b").iterdir()) == []  # nothing stray here
    baseline = json.loads((pack / "attnaudit_example" / "baseline.json").read_text())
    assert baseline["claims"]["example/identity-2"] == {"verdict": "refuted", "proof": "incomplete"}
    assert main(["gate", results]) == 0
    assert "2 verdicts match" in capsys.readouterr().out
    # the witness replays from here with the --claims it stored
    [witness] = (tmp_path / "a" / "out" / "witnesses").glob("*.json")
    stored = json.loads(witness.read_text())
    assert stored["claims"] == [str(pack)] and f"--claims {pack}" in stored["replay"]
    assert main(["replay", str(witness)]) == 0
    assert "VIOLATED" in capsys.readouterr().out
    assert main(["report", results, "--no-pdf", "--out", str(tmp_path / "report")]) == 0
    assert "gate passes" in capsys.readouterr().out
    # a run of one claim is gated (and accepted) on that claim alone: the other has not vanished
    monkeypatch.chdir(tmp_path / "a")
    assert main(["run", "example/identity-1", "--claims", str(pack), "--out", "one"]) == 0
    monkeypatch.chdir(tmp_path / "b")
    capsys.readouterr()
    one = str(tmp_path / "a" / "one" / "results.json")
    assert main(["gate", one]) == 0
    assert "1 verdicts match" in capsys.readouterr().out
    assert main(["gate", one, "--accept"]) == 0
    kept = json.loads((pack / "attnaudit_example" / "baseline.json").read_text())
    assert kept == baseline  # the unselected claim's entry is kept
    # --baseline FILE takes every record, a pack's too
    other = tmp_path / "elsewhere.json"
    assert main(["gate", results, "--baseline", str(other), "--accept"]) == 0
    assert set(json.loads(other.read_text())["claims"]) == {"example/identity-1", "example/identity-2"}
    # a deleted baseline is an error again
    (pack / "attnaudit_example" / "baseline.json").unlink()
    capsys.readouterr()
    assert main(["gate", results]) == 2 and "does not exist" in capsys.readouterr().err


def test_claims_folder_alone_unless_with_builtin(tmp_path, capsys):
    pack = _refuted_pack(tmp_path)
    assert main(["list", "--claims", str(pack)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2 claims from 1 paper"
    assert main(["list", "--claims", str(pack), "--with-builtin"]) == 0
    assert "georesolver/property-2.2.1" in capsys.readouterr().out
    assert main(["run", "georesolver/property-2.2.1", "--claims", str(pack)]) == 2
    assert "--with-builtin" in capsys.readouterr().err


def test_mutate_flips_every_check_of_the_example_pack(tmp_path, capsys):
    pack = _refuted_pack(tmp_path)
    assert main(["mutate", "--claims", str(pack)]) == 0
    out = capsys.readouterr().out
    assert out.count("prediction: flips") == 2  # the confirmed claim's check and the refuted one's
    assert "FAILS" not in out and out.splitlines()[-1].startswith("mutate: 3 passed, 0 failed")


@pytest.mark.parametrize(("ids", "said"), [
    (["example/identity"], "did you mean example/identity-"),
    (["exam"], "example/identity-1 starts with those letters but not with whole segments"),
])
def test_an_id_that_matches_nothing_says_why_and_the_nearest(tmp_path, capsys, ids, said):
    pack = _refuted_pack(tmp_path)
    assert main(["run", *ids, "--claims", str(pack)]) == 2
    err = capsys.readouterr().err
    assert said in err and "whole '/'-separated segments" in err and len(err.splitlines()) == 1
