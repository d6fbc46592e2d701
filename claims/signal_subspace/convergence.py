"""Convergence of signal-subspace (written by 'attnaudit new'; replace every TODO)."""

from __future__ import annotations

import sympy as sp

from checks import Claim, Kind, Limit, symbolic, tolerances

# TODO: the statement exactly as the paper gives it, in LaTeX.
STATEMENT = r"\lim_{\varepsilon \to 0^+} f(\varepsilon) = 1"

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
    id="signal-subspace/convergence", label="Convergence", section="§TODO", statement=STATEMENT,
    reading="TODO: the precise proposition tested: which quantity, which family, which variable",
    reading_why="TODO: why this is the primary reading",
    kind=Kind.LIMIT,
    derivation=derivation,
    # TODO: add controls=(control("a wrong limit value", gap=...),) that must fail;
    # without a failing control this check cannot carry a confirmation.
    checks=(Limit(name="gap-closes", quantity="f(ε)", variable="ε", value="1", point="0", rate=1.0,
                  grid=grid, gap=gap, family="TODO: which instances",
                  tolerance=tolerances.Systematic(0.05, "TODO: the rate fit's systematic error")),),
),)
