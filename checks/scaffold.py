"""``attnaudit new``: a claim module and its test, written from a template.

The module follows the claim model of docs/writing-a-claim.md: the statement quoted clause by
clause (``Clause``), the paper's argument quoted step by step (``ProofStep``; the proof item that
checks a step names it with ``step=``), one check naming the clause it decides, and a negative
control with a declared contrast. It imports torch (and may import ``attnaudit.operators``) at
module level: discovery defers both, so listing the catalogue loads neither. The engine runs the
claim on one torch thread and derives every seed from the run's; a spec sets neither.

The module runs at once and reads ``inconclusive``, never ``confirmed``: its statement step is a
relation SymPy cannot decide (an undefined function stands for the paper's expression), so the
summary names it as what would decide the claim; its proof step is undecided too (proof
``incomplete``); and its control is a placeholder that compares the check with itself, which
cannot fail, so the check cannot back a confirmation until the author writes a real contrast.
Filling in the placeholders is the author's work. Existing files are never overwritten.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    from attnaudit.checks.discovery import Catalogue

KINDS = ("identity", "inequality", "asymptotic", "limit", "complexity", "construction", "conjecture",
         "definition-consistency")
# The shape of the one check each kind starts with: a Relation (==, <=), a ScalingLaw ("") or a
# Limit ("lim").
_REL = {"identity": ("==", "equals"), "inequality": ("<=", "is at most"),
        "asymptotic": ("", "grows"), "limit": ("lim", "tends"), "complexity": ("", "grows"),
        "construction": ("==", "equals"), "conjecture": ("==", "equals"),
        "definition-consistency": ("==", "equals")}

PAPER_TEMPLATE = '''\
"""{key}: TITLE OF THE PAPER (replace).

Source text: papers/{key}.txt
(in a pack, under the pack folder's papers/: the pack's test finds every quote in it).
"""

from attnaudit import Paper

PAPER = Paper(key="{key}", title="TITLE OF THE PAPER", authors=("AUTHOR",),
              arxiv=None, source_file="papers/{key}.txt")
'''

# What every template shares: the quoted statement and argument, and how a spec imports.
_HEAD = '''\
"""{label} of {key}.

Written by 'attnaudit new': replace every TODO (docs/writing-a-claim.md says how).
"""

from __future__ import annotations

# torch (and the operators: 'from attnaudit import operators', then operators.<name>(...)) import
# at module level: discovery defers both until a check runs, so listing the catalogue loads
# neither. Not 'from attnaudit.operators.x import y' or 'from torch.func import vmap' at module
# level: each loads torch as soon as the catalogue is listed (write torch.func.vmap(...)).
{imports}
# TODO: the statement exactly as the paper gives it, in LaTeX (printed beside the reading tested).
STATEMENT = r"{statement_tex}"

# The statement clause by clause, each quoted verbatim from the source text. The primary reading is
# the conjunction of every clause, "in particular" and "hence" clauses inside the statement
# included; each statement item names the clause it decides (clause=). A clause undefined as
# written: Clause(id, quote, undefined="what it would have to state") reads unverifiable.
CLAUSES = (Clause("main", "TODO: quote the clause verbatim"),)
{proof_block}'''

_PROOF_STEPS = '''
# The paper's own argument, step by step, quoted verbatim in the order the steps stand in the
# source; a proof item (role="proof") names the step it checks (step=). Steps the suite adds to
# make the argument checkable are role="derivation": shown, never making the proof sound.
PROOF = (ProofStep("step-1", "TODO: quote the first step of the paper's proof verbatim"),)
'''

_NO_PROOF = '''
# A conjecture: the source gives no argument (proof_absent below says so).
'''

_CLAIM_FIELDS = '''\
    id="{cid}", label="{label}", section="§TODO",
    statement=STATEMENT, clauses=CLAUSES, {proof_field}
    reading="TODO: the precise proposition tested: which quantity, which family, which variable, "
            "with its hypotheses and quantifiers",
    reading_why="TODO: why this is the primary reading (the literal statement, or, where the text "
                "is ambiguous, the setting of the paper's own proof)",
    kind="{kind}",
    derivation=derivation,
    # identity="why": the statement holds by construction of the operator (the confirmation is
    # counted as an identity, apart from empirical ones). proof_gap="what": the quoted steps do not
    # reach the conclusion (the proof reads incomplete).'''

CLAIM_TEMPLATE = _HEAD + '''
# TODO: the error model behind the tolerance, in words, from the operations actually performed.
TOL = tolerances.Roundoff(condition="1: TODO the condition number of evaluating both sides")

x = sp.Symbol("x", real=True)
f, g, h = sp.Function("f"), sp.Function("g"), sp.Function("h")  # TODO: the paper's expressions


def derivation():
    # role="statement" decides a clause; role="proof" checks a quoted step; role="vacuity" shows a
    # clause holds for every operator of its kind (it then reads inconclusive, "vacuous"). With
    # f, g, h undefined SymPy decides nothing: the claim reads inconclusive until they are written.
    return [{proof_item}
        symbolic.holds("the claimed relation", {sympy_rel}(f(x), g(x)), role="statement",
                       clause="main"),
    ]


def sample(ctx, gen):
    """Standard normal x (TODO: the family the statement quantifies over, in words)."""
    # gen is seeded by the engine; ctx.pick sizes the batch per profile (both reach one verdict).
    yield {{"x": torch.randn(ctx.pick(quick=1000, full=20000), generator=gen, dtype=ctx.dtype,
                            device=ctx.device)}}


def evaluate(case):
    """(lhs, rhs, tol): both sides per case, shape (batch,); tol a scalar or one per case.
    TODO: evaluate both sides on the operators."""
    t = case["x"]
    lhs = torch.zeros_like(t)  # TODO: f(x)
    rhs = torch.zeros_like(t)  # TODO: g(x)
    return lhs, rhs, TOL(dtype=t.dtype)


def contrast(case):
    """TODO: the same two sides for another operator of the same kind for which the relation fails
    (contrast="operator"), or with one named hypothesis broken (contrast="hypothesis",
    hypothesis="which one"). Until then it is the check itself, which cannot fail: the control
    passes and the check cannot back a confirmation."""
    return evaluate(case)


CLAIMS = (Claim(
''' + _CLAIM_FIELDS + '''
    checks=(Relation(name="{check}", lhs="f(x)", rel="{rel}", rhs="g(x)", evaluate=evaluate,
                     sample=sample, sampler=sample.__doc__, tolerance=TOL, clause="main",
                     controls=(control("TODO: what is swapped in", contrast="operator",
                                       evaluate=contrast),)),),
),)
'''

ASYMPTOTIC_TEMPLATE = _HEAD + '''
n = sp.Symbol("n", positive=True)
f, h = sp.Function("f"), sp.Function("h")  # TODO: the paper's expressions

GRID = np.logspace(1, 4, 7)  # TODO: n over at least three decades (7 points: two local fits)


def leading(n):
    """TODO: the paper's closed form for f(n) (placeholder: n²)."""
    return n**2


# The exponent tolerance: the bias that the closed form's own pre-asymptotic curvature puts into a
# power fit on GRID (computed when the check first runs). A hand-set tolerances.Systematic that
# alone decides a confirmation leaves it inconclusive.
TOL = tolerances.FitBias(lambda: closed_form_bias(GRID, leading(GRID), 2.0),
                         "TODO: which closed form, on GRID")


def derivation():
    # role="statement": the claimed order itself; role="proof": a quoted step of the argument.
    # With f, h undefined SymPy decides nothing: the claim reads inconclusive until they are
    # written out.
    return [{proof_item}
        symbolic.holds("the claimed order", sp.Le(f(n), n**2), role="statement", clause="main"),
    ]


def grid(ctx):
    """The values of n (TODO: sizes per profile with ctx.pick(quick=..., full=...))."""
    return GRID


def measure(ctx, grid):
    """f(n) at each grid value: one draw. TODO: measure it on the operators (placeholder: n²).
    Random draws come from ctx only (ctx.generator(tag), ctx.numpy_rng(tag), ctx.case_seeds(tag,
    k)); with replicates=R the engine calls measure(ctx.replicate(r), grid) for r < R and takes
    the error bars from those draws: a measure never returns its own."""
    return torch.as_tensor(grid, dtype=ctx.dtype) ** 2


def contrast(ctx, grid):
    """TODO: f(n) for another operator of the same kind, or with one hypothesis broken, for which
    the order fails. Until then it is the measurement itself, which cannot fail: the control
    passes and the law cannot back a confirmation."""
    return measure(ctx, grid)


CLAIMS = (Claim(
''' + _CLAIM_FIELDS + '''
    # order: "Θ", "O" or "Ω" (a bound is tested one-sided), "unbounded" or "subpolynomial";
    # law: "power", "exponential" or "polylog". The predicted text is generated from them.
    checks=(ScalingLaw(name="{check}", quantity="f(n)", variable="n", exponent=2.0, order="Θ",
                       grid=grid, measure=measure, replicates=1, tolerance=TOL, clause="main",
                       family="TODO: typical or worst case, and which instances",
                       controls=(control("TODO: what is swapped in", contrast="operator",
                                         measure=contrast),)),),
),)
'''

LIMIT_TEMPLATE = _HEAD + '''
eps = sp.Symbol("epsilon", positive=True)
f, h = sp.Function("f"), sp.Function("h")  # TODO: the paper's expressions

GRID = np.logspace(-6, -2, 5)  # TODO: ε approaching 0 over at least three decades


def leading_gap(e):
    """TODO: the closed form of |f(ε) − 1| to leading order (placeholder: ε)."""
    return e


# The rate tolerance: the bias the closed form's curvature puts into the rate fit on GRID.
TOL = tolerances.FitBias(lambda: closed_form_bias(GRID, leading_gap(GRID), 1.0),
                         "TODO: which closed form, on GRID")


def derivation():
    # role="statement": the claimed limit itself; role="proof": a quoted step of the argument.
    # With f, h undefined SymPy decides nothing: the claim reads inconclusive until they are
    # written out.
    return [{proof_item}
        symbolic.holds("the claimed limit", sp.Le(sp.Abs(f(eps) - 1), eps), role="statement",
                       clause="main"),
    ]


def grid(ctx):
    """The values of ε (TODO: per profile with ctx.pick(quick=..., full=...))."""
    return GRID


def gap(ctx, grid):
    """|f(ε) − 1| at each grid value: one draw. TODO: measure it on the operators (placeholder:
    ε). Random draws come from ctx only; replicates=R makes the engine draw R of them."""
    return torch.as_tensor(grid, dtype=ctx.dtype)


def contrast(ctx, grid):
    """TODO: the gap for another operator, or one hypothesis broken, for which the limit fails
    (or control("a wrong limit value", value=...) moves the prediction). Until then it is the
    gap itself, which cannot fail: the control passes and cannot back a confirmation."""
    return gap(ctx, grid)


CLAIMS = (Claim(
''' + _CLAIM_FIELDS + '''
    checks=(Limit(name="{check}", quantity="f(ε)", variable="ε", value="1", point="0", rate=1.0,
                  grid=grid, gap=gap, replicates=1, tolerance=TOL, clause="main",
                  family="TODO: which instances",
                  controls=(control("TODO: what is swapped in", contrast="operator",
                                    gap=contrast),)),),
),)
'''

_IMPORTS = {
    "relation": "import sympy as sp\nimport torch\n\n"
                "from attnaudit import Claim, Clause, {proof_import}Relation, control, symbolic, "
                "tolerances\n",
    "scaling": "import numpy as np\nimport sympy as sp\nimport torch\n\n"
               "from attnaudit import Claim, Clause, {proof_import}ScalingLaw, control, symbolic, "
               "tolerances\nfrom attnaudit.checks.fitting import closed_form_bias\n",
    "limit": "import numpy as np\nimport sympy as sp\nimport torch\n\n"
             "from attnaudit import Claim, Clause, Limit, {proof_import}control, symbolic, "
             "tolerances\nfrom attnaudit.checks.fitting import closed_form_bias\n",
}

BUILTIN_TEST_TEMPLATE = '''\
"""{cid}: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from attnaudit.claims.{paper_mod} import {claim_mod} as spec


def test_{func}_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
'''

# A pack claim's test, written by 'attnaudit new' and 'attnaudit init' (checks.paper_pack): the
# header and what a missing source text means are theirs; the rest is one text.
PACK_TEST_HEADER = """{cid}: written by 'attnaudit new'.

State the verdict you expect once the claim is written. Run with pytest (an environment with
only attnaudit needs pip install 'attnaudit[test]'). Only this pack's claims are loaded."""
NO_SOURCE_SKIPS = '''    if text is None:
        pytest.skip(f"no source text: put the paper's text at {PACK / 'papers'}/")'''
PACK_TEST_TEMPLATE = '''\
"""{header}
"""

from functools import cache
from pathlib import Path

import pytest

from attnaudit.checks.context import Context
from attnaudit.checks.mutation import mutate_claim
from attnaudit.checks.quotes import position, source_text
from attnaudit.checks.runner import run_claim
from attnaudit.checks.scaffold import discover_pack

PACK = Path(__file__).resolve().parents[1]
CLAIM_ID = "{cid}"


@cache
def _loaded():
    cat = discover_pack(PACK / "{paper_mod}")  # this paper alone: no other claim is imported
    assert not cat.errors, [f"{{e.file}}: {{e.reason}}" for e in cat.errors]
    claim = next(c for c in cat.claims if c.id == CLAIM_ID)
    ctx = Context(claim.id, seed=0, profile="quick", device="cpu", dtype_name=claim.dtype)
    record, _ = run_claim(claim, seed=0, profile="quick", device="cpu", context=ctx)
    return claim, cat.papers[claim.paper], record, ctx


def test_{func}_runs():
    _, _, record, _ = _loaded()
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict


def test_{func}_quotes_stand_in_the_source():
    claim, paper, _, _ = _loaded()
    text = source_text(paper.source_file, PACK / "papers")
{no_source}
    quotes = [("clause", c.id, c.quote) for c in claim.clauses]
    quotes += [("proof step", s.id, s.quote) for s in claim.proof_steps]
    quotes += [("use", u.claim, u.quote) for u in claim.uses]
    missing = [f"{{kind}} {{qid}}" for kind, qid, q in quotes if position(text, q) is None]
    assert not missing, f"quotes not found in the source: {{missing}}"
    at = [position(text, s.quote) for s in claim.proof_steps]
    assert at == sorted(at), "proof steps are listed out of the source's order"


def test_{func}_every_check_can_fail():
    """The engine's mutation test ('attnaudit mutate {cid} --claims PACK' runs the same): each
    check with its prediction moved flips its outcome (an agreeing check then disagrees; a
    disagreeing one agrees once moved to what it measured), and a statement check's verdict holds
    with its tolerance times 10 (the measurement decides, not the tolerance)."""
    claim, _, record, ctx = _loaded()
    failures = [o.detail for o in mutate_claim(claim, record, ctx) if o.passed is False]
    assert not failures, failures
'''


def discover_pack(folder: str | Path) -> Catalogue:
    """The claims of the pack folder ``folder`` alone (what a pack's own tests load): neither the
    built-in claims nor installed packs are imported, unlike ``discover(folders=...)``, which
    loads the built-in catalogue beside them."""
    from attnaudit.checks.discovery import NO_BUILTIN, discover

    # discover() replaces the built-in package by the one it is given; this one holds no paper.
    return discover(NO_BUILTIN, folders=(Path(folder),), entry_points=False)

_REL_TEX = {"==": "=", "<=": r"\le"}


class ScaffoldError(Exception):
    """A name that cannot be a claim, or a file that already exists (message is one line)."""


def _mod(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "_", name)


def write_claim(paper: str, claim: str, kind: str, *, claims: Path | None = None,
                tests: Path | None = None) -> list[Path]:
    """Write the claim module (and the paper's ``__init__`` when new) and a test; the paths."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", paper):
        raise ScaffoldError(f"paper key {paper!r} must be lower-case words joined by '-'")
    if claim.startswith(f"{paper}/"):
        raise ScaffoldError(f"claim id {claim!r}: give the name within the paper without the "
                            f"'{paper}/' prefix (the id becomes {claim})")
    if "/" in claim:
        raise ScaffoldError(f"claim id {claim!r}: '/' separates the paper key from the name; give "
                            "the name within the paper alone, e.g. lemma-3.1")
    if not re.fullmatch(r"[a-z][a-z0-9.-]*", claim):
        raise ScaffoldError(f"claim id {claim!r} must be lower-case, e.g. lemma-3.1")
    if kind not in KINDS:
        raise ScaffoldError(f"kind {kind!r}: the scaffold knows {', '.join(KINDS)}")
    root = Path("claims") if claims is None else Path(claims)
    tests = (Path("tests/claims") if claims is None else root / "tests") if tests is None else tests
    paper_mod, claim_mod = _mod(paper), _mod(claim)
    module = root / paper_mod / f"{claim_mod}.py"
    # built-in claims' tests live in tests/claims/<paper>/; a pack's beside each other in PATH/tests
    test = (tests / paper_mod / f"test_{claim_mod}.py" if claims is None
            else tests / f"test_{paper_mod}_{claim_mod}.py")
    for path in (module, test):
        if path.exists():
            raise ScaffoldError(f"{path} exists; 'attnaudit new' never overwrites a file")
    cid = f"{paper}/{claim}"
    rel, verb = _REL[kind]
    shape = {"": "scaling", "lim": "limit"}.get(rel, "relation")
    var = {"relation": "x", "scaling": "n", "limit": "eps"}[shape]
    proof = kind != "conjecture"
    fields = dict(key=paper, cid=cid, label=claim.replace("-", " ").capitalize(), rel=rel, kind=kind,
                  statement_tex={"relation": rf"f(x) {_REL_TEX.get(rel, '')} g(x) \text{{ for all real }} x",
                                 "scaling": r"f(n) = \Theta(n^2)",
                                 "limit": r"\lim_{\varepsilon \to 0^+} f(\varepsilon) = 1"}[shape],
                  imports=_IMPORTS[shape].format(proof_import="ProofStep, " if proof else ""),
                  proof_block=_PROOF_STEPS if proof else _NO_PROOF,
                  proof_field=("proof_steps=PROOF," if proof else
                               'proof_absent="a conjecture: the source gives no argument",'),
                  proof_item=(f'\n        symbolic.holds("the paper\'s first step", '
                              f'sp.Eq(f({var}), h({var})),\n                       role="proof", '
                              'step="step-1"),' if proof else ""),
                  sympy_rel={"==": "sp.Eq", "<=": "sp.Le", "": "", "lim": ""}[rel],
                  check={"": "f-vs-n", "lim": "gap-closes"}.get(rel, f"lhs-{verb.split()[0]}-rhs"),
                  paper_mod=paper_mod, claim_mod=claim_mod, func=f"{paper_mod}_{claim_mod}")
    written = []
    init = root / paper_mod / "__init__.py"
    if not init.exists():
        init.parent.mkdir(parents=True, exist_ok=True)
        init.write_text(PAPER_TEMPLATE.format(**fields))
        written.append(init)
    template = {"scaling": ASYMPTOTIC_TEMPLATE, "limit": LIMIT_TEMPLATE}.get(shape, CLAIM_TEMPLATE)
    module.write_text(template.format(**fields))
    written.append(module)
    test.parent.mkdir(parents=True, exist_ok=True)
    template = BUILTIN_TEST_TEMPLATE if claims is None else PACK_TEST_TEMPLATE
    test.write_text(textwrap.dedent(template).format(
        **fields, header=PACK_TEST_HEADER.format(cid=cid), no_source=NO_SOURCE_SKIPS))
    written.append(test)
    return written
