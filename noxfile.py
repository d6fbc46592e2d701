"""The user's entry points: ``nox -s verify`` (the audit) and ``nox -s tests`` (the test suite);
``nox -s mutants`` mutation-tests the engine's verdict logic (slow, not in CI; its score is).

Installs prefer the CPU build of PyTorch named in ``.ci/constraints.txt`` (present on these
machines as a local wheel). Set ``ATTNAUDIT_CONSTRAINTS`` to another constraints file, or to
``none`` to let pip pick any torch the project's range admits (e.g. your CUDA build).
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.sessions = ["verify", "tests"]
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
RESULTS_DIR = "results"


def _install(session: nox.Session, *packages: str) -> None:
    constraints = os.environ.get("ATTNAUDIT_CONSTRAINTS", str(ROOT / ".ci" / "constraints.txt"))
    args = [] if constraints == "none" else ["-c", constraints]
    session.install(*args, *packages)


@nox.session
def verify(session: nox.Session) -> None:
    """Run every claim (quick profile; `-- --profile full` for more), write results, render the
    report (results/report: index.html, report.pdf, junit.xml), then gate against the baseline.

    The arguments after `--` go to `attnaudit run` (e.g. `-- --scheduler tcp://HOST:8786`); the
    claims run one per CPU core unless they name `--jobs` or `--scheduler`."""
    _install(session, "-e", ".")
    session.run("attnaudit", "run", "--out", RESULTS_DIR, *run_arguments(session.posargs))
    session.run("attnaudit", "report", f"{RESULTS_DIR}/results.json", "--out", f"{RESULTS_DIR}/report")
    session.run("attnaudit", "gate", f"{RESULTS_DIR}/results.json")


def run_arguments(posargs: list[str]) -> list[str]:
    """`attnaudit run`'s arguments for verify: the user's, with `--jobs <cores>` unless they choose
    an engine themselves."""
    args = list(posargs)
    if not any(a in ("-j", "--jobs", "--scheduler") or a.startswith(("--jobs=", "--scheduler="))
               for a in args):
        args = ["--jobs", str(os.cpu_count() or 1), *args]
    return args


@nox.session
def report(session: nox.Session) -> None:
    """Re-render the report from an existing results file (default results/results.json)."""
    _install(session, "-e", ".")
    results = session.posargs[0] if session.posargs else f"{RESULTS_DIR}/results.json"
    session.run("attnaudit", "report", results, *session.posargs[1:])


@nox.session
def tests(session: nox.Session) -> None:
    """The pytest suite: operators against references, engine behaviour, claims, the gate."""
    _install(session, "-e", ".[test]")
    session.run("pytest", *(session.posargs or ["-q"]))


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over the project."""
    session.install("ruff>=0.5")
    session.run("ruff", "check", ".")


@nox.session
def bench(session: nox.Session) -> None:
    """Speed and peak memory of the operators as ratios against named peers (torch SDPA,
    geoopt); `-- --quick` for n <= 2048. The precision table is `nox -s precision`."""
    _install(session, "-e", ".[test]")
    session.run("python", "benchmarks/bench_attention.py", *session.posargs)


@nox.session
def precision(session: nox.Session) -> None:
    """Per operator and dtype, the maximum error against mpmath on the registry's samples,
    with geoopt's PoincareBall.dist beside the Poincaré distance (same inputs, same run)."""
    _install(session, "-e", ".[test]")
    session.run("python", "benchmarks/precision.py", *session.posargs)


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
