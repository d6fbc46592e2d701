"""``attnaudit new``: a claim module and its test, written from a template.

The module runs at once and reads ``inconclusive``, never ``confirmed``: its statement step is a
relation SymPy cannot decide (an undefined function stands for the paper's expression), so the
summary names it as what would decide the claim, and its one check has no negative control, so it
cannot carry a confirmation. Filling in the placeholders is the author's work (see
docs/writing-a-claim.md). Existing files are never overwritten.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

KINDS = ("identity", "inequality", "asymptotic", "limit", "complexity", "construction", "conjecture",
         "definition-consistency")
# The shape of the one check each kind starts with: a Relation (==, <=), a ScalingLaw ("") or a
# Limit ("lim").
_REL = {"identity": ("==", "equals"), "inequality": ("<=", "is at most"),
        "asymptotic": ("", "grows"), "limit": ("lim", "tends"), "complexity": ("", "grows"),
        "construction": ("==", "equals"), "conjecture": ("==", "equals"),
        "definition-consistency": ("==", "equals")}

PAPER_TEMPLATE = '''\
"""{key}: TITLE OF THE PAPER (replace). Source text: where the paper lives."""

from attnaudit import Paper

PAPER = Paper(key="{key}", title="TITLE OF THE PAPER", authors=("AUTHOR",), arxiv=None,
              source_file="papers/{key}.txt")
'''

CLAIM_TEMPLATE = '''\
"""{label} of {key} (written by 'attnaudit new'; replace every TODO)."""

from __future__ import annotations

import sympy as sp

from attnaudit import Claim, Kind, Relation, symbolic, tolerances

# TODO: the statement exactly as the paper gives it, in LaTeX.
STATEMENT = r"f(x) {rel_tex} g(x) \\text{{ for all real }} x"

# TODO: the error model behind the tolerance, in words, from the operations actually performed.
TOL = tolerances.Roundoff(condition="1: TODO the condition number of evaluating both sides")

x = sp.Symbol("x", real=True)
f, g = sp.Function("f"), sp.Function("g")  # TODO: the paper's expressions


def derivation():
    # Each step names its role: "statement" (the claimed relation itself) or "proof" (an
    # intermediate result the paper's argument states). With f and g undefined SymPy cannot decide
    # the relation, so the step is undecided and the claim inconclusive until they are written out.
    return [symbolic.holds("the claimed relation", {sympy_rel}(f(x), g(x)), role="statement")]


def evaluate(case):
    """(lhs, rhs, tol) per case. TODO: evaluate both sides on the operators."""
    import torch  # inside the function: importing a spec runs nothing and loads no torch

    t = case["x"]
    lhs = torch.zeros_like(t)  # TODO: f(x)
    rhs = torch.zeros_like(t)  # TODO: g(x)
    return lhs, rhs, torch.full_like(t, TOL(dtype=t.dtype))


def sample(ctx, gen):
    import torch

    yield {{"x": torch.randn(1000, generator=gen, dtype=ctx.dtype)}}


CLAIMS = (Claim(
    id="{cid}", label="{label}", section="§TODO", statement=STATEMENT,
    reading="TODO: the precise proposition tested, with its hypotheses and quantifiers",
    reading_why="TODO: why this is the primary reading (the literal statement, or the setting "
                "of the paper's own proof)",
    kind=Kind.{kind_enum},
    derivation=derivation,
    # TODO: add controls=(control("what is changed", evaluate=...),) for which the relation fails;
    # without a failing control this check cannot carry a confirmation.
    checks=(Relation(name="{check}", lhs="f(x)", rel="{rel}", rhs="g(x)", evaluate=evaluate,
                     sample=sample, tolerance=TOL, sampler="standard normal x"),),
),)
'''

ASYMPTOTIC_TEMPLATE = '''\
"""{label} of {key} (written by 'attnaudit new'; replace every TODO)."""

from __future__ import annotations

import sympy as sp

from attnaudit import Claim, Kind, ScalingLaw, symbolic, tolerances

# TODO: the statement exactly as the paper gives it, in LaTeX.
STATEMENT = r"f(n) = \\Theta(n^2)"

n = sp.Symbol("n", positive=True)
f = sp.Function("f")  # TODO: the paper's expression


def derivation():
    # role="statement": the claimed order itself; role="proof": a step of the paper's argument.
    # With f undefined SymPy cannot decide the order, so the claim is inconclusive until it is.
    return [symbolic.holds("the claimed order", sp.Le(f(n), n**2), role="statement")]


def grid(ctx):
    """Values of n over at least three decades. TODO: the sweep (ctx.pick(quick=..., full=...))."""
    import numpy as np

    return np.logspace(1, 4, 7)


def measure(ctx, grid):
    """f(n) at each grid value. TODO: measure it on the operators (this placeholder is n²)."""
    import numpy as np

    return np.asarray(grid, dtype=float) ** 2


CLAIMS = (Claim(
    id="{cid}", label="{label}", section="§TODO", statement=STATEMENT,
    reading="TODO: the precise proposition tested: which quantity, which family, which variable",
    reading_why="TODO: why this is the primary reading",
    kind=Kind.{kind_enum},
    derivation=derivation,
    # TODO: add controls=(control("the exponent moved", exponent=...),) that must fail;
    # without a failing control this check cannot carry a confirmation.
    checks=(ScalingLaw(name="{check}", quantity="f(n)", variable="n", exponent=2.0, order="Θ",
                       grid=grid, measure=measure, predicted="Θ(n²)",
                       family="TODO: typical or worst case, and which instances",
                       tolerance=tolerances.Systematic(0.05, "TODO: the fit's systematic error")),),
),)
'''

LIMIT_TEMPLATE = '''\
"""{label} of {key} (written by 'attnaudit new'; replace every TODO)."""

from __future__ import annotations

import sympy as sp

from attnaudit import Claim, Kind, Limit, symbolic, tolerances

# TODO: the statement exactly as the paper gives it, in LaTeX.
STATEMENT = r"\\lim_{{\\varepsilon \\to 0^+}} f(\\varepsilon) = 1"

eps = sp.Symbol("epsilon", positive=True)
f = sp.Function("f")  # TODO: the paper's expression


def derivation():
    # role="statement": the claimed limit itself; role="proof": a step of the paper's argument.
    # With f undefined SymPy cannot decide the limit, so the claim is inconclusive until it is.
    return [symbolic.holds("the claimed limit", sp.Le(sp.Abs(f(eps) - 1), eps), role="statement")]


def grid(ctx):
    """Values of ε approaching 0 over at least three decades. TODO: the sweep."""
    import numpy as np

    return np.logspace(-6, -2, 5)


def gap(ctx, grid):
    """|f(ε) − 1| at each grid value. TODO: measure it on the operators (placeholder: ε)."""
    import numpy as np

    return np.asarray(grid, dtype=float)


CLAIMS = (Claim(
    id="{cid}", label="{label}", section="§TODO", statement=STATEMENT,
    reading="TODO: the precise proposition tested: which quantity, which family, which variable",
    reading_why="TODO: why this is the primary reading",
    kind=Kind.LIMIT,
    derivation=derivation,
    # TODO: add controls=(control("a wrong limit value", gap=...),) that must fail;
    # without a failing control this check cannot carry a confirmation.
    checks=(Limit(name="{check}", quantity="f(ε)", variable="ε", value="1", point="0", rate=1.0,
                  grid=grid, gap=gap, family="TODO: which instances",
                  tolerance=tolerances.Systematic(0.05, "TODO: the rate fit's systematic error")),),
),)
'''

BUILTIN_TEST_TEMPLATE = '''\
"""{cid}: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from attnaudit.claims.{paper_mod} import {claim_mod} as spec


def test_{func}_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
'''

PACK_TEST_TEMPLATE = '''\
"""{cid}: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from pathlib import Path

from attnaudit.checks.discovery import discover
from attnaudit.checks.runner import run_claim

PAPER = Path(__file__).resolve().parents[1] / "{paper_mod}"


def test_{func}_runs():
    cat = discover(folders=(PAPER,), entry_points=False)
    claim = next(c for c in cat.claims if c.id == "{cid}")
    record, _ = run_claim(claim, seed=0, profile="quick", device="cpu")
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
'''


class ScaffoldError(Exception):
    """A name that cannot be a claim, or a file that already exists (message is one line)."""


def _mod(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "_", name)


def write_claim(paper: str, claim: str, kind: str, *, claims: Path | None = None,
                tests: Path | None = None) -> list[Path]:
    """Write the claim module (and the paper's ``__init__`` when new) and a test; the paths."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", paper):
        raise ScaffoldError(f"paper key {paper!r} must be lower-case words joined by '-'")
    if not re.fullmatch(r"[a-z][a-z0-9.-]*", claim):
        raise ScaffoldError(f"claim id {claim!r} must be lower-case, e.g. lemma-3.1")
    if kind not in KINDS:
        raise ScaffoldError(f"kind {kind!r}: the scaffold knows {', '.join(KINDS)}")
    root = Path("claims") if claims is None else Path(claims)
    tests = (Path("tests/claims") if claims is None else root / "tests") if tests is None else tests
    paper_mod, claim_mod = _mod(paper), _mod(claim)
    module = root / paper_mod / f"{claim_mod}.py"
    test = tests / f"test_{paper_mod}_{claim_mod}.py"
    for path in (module, test):
        if path.exists():
            raise ScaffoldError(f"{path} exists; 'attnaudit new' never overwrites a file")
    cid = f"{paper}/{claim}"
    rel, verb = _REL[kind]
    fields = dict(key=paper, cid=cid, label=claim.replace("-", " ").capitalize(), rel=rel,
                  rel_tex={"==": "=", "<=": r"\le", "": "", "lim": ""}[rel],
                  kind_enum=kind.upper().replace("-CONSISTENCY", ""),
                  sympy_rel={"==": "sp.Eq", "<=": "sp.Le", "": "", "lim": ""}[rel],
                  check={"": "f-vs-n", "lim": "gap-closes"}.get(rel, f"lhs-{verb.split()[0]}-rhs"),
                  paper_mod=paper_mod, claim_mod=claim_mod, func=f"{paper_mod}_{claim_mod}")
    written = []
    init = root / paper_mod / "__init__.py"
    if not init.exists():
        init.parent.mkdir(parents=True, exist_ok=True)
        init.write_text(PAPER_TEMPLATE.format(**fields))
        written.append(init)
    template = {"": ASYMPTOTIC_TEMPLATE, "lim": LIMIT_TEMPLATE}.get(rel, CLAIM_TEMPLATE)
    module.write_text(template.format(**fields))
    written.append(module)
    test.parent.mkdir(parents=True, exist_ok=True)
    template = BUILTIN_TEST_TEMPLATE if claims is None else PACK_TEST_TEMPLATE
    test.write_text(textwrap.dedent(template).format(**fields))
    written.append(test)
    return written
