"""Derivation steps: the paper's expression beside the one SymPy derives, with three outcomes.

Each helper returns a :class:`Step` with a ``status``: ``agrees`` (SymPy proves it), ``disagrees``
(SymPy, or an exact evaluation at a rational point, proves it false) or ``undecided`` (SymPy
cannot tell). Undecided is never read as false: an undecided statement step leaves the verdict to
the numerics (or makes it inconclusive), an undecided proof step makes the proof incomplete.

Every step declares its ``role``: ``statement`` (the claimed relation itself) or ``proof`` (an
intermediate result of the paper's argument), and optionally the alternative ``reading`` it
belongs to. This module holds the engine's one set of sign, zero, leading-order and Θ helpers;
specs do not decide signs themselves.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, replace

import sympy as sp

from attnaudit.checks.model import ROLES

METHODS = ("exact", "series", "limit", "leading-order", "holds", "supremum", "infimum")
STATUSES = ("agrees", "disagrees", "undecided")


@dataclass(frozen=True)
class Step:
    name: str
    method: str
    paper: str
    derived: str
    paper_latex: str
    derived_latex: str
    status: str
    role: str
    reading: str | None = None
    note: str = ""
    clause: str | None = None  # the statement clause a statement (or vacuity) step decides
    step: str | None = None  # the quoted step of the paper's argument a proof step checks

    @property
    def agrees(self) -> bool:
        return self.status == "agrees"

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "role": self.role,
            "reading": self.reading,
            "method": self.method,
            "paper": self.paper,
            "derived": self.derived,
            "paper_latex": self.paper_latex,
            "derived_latex": self.derived_latex,
            "status": self.status,
            "agrees": self.status == "agrees",
            "note": self.note,
            "clause": self.clause,
            "step": self.step,
        }


def tri(value) -> str:
    """``True``/``False``/``None`` (SymPy's fuzzy logic) → agrees/disagrees/undecided."""
    if value is True or value is sp.true:
        return "agrees"
    if value is False or value is sp.false:
        return "disagrees"
    return "undecided"


def _step(name, method, paper, derived, status, role, reading, note) -> Step:
    if method not in METHODS:
        raise ValueError(f"unknown step method {method!r}")
    if role not in ROLES:
        raise ValueError(f"step {name!r}: role must be one of {', '.join(ROLES)}, not {role!r}")
    if status not in STATUSES:
        raise ValueError(f"step {name!r}: status {status!r}")
    return Step(name=name, method=method, paper=sp.sstr(paper), derived=sp.sstr(derived),
                paper_latex=sp.latex(paper), derived_latex=sp.latex(derived), status=status,
                role=role, reading=reading, note=note)


# ── deciding: zero, sign, relations ─────────────────────────────────────────────────────────

_PROBES = 6  # rational points at which a non-identity is looked for after simplify gives up


def _numeric_nonzero(expr: sp.Expr) -> bool:
    """True when ``expr`` is provably non-zero at some admissible rational point (exact arithmetic).

    Free symbols get small positive rationals (which satisfy positive/real/nonnegative
    assumptions); a point where the expression is undefined is skipped. Seeded by the expression's
    text, so the outcome never depends on the run.
    """
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    if any(s.is_integer or s.is_negative or s.is_nonpositive for s in symbols):
        return False  # assumptions a positive rational need not satisfy: decide nothing
    rng = random.Random(sp.srepr(expr))
    for _ in range(_PROBES):
        point = {s: sp.Rational(rng.randint(1, 97), rng.randint(1, 13)) for s in symbols}
        try:
            value = sp.nsimplify(expr.subs(point)) if symbols else expr
            value = sp.simplify(value)
        except (ZeroDivisionError, ValueError, TypeError):
            continue
        if value.is_zero is False and value.is_finite is True:
            return True
    return False


def zero_status(expr: sp.Expr) -> str:
    """Is ``expr`` identically zero? agrees (proved), disagrees (non-zero somewhere), undecided."""
    expr = sp.sympify(expr)
    simplified = sp.simplify(sp.together(sp.expand(expr)))
    if simplified == 0 or sp.simplify(sp.factor(sp.cancel(simplified))) == 0:
        return "agrees"
    if simplified.is_zero is False or _numeric_nonzero(simplified):
        return "disagrees"
    return "undecided"


def is_zero(expr: sp.Expr) -> bool:
    """True only when SymPy proves ``expr == 0`` (for specs' own branching, not for verdicts)."""
    return zero_status(expr) == "agrees"


def sign(expr: sp.Expr) -> int | None:
    """+1, 0 or −1 when SymPy can prove the sign under the symbols' assumptions; None otherwise."""
    e = sp.simplify(sp.sympify(expr))
    if e.is_zero is True:
        return 0
    if e.is_positive is True:
        return 1
    if e.is_negative is True:
        return -1
    return None


def _weakly(expr: sp.Expr, prop: str) -> bool:
    """True when SymPy proves ``prop`` (``is_nonnegative``...) of ``expr`` or of its factored form."""
    return any(getattr(e, prop) is True for e in (expr, sp.factor(expr)))


def relation_status(relation: sp.Basic) -> str:
    """A SymPy relational (``a <= b``, ``Eq``...) under the symbols' assumptions, three-valued.

    Decided from the sign of ``b − a`` (or by SymPy's own evaluation); undecided otherwise.
    """
    if relation in (sp.true, True):
        return "agrees"
    if relation in (sp.false, False):
        return "disagrees"
    if not isinstance(relation, sp.core.relational.Relational):
        raise TypeError(f"not a relation: {relation!r}")
    diff = sp.simplify(relation.rhs - relation.lhs)
    s = sign(diff)
    op = relation.rel_op
    if s is None:
        if op in ("==",):
            return zero_status(diff)
        # No strict sign, but perhaps a weak one (−(a−b)² ≤ 0 has no sign SymPy can prove
        # strictly): a non-strict relation then holds, a strict one in the other direction fails.
        weak = {"<=": ("agrees", "is_nonnegative"), ">=": ("agrees", "is_nonpositive"),
                "<": ("disagrees", "is_nonpositive"), ">": ("disagrees", "is_nonnegative")}
        if op in weak and _weakly(diff, weak[op][1]):
            return weak[op][0]
        return "undecided"
    table = {"<=": s >= 0, "<": s > 0, ">=": s <= 0, ">": s < 0, "==": s == 0, "!=": s != 0}
    return "agrees" if table[op] else "disagrees"


def _tagged(fn):
    """Every step helper takes ``clause=`` (the clause a statement step decides) and ``step=`` (the
    quoted proof step a proof step checks), beside its own arguments."""

    @functools.wraps(fn)
    def helper(*args, clause: str | None = None, step: str | None = None, **kwargs) -> Step:
        return replace(fn(*args, **kwargs), clause=clause, step=step)

    return helper


# ── steps ───────────────────────────────────────────────────────────────────────────────────


def _worst(statuses) -> str:
    statuses = set(statuses)
    return "disagrees" if "disagrees" in statuses else "undecided" if "undecided" in statuses else "agrees"


def difference_status(paper, derived) -> str:
    """Is ``paper − derived`` identically zero? For matrices, entry by entry (a shape mismatch
    disagrees; the worst entry decides)."""
    paper, derived = sp.sympify(paper), sp.sympify(derived)
    if isinstance(paper, sp.MatrixBase) or isinstance(derived, sp.MatrixBase):
        if not (isinstance(paper, sp.MatrixBase) and isinstance(derived, sp.MatrixBase)):
            return "disagrees"  # a matrix is no scalar
        if paper.shape != derived.shape:
            return "disagrees"
        return _worst(zero_status(e) for e in (paper - derived))
    return zero_status(paper - derived)


@_tagged
def exact(name: str, paper: sp.Expr, derived: sp.Expr, *, role: str, reading: str | None = None,
          note: str = "") -> Step:
    """The paper's expression equals the derived one identically (scalars, or matrices entry by
    entry: a matrix identity)."""
    return _step(name, "exact", paper, derived, difference_status(paper, derived), role, reading, note)


_EVALUATED = ("SymPy evaluated the relation to {value} before the step saw it; write holds(name, "
              "lhs, '<=', rhs) to show the relation itself")


@_tagged
def holds(name: str, relation, rel: str | None = None, rhs=None, *, role: str,
          reading: str | None = None, note: str = "") -> Step:
    """A relational statement (an inequality's direction, a sign), decided by :func:`relation_status`
    under the symbols' assumptions: ``holds(name, sp.Le(a, b))``, or ``holds(name, a, "<=", b)``,
    which keeps the relation as written however SymPy evaluates it (``1/2 <= 1/4``, not
    ``False``). The paper column shows the relation, the derived one what SymPy decided."""
    if rel is not None:
        shown = sp.Rel(sp.sympify(relation), sp.sympify(rhs), rel, evaluate=False)
    else:
        shown = relation
        if isinstance(relation, (bool, sp.logic.boolalg.BooleanAtom)):
            note = "; ".join(n for n in (note, _EVALUATED.format(value=bool(relation))) if n)
    status = relation_status(shown)
    derived = {"agrees": sp.true, "disagrees": sp.false}.get(status, sp.Symbol("undecided"))
    return _step(name, "holds", shown, derived, status, role, reading, note)


@_tagged
def series(name: str, paper: sp.Expr, derived: sp.Expr, var: sp.Symbol, point, order: int, *,
           role: str, reading: str | None = None, note: str = "") -> Step:
    """Series coefficients of both expressions about ``var = point`` agree up to ``var**(order-1)``."""
    a = sp.series(sp.sympify(paper), var, point, order).removeO()
    b = sp.series(sp.sympify(derived), var, point, order).removeO()
    return _step(name, "series", a, b, zero_status(sp.expand(a - b)), role, reading, note)


@_tagged
def limit(name: str, expr: sp.Expr, var: sp.Symbol, point, paper_value: sp.Expr, *, role: str,
          direction: str = "+", reading: str | None = None, note: str = "") -> Step:
    """``lim_{var → point} expr`` equals the paper's value (undecided when SymPy cannot take it).
    The value may be infinite (``oo``, ``-oo``): divergence to ∞ is a limit like any other
    (compared as values, never as the difference oo − oo)."""
    try:
        value = sp.limit(expr, var, point, dir=direction)
    except (NotImplementedError, sp.PoleError, ValueError):
        return _step(name, "limit", paper_value, sp.Limit(expr, var, point, dir=direction),
                     "undecided", role, reading, note)
    if isinstance(value, sp.Limit) or value.has(sp.AccumBounds):
        return _step(name, "limit", paper_value, value, "undecided", role, reading, note)
    return _step(name, "limit", paper_value, value, _value_status(paper_value, value), role, reading,
                 note)


_INFINITE = (sp.oo, -sp.oo, sp.zoo)


def _value_status(paper_value, value) -> str:
    """Does a limit (or sup/inf) ``value`` equal the paper's? Infinities compare as values."""
    paper_value, value = sp.sympify(paper_value), sp.sympify(value)
    if paper_value in _INFINITE or value in _INFINITE:
        if paper_value == value:
            return "agrees"
        finite = [v.is_finite for v in (paper_value, value) if v not in _INFINITE]
        return "disagrees" if all(f is True for f in finite) else "undecided"
    return zero_status(paper_value - value)


@_tagged
def diverges(name: str, expr: sp.Expr, var: sp.Symbol, point=sp.oo, *, role: str, to=sp.oo,
             direction: str = "+", reading: str | None = None, note: str = "") -> Step:
    """``expr → to`` (``oo`` or ``-oo``) as ``var → point``: the paper's "grows without bound".
    Disagrees when the limit exists and is anything else (finite, or the other infinity)."""
    if sp.sympify(to) not in (sp.oo, -sp.oo):
        raise ValueError(f"step {name!r}: diverges to oo or -oo, not {to!r}")
    return limit.__wrapped__(name, expr, var, point, to, role=role, direction=direction,
                             reading=reading, note=note)


def _extremum(kind: str, name: str, expr, var, domain, paper_value, role, reading, note) -> Step:
    from sympy.calculus.util import maximum, minimum

    try:
        value = (maximum if kind == "supremum" else minimum)(sp.sympify(expr), var, domain)
    except (NotImplementedError, ValueError, TypeError):
        value = None
    shown = sp.Function("sup" if kind == "supremum" else "inf")(expr)
    if value is None or not isinstance(value, sp.Expr) or value.has(sp.AccumBounds):
        return _step(name, kind, paper_value, shown, "undecided", role, reading,
                     "; ".join(n for n in (note, f"SymPy cannot take the {kind} over {domain}") if n))
    return _step(name, kind, paper_value, value, _value_status(paper_value, value), role, reading,
                 "; ".join(n for n in (note, f"over {var} ∈ {domain}") if n))


@_tagged
def supremum(name: str, expr: sp.Expr, var: sp.Symbol, domain: sp.Set, paper_value, *, role: str,
             reading: str | None = None, note: str = "") -> Step:
    """``sup_{var ∈ domain} expr`` equals the paper's value (attained or not; ``oo`` when
    unbounded). Undecided when SymPy cannot take it."""
    return _extremum("supremum", name, expr, var, domain, paper_value, role, reading, note)


@_tagged
def infimum(name: str, expr: sp.Expr, var: sp.Symbol, domain: sp.Set, paper_value, *, role: str,
            reading: str | None = None, note: str = "") -> Step:
    """``inf_{var ∈ domain} expr`` equals the paper's value (``-oo`` when unbounded below)."""
    return _extremum("infimum", name, expr, var, domain, paper_value, role, reading, note)


def leading_term(expr: sp.Expr, var: sp.Symbol, point=sp.oo) -> sp.Expr:
    """The leading term of ``expr`` as ``var → point`` (``oo`` or a finite point), for display.

    Falls back to the expression itself where SymPy's series machinery cannot expand it (e.g.
    e^{−Δ²}-type terms at ∞, which raise PoleError).
    """
    expr = sp.sympify(expr)
    try:
        if point in (sp.oo, -sp.oo):
            t = sp.Dummy("t", positive=True)
            s = 1 if point == sp.oo else -1
            lead = expr.subs(var, s / t).as_leading_term(t)
            return sp.simplify(lead.subs(t, s / var))
        if point == 0:
            return sp.simplify(expr.as_leading_term(var))
        return sp.simplify(expr.subs(var, var + point).as_leading_term(var).subs(var, var - point))
    except (sp.PoleError, NotImplementedError, ValueError):
        return expr


def _ratio_limit(expr: sp.Expr, order: sp.Expr, var: sp.Symbol, point):
    ratio = sp.simplify(sp.sympify(expr) / sp.sympify(order))
    try:
        value = sp.limit(ratio, var, point)
    except (sp.PoleError, NotImplementedError, ValueError):
        try:  # the Gruntz algorithm handles exp-of-polynomial towers the heuristic limit cannot
            value = sp.gruntz(ratio, var, point)
        except Exception:  # noqa: BLE001 - SymPy raises assorted errors: the step is undecided
            return None
    if isinstance(value, sp.Limit) or value.has(sp.AccumBounds) or value is sp.nan:
        return None
    return value


@_tagged
def leading_order(name: str, expr: sp.Expr, var: sp.Symbol, paper_order: sp.Expr, *, role: str,
                  point=sp.oo, up_to_constant: bool = True, reading: str | None = None,
                  note: str = "") -> Step:
    """``expr`` is of the paper's order as ``var → point``: ``expr / paper_order`` tends to a finite
    non-zero constant (``up_to_constant``, Θ) or to exactly 1 (``~``). Undecided when SymPy cannot
    take the limit."""
    ratio = _ratio_limit(expr, paper_order, var, point)
    if ratio is None:
        status = "undecided"
    elif up_to_constant:
        finite, nonzero = ratio.is_finite, ratio.is_zero
        status = ("agrees" if finite is True and nonzero is False else
                  "disagrees" if finite is False or nonzero is True else "undecided")
    else:
        status = zero_status(ratio - 1)
    return _step(name, "leading-order", paper_order, leading_term(expr, var, point), status, role,
                 reading, note)


@_tagged
def bounded_by(name: str, expr: sp.Expr, var: sp.Symbol, bound: sp.Expr, *, role: str,
               point=sp.oo, reading: str | None = None, note: str = "") -> Step:
    """``expr = O(bound)`` as ``var → point``: ``|expr / bound|`` has a finite limit."""
    ratio = _ratio_limit(expr, bound, var, point)
    status = "undecided" if ratio is None else tri(sp.Abs(ratio).is_finite)
    return _step(name, "leading-order", bound, leading_term(expr, var, point), status, role,
                 reading, note)
