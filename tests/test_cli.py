"""The command line as a user meets it: JSON on stdout, one-line errors, one summary line per
claim, the gate, replay, byte-identical results and atomic writes.

Most tests call ``checks.cli.main`` in process (fast); one runs ``python -m checks`` end to end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FALSE, FLAWED, GOOD, RAISES

from attnaudit.checks import results as results_mod
from attnaudit.checks.cli import LINE_WIDTH, main, summary_line
from attnaudit.checks.gate import BASELINE_SCHEMA, OLD_SCHEMA


@pytest.fixture
def pkg(claims_package):
    return claims_package({"good": GOOD, "false": FALSE, "flawed": FLAWED})


def cli(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_json_records_carry_verdict_proof_readings_and_controls(pkg, capsys):
    code, out, _ = cli(["run", "--json", "--claims", pkg], capsys)
    assert code == 0
    records = {r["id"]: r for r in json.loads(out)}
    assert sorted(records) == ["toy/false", "toy/flawed", "toy/good"]
    for r in records.values():
        for field in ("id", "verdict", "proof", "readings", "controls", "paper", "label", "statement",
                      "reading", "derivation", "evidence", "corrected", "figure", "seed", "device",
                      "dtype", "seconds", "versions", "source_hash"):
            assert field in r, field
        assert set(r["proof"]) >= {"status", "first_false_step"}
        assert [x["primary"] for x in r["readings"]].count(True) == 1
        assert r["readings"][0]["primary"] and r["readings"][0]["verdict"] == r["verdict"]
        for c in r["controls"]:
            assert set(c) >= {"check", "variant", "failed"}
    flawed = records["toy/flawed"]
    assert (flawed["verdict"], flawed["proof"]["status"]) == ("confirmed", "flawed")
    assert flawed["proof"]["first_false_step"] == "display"
    assert [(x["id"], x["verdict"]) for x in flawed["readings"]] == [("primary", "confirmed"),
                                                                    ("sloppy", "refuted")]
    assert flawed["controls"] == [{"check": "square", "variant": "the cross term dropped",
                                   "contrast": None, "hypothesis": None, "counts": True,
                                   "failed": True, "status": "disagrees",
                                   "summary": flawed["controls"][0]["summary"]}]
    good = records["toy/good"]
    assert good["verdict"] == "confirmed" and good["proof"]["status"] == "incomplete"
    assert good["controls"][0]["failed"]
    assert records["toy/false"]["verdict"] == "refuted"


def test_one_summary_line_per_claim_with_id_verdict_and_proof(pkg, capsys):
    code, out, err = cli(["run", "--claims", pkg], capsys)
    assert code == 0
    lines = out.split("\n\nFindings:")[0].splitlines()
    assert len(lines) == 4
    assert "Findings: 1 refuted claim, 0 errors\n  refuted  toy/false: " in out
    for line, (cid, verdict, proof) in zip(lines, [("toy/false", "refuted", "incomplete"),
                                                   ("toy/flawed", "confirmed", "flawed"),
                                                   ("toy/good", "confirmed", "incomplete")], strict=False):
        assert len(line) <= LINE_WIDTH
        assert line.split()[:3] == [cid, verdict, proof]
    assert lines[3].startswith("2 confirmed, 1 refuted; proofs: 1 flawed, 2 incomplete  (")
    assert "[1/3] toy/false  refuted · proof incomplete" in err


def test_summary_line_wraps_the_figure_and_never_cuts_the_reason():
    figure = ("step 'mu_HIDA = Omega(eps^2/Delta_H^4)': eps^2/Delta_H^4 = O(PL ratio at d=64) "
              "is false: 3.2e-05 <= 1.7e-07 fails at n = 4096")
    record = {"id": "paper/claim", "verdict": "refuted", "figure": figure,
              "proof": {"status": "flawed", "first_false_step": "s"}}
    text = summary_line(record, 14)
    head, *body = text.splitlines()
    assert head == "paper/claim     refuted      flawed"
    assert body and all(len(line) <= LINE_WIDTH and line.startswith("    ") for line in body)
    assert " ".join(line.strip() for line in body) == figure  # whole: nothing cut, words intact
    assert "…" not in text and "is false" in text
    assert summary_line(record | {"figure": "fit"}, 11) == "paper/claim  refuted      flawed     fit"
    error = summary_line({"id": "p/e", "verdict": "error", "figure": "ignored", "summary": "Boom",
                          "proof": {"status": None}}, 3)
    assert error == "p/e  error        -          Boom"
    assert summary_line({"id": "p/s", "verdict": "inconclusive", "summary": "why"}, 3) == (
        "p/s  inconclusive -          why")
    slow = {"id": "entropic-bound/gd-recovers-rank", "verdict": "error", "proof": {"status": None},
            "summary": "ran past its time limit of 120 s (120.1 s CPU)"}
    assert "ran past its time limit of 120 s (120.1 s CPU)" in summary_line(slow, 40).replace(
        "\n    ", " ")
    # A wide terminal keeps it on one line; a narrow one wraps it between words.
    assert "\n" not in summary_line(record, 14, 200)
    assert all(len(line) <= 60 for line in summary_line(record, 14, 60).splitlines())


def test_the_summary_names_the_worst_clause_and_the_findings_list_every_refutation():
    from attnaudit.checks.terminal import findings

    record = {"id": "p/two", "verdict": "refuted", "figure": "key", "proof": {"status": "flawed"},
              "clauses": [{"id": "(i)", "verdict": "confirmed", "summary": "holds"},
                          {"id": "(ii)", "verdict": "refuted", "summary": "2.0 <= 1.5 is false"}]}
    assert summary_line(record, 5).endswith("clause (ii) refuted: 2.0 <= 1.5 is false")
    plain = {"id": "p/one", "verdict": "refuted", "figure": "slope 2.1 vs predicted 1",
             "proof": {"status": None}}
    error = {"id": "p/err", "verdict": "error", "summary": "ran past its time limit of 45 s"}
    ok = {"id": "p/ok", "verdict": "confirmed", "figure": "x"}
    lines = findings([record, plain, error, ok])
    assert lines[0] == "Findings: 2 refuted claims, 1 error"
    assert lines[1:] == ["  refuted  p/two clause (ii): 2.0 <= 1.5 is false",
                         "  refuted  p/one: slope 2.1 vs predicted 1",
                         "  error    p/err: ran past its time limit of 45 s"]
    assert findings([ok]) == []
    assert findings([record | {"clauses": [*record["clauses"], {"id": "(iii)", "verdict": "refuted",
                                                                 "summary": "no"}]}])[0] == (
        "Findings: 1 refuted claim (2 refuted clauses), 0 errors")
    assert summary_line({"id": "p/c", "verdict": "confirmed", "figure": "f", "clauses": []}, 3) == (
        "p/c  confirmed    -          f")


@pytest.mark.parametrize("args, message", [
    (["run", "toy/nope"], "no claim matches toy/nope"),
    (["run", "--profile", "huge"], "invalid choice: 'huge'"),
    (["run", "--seed", "-3"], "seed must be a non-negative integer"),
    (["run", "--seed", "x"], "seed must be a non-negative integer, not 'x'"),
    (["gate", "missing.json"], "results file missing.json does not exist"),
    (["replay", "missing.json"], "witness file missing.json does not exist"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["list", "--claims", "no_such_claims_package"], "cannot import the claims package"),
])
def test_bad_input_gives_one_line_and_exit_2(pkg, capsys, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    if args[0] in ("run", "replay"):
        args = [*args, "--claims", pkg]
    code, _, err = cli(args, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnaudit: error:"), err
    assert message in lines[0]


def test_unreadable_results_and_baseline_give_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = cli(["gate", bad], capsys)
    assert code == 2 and "is not valid JSON" in err
    good = tmp_path / "results.json"
    good.write_text("[]")
    code, _, err = cli(["gate", good, "--baseline", bad], capsys)
    assert code == 2 and "baseline" in err


def test_list_names_every_claim(pkg, capsys):
    code, out, _ = cli(["list", "--claims", pkg], capsys)
    assert code == 0
    assert out.splitlines()[-1] == "3 claims from 1 paper"
    code, out, _ = cli(["list", "--json", "--claims", pkg], capsys)
    assert [r["id"] for r in json.loads(out)] == ["toy/false", "toy/flawed", "toy/good"]


def test_witness_is_replayed_with_both_sides_printed(pkg, capsys, tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert cli(["run", "--claims", pkg, "--out", out], capsys)[0] == 0
    records = results_mod.load_results(out / "results.json")
    false = next(r for r in records if r.id == "toy/false")
    assert false.verdict == "refuted"
    witness = false.evidence[0].witness.to_json()
    assert witness["replay"] == f"attnaudit replay {witness['file']}"
    monkeypatch.chdir(out)
    code, stdout, _ = cli(["replay", witness["file"], "--claims", pkg], capsys)
    assert code == 0
    assert "lhs        (a+b)/2 = " in stdout and "rhs        sqrt(ab) = " in stdout
    assert "round-off" in stdout and "VIOLATED" in stdout
    # A results file replays every witness it holds (the flawed claim's alternative reading too).
    code, stdout, _ = cli(["replay", out / "results.json", "--claims", pkg], capsys)
    assert code == 0 and stdout.count("VIOLATED") == 2


def test_gate_locks_verdict_and_proof_and_reads_a_schema_1_baseline(pkg, capsys, tmp_path):
    out = tmp_path / "out"
    cli(["run", "--claims", pkg, "--out", out], capsys)
    results = out / "results.json"
    baseline = tmp_path / "baseline.json"
    code, stdout, _ = cli(["gate", results, "--baseline", baseline, "--accept"], capsys)
    assert code == 0 and "now holds 3 verdicts and proof statuses" in stdout
    assert json.loads(baseline.read_text()) == {"schema": BASELINE_SCHEMA, "claims": {
        "toy/false": {"verdict": "refuted", "proof": "incomplete"},
        "toy/flawed": {"verdict": "confirmed", "proof": "flawed"},
        "toy/good": {"verdict": "confirmed", "proof": "incomplete"}}}
    code, stdout, _ = cli(["gate", results, "--baseline", baseline], capsys)
    assert code == 0 and "3 verdicts match" in stdout

    old = tmp_path / "old.json"
    old.write_text(json.dumps({"schema": OLD_SCHEMA, "verdicts": {
        "toy/false": "refuted", "toy/flawed": "confirmed", "toy/good": "confirmed"}}))
    assert cli(["gate", results, "--baseline", old], capsys)[0] == 0

    baseline.write_text(json.dumps({"schema": BASELINE_SCHEMA, "claims": {
        "toy/false": {"verdict": "confirmed", "proof": "incomplete"},
        "toy/flawed": {"verdict": "confirmed", "proof": "sound"},
        "toy/gone": {"verdict": "confirmed", "proof": "sound"}}}))
    document = json.loads(results.read_text())
    document["results"].append({"id": "toy/broken", "verdict": "error", "summary": "boom",
                                "proof": {"status": None, "first_false_step": None, "reason": ""},
                                "error": {"reason": "RuntimeError: boom"}})
    results.write_text(json.dumps(document))
    code, text, _ = cli(["gate", results, "--baseline", baseline], capsys)
    assert code == 1
    assert "changed" in text and "toy/false: confirmed → refuted" in text
    assert "proof" in text and "toy/flawed: proof sound → flawed" in text
    assert "vanished" in text and "toy/gone" in text
    assert "new" in text and "toy/good" in text
    assert "error" in text and "toy/broken: RuntimeError: boom" in text
    code, _, err = cli(["gate", results, "--baseline", baseline, "--accept"], capsys)
    assert code == 2 and "refusing to accept a run with errors" in err


def test_run_with_an_erroring_claim_exits_1_and_keeps_the_other_results(claims_package, capsys,
                                                                         tmp_path):
    pkg = claims_package({"good": GOOD, "raises": RAISES})
    out = tmp_path / "out"
    code, _, _ = cli(["run", "--claims", pkg, "--out", out], capsys)
    assert code == 1
    verdicts = {r.id: r.verdict for r in results_mod.load_results(out / "results.json")}
    assert verdicts == {"toy/good": "confirmed", "toy/raises": "error"}


def test_same_seed_twice_gives_byte_identical_results_end_to_end(tmp_path, pythonpath_env):
    """The command line, in a fresh interpreter each time; the second says whether the supervising
    process imported torch (it need not: the claims run in their own processes)."""
    from conftest import make_claims_package

    pkg = make_claims_package(tmp_path, "cliclaims", {"good": GOOD, "false": FALSE})
    asks = ("import sys; from attnaudit.checks.cli import main; code = main(sys.argv[1:]); "
            "print('torch imported:', 'torch._C' in sys.modules); sys.exit(code)")
    for name, entry in (("a", ["-m", "attnaudit"]), ("b", ["-c", asks])):
        proc = subprocess.run([sys.executable, *entry, "run", "--claims", pkg, "--seed", "7", "--device",
                               "cpu", "--out", str(tmp_path / name)], capture_output=True, text=True,
                              env=pythonpath_env, timeout=300)
        assert proc.returncode == 0, proc.stderr
    assert "torch imported: False" in proc.stdout
    a = (tmp_path / "a" / "results.json").read_bytes()
    assert a == (tmp_path / "b" / "results.json").read_bytes()
    assert (tmp_path / "a" / "witnesses").is_dir()
    timings = json.loads((tmp_path / "a" / "timings.json").read_text())
    assert set(timings) == {"toy/false", "toy/good"}


def test_a_crash_mid_write_leaves_the_previous_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "results.json"
    results_mod.write_atomic(path, '["previous"]\n')

    class Crash(Exception):
        pass

    def crash(*args, **kwargs):
        raise Crash("power cut")

    monkeypatch.setattr(results_mod.files.os, "fsync", crash)
    with pytest.raises(Crash):
        results_mod.write_atomic(path, '["new", ' + "0, " * 100000 + "1]\n")
    assert path.read_text() == '["previous"]\n'
    assert [p.name for p in Path(tmp_path).iterdir()] == ["results.json"]


def _noxfile(monkeypatch):
    """The noxfile under a stub ``nox`` (the test environment need not have nox itself)."""
    import importlib.util
    import types

    class CommandFailed(Exception):
        pass

    fake = types.ModuleType("nox")
    fake.options = types.SimpleNamespace()
    fake.session = lambda fn=None, **kw: fn if fn is not None else (lambda f: f)
    fake.command = types.SimpleNamespace(CommandFailed=CommandFailed)
    monkeypatch.setitem(sys.modules, "nox", fake)
    spec = importlib.util.spec_from_file_location("noxfile_under_test_cli",
                                                  Path(__file__).parent.parent / "noxfile.py")
    noxfile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(noxfile)
    return noxfile, CommandFailed


class _SessionError(Exception):
    pass


class _Session:
    """What a nox session offers the noxfile: run (recorded), log, error. A venv command makes the
    environment's python; a pip command is recorded as ("pip", its arguments)."""

    posargs: list[str] = []

    def __init__(self, command_failed=RuntimeError, on_run=None):
        self.calls, self.logs, self.pip = [], [], []
        self.command_failed, self.on_run = command_failed, on_run

    def log(self, text):
        self.logs.append(text)

    def error(self, text):
        raise _SessionError(text)

    def run(self, *args, **kwargs):
        if args[1:3] == ("-m", "venv"):
            python = Path(args[3]) / "bin" / "python"
            python.parent.mkdir(parents=True)
            python.write_text("")
            self.calls.append(("venv",))
        elif args[1:4] == ("-m", "pip", "install"):
            self.calls.append(("pip", kwargs.get("silent")))
            self.pip.append(list(args[4:]))
        else:
            self.calls.append((Path(args[0]).name, args[1]))
            assert kwargs.get("env", {}).get("VIRTUAL_ENV") and kwargs.get("external")
            if self.on_run is not None:
                self.on_run(args)


@pytest.mark.parametrize("write_results", [True, False])
def test_nox_verify_reports_and_gates_after_a_claim_errored(monkeypatch, tmp_path, write_results):
    noxfile, CommandFailed = _noxfile(monkeypatch)
    monkeypatch.setattr(noxfile, "SHARED_ENV", tmp_path / "env")
    monkeypatch.chdir(tmp_path)

    def on_run(args):
        if args[1] == "run":
            if write_results:
                (tmp_path / "results").mkdir()
                (tmp_path / "results" / "results.json").write_text(json.dumps(
                    {"results": [{"id": "p/slow", "verdict": "error"},
                                 {"id": "p/ok", "verdict": "confirmed"}]}))
            raise CommandFailed("Returned code 1")
        if args[1] == "gate":
            raise CommandFailed("Returned code 1")

    session = _Session(CommandFailed, on_run)
    with pytest.raises(_SessionError) as failed:
        noxfile.verify(session)
    message = str(failed.value)
    assert session.calls[:2] == [("venv",), ("pip", False)]  # pip's progress is shown
    assert any("installing" in text for text in session.logs)
    assert "--resume" in message
    if write_results:
        assert session.calls[2:] == [("attnaudit", "run"), ("attnaudit", "report"),
                                     ("attnaudit", "gate")]
        assert "1 claim(s) ended in error (p/slow)" in message and "nox -s report" in message
        assert "the gate failed" in message
    else:  # nothing to render: the session stops, saying how to continue
        assert session.calls[2:] == [("attnaudit", "run")]
        assert "stopped before writing" in message


def test_verify_report_and_tests_share_one_environment_installed_once(monkeypatch, tmp_path):
    noxfile, _ = _noxfile(monkeypatch)
    monkeypatch.setattr(noxfile, "SHARED_ENV", tmp_path / "env")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ATTNAUDIT_CONSTRAINTS", raising=False)
    monkeypatch.delenv("ATTNAUDIT_TORCH_INDEX", raising=False)
    monkeypatch.setattr(noxfile, "reachable", lambda url: True)  # as on a machine with network
    session = _Session()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "results.json").write_text("[]")
    noxfile.verify(session)
    noxfile.report(session)
    noxfile.tests(session)
    assert [c for c in session.calls if c[0] in ("venv", "pip")] == [("venv",), ("pip", False)]
    assert [c[0] for c in session.calls if c[0] not in ("venv", "pip")] == [
        "attnaudit", "attnaudit", "attnaudit", "attnaudit", "pytest"]
    (pip,) = session.pip
    constraints = str(noxfile.ROOT / ".ci" / "constraints.txt")
    assert pip[:4] == ["-c", constraints, "--extra-index-url", "https://download.pytorch.org/whl/cpu"]
    assert pip[4:] == ["-e", f"{noxfile.ROOT}[test]"]
    # What it was installed from changes: installed again, once.
    monkeypatch.setenv("ATTNAUDIT_TORCH_INDEX", "none")
    noxfile.report(session)
    noxfile.tests(session)
    assert session.pip[1:] == [["-c", constraints, "-e", f"{noxfile.ROOT}[test]"]]
    monkeypatch.setenv("ATTNAUDIT_CONSTRAINTS", "none")  # your own torch: no pin, no CPU index
    noxfile.report(session)
    assert session.pip[2:] == [["-e", f"{noxfile.ROOT}[test]"]]
    # Offline (this machine: pip's configuration carries the CPU wheel): the index is left out,
    # and the session says so, instead of pip retrying it for every package.
    monkeypatch.delenv("ATTNAUDIT_CONSTRAINTS")
    monkeypatch.delenv("ATTNAUDIT_TORCH_INDEX")
    monkeypatch.setattr(noxfile, "reachable", lambda url: False)
    assert noxfile.pip_arguments(session) == ["-c", constraints]
    assert "does not answer" in session.logs[-1]


def test_nox_tests_adds_the_users_arguments_to_its_workers(monkeypatch):
    """`nox -s tests -- -k x` stays parallel; arguments that choose workers or verbosity replace
    those defaults (they once replaced every default: a run with --durations ran serially)."""
    noxfile, _ = _noxfile(monkeypatch)
    workers = ["-n", str(os.cpu_count() or 1), "--dist", "loadgroup"]
    assert noxfile.pytest_arguments([]) == ["-q", *workers]
    assert noxfile.pytest_arguments(["-k", "gate", "--durations=5"]) == ["-q", *workers, "-k", "gate",
                                                                         "--durations=5"]
    assert noxfile.pytest_arguments(["-p", "no:xdist"]) == ["-q", "-p", "no:xdist"]
    assert noxfile.pytest_arguments(["-n", "3", "-v"]) == ["-n", "3", "-v"]
    assert noxfile.pytest_arguments(["-n4"]) == ["-q", "-n4"]


def test_nox_verify_passes_quietly_when_everything_passes(monkeypatch, tmp_path):
    noxfile, _ = _noxfile(monkeypatch)
    monkeypatch.chdir(tmp_path)
    assert noxfile.verify_problems(tmp_path / "none.json", ran=True, reported=True, gated=True) == []


def test_the_default_baseline_is_found_from_the_package_not_the_working_directory(tmp_path,
                                                                                  monkeypatch):
    from attnaudit.checks.cli import _baseline

    here = _baseline()
    monkeypatch.chdir(tmp_path)
    assert _baseline() == here and here.is_absolute() and here.name == "baseline.json"


# ── the CLI's edges (issue 26 part 4) ─────────────────────────────────────────────────────────

def _unwritable(tmp_path: Path) -> Path:
    """A path no one can make a folder at, root included: its parent is a plain file."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    return blocker / "out"


@pytest.mark.parametrize("command", ["run", "stability", "report", "journal"])
def test_an_unwritable_output_is_one_line_and_exit_2_before_any_claim_runs(pkg, capsys, tmp_path,
                                                                            monkeypatch, command):
    import attnaudit.checks.terminal as terminal

    def never(*args, **kwargs):
        raise AssertionError("a claim ran before the output location was checked")

    for name in ("run", "stability"):  # the engine entry the commands call
        monkeypatch.setattr(f"attnaudit.checks.commands.{name}.execute", never)
    monkeypatch.setattr(terminal, "execute", never)
    bad = _unwritable(tmp_path)
    if command == "run":
        args = ["run", "--claims", pkg, "--out", bad]
    elif command == "stability":
        args = ["stability", "--seeds", "2", "--claims", pkg, "--out", bad / "stability.json"]
    elif command == "journal":  # the folder is fine, the journal's place inside it is not
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "journal").write_text("")
        args, bad = ["run", "--claims", pkg, "--out", tmp_path / "out"], tmp_path / "out" / "journal"
    else:
        results = tmp_path / "results.json"
        results.write_text("[]")
        args = ["report", results, "--no-pdf", "--out", bad]
    code, out, err = cli(args, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("attnaudit: error: --out ") and str(bad) in err, err


def _closed_pipe(args: list[str], env: dict) -> subprocess.CompletedProcess:
    """Run the CLI with a stdout pipe whose reader has gone before anything was written (what
    `attnaudit list | head -1` becomes once head has its line), deterministically: the read end is
    closed at once, before the interpreter has started. Block-buffered, as a user's shell has it
    (PYTHONUNBUFFERED would raise at the first print instead of at the last flush)."""
    env = {k: v for k, v in env.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen([sys.executable, "-m", "attnaudit", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return subprocess.CompletedProcess(args, proc.wait(timeout=300), "", err)


def test_a_closed_pipe_ends_quietly(tmp_path, pythonpath_env):
    from conftest import make_claims_package

    pkg = make_claims_package(tmp_path, "pipeclaims", {"good": GOOD, "false": FALSE})
    out = tmp_path / "out"
    assert subprocess.run([sys.executable, "-m", "attnaudit", "run", "--claims", pkg, "--out", str(out)],
                          capture_output=True, env=pythonpath_env, timeout=300).returncode == 0
    baseline = tmp_path / "baseline.json"
    subprocess.run([sys.executable, "-m", "attnaudit", "gate", str(out / "results.json"), "--baseline",
                    str(baseline), "--accept"], check=True, capture_output=True, env=pythonpath_env)
    for args in (["list", "--claims", pkg], ["gate", str(out / "results.json"), "--baseline", str(baseline)]):
        done = _closed_pipe(args, pythonpath_env)
        assert done.stderr == "", (args, done.stderr)  # no BrokenPipeError, no traceback
        assert done.returncode == 1, args  # the output did not reach its reader


def _baseline_results(tmp_path: Path) -> Path:
    """A results file that agrees with the built-in baseline claim by claim (no claim run)."""
    from attnaudit.checks.cli import _baseline

    claims = json.loads(_baseline().read_text())["claims"]
    records = [{"id": cid, "paper": cid.split("/")[0], "verdict": entry["verdict"],
                "proof": {"status": entry["proof"]}} for cid, entry in claims.items()]
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"format": results_mod.RESULTS_FORMAT, "results": records,
                                "tables": [], "papers": []}))
    return path


def test_gate_and_report_find_the_baseline_from_another_directory(tmp_path, capsys, monkeypatch):
    results = _baseline_results(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no claims/ here
    code, out, _ = cli(["gate", results], capsys)
    assert code == 0 and "verdicts match" in out, out
    code, out, err = cli(["report", results, "--no-pdf", "--out", tmp_path / "report"], capsys)
    assert code == 0, err
    assert out.strip().endswith("gate passes"), out


def test_files_are_written_with_the_users_umask(pkg, capsys, tmp_path):
    import os

    previous = os.umask(0o022)
    try:
        out = tmp_path / "out"
        assert cli(["run", "--claims", pkg, "--out", out], capsys)[0] == 0
        code, _, err = cli(["stability", "--seeds", "1", "--claims", pkg, "--out",
                            tmp_path / "stability.json"], capsys)
        assert code == 0, err
    finally:
        os.umask(previous)
    written = [out / "results.json", out / "timings.json", *(out / "witnesses").iterdir(),
               tmp_path / "stability.json", *(tmp_path / "stability.json.runs" / "journal").iterdir()]
    assert len(written) >= 6 and any(p.parent.name == "witnesses" for p in written)
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in written} == {
        p.name: "0o644" for p in written}
    # The journal of a plain run: written as each claim completes, before results.json.
    journal = out / "journal"
    assert all(oct(p.stat().st_mode & 0o777) == "0o644" for p in journal.iterdir())


@pytest.mark.parametrize("field, value, named", [
    ("verdict", "maybe", "verdict is 'maybe'"),
    ("proof", {"status": "shaky"}, "proof.status is 'shaky'"),
    ("clauses", [{"id": "(i)", "verdict": "sort of"}], "clauses[(i)].verdict is 'sort of'"),
])
@pytest.mark.parametrize("command", ["gate", "report", "replay"])
def test_an_invalid_value_in_a_results_file_is_an_error_naming_claim_and_field(tmp_path, capsys, command,
                                                                                field, value, named):
    record = {"id": "toy/good", "verdict": "confirmed", "proof": {"status": "sound"}} | {field: value}
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"format": results_mod.RESULTS_FORMAT, "results": [record]}))
    args = [command, path] + (["--no-pdf", "--out", tmp_path / "report"] if command == "report" else [])
    code, _, err = cli(args, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert f"claim toy/good: {named}, not one of " in err
    assert not (tmp_path / "report").exists()  # nothing rendered


def test_new_kind_help_says_what_each_kind_starts_with(capsys):
    from attnaudit.checks.scaffold import _REL, KINDS

    with pytest.raises(SystemExit):
        main(["new", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for kind in KINDS:
        assert kind in text
    assert "a ScalingLaw for asymptotic, complexity" in text and "a Limit for limit" in text
    assert set(_REL) == set(KINDS)


# Busy past its 1 s limit (×2 headroom) on its first attempt only: a marker beside the module says
# the first attempt happened.
FLAKY = GOOD.replace("def sample(ctx, gen):\n", '''def sample(ctx, gen):
    import pathlib, time
    marker = pathlib.Path(__file__).with_name("attempted")
    if not marker.exists():
        marker.write_text("")
        end = time.process_time() + 30
        while time.process_time() < end:
            pass
''').replace('id="toy/good"', 'id="toy/flaky"').replace(
    'kind=Kind.IDENTITY,', 'kind=Kind.IDENTITY, time_limit_s=1.0,')


def test_a_claim_past_its_time_limit_runs_again_alone_and_the_record_says_so(claims_package, capsys,
                                                                              tmp_path):
    pkg = claims_package({"flaky": FLAKY, "good": GOOD})
    out = tmp_path / "out"
    code, stdout, err = cli(["run", "--claims", pkg, "--out", out, "--jobs", "2"], capsys)
    assert code == 0, stdout
    records = {r.id: r.to_json() for r in results_mod.load_results(out / "results.json")}
    flaky = records["toy/flaky"]
    assert flaky["verdict"] == "confirmed"
    assert "ran past its time limit of 2 s" in flaky["retry"]["first_attempt"]
    assert flaky["retry"]["seconds"] > 0
    assert "retry" not in records["toy/good"]
    assert "toy/flaky ran past its time limit: it runs again alone at the end" in err
    assert "toy/flaky (second attempt)  confirmed" in err
    assert err.count("[2/2]") == 1  # counted once
