"""Shared fixtures: throw-away claims packages for testing the auditor itself."""

from __future__ import annotations

import functools
import importlib
import re
import sys
import textwrap
from pathlib import Path

import pytest

PAPER_INIT = """
from attnaudit.checks import Paper
PAPER = Paper(key="toy", title="A toy paper", authors=("A. Tester",), arxiv=None,
              source_file="none")
"""

# A true identity, checked on a batch: sin² + cos² = 1, with a negative control (sin² + sin²,
# false for most t) that fails, so the confirmation rests on a check that can discriminate.
GOOD = """
import torch
from attnaudit.checks import Claim, Kind, Relation, control, symbolic, tolerances
import sympy as sp

x = sp.Symbol("x", real=True)
TOL = tolerances.Roundoff("1: a sum of two squares of bounded functions")

def evaluate(case):
    t = case["t"]
    lhs = torch.sin(t) ** 2 + torch.cos(t) ** 2
    return lhs, torch.ones_like(lhs), torch.full_like(t, TOL(dtype=t.dtype))

def sines(case):
    t = case["t"]
    lhs = 2 * torch.sin(t) ** 2
    return lhs, torch.ones_like(lhs), torch.full_like(t, TOL(dtype=t.dtype))

def sample(ctx, gen):
    yield {"t": 10 * torch.randn(1000, generator=gen, dtype=ctx.dtype)}

CLAIMS = (Claim(
    id="toy/good", label="Identity 1", section="§1", statement=r"\\sin^2 x + \\cos^2 x = 1",
    reading="for all real x", kind=Kind.IDENTITY,
    derivation=lambda: [symbolic.exact("pythagoras", sp.sin(x)**2 + sp.cos(x)**2, sp.Integer(1),
                                       role="statement")],
    checks=(Relation(name="pythagoras", lhs="sin²t+cos²t", rel="==", rhs="1",
                     evaluate=evaluate, sample=sample, tolerance=TOL,
                     sampler="Gaussian t, scale 10",
                     controls=(control("sin² in place of cos²", evaluate=sines),)),),
),)
"""

RAISES = """
from attnaudit.checks import Claim, Kind, Relation, tolerances

def sample(ctx, gen):
    raise ValueError("the sampler is broken on purpose")
    yield

CLAIMS = (Claim(id="toy/raises", label="Lemma 2", section="§2", statement="x", reading="x",
                kind="identity", no_derivation="toy",
                checks=(Relation(name="r", lhs="a", rel="==", rhs="b", evaluate=None,
                                 sample=sample, tolerance=tolerances.Exact(), sampler="s"),)),)
"""

SLOW = """
import time
from attnaudit.checks import Claim, Kind, Relation, tolerances

def sample(ctx, gen):
    end = time.process_time() + 30  # busy: the limit is of CPU time
    while time.process_time() < end:
        pass
    yield

CLAIMS = (Claim(id="toy/slow", label="Lemma 3", section="§3", statement="x", reading="x",
                kind="identity", no_derivation="toy", time_limit_s=1.0,
                checks=(Relation(name="r", lhs="a", rel="==", rhs="b", evaluate=None,
                                 sample=sample, tolerance=tolerances.Exact(), sampler="s"),)),)
"""

BAD_KIND = """
from attnaudit.checks import Claim
CLAIMS = (Claim(id="toy/bad-kind", label="L", section="§", statement="x", reading="x",
                kind="theorem-ish", no_derivation="toy", unverifiable="n/a"),)
"""

NO_ID = """
from attnaudit.checks import Claim
CLAIMS = (Claim(id="", label="L", section="§", statement="x", reading="x", kind="identity",
                no_derivation="toy", unverifiable="n/a"),)
"""

SYNTAX = "def broken(:\n    pass\n"
IMPORT_RAISES = "raise RuntimeError('import-time failure on purpose')\n"
NO_CLAIMS = "X = 1\n"
DUP = """
from attnaudit.checks import Claim
CLAIMS = (Claim(id="toy/dup", label="L", section="§", statement="x", reading="x",
                kind="identity", unverifiable="no checkable reading"),)
"""


def make_claims_package(root: Path, name: str, modules: dict[str, str], paper_init: str = PAPER_INIT
                        ) -> str:
    """Write ``root/name/toy/<module>.py`` files and make ``name`` importable; returns ``name``."""
    paper = root / name / "toy"
    paper.mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (paper / "__init__.py").write_text(textwrap.dedent(paper_init))
    for mod, src in modules.items():
        (paper / f"{mod}.py").write_text(textwrap.dedent(src))
    return name


@pytest.fixture
def claims_package(tmp_path, monkeypatch):
    """Factory: a fresh importable claims package with the given modules."""
    counter = {"n": 0}

    def factory(modules: dict[str, str], paper_init: str = PAPER_INIT) -> str:
        counter["n"] += 1
        name = f"fakeclaims_{tmp_path.name.replace('-', '_')}_{counter['n']}"
        make_claims_package(tmp_path, name, modules, paper_init)
        monkeypatch.syspath_prepend(str(tmp_path))
        importlib.invalidate_caches()
        return name

    yield factory
    for mod in [m for m in sys.modules if m.startswith("fakeclaims_")]:
        del sys.modules[mod]


@pytest.fixture
def pythonpath_env(tmp_path):
    """Environment for subprocesses that must import packages made under tmp_path."""
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    return env

# A false inequality (AM–GM reversed): refuted with a shrunk witness.
FALSE = """
import torch
from attnaudit.checks import Claim, Kind, Relation, tolerances

TOL = tolerances.Roundoff("1: a mean and a square root of positive numbers", scale="(a+b)/2")

def evaluate(case):
    a, b = case["a"], case["b"]
    return (a + b) / 2, torch.sqrt(a * b), TOL((a + b) / 2, a.dtype)

def sample(ctx, gen):
    yield {"a": torch.rand(500, generator=gen, dtype=ctx.dtype) + 0.1,
           "b": torch.rand(500, generator=gen, dtype=ctx.dtype) + 0.1}

def strategy(ctx):
    from hypothesis import strategies as st
    pos = st.floats(1e-3, 1e3)
    return st.tuples(pos, pos).map(lambda ab: {"a": ctx.tensor([ab[0]]), "b": ctx.tensor([ab[1]])})

CLAIMS = (Claim(id="toy/false", label="Reversed AM-GM", section="§4", statement="(a+b)/2 <= sqrt(ab)",
                reading="for all a, b > 0", kind=Kind.INEQUALITY, no_derivation="toy",
                checks=(Relation(name="reversed", lhs="(a+b)/2", rel="<=", rhs="sqrt(ab)",
                                 evaluate=evaluate, sample=sample, strategy=strategy,
                                 max_examples=50, tolerance=TOL, sampler="uniform a, b in (0.1, 1.1)"),)),)
"""


@pytest.fixture
def report_results():
    """A results document with every verdict and evidence type (see tests/report_fixture.py)."""
    from report_fixture import report_results as build

    return build()

# A true statement with a false proof step and an alternative reading that fails: confirmed ·
# flawed, the alternative refuted without touching the headline.
FLAWED = """
import sympy as sp
import torch
from attnaudit.checks import Claim, Kind, ProofStep, Reading, Relation, control, symbolic, tolerances

n = sp.Symbol("n", positive=True)
TOL = tolerances.Roundoff("a few: a square and a sum", scale="(a+1)²")

def square(case):
    a = case["a"]
    return (a + 1) ** 2, a * a + 2 * a + 1, TOL((a + 1) ** 2, a.dtype)

def sloppy(case):
    a = case["a"]
    return (a + 1) ** 2, a * a + 1, TOL((a + 1) ** 2, a.dtype)

def sample(ctx, gen):
    yield {"a": 1 + torch.rand(200, generator=gen, dtype=ctx.dtype)}

CHECK = Relation(name="square", lhs="(a+1)²", rel="==", rhs="a²+2a+1", evaluate=square,
                 sample=sample, tolerance=TOL, sampler="uniform a in (1, 2)",
                 controls=(control("the cross term dropped", evaluate=sloppy),))

CLAIMS = (Claim(
    id="toy/flawed", label="Lemma 5", section="§5", statement="(a+1)^2 = a^2 + 2a + 1",
    reading="for all a in (1, 2)", kind=Kind.IDENTITY, reading_why="the literal statement",
    alternatives=(Reading("sloppy", "(a+1)^2 = a^2 + 1", "the proof's display drops 2a"),),
    proof_steps=(ProofStep("expand", "(a+1)^2 = a^2 + 2a + 1 by expansion"),
                 ProofStep("display", "hence (a+1)^2 = a^2 + 1")),
    derivation=lambda: [
        symbolic.exact("expansion", (n + 1) ** 2, n**2 + 2 * n + 1, role="proof", step="expand"),
        symbolic.exact("the paper's display", (n + 1) ** 2, n**2 + 1, role="proof", step="display"),
    ],
    checks=(CHECK,
            Relation(name="sloppy", lhs="(a+1)²", rel="==", rhs="a²+1", evaluate=sloppy,
                     sample=sample, tolerance=TOL, sampler="uniform a in (1, 2)", reading="sloppy")),
),)
"""


# ── one worker per claim under pytest-xdist (``--dist loadgroup``) ───────────────────────────
# A claim's own tests, its baseline, mutation, quote and summary-line tests share the session's
# record of it (claimtest.run): keeping them in one worker keeps each claim to one run. The
# grouping is a scheduler of our own, not xdist_group marks: xdist 3.8 passes the group to the
# controller by rewriting the node id, which pytest 9.2's structured node ids ignore
# (pytest-xdist issue 1386), so the marks silently stopped grouping and claims ran twice.
_SPEC_IMPORT = re.compile(r"from attnaudit\.claims\.(\w+)(?:\.(\w+))? import \(?\s*(\w+)")
_CLAIM_TESTS = Path(__file__).resolve().parent / "claims"  # tests/claims/<paper>/test_<module>.py


@functools.cache
def _spec_group(path: Path) -> str | None:
    """The spec module a claim test file imports (``paper.module``)."""
    for paper, module, name in _SPEC_IMPORT.findall(path.read_text(encoding="utf-8")):
        if not (module or name).startswith("_"):
            return f"{paper}.{module or name}"
    return None


@functools.cache
def _claim_modules() -> dict[str, str]:
    from attnaudit.checks.discovery import discover

    # paper.module: a module split into a sub-package (lemma_2_4/) is one group, as its tests are
    return {c.id: ".".join(c.source_module.removeprefix("attnaudit.claims.").split(".")[:2])
            for c in discover(entry_points=False).claims}


def claim_group(root: Path, nodeid: str) -> str | None:
    """The spec module whose claim a test reads: a test parametrised by a catalogue claim (its id,
    or ``id::check``, as the parameter id), or a test in tests/claims/<paper>/; None otherwise."""
    path, _, name = nodeid.partition("::")
    if "[" in name and name.endswith("]"):
        claim = name[name.index("[") + 1:-1].split("::")[0]
        if claim in _claim_modules():
            return _claim_modules()[claim]
    file = (root / path).resolve()
    if _CLAIM_TESTS in file.parents and file.is_file():
        return _spec_group(file)
    return None


class _ClaimScheduling:
    """Registered only where pytest-xdist is (its hook is unknown to pytest otherwise, and
    ``-p no:xdist`` runs the suite serially)."""

    @staticmethod
    def pytest_xdist_make_scheduler(config, log):
        return _claim_scheduler(config, log)


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_ClaimScheduling(), "attnaudit-claim-scheduling")


def _claim_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    root = Path(config.rootpath)

    class ByClaim(LoadScopeScheduling):
        """LoadScope whose scope is the claim's spec module; any other test is its own scope."""

        def _split_scope(self, nodeid: str) -> str:
            return claim_group(root, nodeid) or nodeid

    return ByClaim(config, log)
