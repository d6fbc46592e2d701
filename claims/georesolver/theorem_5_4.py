"""Theorem 5.4 of georesolver (written by 'attnaudit new'; replace every TODO)."""

from __future__ import annotations

import sympy as sp

from checks import Claim, Kind, ScalingLaw, symbolic, tolerances

# TODO: the statement exactly as the paper gives it, in LaTeX.
STATEMENT = r"f(n) = \Theta(n^2)"

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
    id="georesolver/theorem-5.4", label="Theorem 5.4", section="§TODO", statement=STATEMENT,
    reading="TODO: the precise proposition tested: which quantity, which family, which variable",
    reading_why="TODO: why this is the primary reading",
    kind=Kind.COMPLEXITY,
    derivation=derivation,
    # TODO: add controls=(control("the exponent moved", exponent=...),) that must fail;
    # without a failing control this check cannot carry a confirmation.
    checks=(ScalingLaw(name="f-vs-n", quantity="f(n)", variable="n", exponent=2.0, order="Θ",
                       grid=grid, measure=measure, predicted="Θ(n²)",
                       family="TODO: typical or worst case, and which instances",
                       tolerance=tolerances.Systematic(0.05, "TODO: the fit's systematic error")),),
),)
