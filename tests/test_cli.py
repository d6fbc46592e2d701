"""The command line as a user meets it: JSON on stdout, one-line errors, the gate, replay,
byte-identical results and atomic writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FALSE, GOOD, RAISES, make_claims_package

from checks import results as results_mod
from checks.gate import BASELINE_SCHEMA


@pytest.fixture
def pkg(tmp_path):
    return make_claims_package(tmp_path, "cliclaims", {"good": GOOD, "false": FALSE})


def cli(args, env, cwd=None):
    return subprocess.run([sys.executable, "-m", "checks", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=300)


def test_run_json_prints_exactly_one_array_with_every_field(pkg, pythonpath_env):
    proc = cli(["run", "toy/good", "--json", "--claims", pkg], pythonpath_env)
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    assert isinstance(records, list) and len(records) == 1
    for field in ("id", "verdict", "paper", "label", "statement", "reading", "derivation",
                  "evidence", "corrected", "seed", "device", "dtype", "seconds", "versions"):
        assert field in records[0], field


@pytest.mark.parametrize("args, message", [
    (["run", "toy/nope"], "no claim matches toy/nope"),
    (["run", "--profile", "huge"], "invalid choice: 'huge'"),
    (["run", "--seed", "-3"], "seed must be a non-negative integer"),
    (["gate", "missing.json"], "results file missing.json does not exist"),
    (["replay", "missing.json"], "witness file missing.json does not exist"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_input_gives_one_line_and_exit_2(pkg, pythonpath_env, tmp_path, args, message):
    if args[0] in ("run", "replay"):
        args = [*args, "--claims", pkg]
    proc = cli(args, pythonpath_env, cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnaudit: error:"), proc.stderr
    assert message in lines[0]
    assert "Traceback" not in proc.stderr


def test_unreadable_results_and_baseline_give_one_line(tmp_path, pythonpath_env):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = cli(["gate", str(bad)], pythonpath_env)
    assert proc.returncode == 2 and "is not valid JSON" in proc.stderr
    good = tmp_path / "results.json"
    good.write_text("[]")
    proc = cli(["gate", str(good), "--baseline", str(bad)], pythonpath_env)
    assert proc.returncode == 2 and "baseline" in proc.stderr


def test_same_seed_twice_gives_byte_identical_results(pkg, pythonpath_env, tmp_path):
    for name in ("a", "b"):
        proc = cli(["run", "--claims", pkg, "--seed", "7", "--out", str(tmp_path / name)],
                   pythonpath_env)
        assert proc.returncode == 0, proc.stderr
    a = (tmp_path / "a" / "results.json").read_bytes()
    assert a == (tmp_path / "b" / "results.json").read_bytes()
    assert (tmp_path / "a" / "witnesses").is_dir()
    timings = json.loads((tmp_path / "a" / "timings.json").read_text())
    assert set(timings) == {"toy/false", "toy/good"}


def test_witness_is_replayed_with_both_sides_printed(pkg, pythonpath_env, tmp_path):
    out = tmp_path / "out"
    assert cli(["run", "--claims", pkg, "--out", str(out)], pythonpath_env).returncode == 0
    records = results_mod.load_results(out / "results.json")
    false = next(r for r in records if r["id"] == "toy/false")
    assert false["verdict"] == "refuted"
    witness = false["evidence"][0]["witness"]
    assert witness["replay"] == f"attnaudit replay {witness['file']}"
    proc = cli(["replay", witness["file"], "--claims", pkg], pythonpath_env, cwd=out)
    assert proc.returncode == 0, proc.stderr
    assert "lhs        (a+b)/2 = " in proc.stdout and "rhs        sqrt(ab) = " in proc.stdout
    assert "VIOLATED" in proc.stdout
    # A results file replays every witness it holds.
    proc = cli(["replay", str(out / "results.json"), "--claims", pkg], pythonpath_env)
    assert proc.returncode == 0 and proc.stdout.count("VIOLATED") == 1


def test_gate_passes_on_match_and_fails_readably_on_change_vanish_new_and_error(
        pkg, pythonpath_env, tmp_path):
    out = tmp_path / "out"
    cli(["run", "--claims", pkg, "--out", str(out)], pythonpath_env)
    results = out / "results.json"
    baseline = tmp_path / "baseline.json"
    proc = cli(["gate", str(results), "--baseline", str(baseline), "--accept"], pythonpath_env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(baseline.read_text()) == {
        "schema": BASELINE_SCHEMA, "verdicts": {"toy/false": "refuted", "toy/good": "confirmed"}}
    proc = cli(["gate", str(results), "--baseline", str(baseline)], pythonpath_env)
    assert proc.returncode == 0 and "2 verdicts match" in proc.stdout

    baseline.write_text(json.dumps({"schema": BASELINE_SCHEMA, "verdicts": {
        "toy/false": "confirmed", "toy/gone": "confirmed"}}))
    document = json.loads(results.read_text())
    records = document["results"]
    records.append({"id": "toy/broken", "verdict": "error", "summary": "boom",
                    "error": {"reason": "RuntimeError: boom"}})
    results.write_text(json.dumps(document))
    proc = cli(["gate", str(results), "--baseline", str(baseline)], pythonpath_env)
    assert proc.returncode == 1
    text = proc.stdout
    assert "changed" in text and "toy/false: confirmed → refuted" in text
    assert "vanished" in text and "toy/gone" in text
    assert "new" in text and "toy/good" in text
    assert "error" in text and "toy/broken: RuntimeError: boom" in text
    proc = cli(["gate", str(results), "--baseline", str(baseline), "--accept"], pythonpath_env)
    assert proc.returncode == 2 and "refusing to accept a run with errors" in proc.stderr


def test_run_with_an_erroring_claim_exits_1_and_keeps_the_other_results(tmp_path, pythonpath_env):
    pkg = make_claims_package(tmp_path, "errclaims", {"good": GOOD, "raises": RAISES})
    out = tmp_path / "out"
    proc = cli(["run", "--claims", pkg, "--out", str(out)], pythonpath_env)
    assert proc.returncode == 1
    verdicts = {r["id"]: r["verdict"] for r in results_mod.load_results(out / "results.json")}
    assert verdicts == {"toy/good": "confirmed", "toy/raises": "error"}


def test_a_crash_mid_write_leaves_the_previous_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "results.json"
    results_mod.write_atomic(path, '["previous"]\n')

    class Crash(Exception):
        pass

    def crash(*args, **kwargs):
        raise Crash("power cut")

    monkeypatch.setattr(results_mod.os, "fsync", crash)
    with pytest.raises(Crash):
        results_mod.write_atomic(path, '["new", ' + "0, " * 100000 + "1]\n")
    assert path.read_text() == '["previous"]\n'
    assert [p.name for p in Path(tmp_path).iterdir()] == ["results.json"]
