"""The user's entry points: ``nox -s verify`` (the audit) and ``nox -s tests`` (the test suite).

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
    report (results/report: index.html, report.pdf, junit.xml), then gate against the baseline."""
    _install(session, "-e", ".")
    session.run("attnaudit", "run", "--out", RESULTS_DIR, *session.posargs)
    session.run("attnaudit", "report", f"{RESULTS_DIR}/results.json", "--out", f"{RESULTS_DIR}/report")
    session.run("attnaudit", "gate", f"{RESULTS_DIR}/results.json")


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
