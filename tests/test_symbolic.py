"""checks.symbolic: the step helpers, three-valued (agrees / disagrees / undecided), each shown
to pass on good input and fail on bad input, and the failing cases an author met (an infinite
limit, a matrix identity, a sup over a domain, a holds step SymPy evaluates before it is taken)."""

from __future__ import annotations

import pytest
import sympy as sp

from attnaudit.checks import symbolic

n, x, eps = sp.symbols("n x epsilon", positive=True)
r = sp.Symbol("r", real=True)
k = sp.Symbol("k", integer=True)
D = sp.Symbol("Delta", positive=True)


# ── symbolic: three outcomes, undecided never false ──────────────────────────────────────────


def test_tri_maps_fuzzy_truth_to_three_statuses():
    assert [symbolic.tri(v) for v in (True, sp.true, False, sp.false, None)] == [
        "agrees", "agrees", "disagrees", "disagrees", "undecided"]


def test_zero_status_proves_finds_a_counterexample_or_stays_undecided():
    assert symbolic.zero_status(sp.sin(r) ** 2 + sp.cos(r) ** 2 - 1) == "agrees"
    assert symbolic.zero_status((n - 1) ** 2 - n**2 + 2 * n - 1) == "agrees"
    assert symbolic.zero_status(n - n - 1) == "disagrees"
    assert symbolic.zero_status(n**2 - n) == "disagrees"  # non-zero at a rational point
    assert symbolic.zero_status(sp.Integer(3)) == "disagrees"
    # an integer symbol is not probed at (possibly non-integer) rationals: nothing is decided
    assert symbolic.zero_status(k**2 - k) == "undecided"
    assert symbolic.is_zero(n - n) and not symbolic.is_zero(n) and not symbolic.is_zero(k**2 - k)


def test_sign_is_proved_or_none():
    assert [symbolic.sign(e) for e in (n - n, n + 1, -n, n - 1)] == [0, 1, -1, None]


@pytest.mark.parametrize("relation, status", [
    (sp.Le(n, n + 1, evaluate=False), "agrees"),
    (sp.Le(n + 1, n, evaluate=False), "disagrees"),
    (sp.Ge(n + 1, n, evaluate=False), "agrees"),
    (sp.Ge(n, n + 1, evaluate=False), "disagrees"),
    (sp.Lt(n, n + 1, evaluate=False), "agrees"),
    (sp.Lt(n, n, evaluate=False), "disagrees"),
    (sp.Gt(n + 1, n, evaluate=False), "agrees"),
    (sp.Gt(n, n, evaluate=False), "disagrees"),
    (sp.Le(n, n, evaluate=False), "agrees"),
    (sp.Ge(n, n, evaluate=False), "agrees"),
    (sp.Eq(2 * n, n + n, evaluate=False), "agrees"),
    (sp.Eq(n, n + 1, evaluate=False), "disagrees"),
    (sp.Eq(sp.sin(r) ** 2, 1 - sp.cos(r) ** 2, evaluate=False), "agrees"),
    (sp.Eq(n**2, n, evaluate=False), "disagrees"),
    (sp.Ne(n, n + 1, evaluate=False), "agrees"),
    (sp.Ne(n, n, evaluate=False), "disagrees"),
    (sp.Ge(r**2 + n**2, 2 * r * n, evaluate=False), "agrees"),  # a non-strict sign: −(r−n)² ≤ 0
    (sp.Le(2 * r * n, r**2 + n**2, evaluate=False), "agrees"),
    (sp.Lt(r**2 + n**2, 2 * r * n, evaluate=False), "disagrees"),
    (sp.Gt(2 * r * n, r**2 + n**2, evaluate=False), "disagrees"),
    (sp.Gt(r**2 + n**2, 2 * r * n, evaluate=False), "undecided"),  # false where r = n
    (sp.Ne(r**2 + n**2, 2 * r * n, evaluate=False), "undecided"),
    (sp.Ge(sp.exp(r), 1 + r), "undecided"),  # true, but SymPy cannot decide it
    (sp.Le(n, 2), "undecided"),  # true for some n, false for others
    (sp.Le(n, 2 * n - 1), "undecided"),
    (sp.true, "agrees"),
    (sp.false, "disagrees"),
    (True, "agrees"),
    (False, "disagrees"),
])
def test_relation_status(relation, status):
    assert symbolic.relation_status(relation) == status


def test_relation_status_rejects_a_non_relation():
    with pytest.raises(TypeError, match="not a relation"):
        symbolic.relation_status(n + 1)


def test_exact_step_agrees_only_on_identities_and_records_both_sides():
    ok = symbolic.exact("ok", (n - 1) ** 2, n**2 - 2 * n + 1, role="statement", note="expanded")
    assert ok.agrees and ok.status == "agrees"
    assert ok.to_json() == {"name": "ok", "role": "statement", "reading": None, "method": "exact",
                            "paper": "(n - 1)**2", "derived": "n**2 - 2*n + 1",
                            "paper_latex": r"\left(n - 1\right)^{2}",
                            "derived_latex": "n^{2} - 2 n + 1", "status": "agrees", "agrees": True,
                            "note": "expanded", "clause": None, "step": None}
    bad = symbolic.exact("bad", (n - 1) ** 2, n**2 - 1, role="proof", reading="alt")
    assert bad.status == "disagrees" and not bad.agrees
    assert (bad.to_json()["role"], bad.to_json()["reading"], bad.to_json()["agrees"]) == (
        "proof", "alt", False)


def test_steps_validate_role_method_and_status():
    with pytest.raises(ValueError, match="role must be one of"):
        symbolic.exact("x", n, n, role="lemma")
    with pytest.raises(ValueError, match="unknown step method"):
        symbolic._step("x", "guess", n, n, "agrees", "proof", None, "")
    with pytest.raises(ValueError, match="status"):
        symbolic._step("x", "exact", n, n, "maybe", "proof", None, "")


def test_holds_step_is_three_valued():
    assert symbolic.holds("ok", sp.Le(n, n + 1, evaluate=False), role="proof").status == "agrees"
    false = symbolic.holds("reversed", sp.Ge(n, n + 1, evaluate=False), role="proof")
    assert false.status == "disagrees" and false.derived == "False"
    undecided = symbolic.holds("tangent", sp.exp(r) >= 1 + r, role="proof")
    assert undecided.status == "undecided" and undecided.derived == "undecided"
    assert symbolic.holds("ok", sp.Le(n, n + 1, evaluate=False), role="proof").derived == "True"


def test_series_step_compares_coefficients_up_to_the_order():
    paper = 1 / eps - x**2 / eps**2
    ok = symbolic.series("ok", 1 / (x**2 + eps), paper, x, 0, 4, role="proof")
    assert ok.agrees and ok.method == "series"
    bad = symbolic.series("bad", 1 / (x**2 + eps), 1 / eps + x**2 / eps**2, x, 0, 4, role="proof")
    assert bad.status == "disagrees"
    # agreement up to x³ only: a difference in the x⁴ term is beyond the order
    assert symbolic.series("order", 1 / (x**2 + eps), paper + x**4, x, 0, 4, role="proof").agrees


def test_limit_step_agrees_disagrees_or_is_undecided():
    assert symbolic.limit("ok", (1 / eps) / (1 / eps + 3), eps, 0, sp.Integer(1), role="proof").agrees
    bad = symbolic.limit("bad", (1 / eps) / (1 / eps + 3), eps, 0, sp.Rational(1, 2), role="proof")
    assert bad.status == "disagrees" and bad.derived == "1"
    oscillating = symbolic.limit("osc", sp.sin(1 / x), x, 0, sp.Integer(0), role="proof")
    assert oscillating.status == "undecided"  # SymPy answers AccumBounds(-1, 1)
    left = symbolic.limit("left", sp.Abs(r - 1) / (r - 1), r, 1, sp.Integer(-1), role="proof",
                          direction="-")
    assert left.agrees
    right = symbolic.limit("right", sp.Abs(r - 1) / (r - 1), r, 1, sp.Integer(-1), role="proof")
    assert right.status == "disagrees"


def test_limit_step_that_sympy_cannot_take_is_undecided(monkeypatch):
    def refuse(*args, **kwargs):
        raise NotImplementedError("no")

    monkeypatch.setattr(symbolic.sp, "limit", refuse)
    step = symbolic.limit("hard", n, n, sp.oo, sp.oo, role="statement")
    assert step.status == "undecided" and "Limit" in step.derived


def test_leading_order_step_up_to_constant_and_exact():
    expr = -2 * (n - 1) ** 2 * (n - 3) / n**4
    step = symbolic.leading_order("order", expr, n, n**-1, role="statement")
    assert step.agrees and step.derived == "-2/n"
    assert symbolic.leading_order("paper", expr, n, n**-2, role="statement").status == "disagrees"
    assert symbolic.leading_order("too small", expr, n, n**0, role="statement").status == "disagrees"
    assert symbolic.leading_order("asymptotic equality", expr, n, -2 / n, up_to_constant=False,
                                  role="statement").agrees
    assert symbolic.leading_order("wrong constant", expr, n, -1 / n, up_to_constant=False,
                                  role="statement").status == "disagrees"


def test_leading_order_at_a_finite_point_and_undecided_when_the_ratio_oscillates():
    expr = 3 * eps / (1 + 3 * eps)
    assert symbolic.leading_term(expr, eps, 0) == 3 * eps
    assert symbolic.leading_order("rate 1", expr, eps, eps, point=0, role="proof").agrees
    assert symbolic.leading_order("rate 2", expr, eps, eps**2, point=0, role="proof").status == "disagrees"
    assert symbolic.leading_order("osc", x * sp.sin(1 / x), x, x, point=0,
                                  role="proof").status == "undecided"


def test_leading_order_of_gaussian_tails_at_infinity():
    tail = sp.exp(-(D**2)) * (1 + 1 / D)
    assert symbolic.leading_order("tail", tail, D, sp.exp(-(D**2)), role="proof").agrees
    assert symbolic.leading_order("tail", tail, D, sp.exp(-2 * D**2), role="proof").status == "disagrees"
    assert symbolic.bounded_by("tail", D**5 * sp.exp(-(D**2)), D, sp.exp(-D), role="proof").agrees
    symbolic.leading_term(tail, D, sp.oo)  # displays something, never raises


def test_leading_term_at_infinity_minus_infinity_and_a_finite_point():
    assert symbolic.leading_term(1 / (n + 1), n, sp.oo) == 1 / n
    assert symbolic.leading_term(1 / (r + 1) - 1 / r, r, -sp.oo) == -1 / r**2
    assert symbolic.leading_term(sp.sin(r - 2), r, 2) == r - 2
    assert symbolic.leading_term(n**2 + n, n) == n**2


def test_bounded_by_step():
    assert symbolic.bounded_by("ok", n * sp.log(n), n, n**2, role="proof").agrees
    assert symbolic.bounded_by("tight", 3 * n**2 + n, n, n**2, role="proof").agrees
    assert symbolic.bounded_by("bad", n**3, n, n**2, role="proof").status == "disagrees"
    assert symbolic.bounded_by("osc", sp.sin(1 / x) / x, x, 1 / x, point=0,
                               role="proof").status == "undecided"


# ── every helper records its inputs faithfully ───────────────────────────────────────────────

c = sp.Symbol("c")  # no assumptions: finiteness and zero-ness unknown


def _all_steps(**kw):
    return {
        "exact": symbolic.exact("s-exact", n + n, 2 * n, role="proof", **kw),
        "holds": symbolic.holds("s-holds", sp.Le(n, n + 1, evaluate=False), role="proof", **kw),
        "series": symbolic.series("s-series", sp.log(x), (x - 1) - (x - 1) ** 2 / 2, x, 1, 3,
                                  role="proof", **kw),
        "limit": symbolic.limit("s-limit", 3 * eps / (1 + eps), eps, 0, sp.Integer(0), role="proof", **kw),
        "leading-order": symbolic.leading_order("s-lo", 3 * eps / (1 + 3 * eps), eps, eps, point=0,
                                                role="proof", **kw),
        "bounded": symbolic.bounded_by("s-bb", 3 * eps / (1 + 3 * eps), eps, eps, point=0, role="proof",
                                       **kw),
    }


def test_every_step_helper_records_name_sides_reading_and_note():
    expected = {  # (name, method, paper, derived)
        "exact": ("s-exact", "exact", "2*n", "2*n"),
        "holds": ("s-holds", "holds", "n <= n + 1", "True"),
        "series": ("s-series", "series", "x - (x - 1)**2/2 - 1", "x - (x - 1)**2/2 - 1"),
        "limit": ("s-limit", "limit", "0", "0"),
        "leading-order": ("s-lo", "leading-order", "epsilon", "3*epsilon"),
        "bounded": ("s-bb", "leading-order", "epsilon", "3*epsilon"),
    }
    for key, step in _all_steps(reading="alt", note="a note").items():
        data = step.to_json()
        assert (data["name"], data["method"], data["paper"], data["derived"]) == expected[key], key
        assert (data["reading"], data["note"], data["role"], data["status"]) == ("alt", "a note", "proof",
                                                                                  "agrees"), key
        assert data["paper_latex"] == sp.latex(sp.sympify(data["paper"])) or key == "holds", key
    for key, step in _all_steps().items():
        assert (step.reading, step.note) == (None, ""), key


def test_an_undecided_limit_records_the_unevaluated_limit(monkeypatch):
    def refuse(*args, **kwargs):
        raise sp.PoleError("no")

    monkeypatch.setattr(symbolic.sp, "limit", refuse)
    step = symbolic.limit("hard", 1 / x, x, 2, sp.Rational(1, 2), role="proof", direction="-",
                          reading="alt", note="n")
    assert step.status == "undecided"
    assert (step.name, step.paper, step.reading, step.note) == ("hard", "1/2", "alt", "n")
    assert step.derived == sp.sstr(sp.Limit(1 / x, x, 2, dir="-"))


def test_an_oscillating_limit_records_what_sympy_returned():
    step = symbolic.limit("osc", sp.sin(1 / x), x, 0, sp.Integer(0), role="proof", reading="alt", note="n")
    assert (step.name, step.paper, step.derived, step.reading, step.note) == (
        "osc", "0", "AccumBounds(-1, 1)", "alt", "n")


def test_step_errors_name_the_roles():
    with pytest.raises(ValueError, match=r"role must be one of statement, proof, derivation, vacuity, "
                                           r"not 'lemma'"):
        symbolic.exact("x", n, n, role="lemma")


def test_numeric_probes_are_rational_positive_and_respect_assumptions():
    # zero at every integer, not at most rationals: only non-integer probes can tell
    assert symbolic.zero_status(sp.sin(sp.pi * n)) == "disagrees"
    # zero at every probe a/b (b ≤ 13): nothing decides it
    assert symbolic.zero_status(sp.sin(sp.pi * n * sp.factorial(13))) == "undecided"
    # a non-positive symbol is never probed at positive points
    m = sp.Symbol("m", nonpositive=True)
    assert symbolic.zero_status(m**2 + m) == "undecided"
    # several symbols are probed together, in a fixed order
    assert symbolic.zero_status(n * x - x) == "disagrees"
    assert symbolic.zero_status(n * x - x * n + eps - eps**2) == "disagrees"
    # SymPy's own "non-zero" decides where probes may not be used
    assert symbolic.zero_status(k**2 + 1) == "disagrees"


def test_leading_order_with_an_unknown_constant_is_undecided():
    assert symbolic.leading_order("c", c * n, n, n, role="proof").status == "undecided"
    assert symbolic.leading_order("c", 2 * n, n, n, role="proof", up_to_constant=True).status == "agrees"


def test_the_gruntz_fallback_decides_when_the_heuristic_limit_fails(monkeypatch):
    def refuse(*args, **kwargs):
        raise NotImplementedError("no")

    monkeypatch.setattr(symbolic.sp, "limit", refuse)
    tail = sp.exp(-(D**2)) * (1 + 1 / D)
    assert symbolic.leading_order("tail", tail, D, sp.exp(-(D**2)), role="proof").agrees
    assert symbolic.leading_order("tail", tail, D, sp.exp(-2 * D**2), role="proof").status == "disagrees"
    assert symbolic.leading_order("order", 3 * eps / (1 + 3 * eps), eps, eps, point=0, role="proof").agrees


def test_leading_term_direction_at_plus_and_minus_infinity():
    assert symbolic.leading_term(sp.sqrt(r**2 + r), r, sp.oo) == r
    assert symbolic.leading_term(sp.sqrt(r**2 + r), r, -sp.oo) == -r
    assert symbolic.leading_term(sp.sin(r - 1), r, 1) == r - 1
    assert symbolic.leading_term(sp.sin(r) + r**2, r, 0) == r


def test_a_probe_point_where_the_expression_is_undefined_is_skipped():
    calls = {"n": 0}

    class F(sp.Function):
        """Undefined at the first numeric point it meets, 1 elsewhere."""

        @classmethod
        def eval(cls, arg):
            if arg.is_Number:
                calls["n"] += 1
                if calls["n"] == 1:
                    raise ValueError("undefined here")
                return sp.Integer(1)
            return None

    assert symbolic.zero_status(F(n)) == "disagrees"
    assert calls["n"] == 2


# ── the failing cases an author met (issue 24) ─────────────────────────────────────────────────


def test_an_infinite_limit_is_decided_not_left_to_oo_minus_oo():
    b = sp.Symbol("b", positive=True)
    assert symbolic.limit("grows", b**2, b, sp.oo, paper_value=sp.oo, role="statement").status == "agrees"
    assert symbolic.limit("to -oo", -b, b, sp.oo, paper_value=-sp.oo, role="statement").status == "agrees"
    # a finite limit, or the other infinity, is not ∞
    decays = symbolic.limit("decays", 1 / b, b, sp.oo, paper_value=sp.oo, role="statement")
    assert decays.status == "disagrees"
    assert symbolic.limit("sign", -b, b, sp.oo, paper_value=sp.oo, role="statement").status == "disagrees"
    assert symbolic.limit("finite", b, b, sp.oo, paper_value=1, role="statement").status == "disagrees"
    # an unknown constant's finiteness is unknown: undecided, never false
    c = sp.Symbol("c")
    assert symbolic.limit("c", b**2, b, sp.oo, paper_value=c, role="statement").status == "undecided"


def test_divergence_to_infinity():
    b = sp.Symbol("b", positive=True)
    step = symbolic.diverges("log grows", sp.log(b), b, role="statement", clause="main")
    assert (step.status, step.method, step.paper, step.clause) == ("agrees", "limit", "oo", "main")
    assert symbolic.diverges("bounded", 1 - 1 / b, b, role="statement").status == "disagrees"
    assert symbolic.diverges("down", -b, b, to=-sp.oo, role="statement").status == "agrees"
    assert symbolic.diverges("at 0", 1 / b, b, 0, role="statement").status == "agrees"
    with pytest.raises(ValueError, match="oo or -oo"):
        symbolic.diverges("bad", b, b, to=1, role="statement")


def test_exact_decides_matrix_identities_entry_by_entry():
    a = sp.Symbol("a", real=True)
    m = sp.Matrix([[1, a], [0, 1]])
    square = sp.Matrix([[1, 2 * a], [0, 1]])
    assert symbolic.exact("square", m * m, square, role="statement").status == "agrees"
    assert symbolic.exact("wrong", m * m, m, role="statement").status == "disagrees"
    assert symbolic.exact("shape", m, sp.Matrix([1, a]), role="statement").status == "disagrees"
    assert symbolic.exact("scalar", m, sp.Integer(1), role="statement").status == "disagrees"
    f = sp.Function("f")
    unknown = symbolic.exact("unknown", sp.Matrix([[f(a)]]), sp.Matrix([[a]]), role="statement")
    assert unknown.status == "undecided"
    # the softmax Jacobian diag(p) − p pᵀ is symmetric: a matrix identity with symbols
    p1, p2 = sp.symbols("p1 p2", positive=True)
    p = sp.Matrix([p1, p2])
    jac = sp.diag(p1, p2) - p * p.T
    assert symbolic.exact("symmetric", jac, jac.T, role="statement").status == "agrees"


def test_supremum_and_infimum_over_a_domain():
    q = sp.Symbol("q", real=True)
    b = sp.Symbol("b", positive=True)
    half = sp.Rational(1, 2)
    step = symbolic.supremum("‖J‖ of two weights", q * (1 - q), q, sp.Interval(0, 1), sp.Rational(1, 4),
                             role="statement")
    assert step.status == "agrees" and step.method == "supremum" and "over q" in step.note
    assert symbolic.supremum("not 1/2", q * (1 - q), q, sp.Interval(0, 1), half,
                             role="statement").status == "disagrees"
    # not attained: the supremum of q on (0, 1) is 1; an unbounded one is oo
    assert symbolic.supremum("open", q, q, sp.Interval.open(0, 1), 1, role="statement").status == "agrees"
    assert symbolic.supremum("unbounded", b, b, sp.Interval(0, sp.oo), sp.oo,
                             role="statement").status == "agrees"
    assert symbolic.infimum("1/b", 1 / b, b, sp.Interval.open(0, sp.oo), 0,
                            role="statement").status == "agrees"
    assert symbolic.infimum("not 1", 1 / b, b, sp.Interval.open(0, sp.oo), 1,
                            role="statement").status == "disagrees"
    f = sp.Function("f")
    assert symbolic.supremum("unknown", f(q), q, sp.Interval(0, 1), 1, role="statement").status == "undecided"


def test_a_holds_step_shows_the_relation_not_its_evaluated_value():
    quarter, half = sp.Rational(1, 4), sp.Rational(1, 2)
    step = symbolic.holds("‖J‖ ≤ 1/4", half, "<=", quarter, role="statement")
    assert (step.status, step.paper, step.derived) == ("disagrees", "1/2 <= 1/4", "False")
    assert step.paper_latex == r"\frac{1}{2} \leq \frac{1}{4}"
    assert symbolic.holds("ok", quarter, "<=", half, role="statement").status == "agrees"
    # the relation SymPy already evaluated still decides, and the note says how to show it
    evaluated = symbolic.holds("‖J‖ ≤ 1/4", sp.Le(half, quarter), role="statement")
    assert evaluated.status == "disagrees" and "holds(name, lhs, '<=', rhs)" in evaluated.note
    # what the verdict's summary then prints
    from attnaudit.checks.verdict import reading_verdict

    _, why = reading_verdict([step.to_json()], [], None)
    assert why == "statement step '‖J‖ ≤ 1/4' is false: paper 1/2 <= 1/4, derived False"
