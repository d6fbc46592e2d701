"""Derivation steps: the paper's expression beside the one SymPy derives, compared exactly.

Each helper returns a :class:`Step` recording both expressions (as text and LaTeX), the method of
comparison and whether they agree. A derivation is a function returning a list of steps; the
first step that disagrees is the finding.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

METHODS = ("exact", "series", "limit", "leading-order", "holds")


@dataclass(frozen=True)
class Step:
    name: str
    method: str
    paper: str
    derived: str
    paper_latex: str
    derived_latex: str
    agrees: bool
    note: str = ""

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "method": self.method,
            "paper": self.paper,
            "derived": self.derived,
            "paper_latex": self.paper_latex,
            "derived_latex": self.derived_latex,
            "agrees": self.agrees,
            "note": self.note,
        }


def _step(name, method, paper, derived, agrees, note) -> Step:
    if method not in METHODS:
        raise ValueError(f"unknown step method {method!r}")
    return Step(
        name=name,
        method=method,
        paper=sp.sstr(paper),
        derived=sp.sstr(derived),
        paper_latex=sp.latex(paper),
        derived_latex=sp.latex(derived),
        agrees=bool(agrees),
        note=note,
    )


def is_zero(expr: sp.Expr) -> bool:
    """True only when SymPy proves ``expr == 0``; an undecided simplification counts as no."""
    simplified = sp.simplify(sp.together(sp.expand(expr)))
    if simplified == 0:
        return True
    return sp.simplify(sp.factor(sp.cancel(simplified))) == 0


def exact(name: str, paper: sp.Expr, derived: sp.Expr, note: str = "") -> Step:
    """The paper's expression equals the derived one identically (``simplify(a − b) == 0``)."""
    return _step(name, "exact", paper, derived, is_zero(sp.sympify(paper) - sp.sympify(derived)), note)


def holds(name: str, statement: sp.Basic, derived_truth: sp.Basic, note: str = "") -> Step:
    """A relational statement the proof makes (e.g. an inequality's direction), decided by SymPy.

    ``derived_truth`` is what SymPy reduces the statement to under the stated assumptions; the step
    agrees only when that is ``sympy.true``.
    """
    return _step(name, "holds", statement, derived_truth, derived_truth is sp.true, note)


def series(
    name: str, paper: sp.Expr, derived: sp.Expr, var: sp.Symbol, point, order: int, note: str = ""
) -> Step:
    """Series coefficients of both expressions about ``var = point`` agree up to ``var**(order-1)``."""
    a = sp.series(sp.sympify(paper), var, point, order).removeO()
    b = sp.series(sp.sympify(derived), var, point, order).removeO()
    return _step(name, "series", a, b, is_zero(sp.expand(a - b)), note)


def limit(
    name: str, expr: sp.Expr, var: sp.Symbol, point, paper_value: sp.Expr, direction: str = "+",
    note: str = "",
) -> Step:
    """``lim_{var → point} expr`` equals the paper's value."""
    value = sp.limit(expr, var, point, dir=direction)
    return _step(name, "limit", paper_value, value, is_zero(sp.sympify(paper_value) - value), note)


def leading_term(expr: sp.Expr, var: sp.Symbol, point=sp.oo) -> sp.Expr:
    """The leading term of ``expr`` as ``var → point`` (``oo`` or a finite point)."""
    if point in (sp.oo, -sp.oo):
        t = sp.Dummy("t", positive=True)
        sign = 1 if point == sp.oo else -1
        lead = sp.sympify(expr).subs(var, sign / t).as_leading_term(t)
        return sp.simplify(lead.subs(t, sign / var))
    return sp.simplify(sp.sympify(expr).as_leading_term(var) if point == 0 else
                       sp.sympify(expr).subs(var, var + point).as_leading_term(var).subs(var, var - point))


def leading_order(
    name: str, expr: sp.Expr, var: sp.Symbol, paper_order: sp.Expr, point=sp.oo,
    up_to_constant: bool = True, note: str = "",
) -> Step:
    """``expr`` is of the paper's order as ``var → point``: ``expr / paper_order`` tends to a finite
    non-zero constant (``up_to_constant``, for Θ statements) or to exactly 1 (for asymptotic
    equalities ``~``). The derived column shows SymPy's leading term of ``expr``."""
    ratio = sp.limit(sp.sympify(expr) / paper_order, var, point)
    if up_to_constant:
        agrees = ratio.is_finite is True and ratio.is_zero is False
    else:
        agrees = is_zero(ratio - 1)
    return _step(name, "leading-order", paper_order, leading_term(expr, var, point), agrees, note)
