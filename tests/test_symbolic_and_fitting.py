"""The step helpers and the fit, each shown to pass on good input and fail on bad input."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from checks import symbolic
from checks.fitting import (
    closed_form_bias,
    compare_exponent,
    fit_power_law,
    nearest_simple_exponent,
)

n, x, eps = sp.symbols("n x epsilon", positive=True)


def test_exact_step_agrees_only_on_identities():
    assert symbolic.exact("ok", (n - 1) ** 2, n**2 - 2 * n + 1).agrees
    assert not symbolic.exact("bad", (n - 1) ** 2, n**2 - 1).agrees


def test_series_step_compares_coefficients_up_to_the_order():
    paper = 1 / eps - x**2 / eps**2
    assert symbolic.series("ok", 1 / (x**2 + eps), paper, x, 0, 4).agrees
    assert not symbolic.series("bad", 1 / (x**2 + eps), 1 / eps + x**2 / eps**2, x, 0, 4).agrees


def test_limit_step():
    assert symbolic.limit("ok", (1 / eps) / (1 / eps + 3), eps, 0, sp.Integer(1)).agrees
    assert not symbolic.limit("bad", (1 / eps) / (1 / eps + 3), eps, 0, sp.Rational(1, 2)).agrees


def test_leading_order_step_up_to_constant_and_exact():
    expr = -2 * (n - 1) ** 2 * (n - 3) / n**4
    step = symbolic.leading_order("order", expr, n, n**-1)
    assert step.agrees and step.derived == "-2/n"
    assert not symbolic.leading_order("paper", expr, n, n**-2).agrees
    assert symbolic.leading_order("asymptotic equality", expr, n, -2 / n, up_to_constant=False).agrees
    assert not symbolic.leading_order("wrong constant", expr, n, -1 / n, up_to_constant=False).agrees


def test_leading_order_at_a_finite_point():
    expr = 3 * eps / (1 + 3 * eps)
    assert symbolic.leading_term(expr, eps, 0) == 3 * eps
    assert symbolic.leading_order("rate 1", expr, eps, eps, point=0).agrees
    assert not symbolic.leading_order("rate 2", expr, eps, eps**2, point=0).agrees


def test_closed_form_bias_measures_pre_asymptotic_curvature():
    xs = np.logspace(1, 4, 10)
    assert abs(closed_form_bias(xs, 5 * xs**-1.0, -1.0)) < 1e-12
    assert closed_form_bias(xs, 1 / (xs - 5), -1.0) < -0.01  # steeper at small x


def test_fit_recovers_a_known_exponent_and_its_interval_covers_it():
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(40):
        xs = np.logspace(1, 5, 12)
        ys = 3.0 * xs**-1.5 * np.exp(rng.normal(0, 0.05, xs.size))
        fit = fit_power_law(xs, ys, rng=rng)
        assert abs(fit.exponent + 1.5) < 0.05 and fit.r2 > 0.99
        covered += fit.ci[0] <= -1.5 <= fit.ci[1]
    assert covered >= 32  # a 95 % interval: ~38 of 40 expected


def test_fit_is_seeded_and_validates_its_input():
    xs = np.logspace(0, 4, 9)
    ys = xs**2 * (1 + 0.01 * np.sin(xs))
    a = fit_power_law(xs, ys, rng=np.random.default_rng(5))
    b = fit_power_law(xs, ys, rng=np.random.default_rng(5))
    assert a == b
    with pytest.raises(ValueError, match="decades"):
        fit_power_law(np.logspace(0, 2, 9), np.logspace(0, 2, 9), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="positive"):
        fit_power_law(xs, -ys, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="finite"):
        fit_power_law(xs, ys * np.nan, rng=np.random.default_rng(0))


@pytest.mark.parametrize("ci, predicted, order, status", [
    ((-1.01, -0.99), -1.0, "Θ", "agrees"),
    ((-1.01, -0.99), -2.0, "Θ", "disagrees"),
    ((-3.0, 1.0), -1.0, "Θ", "undecided"),
    ((0.9, 1.04), 1.0, "O", "agrees"),
    ((1.2, 1.3), 1.0, "O", "disagrees"),
    ((0.5, 1.5), 1.0, "O", "undecided"),
    ((1.2, 1.3), 1.0, "Ω", "agrees"),
    ((0.2, 0.3), 1.0, "Ω", "disagrees"),
])
def test_compare_exponent(ci, predicted, order, status):
    assert compare_exponent(ci, predicted, order, 0.05, 0.5)[0] == status


def test_nearest_simple_exponent():
    assert nearest_simple_exponent(-0.998, (-1.001, -0.995), 0.01) == "-1"
    assert nearest_simple_exponent(0.49, (0.47, 0.51), 0.0) == "1/2"
    assert nearest_simple_exponent(0.4142, (0.414, 0.4144), 0.0) == "0.414"


def test_batched_bisection_locates_every_boundary_and_rejects_a_bad_bracket():
    import pytest
    import torch

    from checks.bisection import bisect_monotone

    roots = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
    lo, hi = bisect_monotone(lambda x: x <= roots[:, None], torch.zeros(3, dtype=torch.float64),
                             torch.ones(3, dtype=torch.float64), candidates=15, rounds=6)
    assert bool((lo <= roots).all() and (roots < hi).all())
    assert float((hi - lo).max()) <= 2.0 / 16**6
    with pytest.raises(ValueError, match="does not straddle the root"):
        bisect_monotone(lambda x: x >= 2, torch.zeros(1), torch.ones(1), candidates=3, rounds=1,
                        what="root")
