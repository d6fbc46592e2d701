"""Construction of icl-nonlinear (written by 'attnaudit new'; replace every TODO)."""

from __future__ import annotations

import sympy as sp

from checks import Claim, Kind, Relation, symbolic, tolerances

# TODO: the statement exactly as the paper gives it, in LaTeX.
STATEMENT = r"f(x) = g(x) \text{ for all real } x"

# TODO: the error model behind the tolerance, in words, from the operations actually performed.
TOL = tolerances.Roundoff(condition="1: TODO the condition number of evaluating both sides")

x = sp.Symbol("x", real=True)
f, g = sp.Function("f"), sp.Function("g")  # TODO: the paper's expressions


def derivation():
    # Each step names its role: "statement" (the claimed relation itself) or "proof" (an
    # intermediate result the paper's argument states). With f and g undefined SymPy cannot decide
    # the relation, so the step is undecided and the claim inconclusive until they are written out.
    return [symbolic.holds("the claimed relation", sp.Eq(f(x), g(x)), role="statement")]


def evaluate(case):
    """(lhs, rhs, tol) per case. TODO: evaluate both sides on the operators."""
    import torch  # inside the function: importing a spec runs nothing and loads no torch

    t = case["x"]
    lhs = torch.zeros_like(t)  # TODO: f(x)
    rhs = torch.zeros_like(t)  # TODO: g(x)
    return lhs, rhs, torch.full_like(t, TOL(dtype=t.dtype))


def sample(ctx, gen):
    import torch

    yield {"x": torch.randn(1000, generator=gen, dtype=ctx.dtype)}


CLAIMS = (Claim(
    id="icl-nonlinear/construction", label="Construction", section="§TODO", statement=STATEMENT,
    reading="TODO: the precise proposition tested, with its hypotheses and quantifiers",
    reading_why="TODO: why this is the primary reading (the literal statement, or the setting "
                "of the paper's own proof)",
    kind=Kind.CONSTRUCTION,
    derivation=derivation,
    # TODO: add controls=(control("what is changed", evaluate=...),) for which the relation fails;
    # without a failing control this check cannot carry a confirmation.
    checks=(Relation(name="lhs-equals-rhs", lhs="f(x)", rel="==", rhs="g(x)", evaluate=evaluate,
                     sample=sample, tolerance=TOL, sampler="standard normal x"),),
),)
