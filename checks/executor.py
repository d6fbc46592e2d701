"""Run claims in worker processes, locally (``--jobs N``) or on a Dask cluster (``--scheduler``).

Isolation: every claim runs in a process of its own, started from a ``forkserver`` that has
already imported torch, SymPy and the built-in claims (so a start costs a fork, not an import of
torch). The process re-discovers its claim by id (claims hold callables and are never pickled),
sets its memory limit (``RLIMIT_AS``) and runs :func:`checks.runner.run_claim`. The process that
started it, the *supervisor*, enforces the time limit from outside: at the limit plus a grace it
kills the claim's whole process group, which stops a hang in C code that no signal handler
reaches. A claim that raises, runs out of memory, calls ``os._exit`` or dies of a signal becomes
an ``error`` record naming what happened; the supervisor never dies with it. Claim processes are
not daemonic, so a claim may start processes of its own (``torch.distributed`` gloo workers);
each of those inherits the same per-process memory limit.

Scheduling: locally a :class:`concurrent.futures.ThreadPoolExecutor` with N threads, each the
supervisor of one claim process at a time; on a cluster, one Dask task per claim, whose
supervisor is the Dask worker. Records come back in any order; the caller writes them in
catalogue order, so ``results.json`` is byte-identical for any N and either engine.

Lost Dask workers: a claim's crash never takes its Dask worker down (it runs in a child process),
so a lost worker is an infrastructure failure. Dask **retries** it: the scheduler reschedules the
claim on another worker, up to ``distributed.scheduler.allowed-failures`` times (default 3);
after that the claim gets an ``error`` record naming ``KilledWorker``. No record is ever lost.
"""

from __future__ import annotations

import faulthandler
import importlib
import importlib.metadata
import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import os
import platform
import re
import resource
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

# Per-process address-space limits (RLIMIT_AS) by profile, in MiB. Measured (one intra-op
# thread, forked from the preloaded forkserver): every quick-profile claim of Part I peaks
# between 0.64 and 1.2 GiB of virtual memory (theorem-2.10 the most), of which about 0.6 GiB is
# torch, SymPy and the claims already imported. 8 GiB is about 7x the heaviest: room for many
# threads (each reserves an 8 MiB stack and up to a 64 MiB malloc arena) and for child
# processes, while a runaway allocation stops long before it takes a CI machine's memory. The
# full profile's larger grids get 32 GiB. A claim may set its own ``memory_limit_mb``. On CUDA
# no limit is set: the driver reserves terabytes of virtual address space for unified
# addressing, which RLIMIT_AS cannot tell from real use.
MEMORY_LIMIT_MB = {"quick": 8 * 1024, "full": 32 * 1024}
# Time limits are of CPU time (the claim process's, all threads; its own child processes are
# not counted): on a shared machine a claim waiting for a core is not hung, and a limit of wall
# time would turn load into error records (measured: lemma-2.4/ida-clustered, 5 s alone, ran
# past its 30 s in wall time on a 1-core machine with load 8). A claim that hangs without using
# CPU (sleeping or blocked in native code) is stopped at WALL_FACTOR times its limit in wall time
# (20: a busy claim is still stopped by its CPU limit while it gets a twentieth of a core).
WALL_FACTOR = 20
# CPU time itself grows with load: cores shared with busy neighbours run the same instructions in
# more cycles (entropic-bound/gd-recovers-rank: 90.6 s CPU alone, 120.1 s at load 3-19). A time
# limit detects hangs and runaway claims; it never decides a verdict, so it carries this headroom
# over the claim's stated limit.
LOAD_HEADROOM = 2.0
POLL_S = 0.25

_SIGNAL_WHY = {signal.SIGSEGV: "segmentation fault", signal.SIGBUS: "bus error",
               signal.SIGABRT: "abort", signal.SIGKILL: "killed: out of memory, or from outside",
               signal.SIGFPE: "arithmetic fault", signal.SIGILL: "illegal instruction"}
_MEMORY_ERRORS = re.compile(r"MemoryError|can't allocate memory|Cannot allocate memory|"
                            r"std::bad_alloc|out of memory", re.IGNORECASE)


class SchedulerError(Exception):
    """The Dask scheduler cannot be reached or used; the message is one line."""


@dataclass(frozen=True)
class Job:
    """One claim under one seed: everything a worker needs to find and run it (no callables)."""

    claim_id: str
    seed: int
    profile: str
    device: str
    spec_file: str
    time_limit_s: float
    memory_limit_mb: float | None
    package: str
    folders: tuple[str, ...]
    sys_path: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict, compare=False)  # for a crash record


def plan(claims, *, seeds: Iterable[int], profile: str, device: str, files: dict[str, str],
         package: str, folders: Iterable[str | Path] = ()) -> list[Job]:
    """Jobs for ``claims`` × ``seeds`` in catalogue order (id, then seed)."""
    from attnaudit.checks.discovery import source_hash

    folders = tuple(str(Path(f).resolve()) for f in folders)
    sys_path = tuple(os.path.abspath(p or ".") for p in sys.path if os.path.exists(p or "."))
    jobs = []
    for claim in sorted(claims, key=lambda c: c.id):
        meta = {"paper": claim.paper, "label": claim.label, "section": claim.section,
                "kind": claim.kind.value, "statement": claim.statement, "reading": claim.reading,
                "notes": claim.notes, "dtype": claim.dtype, "source_hash": source_hash(claim)}
        for seed in seeds:
            jobs.append(Job(claim.id, seed, profile, device, files.get(claim.id, ""),
                            time_limit_s(claim, profile), memory_limit_mb(claim, profile, device),
                            package, folders, sys_path, meta))
    return jobs


def time_limit_s(claim, profile: str) -> float:
    """The enforced CPU-time limit: the claim's stated one, ×10 in the full profile, with the load
    headroom."""
    return claim.time_limit_s * (10 if profile == "full" else 1) * LOAD_HEADROOM


def memory_limit_mb(claim, profile: str, device: str) -> float | None:
    """The claim's address-space limit in MiB (None: unlimited, as on CUDA)."""
    if device != "cpu":
        return None
    return claim.memory_limit_mb or MEMORY_LIMIT_MB[profile]


# --------------------------------------------------------------------------- the claim process


def _watch_supervisor() -> None:
    """Exit (with any children) when the supervisor is gone: no orphan burns CPU. (The parent of
    a forkserver's child is the forkserver, which outlives the supervisor while its children
    live; the sentinel is the supervisor's end of the launch pipe.)"""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    multiprocessing.connection.wait([parent.sentinel])
    os.killpg(os.getpgid(0), signal.SIGKILL)


def _child_main(job: Job, conn, fault_file: str) -> None:
    os.setpgid(0, 0)  # its own process group: a kill reaches the claim's own children too
    threading.Thread(target=_watch_supervisor, daemon=True).start()
    fault = open(fault_file, "w")  # noqa: SIM115 - open until the process ends
    faulthandler.enable(fault)
    if job.memory_limit_mb:
        limit = int(job.memory_limit_mb * 2**20)
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    record, seconds = run_job_here(job)
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    conn.send((record, seconds, cpu))
    conn.close()


def run_job_here(job: Job) -> tuple[dict[str, Any], float]:
    """Find the job's claim in this process's catalogue and run it (no isolation)."""
    from attnaudit.checks.discovery import discover
    from attnaudit.checks.runner import run_claim

    for entry in job.sys_path:
        if entry not in sys.path:
            sys.path.append(entry)
    try:
        cat = discover(job.package, folders=job.folders)
        claim = next(c for c in cat.claims if c.id == job.claim_id)
    except Exception as exc:  # noqa: BLE001 - a worker without the claim: an error record
        why = (f"the worker's catalogue has no claim {job.claim_id!r} (is the project, and every "
               f"--claims folder, installed on the worker?)" if isinstance(exc, StopIteration)
               else f"the worker could not load the catalogue: {type(exc).__name__}: {exc}")
        return crash_record(job, why), 0.0
    record, seconds = run_claim(claim, seed=job.seed, profile=job.profile, device=job.device,
                                spec_file=job.spec_file, alarm=False)
    if record["verdict"] == "error" and job.memory_limit_mb and _MEMORY_ERRORS.search(record["summary"]):
        why = (f"exceeded its memory limit of {job.memory_limit_mb:g} MiB (RLIMIT_AS): "
               f"{record['summary']}")
        from attnaudit.checks.results import Record

        typed = Record.from_json(record)
        record = replace(typed, summary=why, failure=replace(typed.failure, reason=why)).to_json()
    return record, seconds


# --------------------------------------------------------------------------- the supervisor


# The record's library versions, read from each distribution's metadata: the supervisor names
# torch's version without importing it (about 1.5 s of CPU per command); a library installed
# without metadata (a source tree on sys.path) is asked for its __version__.
LIBRARIES = ("torch", "sympy", "numpy", "scipy", "hypothesis", "mpmath")


def versions() -> dict[str, str]:
    """Python's, attnaudit's and the numerical libraries' versions, as every record states them."""
    out = {"python": platform.python_version(), "attnaudit": version_of("attnaudit", import_it=False)}
    return out | {name: version_of(name) for name in LIBRARIES}


def version_of(name: str, *, import_it: bool = True) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        return importlib.import_module(name).__version__ if import_it else "absent"
    except Exception:  # noqa: BLE001 - a missing optional library is recorded as such
        return "absent"


def load_error_record(error, *, seed: int, profile: str, device: str) -> dict[str, Any]:
    """The error record of a spec that did not load (a discovery.LoadError)."""
    from attnaudit.checks.results import Record, freeze

    where = f"{error.file}:{error.line}" if error.line is not None else error.file
    return Record.error(error.id, error.paper, error.reason, file=error.file, at_load=True,
                        line=error.line, summary=f"{where}: {error.reason}",
                        proof_reason="the spec did not load", seed=seed, profile=profile, device=device,
                        spec_file=error.file, versions=freeze(versions())).to_json()


def crash_record(job: Job, reason: str) -> dict[str, Any]:
    """The error record of a claim whose process gave none."""
    from attnaudit.checks.results import Record, freeze

    m = job.meta
    described = {k: m.get(k, "") for k in ("label", "section", "kind", "statement", "reading", "notes")}
    return Record.error(job.claim_id, m.get("paper", job.claim_id.split("/", 1)[0]), reason,
                        file=job.spec_file, seed=job.seed, profile=job.profile, device=job.device,
                        dtype=m.get("dtype", ""), spec_file=job.spec_file,
                        source_hash=m.get("source_hash", ""), versions=freeze(versions()),
                        **described).to_json()


_context = None
_context_lock = threading.Lock()
_live: set[multiprocessing.Process] = set()


def mp_context():
    """The forkserver context, with torch and the built-in claims preloaded (spawn elsewhere)."""
    global _context
    with _context_lock:
        if _context is None:
            if "forkserver" in multiprocessing.get_all_start_methods():
                _context = multiprocessing.get_context("forkserver")
                _context.set_forkserver_preload(["attnaudit.checks._preload"])
            else:
                _context = multiprocessing.get_context("spawn")
        return _context


def start_forkserver() -> None:
    """Boot the claim processes' forkserver now: its preload (torch, SymPy, the built-in claims:
    about 2 s of CPU) then runs beside the command's own discovery instead of after it."""
    if mp_context().get_start_method() == "forkserver":
        multiprocessing.forkserver.ensure_running()


def _allow_children() -> None:
    """A Dask worker is a daemonic process by default, and multiprocessing refuses children to
    daemonic processes; the worker's claim processes are joined or killed before each task
    returns, so marking it non-daemonic here is safe (the Nanny still stops it)."""
    proc = multiprocessing.current_process()
    if proc.daemon:
        proc._config["daemon"] = False  # noqa: SLF001 - the documented flag has no setter here


def run_isolated(job: Job) -> tuple[dict[str, Any], float, float]:
    """Run ``job`` in a claim process of its own; every outcome is a record. Returns (record,
    seconds, CPU seconds of the claim process and the children it waited for)."""
    _allow_children()
    ctx = mp_context()
    recv, send = ctx.Pipe(duplex=False)
    fd, fault_file = tempfile.mkstemp(prefix="attnaudit-fault-", suffix=".txt")
    os.close(fd)
    proc = ctx.Process(target=_child_main, args=(job, send, fault_file),
                       name=f"attnaudit {job.claim_id} seed {job.seed}")
    start = time.perf_counter()
    try:
        proc.start()  # the first start also boots the forkserver: not the claim's time
        _live.add(proc)
        send.close()
        deadline = time.perf_counter() + WALL_FACTOR * job.time_limit_s
        result, why, cpu = None, None, 0.0
        while result is None and why is None:
            cpu = max(cpu, _cpu_seconds(proc.pid))
            if cpu > job.time_limit_s:
                _kill(proc)
                why = (f"ran past its time limit of {job.time_limit_s:g} s of CPU time: the worker "
                       f"process was killed")
                break
            if time.perf_counter() > deadline:
                _kill(proc)
                why = (f"ran past {WALL_FACTOR} times its time limit of {job.time_limit_s:g} s in "
                       f"wall time without using that much CPU (a hang, e.g. in native code): the "
                       f"worker process was killed")
                break
            ready = multiprocessing.connection.wait([recv, proc.sentinel], timeout=POLL_S)
            if recv in ready or recv.poll():
                try:
                    result = recv.recv()
                except (EOFError, OSError):
                    proc.join(5)
                    why = _death(proc, fault_file)
            elif proc.sentinel in ready:
                proc.join(5)
                why = _death(proc, fault_file)
        proc.join(10)
        if proc.is_alive():  # a record came back but the process will not exit (a stuck thread)
            _kill(proc)
        else:
            _killpg(proc.pid)  # children the claim left behind
        seconds = time.perf_counter() - start
        if result is not None:
            return result
        return crash_record(job, why), seconds, cpu
    finally:
        _live.discard(proc)
        recv.close()
        Path(fault_file).unlink(missing_ok=True)


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of a live process (Linux /proc; 0 where unreadable, and then
    only the wall-time limit applies)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def _killpg(pid: int | None) -> None:
    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill(proc) -> None:
    _killpg(proc.pid)
    proc.kill()
    proc.join(10)


def kill_all() -> None:
    """Stop every claim process this process supervises (on Ctrl-C)."""
    for proc in list(_live):
        _kill(proc)


def _death(proc, fault_file: str) -> str:
    code = proc.exitcode
    if code is not None and code < 0:
        sig = signal.Signals(-code)
        what = f"was killed by signal {sig.name} ({_SIGNAL_WHY.get(sig) or signal.strsignal(sig)})"
        where = _fault_frames(fault_file)
        return f"the worker process {what}{f' at {where}' if where else ''}"
    return (f"the worker process exited with status {code} before returning a record "
            f"(os._exit, sys.exit in a thread, or a fatal error in native code)")


def _fault_frames(path: str, frames: int = 3) -> str:
    """The innermost frames faulthandler wrote (file name and line; deterministic)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return ""
    text = text.split("Current thread", 1)[-1]  # the crashing thread, not the others
    found = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', text)
    return " ← ".join(f"{Path(f).name}:{line} in {fn}" for f, line, fn in found[:frames])


# --------------------------------------------------------------------------- the engines


def run_local(jobs: list[Job], n: int, *, on_start: Callable[[Job], None] | None = None
              ) -> Iterator[tuple[Job, dict[str, Any], float, float]]:
    """``jobs`` over ``n`` local claim processes at a time; yields (job, record, seconds, CPU
    seconds) as each completes."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    def one(job: Job):
        if on_start:
            on_start(job)
        return run_isolated(job)

    pool = ThreadPoolExecutor(max_workers=max(1, n), thread_name_prefix="attnaudit-supervisor")
    try:
        futures = {pool.submit(one, job): job for job in jobs}
        for fut in as_completed(futures):
            yield futures[fut], *fut.result()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        kill_all()
        raise
    else:
        pool.shutdown(wait=True)


def _remote(job: Job) -> tuple[dict[str, Any], float, float]:
    """The Dask task: the worker supervises the claim's process (so a crash kills no worker)."""
    return run_isolated(job)


def run_dask(jobs: list[Job], address: str) -> Iterator[tuple[Job, dict[str, Any], float, float]]:
    """``jobs`` as Dask tasks on the cluster at ``address``; yields as each completes."""
    try:
        from distributed import Client, as_completed
        from distributed.scheduler import KilledWorker
    except ImportError as exc:
        raise SchedulerError(f"--scheduler needs dask.distributed installed ({exc})") from None
    try:
        # Waits distributed.comm.timeouts.connect (30 s by default) for the scheduler.
        client = Client(address, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    with client:
        futures = {}
        for job in jobs:
            key = f"attnaudit-{job.claim_id}-seed{job.seed}-{os.getpid()}-{time.time_ns()}"
            futures[client.submit(_remote, job, key=key, pure=False, retries=0)] = job
        for fut in as_completed(futures, loop=client.loop):
            job = futures[fut]
            try:
                record, seconds, cpu = fut.result()
            except KilledWorker as exc:
                record, seconds, cpu = crash_record(job, f"lost its Dask worker on every try ({exc})"), 0, 0
            except Exception as exc:  # noqa: BLE001 - a task that failed outside the claim
                record, seconds, cpu = crash_record(job, f"the Dask task failed: {type(exc).__name__}: "
                                                         f"{exc}"), 0, 0
            yield job, record, seconds, cpu
