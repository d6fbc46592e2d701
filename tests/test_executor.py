"""Isolation, parallel runs, the Dask engine, resume after SIGKILL, and stability across seeds.

Each claim runs in a process of its own (checks/executor.py): a claim that raises, hangs in C,
allocates past its memory limit, calls os._exit or segfaults gives its own error record while
the others complete; --jobs 1, --jobs 2 and a Dask LocalCluster write byte-identical
results.json; a run killed with SIGKILL resumes from its journal to the same bytes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FALSE, FLAWED, GOOD, RAISES, make_claims_package

from attnaudit.checks import results as results_mod
from attnaudit.checks.cli import main
from attnaudit.checks.executor import MEMORY_LIMIT_MB

_BAD = """
from attnaudit.checks import Claim, Relation, tolerances

def bad(name, sample, **kw):
    return (Claim(id=f"toy/{name}", label=name, section="§9", statement="x", reading="x",
                  kind="identity", no_derivation="a deliberately broken claim", **kw,
                  checks=(Relation(name="r", lhs="a", rel="==", rhs="b", evaluate=None,
                                   sample=sample, tolerance=tolerances.Exact(), sampler="s"),)),)
"""

# Blocks SIGALRM (as a native library may) and sleeps in libc: no signal handler can stop it.
C_SLEEP = _BAD + """
def sample(ctx, gen):
    import ctypes, signal
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    ctypes.CDLL(None).sleep(120)
    yield

CLAIMS = bad("c-sleep", sample, time_limit_s=0.25)  # enforced: 0.5 s (load headroom)
"""

# A hang in Python: it burns its CPU-time limit and is killed.
BUSY = _BAD + """
def sample(ctx, gen):
    while True:
        pass
    yield

CLAIMS = bad("busy", sample, time_limit_s=0.25)
"""

# One GiB past the quick profile's default limit, and 3 GiB under a claim's own 2 GiB limit.
# torch.empty maps the pages without touching them: without the limit both would succeed.
OVER_DEFAULT = _BAD + f"""
def sample(ctx, gen):
    import torch
    torch.empty(({MEMORY_LIMIT_MB['quick']} + 1024) * 2**20, dtype=torch.uint8)
    yield

CLAIMS = bad("over-default", sample)
"""

OVER_OWN = _BAD + """
def sample(ctx, gen):
    import torch
    torch.empty(3 * 2**30, dtype=torch.uint8)
    yield

CLAIMS = bad("over-own", sample, memory_limit_mb=2048)
"""

EXITS = _BAD + """
def sample(ctx, gen):
    import os
    os._exit(1)
    yield

CLAIMS = bad("exits", sample)
"""

SEGFAULT = _BAD + """
def sample(ctx, gen):
    import ctypes
    ctypes.string_at(0)
    yield

CLAIMS = bad("segfault", sample)
"""

# A claim that starts a process of its own (as torch.distributed's gloo workers do): allowed,
# and the child inherits the per-process memory limit.
SPAWNS = """
import torch
from attnaudit.checks import Claim, Relation, tolerances

def child(queue):
    import resource
    queue.put(resource.getrlimit(resource.RLIMIT_AS)[0])

def evaluate(case):
    x = case["limit"]
    return x, torch.full_like(x, 2048 * 2**20), torch.zeros_like(x)

def sample(ctx, gen):
    import multiprocessing
    mp = multiprocessing.get_context("spawn")
    queue = mp.Queue()
    proc = mp.Process(target=child, args=(queue,))
    proc.start()
    limit = queue.get(timeout=60)
    proc.join()
    yield {"limit": torch.tensor([float(limit)], dtype=ctx.dtype)}

CLAIMS = (Claim(id="toy/spawns", label="Lemma 8", section="§8", statement="x", reading="x",
                kind="identity", no_derivation="toy", memory_limit_mb=2048,
                checks=(Relation(name="child-limit", lhs="child's RLIMIT_AS", rel="==", rhs="2 GiB",
                                 evaluate=evaluate, sample=sample, tolerance=tolerances.Exact(),
                                 sampler="one child process"),)),)
"""

# The good claim, held while a file named ``hold`` stands beside it (it writes ``held`` when it
# is): a test kills its process while it is held, then removes the file (events, not durations:
# no load makes them race).
SLOW_GOOD = GOOD.replace('id="toy/good"', 'id="toy/slow-good"').replace(
    "def sample(ctx, gen):\n", "def sample(ctx, gen):\n    import pathlib, time\n"
    "    hold = pathlib.Path(__file__).with_name('hold')\n"
    "    if hold.exists():\n        hold.with_name('held').touch()\n"
    "    while hold.exists():\n        time.sleep(0.05)\n")


def _hold(pkg_dir: Path) -> Path:
    """The file that holds toy/slow-good of the package at ``pkg_dir`` while it exists."""
    return pkg_dir / "toy" / "hold"


def _run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_each_bad_claim_gives_its_own_error_and_the_good_one_is_kept(claims_package, capsys):
    pkg = claims_package({"good": GOOD, "raises": RAISES, "c_sleep": C_SLEEP, "busy": BUSY,
                          "over_default": OVER_DEFAULT, "over_own": OVER_OWN, "exits": EXITS,
                          "segfault": SEGFAULT, "spawns": SPAWNS})
    t0 = time.perf_counter()
    code, out, err = _run(["run", "--json", "--jobs", "2", "--claims", pkg], capsys)
    assert code == 1
    records = {r["id"]: r for r in json.loads(out)}
    assert records["toy/good"]["verdict"] == "confirmed"
    assert records["toy/good"]["evidence"][0]["cases"] == 1000
    assert records["toy/good"]["cpu_seconds"] > 0  # the claim process's own CPU time
    assert records["toy/busy"]["cpu_seconds"] >= 0.5
    spawns = records["toy/spawns"]  # a claim's own child process runs, under the same limit
    assert spawns["verdict"] != "error", spawns["summary"]
    assert spawns["evidence"][0]["status"] == "agrees", spawns["evidence"][0]["summary"]
    expected = {
        "toy/raises": "ValueError: the sampler is broken on purpose",
        "toy/c-sleep": "ran past 20 times its time limit of 0.5 s in wall time without using that much CPU",
        "toy/busy": "ran past its time limit of 0.5 s of CPU time: the worker process was killed",
        "toy/over-default": f"exceeded its memory limit of {MEMORY_LIMIT_MB['quick']} MiB (RLIMIT_AS)",
        "toy/over-own": "exceeded its memory limit of 2048 MiB (RLIMIT_AS)",
        "toy/exits": "the worker process exited with status 1 before returning a record",
        "toy/segfault": "the worker process was killed by signal SIGSEGV (segmentation fault) at",
    }
    for cid, reason in expected.items():
        record = records[cid]
        assert record["verdict"] == "error", cid
        assert reason in record["summary"], (cid, record["summary"])
        assert record["error"]["reason"] == record["summary"]
        assert record["error"]["file"].endswith(".py"), record["error"]
        assert record["label"] and record["source_hash"] and record["seed"] == 0
    assert "segfault.py:" in records["toy/segfault"]["summary"]  # where it crashed
    assert records["toy/c-sleep"]["seconds"] < 30
    assert time.perf_counter() - t0 < 120
    assert err.count("error · proof -") == 7


def _results(out: Path) -> bytes:
    return (out / "results.json").read_bytes()


@pytest.fixture
def identical_pkg(claims_package):
    return claims_package({"good": GOOD, "false": FALSE, "flawed": FLAWED, "raises": RAISES})


def test_jobs_1_jobs_2_and_a_local_dask_cluster_write_byte_identical_results(identical_pkg, capsys,
                                                                            tmp_path):
    from distributed import LocalCluster

    outs = {name: tmp_path / name for name in ("one", "two", "dask")}
    assert _run(["run", "--claims", identical_pkg, "--seed", "3", "--jobs", "1",
                 "--out", outs["one"]], capsys)[0] == 1
    assert _run(["run", "--claims", identical_pkg, "--seed", "3", "--jobs", "2",
                 "--out", outs["two"]], capsys)[0] == 1
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                      silence_logs=40) as cluster:
        code, _, err = _run(["run", "--claims", identical_pkg, "--seed", "3", "--scheduler",
                             cluster.scheduler_address, "--out", outs["dask"]], capsys)
    assert code == 1, err
    assert _results(outs["one"]) == _results(outs["two"]) == _results(outs["dask"])
    records = results_mod.load_results(outs["dask"] / "results.json")
    assert [r.id for r in records] == ["toy/false", "toy/flawed", "toy/good", "toy/raises"]
    assert [r.verdict for r in records] == ["refuted", "confirmed", "confirmed", "error"]
    assert (outs["dask"] / "witnesses").is_dir()
    text = _results(outs["one"]).decode()
    assert "pid" not in text and "hostname" not in text and "seconds" not in text


def test_an_unreachable_scheduler_is_one_line_and_exit_2(identical_pkg, capsys):
    import dask
    import distributed  # noqa: F401  (before dask.config.set: see below)

    # dask.config.set restores on exit what it saw on entry; had distributed not been imported yet,
    # its defaults (loaded inside the block) would be removed on exit, and every later
    # LocalCluster in this worker fails with KeyError 'distributed'.

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code, _, err = _run(["run", "--claims", identical_pkg, "--scheduler", "tcp://127.0.0.1:9"],
                            capsys)
    assert code == 2
    assert err.startswith("attnaudit: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert len(err.strip().splitlines()) == 1


def test_a_run_killed_with_sigkill_resumes_to_byte_identical_results(tmp_path, monkeypatch, capsys,
                                                                     pythonpath_env):
    pkg = make_claims_package(tmp_path, "resumeclaims", {"good": GOOD, "false": FALSE,
                                                          "flawed": FLAWED, "slow_good": SLOW_GOOD})
    monkeypatch.syspath_prepend(str(tmp_path))
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert _run(["run", "--claims", pkg, "--out", whole], capsys)[0] == 0

    _hold(tmp_path / pkg).touch()
    proc = subprocess.Popen([sys.executable, "-m", "attnaudit", "run", "--claims", pkg, "--out",
                             str(killed)], env=pythonpath_env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = killed / "journal"
    deadline = time.monotonic() + 120
    # In id order toy/slow-good runs last: kill while it is held, with the other three journaled.
    while len(list(journal.glob("*.json"))) < 3 and time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it could be killed"
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _hold(tmp_path / pkg).unlink()
    assert not (killed / "results.json").exists()
    journaled = sorted(p.name for p in journal.glob("*.json"))
    assert journaled == ["toy__false.json", "toy__flawed.json", "toy__good.json"]
    for path in journal.iterdir():  # every file whole: finished records only, never a torn one
        if not path.name.startswith("."):
            assert json.loads(path.read_text())["record"]["verdict"] in ("confirmed", "refuted")

    code, _, err = _run(["run", "--claims", pkg, "--out", killed, "--resume"], capsys)
    assert code == 0
    assert "3 claims kept from its journal, 1 to run" in err
    assert "[1/1] toy/slow-good  confirmed" in err
    assert _results(killed) == _results(whole)
    assert not list(journal.glob(".*.tmp"))


def test_resume_keeps_only_records_with_the_same_hash_seed_profile_device_and_versions(tmp_path):
    record = {"id": "toy/good", "verdict": "confirmed", "source_hash": "abc", "seed": 0,
              "profile": "quick", "device": "cpu", "versions": {"torch": "2"}}
    results_mod.journal_write(tmp_path, record, 1.5)
    expect = {k: record[k] for k in results_mod.RESUME_KEYS}
    assert results_mod.journal_read(tmp_path, "toy/good", expect) == (record, 1.5)
    for key, other in (("source_hash", "abd"), ("seed", 1), ("profile", "full"), ("device", "cuda"),
                       ("versions", {"torch": "3"})):
        assert results_mod.journal_read(tmp_path, "toy/good", expect | {key: other}) is None, key
    assert results_mod.journal_read(tmp_path, "toy/other", expect) is None
    results_mod.journal_write(tmp_path, record | {"verdict": "error"}, 1.0)
    assert results_mod.journal_read(tmp_path, "toy/good", expect) is None  # errors are rerun
    (tmp_path / "journal" / "toy__good.json").write_text('{"format": "attnaudit.journal/1", "rec')
    assert results_mod.journal_read(tmp_path, "toy/good", expect) is None


def test_resume_needs_out(identical_pkg, capsys):
    code, _, err = _run(["run", "--claims", identical_pkg, "--resume"], capsys)
    assert code == 2 and "--resume needs --out" in err


# A check on one uniform draw: whether it holds depends on the seed.
FLIPPY = """
import torch
from attnaudit.checks import Claim, Relation, tolerances

def evaluate(case):
    x = case["x"]
    return x, torch.full_like(x, 0.5), torch.zeros_like(x)

def sample(ctx, gen):
    yield {"x": torch.rand(1, generator=gen, dtype=ctx.dtype)}

CLAIMS = (Claim(id="toy/flippy", label="Lemma 7", section="§7", statement="x <= 1/2",
                reading="for one uniform x", kind="inequality", no_derivation="toy",
                checks=(Relation(name="half", lhs="x", rel="<=", rhs="1/2", evaluate=evaluate,
                                 sample=sample, tolerance=tolerances.Exact(), sampler="one uniform x"),)),)
"""


def test_stability_reports_agreement_and_names_the_check_that_flips(claims_package, capsys, tmp_path):
    pkg = claims_package({"good": GOOD, "flippy": FLIPPY})
    out = tmp_path / "stability.json"
    code, text, err = _run(["stability", "--claims", pkg, "--seeds", "6", "--jobs", "2", "--out", out],
                           capsys)
    assert code == 1  # a flipping claim is a defect
    doc = json.loads(out.read_text())
    assert doc["format"] == "attnaudit.stability/1" and doc["seeds"] == [0, 1, 2, 3, 4, 5]
    entries = {e["id"]: e for e in doc["claims"]}
    good, flippy = entries["toy/good"], entries["toy/flippy"]
    assert good["stable"] and good["verdict_agreement"] == 1 and good["proof_agreement"] == 1
    assert good["verdicts"] == {"confirmed": 6} and good["flips"] == []
    assert not flippy["stable"] and flippy["verdict_agreement"] < 1
    assert [f["check"] for f in flippy["flips"]] == ["half"]
    seeds = flippy["flips"][0]["seeds"]
    assert sorted(s for group in seeds.values() for s in group) == [0, 1, 2, 3, 4, 5]
    assert {"agrees", "disagrees"} <= set(seeds)
    assert "1/2 claims stable over 6 seeds" in text
    assert "flips: half:" in text
    assert "toy/flippy seed 5" in err
    assert len(list((tmp_path / "stability.json.runs" / "journal").glob("*.json"))) == 12


def test_exponent_spread_and_the_report_cell():
    from attnaudit.checks.stability import cell, summarize_claim

    def record(seed, exponent, status="agrees"):
        return {"id": "p/law", "verdict": "confirmed", "proof": {"status": "sound"},
                "evidence": [{"name": "law", "status": status, "fit": {"exponent": exponent},
                              "controls": [{"variant": "v", "failed": True}]}]}

    entry = summarize_claim("p/law", {s: record(s, 2 + 0.01 * s) for s in range(5)})
    assert entry["stable"] and cell(entry) == "stable (5 seeds)"
    (spread,) = entry["exponents"]
    assert spread["check"] == "law" and spread["n"] == 5
    assert spread["min"] == 2 and spread["max"] == pytest.approx(2.04)
    assert spread["sd"] == pytest.approx(0.0158, abs=1e-4)
    flipped = summarize_claim("p/law", {0: record(0, 2.0), 1: record(1, 2.5, "inconclusive")})
    assert not flipped["stable"] and flipped["verdict_agreement"] == 1
    assert flipped["flips"] == [{"check": "law", "seeds": {"agrees": [0], "inconclusive": [1]}}]
    assert cell(flipped) == "UNSTABLE over 2 seeds: 1 check status flip"


def test_the_report_gets_a_stability_column(tmp_path, report_results):
    from attnaudit.checks.results import dumps, write_atomic
    from attnaudit.reports.render import render_report

    results = tmp_path / "results.json"
    report_results = report_results | {"results": report_results["results"][:3], "tables": []}
    write_atomic(results, dumps(report_results))
    ids = [r["id"] for r in report_results["results"]]
    first = {"id": ids[0], "seeds": 20, "verdict": "confirmed", "verdict_agreement": 1.0,
             "verdicts": {"confirmed": 20}, "proof": "sound", "proof_agreement": 1.0,
             "proofs": {"sound": 20}, "exponents": [], "flips": [], "stable": True}
    second = first | {"id": ids[1], "verdict_agreement": 0.9, "stable": False,
                      "verdicts": {"confirmed": 18, "refuted": 2}}
    stability = tmp_path / "stability.json"
    write_atomic(stability, dumps({"format": "attnaudit.stability/1", "seeds": list(range(20)),
                                   "claims": [first, second]}))
    render_report(results, tmp_path / "report", pdf=False, stability=stability)
    html = (tmp_path / "report" / "index.html").read_text()
    assert "Stability (20 seeds)</th>" in html
    assert '<td class="stability">stable (20 seeds)</td>' in html
    assert ('<td class="stability unstable">UNSTABLE over 20 seeds: verdict confirmed 18, refuted 2'
            in html)
    assert html.count('<td class="stability">not run</td>') == len(ids) - 2
    render_report(results, tmp_path / "plain", pdf=False)
    assert "Stability" not in (tmp_path / "plain" / "index.html").read_text()


def test_nox_verify_passes_the_engine_through_and_defaults_to_one_job_per_core(monkeypatch):
    import importlib.util
    import types

    fake = types.ModuleType("nox")  # the test environment need not have nox itself
    fake.options = types.SimpleNamespace()
    fake.session = lambda fn=None, **kw: fn if fn is not None else (lambda f: f)
    monkeypatch.setitem(sys.modules, "nox", fake)
    spec = importlib.util.spec_from_file_location("noxfile_under_test",
                                                  Path(__file__).parent.parent / "noxfile.py")
    noxfile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(noxfile)
    # The shared environment as if installed: commands run by their path in it.
    monkeypatch.setattr(noxfile, "shared_environment", lambda session: {"VIRTUAL_ENV": "/env", "PATH": ""})

    class Session:
        def __init__(self, posargs):
            self.posargs, self.calls = posargs, []

        def install(self, *args, **kwargs):
            pass

        def run(self, *args, **kwargs):
            self.calls.append(args)

    session = Session(["--scheduler", "tcp://10.0.0.5:8786"])
    noxfile.verify(session)
    assert session.calls[0] == ("/env/bin/attnaudit", "run", "--out", "results", "--scheduler",
                                "tcp://10.0.0.5:8786")
    session = Session([])
    noxfile.verify(session)
    assert session.calls[0] == ("/env/bin/attnaudit", "run", "--out", "results", "--jobs",
                                str(os.cpu_count() or 1))
    assert noxfile.run_arguments(["--jobs=3", "--profile", "full"]) == ["--jobs=3", "--profile", "full"]


def test_a_dask_worker_lost_mid_claim_is_retried_and_no_record_is_lost(claims_package, tmp_path):
    """SIGKILL the Dask worker running a claim: the scheduler reschedules it (the documented
    retry), and the run writes the claim's true record."""
    import threading

    from distributed import Client, LocalCluster

    pkg = claims_package({"slow_good": SLOW_GOOD})
    _hold(tmp_path / pkg).touch()
    out = tmp_path / "out"
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster, set_as_default=False) as client:
        codes = []
        runner = threading.Thread(target=lambda: codes.append(main(
            ["run", "--claims", pkg, "--scheduler", cluster.scheduler_address, "--out", str(out)])))
        runner.start()
        deadline = time.monotonic() + 120
        held = _hold(tmp_path / pkg).with_name("held")
        while not held.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert held.exists(), "the claim never started"
        busy = [w for w, keys in client.processing().items() if keys]
        (nanny,) = [n for n in cluster.workers.values() if n.worker_address == busy[0]]
        os.kill(nanny.pid, signal.SIGKILL)  # its claim is held: killed mid-claim
        _hold(tmp_path / pkg).unlink()
        runner.join(240)
    assert codes == [0]
    (record,) = results_mod.load_results(out / "results.json")
    assert record.id == "toy/slow-good" and record.verdict == "confirmed"


def test_limits_per_profile_and_per_claim():
    import dataclasses

    from attnaudit.checks import Claim
    from attnaudit.checks.executor import memory_limit_mb, time_limit_s

    claim = Claim(id="toy/x", label="L", section="§", statement="x", reading="x", kind="identity",
                  unverifiable="n/a", time_limit_s=30)
    assert memory_limit_mb(claim, "quick", "cpu") == MEMORY_LIMIT_MB["quick"] == 8192
    assert memory_limit_mb(claim, "full", "cpu") == MEMORY_LIMIT_MB["full"] == 32768
    assert memory_limit_mb(claim, "quick", "cuda") is None  # CUDA reserves terabytes of addresses
    assert memory_limit_mb(dataclasses.replace(claim, memory_limit_mb=20000), "quick", "cpu") == 20000
    # the stated limit, ×10 in the full profile, with the load headroom (CPU time grows with load)
    assert (time_limit_s(claim, "quick"), time_limit_s(claim, "full")) == (60, 600)
    with pytest.raises(ValueError, match="memory_limit_mb must be positive"):
        dataclasses.replace(claim, memory_limit_mb=0)
