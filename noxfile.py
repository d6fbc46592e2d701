"""The user's entry points: ``nox -s verify`` (the audit) and ``nox -s tests`` (the test suite);
``nox -s mutants`` mutation-tests the engine's verdict logic (slow, not in CI; its score is).

verify, report, tests, bench and precision share one environment, ``.nox/attnaudit`` (the project
with its test extras): it is created and installed once, with pip's progress shown, and installed
again only when pyproject.toml, the constraints or the torch index change. lint and mutants keep
nox's own environments (ruff; mutmut).

Installs prefer the CPU build of PyTorch: the version pinned in ``.ci/constraints.txt``, looked
up on PyTorch's CPU index as well as the usual ones (``ATTNAUDIT_TORCH_INDEX``; ``none`` for the
usual indexes only; pip prefers the ``+cpu`` build the CPU index carries; an index that does not
answer, as on an offline machine, is left out). Set
``ATTNAUDIT_CONSTRAINTS`` to another constraints file, or to ``none`` (which also drops the CPU
index) to let pip pick any torch the project's range admits, e.g. your CUDA build.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

import nox

nox.options.sessions = ["verify", "tests"]
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
RESULTS_DIR = "results"
SHARED_ENV = ROOT / ".nox" / "attnaudit"
STAMP = "attnaudit-installed.json"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def reachable(url: str, timeout: float = 5.0) -> bool:
    """Whether ``url`` answers at all. pip retries an unreachable index five times for every
    package it resolves (minutes on an offline machine), so one that does not answer is left out."""
    import urllib.error
    import urllib.request

    try:
        urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout).close()
    except urllib.error.HTTPError:
        return True  # it answered
    except (OSError, ValueError):
        return False
    return True


def pip_arguments(session: nox.Session | None = None) -> list[str]:
    """The constraints and index arguments every install of the project gets."""
    constraints = os.environ.get("ATTNAUDIT_CONSTRAINTS", str(ROOT / ".ci" / "constraints.txt"))
    if constraints == "none":
        return []
    index = os.environ.get("ATTNAUDIT_TORCH_INDEX", TORCH_CPU_INDEX)
    if index != "none" and not reachable(index):
        if session is not None:
            _say(session, f"{index} does not answer: installing torch from your pip configuration's "
                 "indexes only (set ATTNAUDIT_TORCH_INDEX=none to skip this check)")
        index = "none"
    return ["-c", constraints] + ([] if index == "none" else ["--extra-index-url", index])


def _install(session: nox.Session, *packages: str) -> None:
    """pip install into the session's own environment, with its progress shown."""
    _say(session, f"installing {' '.join(packages)} and its dependencies")
    session.install(*pip_arguments(session), *packages, silent=False)


def _bin(env: Path) -> Path:
    return env / ("Scripts" if os.name == "nt" else "bin")


def shared_environment(session: nox.Session, env: Path | None = None) -> dict[str, str]:
    """Create ``env`` (default SHARED_ENV) once and install the project with its test extras
    when what it was installed from changed; the variables that run a command in it."""
    env = SHARED_ENV if env is None else env
    python = _bin(env) / ("python.exe" if os.name == "nt" else "python")
    if not python.exists():
        _say(session, f"creating the shared environment {env}")
        session.run(sys.executable, "-m", "venv", str(env), external=True)
    args = pip_arguments(session)
    constraints = args[args.index("-c") + 1] if "-c" in args else None
    wanted = {"pyproject": hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest(),
              "constraints": None if constraints is None else Path(constraints).read_text(),
              "pip": args}
    stamp = env / STAMP
    try:
        installed = json.loads(stamp.read_text())
    except (OSError, ValueError):
        installed = None
    if installed != wanted:
        _say(session, f"installing the project, its test extras and their dependencies into {env} "
             "(torch, sympy, typst, ...: the first time 2-4 minutes and about 1.6 GB; once for "
             "verify, report and tests)")
        session.run(str(python), "-m", "pip", "install", *args, "-e", f"{ROOT}[test]", external=True,
                    silent=False)
        stamp.write_text(json.dumps(wanted))
    return {"VIRTUAL_ENV": str(env), "PATH": os.pathsep.join([str(_bin(env)), os.environ.get("PATH", "")])}


def _in(env: dict[str, str], *args: str) -> tuple[str, ...]:
    """A command of the shared environment, by its full path (nox looks up a bare name on its own
    PATH, not the one a command is given)."""
    folder = _bin(Path(env["VIRTUAL_ENV"]))
    return (shutil.which(args[0], path=str(folder)) or str(folder / args[0]), *args[1:])


def _say(session: nox.Session, text: str) -> None:
    # ``session.log`` where nox provides it (the tests drive these functions with a stub session).
    log = getattr(session, "log", None)
    (log or print)(text)


def _command_failed() -> type[BaseException]:
    """The exception ``session.run`` raises when a command exits nonzero."""
    command = getattr(nox, "command", None)
    return getattr(command, "CommandFailed", None) or RuntimeError


def _step(session: nox.Session, env: dict[str, str], *args: str) -> bool:
    """Run one command of the shared environment; False (after nox has logged its exit code)
    instead of ending the session."""
    try:
        session.run(*_in(env, *args), env=env, external=True)
    except _command_failed():
        return False
    return True


@nox.session(venv_backend="none")
def verify(session: nox.Session) -> None:
    """Run every claim (quick profile; `-- --profile full` for more), write results, render the
    report (results/report: index.html, report.pdf, letter-<paper>.md and .pdf, junit.xml), then
    gate against the baseline.

    The arguments after `--` go to `attnaudit run` (e.g. `-- --scheduler tcp://HOST:8786`); the
    claims run one per CPU core unless they name `--jobs` or `--scheduler`.

    The report and the gate run whatever the run's outcome, as long as it wrote its results: a
    claim that errored (e.g. past its time limit on a busy machine) is shown first in the report,
    and the session fails afterwards, saying how to rerun only what failed (`-- --resume`)."""
    env = shared_environment(session)
    results = Path(RESULTS_DIR) / "results.json"
    started = time.time()
    ran = _step(session, env, "attnaudit", "run", "--out", RESULTS_DIR, *run_arguments(session.posargs))
    if not ran and not (results.exists() and results.stat().st_mtime >= started - 1):
        session.error(f"'attnaudit run' stopped before writing {results}; the claims that finished "
                      f"are journaled in {RESULTS_DIR}/: continue with 'nox -s verify -- --resume' "
                      "(add your other arguments again)")
    reported = _step(session, env, "attnaudit", "report", str(results), "--out", f"{RESULTS_DIR}/report")
    gated = _step(session, env, "attnaudit", "gate", str(results))
    problems = verify_problems(results, ran=ran, reported=reported, gated=gated)
    if problems:
        session.error("verify failed: " + "; ".join(problems))


def verify_problems(results: Path, *, ran: bool, reported: bool, gated: bool) -> list[str]:
    """What went wrong in a verify session, each with how to rerun only that part."""
    problems = []
    if not ran:
        try:
            records = json.loads(results.read_text(encoding="utf-8"))["results"]
            errored = [r["id"] for r in records if r.get("verdict") == "error"]
        except (OSError, ValueError, KeyError, TypeError):
            errored = []
        names = ", ".join(errored[:5]) + (f" and {len(errored) - 5} more" if len(errored) > 5 else "")
        problems.append(
            (f"{len(errored)} claim(s) ended in error ({names})" if errored else
             "'attnaudit run' exited nonzero") +
            f"; the report lists them first ({RESULTS_DIR}/report/index.html). A claim past its "
            "time limit is usually a busy machine: rerun only what failed with "
            "'nox -s verify -- --resume' (keeps every claim that finished), or "
            f"'attnaudit run --out {RESULTS_DIR} --resume ID ...' then 'nox -s report' and "
            f"'attnaudit gate {results}'")
    if not reported:
        problems.append("the report was not fully rendered (see above); rerun it with 'nox -s report'")
    if not gated:
        problems.append("the gate failed (its differences are printed above; an errored claim always "
                        "fails it); a reviewed change of verdict is accepted with "
                        f"'attnaudit gate {results} --accept'")
    return problems


def run_arguments(posargs: list[str]) -> list[str]:
    """`attnaudit run`'s arguments for verify: the user's, with `--jobs <cores>` unless they choose
    an engine themselves."""
    args = list(posargs)
    if not any(a in ("-j", "--jobs", "--scheduler") or a.startswith(("--jobs=", "--scheduler="))
               for a in args):
        args = ["--jobs", str(os.cpu_count() or 1), *args]
    return args


@nox.session(venv_backend="none")
def report(session: nox.Session) -> None:
    """Re-render the report from an existing results file (default results/results.json)."""
    env = shared_environment(session)
    results = session.posargs[0] if session.posargs else f"{RESULTS_DIR}/results.json"
    session.run(*_in(env, "attnaudit", "report", results, *session.posargs[1:]), env=env, external=True)


@nox.session(venv_backend="none")
def tests(session: nox.Session) -> None:
    """The pytest suite: operators against references, engine behaviour, claims, the gate.

    One worker per CPU core (pytest-xdist); a claim's own tests and its mutation tests stay in one
    worker (tests/conftest.py groups them), so each claim runs once. Arguments after `--` add to
    these (`-- -k lemma --durations=20` still runs in parallel); `-- -p no:xdist` runs serially and
    `-- -n N` sets the workers."""
    env = shared_environment(session)
    session.run(*_in(env, "pytest", *pytest_arguments(session.posargs)), env=env, external=True)


def pytest_arguments(posargs: list[str]) -> list[str]:
    """The suite's defaults (quiet, one worker per core), then the user's arguments; a default the
    user's arguments choose themselves (verbosity; workers: `-n`, `--numprocesses`, `-p no:xdist`)
    is left out."""
    def chooses(pattern: str) -> bool:
        return any(re.fullmatch(pattern, a) for a in posargs)

    quiet = [] if chooses(r"-[vq]+|--verbose|--quiet") else ["-q"]
    workers = [] if chooses(r"-n\d*|-n=.*|--numprocesses(=.*)?|(-p)?no:xdist") else [
        "-n", str(os.cpu_count() or 1), "--dist", "loadgroup"]
    return [*quiet, *workers, *posargs]


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over the project."""
    session.install("ruff>=0.5")
    session.run("ruff", "check", ".")


@nox.session(venv_backend="none")
def bench(session: nox.Session) -> None:
    """Speed and peak memory of the operators as ratios against named peers (torch SDPA,
    geoopt); `-- --quick` for n <= 2048. The precision table is `nox -s precision`."""
    env = shared_environment(session)
    session.run(*_in(env, "python", "benchmarks/bench_attention.py", *session.posargs), env=env,
                external=True)


@nox.session(venv_backend="none")
def precision(session: nox.Session) -> None:
    """Per operator and dtype, the maximum error against mpmath on the registry's samples,
    with geoopt's PoincareBall.dist beside the Poincaré distance (same inputs, same run)."""
    env = shared_environment(session)
    session.run(*_in(env, "python", "benchmarks/precision.py", *session.posargs), env=env, external=True)


MUTANTS_REPORT = ROOT / "tests" / "mutants-equivalent.md"


@nox.session
def mutants(session: nox.Session) -> None:
    """Mutation testing of the engine (issue 17): mutmut over checks/verdict.py, relations.py,
    fitting.py, laws.py, gate.py and symbolic.py against the fast engine tests (configured in
    pyproject.toml [tool.mutmut]). Prints the score per module; every surviving mutant must be
    listed, with its reason, in tests/mutants-equivalent.md. `-- --max-children N` sets the
    number of parallel workers (default 2)."""
    _install(session, "-e", ".[test]", "mutmut>=3.3")
    args = list(session.posargs) or ["--max-children", "2"]
    # One intra-op thread: the workers are forked, and forking a process whose OpenMP pool has
    # started can hang the child.
    env = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    session.run("mutmut", "run", *args, env=env)
    score, unlisted, stale = mutation_score(ROOT / "mutants", MUTANTS_REPORT)
    session.log(score)
    if stale:
        session.warn(f"listed in {MUTANTS_REPORT.relative_to(ROOT)} but no longer surviving (remove "
                     f"them): {', '.join(stale)}")
    if unlisted:
        session.error(f"{len(unlisted)} surviving mutant(s) neither killed nor listed in "
                      f"{MUTANTS_REPORT.relative_to(ROOT)}: {', '.join(unlisted)} "
                      "(see one with 'mutmut show NAME')")
    session.log(f"every surviving mutant is listed, with its reason, in {MUTANTS_REPORT.relative_to(ROOT)}")


# mutmut's exit codes (mutmut/stats.py): 1 and 3 killed, 0 survived, 5 and 33 no tests, 36, 24,
# -24, 152 and 255 timeouts (a mutant that loops forever is detected: counted as killed).
_KILLED = {1, 3, 36, 24, -24, 152, 255, 37}


def mutation_score(mutants_dir: Path, listed_file: Path) -> tuple[str, list[str], list[str]]:
    """(the score per module and overall, as text; survivors not listed in ``listed_file``;
    mutants listed there that no longer survive)."""
    import json
    import re

    listed = set(re.findall(r"`([\w.]+__mutmut_\d+)`", listed_file.read_text()) if listed_file.exists()
                 else [])
    lines, unlisted, surviving = [], [], set()
    total_killed = total = total_listed = 0
    for meta in sorted((mutants_dir / "checks").glob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        killed = [k for k, c in codes.items() if c in _KILLED]
        survivors = sorted((k for k in codes if k not in killed), key=_mutant_order)
        surviving |= set(survivors)
        equivalent = [k for k in survivors if k in listed]
        unlisted += [k for k in survivors if k not in listed]
        total_killed, total, total_listed = (total_killed + len(killed), total + len(codes),
                                             total_listed + len(equivalent))
        lines.append(f"  checks/{meta.name.removesuffix('.meta'):<14} {len(killed):>5} / {len(codes):<5} "
                     f"killed ({100 * len(killed) / max(len(codes), 1):5.1f} %), "
                     f"{len(equivalent)} listed as equivalent")
    lines.append(f"  {'overall':<21} {total_killed:>5} / {total:<5} killed "
                 f"({100 * total_killed / max(total, 1):5.1f} %), {total_listed} listed as equivalent")
    return "mutation score\n" + "\n".join(lines), unlisted, sorted(listed - surviving, key=_mutant_order)


def _mutant_order(name: str) -> tuple[str, int]:
    stem, _, number = name.rpartition("__mutmut_")
    return stem, int(number)
