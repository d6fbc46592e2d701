"""checks.fitting and checks.laws: the fits (power, exponential, polylog, flat) and the evidence
of scaling laws and limits, each shown to pass on good input and fail on bad input."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from attnaudit.checks.context import Context
from attnaudit.checks.fitting import (
    FLAT_LOG_SPREAD,
    closed_form_bias,
    compare_exponent,
    decades,
    fit_power_law,
    law_abscissa,
    local_exponents,
    nearest_simple_exponent,
)

n, x, eps = sp.symbols("n x epsilon", positive=True)


# ── fits ─────────────────────────────────────────────────────────────────────────────────────


def test_law_abscissa_and_decades():
    xs = np.array([10.0, 100.0, 1000.0])
    assert np.allclose(law_abscissa(xs, "power"), np.log(xs))
    assert np.allclose(law_abscissa(xs, "exponential"), xs)
    assert np.allclose(law_abscissa(xs, "polylog"), np.log(np.log(xs)))
    with pytest.raises(ValueError, match="x > 1"):
        law_abscissa(np.array([1.0, 10.0]), "polylog")
    with pytest.raises(ValueError, match="unknown law"):
        law_abscissa(xs, "cubic")
    assert decades(xs) == pytest.approx(2.0)


def test_closed_form_bias_measures_pre_asymptotic_curvature():
    xs = np.logspace(1, 4, 10)
    assert abs(closed_form_bias(xs, 5 * xs**-1.0, -1.0)) < 1e-12
    assert closed_form_bias(xs, 1 / (xs - 5), -1.0) < -0.01  # steeper at small x
    assert abs(closed_form_bias(xs, -5 * xs**-1.0, -1.0)) < 1e-12  # of the magnitude
    lin = np.linspace(1, 10, 10)
    assert closed_form_bias(lin, np.exp(-2 * lin), -2.0, law="exponential") == pytest.approx(0, abs=1e-12)


def test_fit_recovers_a_known_exponent_and_its_interval_covers_it():
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(40):
        xs = np.logspace(1, 5, 12)
        ys = 3.0 * xs**-1.5 * np.exp(rng.normal(0, 0.05, xs.size))
        fit = fit_power_law(xs, ys, rng=rng, n_boot=400)
        assert abs(fit.exponent + 1.5) < 0.05 and fit.r2 > 0.99 and not fit.flat
        assert fit.law == "power" and fit.decades == pytest.approx(4.0)
        covered += fit.ci[0] <= -1.5 <= fit.ci[1]
    assert covered >= 32  # a 95 % interval: ~38 of 40 expected


def test_exact_power_law_fit_prefactor_band_and_r2():
    xs = np.logspace(0, 3, 7)
    fit = fit_power_law(xs, 3.0 * xs**-2.0, rng=np.random.default_rng(0), n_boot=200)
    assert fit.exponent == pytest.approx(-2.0) and fit.prefactor == pytest.approx(3.0)
    assert fit.ci == pytest.approx((-2.0, -2.0)) and fit.r2 == pytest.approx(1.0)
    assert len(fit.band) == len(xs)
    for (lo, hi), y in zip(fit.band, 3.0 * xs**-2.0, strict=True):
        assert lo == pytest.approx(y) and hi == pytest.approx(y)


def test_exponential_law_recovers_its_rate():
    xs = np.linspace(1.0, 10.0, 10)
    ys = 2.0 * np.exp(-1.3 * xs)
    fit = fit_power_law(xs, ys, rng=np.random.default_rng(0), law="exponential", n_boot=200)
    assert fit.law == "exponential" and fit.exponent == pytest.approx(-1.3)
    assert fit.prefactor == pytest.approx(2.0) and fit.r2 == pytest.approx(1.0)
    assert fit.decades == pytest.approx(decades(ys))  # the decades of y its rate spans
    with pytest.raises(ValueError, match="the values span"):
        fit_power_law(xs, np.exp(-0.1 * xs), rng=np.random.default_rng(0), law="exponential")


def test_exponential_law_accepts_non_positive_abscissae():
    xs = np.linspace(-5.0, 5.0, 11)
    fit = fit_power_law(xs, np.exp(0.9 * xs), rng=np.random.default_rng(0), law="exponential",
                        n_boot=100)
    assert fit.exponent == pytest.approx(0.9)


def test_polylog_law_recovers_its_exponent():
    xs = np.logspace(1, 8, 9)
    ys = 0.5 * np.log(xs) ** 2
    fit = fit_power_law(xs, ys, rng=np.random.default_rng(0), law="polylog", n_boot=200)
    assert fit.law == "polylog" and fit.exponent == pytest.approx(2.0)
    assert fit.prefactor == pytest.approx(0.5) and fit.decades == pytest.approx(7.0)


def test_a_flat_law_to_round_off_reports_flat_with_r2_none():
    xs = np.logspace(1, 5, 9)
    ys = np.full(xs.shape, 0.7) * (1 + np.linspace(0, 1, 9) * 1e-15)
    fit = fit_power_law(xs, ys, rng=np.random.default_rng(0), n_boot=200)
    assert fit.flat and fit.r2 is None
    assert abs(fit.exponent) < 1e-12
    # an exponential law flat to round-off needs no decades of y
    lin = np.linspace(0, 1, 6)
    flat = fit_power_law(lin, np.ones(6), rng=np.random.default_rng(0), law="exponential", n_boot=50)
    assert flat.flat and flat.r2 is None and flat.exponent == pytest.approx(0.0, abs=1e-12)
    # just above the round-off threshold the law is not flat
    bumped = np.exp(np.linspace(0, 4 * FLAT_LOG_SPREAD, 9))
    assert not fit_power_law(xs, bumped, rng=np.random.default_rng(0), n_boot=50).flat


def test_fit_with_standard_errors_uses_a_parametric_bootstrap():
    xs = np.logspace(1, 4, 6)
    ys = xs**-1.0
    tight = fit_power_law(xs, ys, 1e-6 * ys, rng=np.random.default_rng(1), n_boot=400)
    loose = fit_power_law(xs, ys, 0.3 * ys, rng=np.random.default_rng(1), n_boot=400)
    assert tight.ci[1] - tight.ci[0] < 1e-4
    assert 0.05 < loose.ci[1] - loose.ci[0] < 1.0
    assert loose.ci[0] < -1.0 < loose.ci[1]


def test_fit_is_seeded_and_validates_its_input():
    xs = np.logspace(0, 4, 9)
    ys = xs**2 * (1 + 0.01 * np.sin(xs))
    a = fit_power_law(xs, ys, rng=np.random.default_rng(5), n_boot=200)
    b = fit_power_law(xs, ys, rng=np.random.default_rng(5), n_boot=200)
    assert a == b
    with pytest.raises(ValueError, match="spans 2.00 decades; at least 3 are required"):
        fit_power_law(np.logspace(0, 2, 9), np.logspace(0, 2, 9), rng=np.random.default_rng(0))
    fit_power_law(np.logspace(0, 2, 9), np.logspace(0, 2, 9), rng=np.random.default_rng(0),
                  min_decades=2.0, n_boot=20)
    with pytest.raises(ValueError, match="positive"):
        fit_power_law(xs, -ys, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="positive"):
        fit_power_law(-xs, ys, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="positive"):
        fit_power_law(xs, 0 * ys, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="finite"):
        fit_power_law(xs, ys * np.nan, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="finite"):
        fit_power_law(xs * np.inf, ys, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least 4 points, got 3"):
        fit_power_law(xs[:3], ys[:3], rng=np.random.default_rng(0))
    fit_power_law(np.logspace(0, 3, 4), np.logspace(0, 3, 4), rng=np.random.default_rng(0), n_boot=20)
    with pytest.raises(ValueError, match="1-d of one length"):
        fit_power_law(xs, ys[:-1], rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="1-d of one length"):
        fit_power_law(xs[None, :], ys[None, :], rng=np.random.default_rng(0))


def test_bootstrap_drops_resamples_without_a_slope():
    from attnaudit.checks.fitting import _batched_lstsq

    lx = np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 2.0]])
    ly = np.array([[5.0, 5.0, 5.0], [1.0, 3.0, 5.0]])
    slopes, intercepts = _batched_lstsq(lx, ly)
    assert slopes.tolist() == [2.0] and intercepts.tolist() == [1.0]


# compare_exponent: the interval widened by the tolerance; boundaries are inclusive.
@pytest.mark.parametrize("ci, predicted, order, tol, status", [
    ((-1.01, -0.99), -1.0, "Θ", 0.05, "agrees"),
    ((-1.01, -0.99), -2.0, "Θ", 0.05, "disagrees"),
    ((-1.01, -0.99), 0.0, "Θ", 0.05, "disagrees"),
    ((-3.0, 1.0), -1.0, "Θ", 0.05, "undecided"),
    ((1.0, 1.5), 0.5, "Θ", 0.5, "agrees"),  # exactly at lo − tol
    ((1.0, 1.5), 2.0, "Θ", 0.5, "agrees"),  # exactly at hi + tol
    ((1.0, 1.5), 0.375, "Θ", 0.5, "disagrees"),
    ((1.0, 1.5), 2.125, "Θ", 0.5, "disagrees"),
    ((1.0, 2.0), 1.5, "Θ", 0.5, "undecided"),  # width 1 > 0.75
    ((1.0, 1.75), 1.5, "Θ", 0.5, "agrees"),  # width exactly the maximum
    ((0.9, 1.04), 1.0, "O", 0.05, "agrees"),
    ((1.2, 1.3), 1.0, "O", 0.05, "disagrees"),
    ((0.5, 1.75), 1.0, "O", 0.5, "undecided"),
    ((0.5, 1.5), 1.0, "O", 0.5, "agrees"),  # hi exactly the bound + tol
    ((1.5, 1.75), 1.0, "O", 0.5, "undecided"),  # lo − tol exactly the bound: not excluded
    ((1.625, 1.75), 1.0, "O", 0.5, "disagrees"),
    ((1.2, 1.3), 1.0, "Ω", 0.05, "agrees"),
    ((0.2, 0.3), 1.0, "Ω", 0.05, "disagrees"),
    ((0.25, 1.5), 1.0, "Ω", 0.5, "undecided"),
    ((0.5, 1.5), 1.0, "Ω", 0.5, "agrees"),  # lo exactly the bound − tol
    ((0.25, 0.5), 1.0, "Ω", 0.5, "undecided"),  # hi + tol exactly the bound: not excluded
    ((0.25, 0.375), 1.0, "Ω", 0.5, "disagrees"),
])
def test_compare_exponent(ci, predicted, order, tol, status):
    assert compare_exponent(ci, predicted, order, tol, 0.75)[0] == status


def test_compare_exponent_says_why():
    assert compare_exponent((1.0, 1.5), 3.0, "Θ", 0.5, 1.0)[1] == "interval [1, 1.5] ± 0.5 excludes 3"
    assert compare_exponent((1.0, 1.5), 1.0, "Θ", 0.5, 1.0)[1] == "interval [1, 1.5] ± 0.5 contains 1"
    assert compare_exponent((1.0, 3.5), 1.0, "Θ", 0.5, 1.0)[1] == (
        "interval width 2.5 exceeds 1: widen the grid")
    assert compare_exponent((2.0, 2.5), 1.0, "O", 0.5, 1.0)[1] == "exponent ≥ 2 exceeds the bound 1"
    assert compare_exponent((0.0, 0.5), 1.0, "O", 0.5, 1.0)[1] == "exponent ≤ 0.5 is within the bound 1"
    assert compare_exponent((0.0, 2.5), 1.0, "O", 0.5, 1.0)[1] == (
        "interval [0, 2.5] straddles the bound 1")
    assert compare_exponent((0.0, 0.25), 1.0, "Ω", 0.5, 1.0)[1] == "exponent ≤ 0.25 falls below the bound 1"
    assert compare_exponent((1.0, 1.5), 1.0, "Ω", 0.5, 1.0)[1] == "exponent ≥ 1 meets the bound 1"
    assert compare_exponent((0.0, 2.5), 1.0, "Ω", 0.5, 1.0)[1] == (
        "interval [0, 2.5] straddles the bound 1")
    with pytest.raises(ValueError, match="unknown order"):
        compare_exponent((0.0, 1.0), 1.0, "o", 0.0, 1.0)


def test_nearest_simple_exponent():
    assert nearest_simple_exponent(-0.998, (-1.001, -0.995), 0.01) == "-1"
    assert nearest_simple_exponent(0.49, (0.47, 0.51), 0.0) == "1/2"
    assert nearest_simple_exponent(0.34, (0.33, 0.335), 0.0) == "1/3"
    assert nearest_simple_exponent(0.74, (0.74, 0.745), 0.01) == "3/4"
    assert nearest_simple_exponent(0.4142, (0.414, 0.4144), 0.0) == "0.414"
    assert nearest_simple_exponent(1.5, (1.5, 1.5), 0.0) == "3/2"  # interval edges included
    assert nearest_simple_exponent(0.3, (0.0, 0.31), 0.0) == "0"  # the simplest first: 0, not 1/4
    assert nearest_simple_exponent(0.63, (0.5, 0.64), 0.0) == "1/2"  # 1/2 before 2/3 and 3/4


# ── laws: evidence for scaling laws and limits ───────────────────────────────────────────────


def _ctx():
    return Context("toy/laws", seed=0)


def _law(**changes):
    from attnaudit.checks import ScalingLaw, tolerances

    base = dict(name="law", quantity="y", variable="n", exponent=2.0, order="Θ",
                grid=lambda ctx: np.logspace(0, 3, 7), measure=lambda ctx, g: 4.0 * g**2,
                family="exact squares", tolerance=tolerances.Systematic(0.01, "none to speak of"))
    return ScalingLaw(**(base | changes))


def test_scaling_evidence_carries_the_points_the_fit_and_the_prediction():
    from attnaudit.checks.laws import check_scaling

    ev = check_scaling(_law(), _ctx())
    assert ev["type"] == "scaling" and ev["status"] == "agrees"
    assert ev["predicted"] == "Θ(n^2)" and ev["order"] == "Θ"
    assert ev["predicted_exponent"] == 2.0 and ev["exponent_tolerance"] == 0.01
    assert ev["tolerance"] == "systematic: ±0.01 for none to speak of"
    assert ev["points"]["x"] == pytest.approx(list(np.logspace(0, 3, 7)))
    assert ev["points"]["yerr"] is None
    assert ev["fit"]["ci_level"] == 0.95 and ev["fit"]["law"] == "power"
    assert ev["predicted_prefactor"] == pytest.approx(4.0)
    assert ev["summary"].startswith("y ~ n^2 (95% CI [2, 2], R² 1.0000) vs predicted Θ(n^2): ")
    assert ev["family"] == "exact squares" and ev["quantity"] == "y" and ev["variable"] == "n"
    assert ev["role"] == "statement" and ev["reading"] is None


def test_scaling_evidence_for_exponential_polylog_and_flat_laws():
    from attnaudit.checks.laws import check_scaling

    exp_ = check_scaling(_law(law="exponential", exponent=-0.5, grid=lambda ctx: np.linspace(0, 20, 9),
                              measure=lambda ctx, g: 3 * np.exp(-0.5 * g), predicted="e^{-n/2}"),
                         _ctx())
    assert exp_["status"] == "agrees" and exp_["predicted"] == "e^{-n/2}"
    assert exp_["predicted_prefactor"] == pytest.approx(3.0)
    assert "y ~ exp(-0.5·n)" in exp_["summary"]
    poly = check_scaling(_law(law="polylog", order="Ω", grid=lambda ctx: np.logspace(1, 6, 6),
                              measure=lambda ctx, g: np.log(g) ** 3), _ctx())
    assert poly["status"] == "agrees" and poly["predicted"] == "Ω((log n)^2)"
    assert "y ~ (log n)^3" in poly["summary"]
    flat = check_scaling(_law(exponent=0.0, measure=lambda ctx, g: np.full(len(g), 2.5)), _ctx())
    assert flat["fit"]["flat"] and flat["fit"]["r2"] is None and flat["status"] == "agrees"
    assert "flat to round-off" in flat["summary"]


def test_scaling_evidence_with_error_bars_and_a_shape_check():
    from attnaudit.checks.laws import check_scaling

    def noisy(ctx, g):
        return g**2 * np.exp(0.01 * ctx.numpy_rng("noise").standard_normal(len(g)))

    ev = check_scaling(_law(measure=noisy, replicates=3), _ctx())
    draws = np.array([noisy(_ctx().replicate(r), np.logspace(0, 3, 7)) for r in range(3)])
    assert ev["replicates"] == 3 and np.allclose(ev["points"]["draws"], draws, rtol=1e-15, atol=0)
    assert ev["points"]["y"] == pytest.approx(list(draws.mean(axis=0)))
    assert ev["points"]["yerr"] == pytest.approx(list(draws.std(axis=0, ddof=1) / np.sqrt(3)))
    with pytest.raises(ValueError, match="a spec cannot supply an error bar: set replicates=R"):
        check_scaling(_law(measure=lambda ctx, g: (g**2, 0.01 * g**2)), _ctx())
    with pytest.raises(ValueError, match=r"measured \(6,\) values for \(7,\) points"):
        check_scaling(_law(measure=lambda ctx, g: g[:-1] ** 2), _ctx())


def _limit(**changes):
    from attnaudit.checks import Limit, tolerances

    base = dict(name="lim", quantity="q", variable="n", value="1", point="oo", rate=1.0,
                grid=lambda ctx: np.logspace(1, 4, 7), gap=lambda ctx, g: 2 / g, family="exact",
                tolerance=tolerances.Systematic(0.05, "none"))
    return Limit(**(base | changes))


def test_limit_evidence_at_infinity_and_at_a_finite_point():
    from attnaudit.checks.laws import check_limit

    ev = check_limit(_limit(), _ctx())
    assert ev["status"] == "agrees" and ev["final_gap"] == pytest.approx(2e-4)
    assert ev["points"]["x"] == pytest.approx(list(1 / np.logspace(1, 4, 7)))
    assert ev["predicted_prefactor"] == pytest.approx(2.0) and ev["order"] == "Θ"
    assert ev["summary"].startswith("|q − 1| shrinks like |n − oo|^1 (95% CI [1, 1]), derived rate 1; "
                                    "gap 0.0002 at the closest point: ")
    for point in ("∞", "inf"):
        assert check_limit(_limit(point=point), _ctx())["status"] == "agrees"
    finite = check_limit(_limit(point="2", grid=lambda ctx: 2 - np.logspace(-5, -1, 7),
                                gap=lambda ctx, g: 3 * np.abs(g - 2) ** 0.5, rate=0.5), _ctx())
    assert finite["status"] == "agrees" and finite["final_gap"] == pytest.approx(3 * 10**-2.5)
    assert check_limit(_limit(rate=2.0), _ctx())["status"] == "disagrees"


def test_limit_evidence_rejects_bad_gaps():
    from attnaudit.checks.laws import check_limit

    with pytest.raises(ValueError, match="must be >= 0"):
        check_limit(_limit(gap=lambda ctx, g: -1 / g), _ctx())
    with pytest.raises(ValueError, match="exactly 0"):
        check_limit(_limit(gap=lambda ctx, g: 0 * g), _ctx())
    with pytest.raises(ValueError, match=r"measured \(6,\) gaps for \(7,\) points"):
        check_limit(_limit(gap=lambda ctx, g: 1 / g[:-1]), _ctx())
    with pytest.raises(ValueError, match="a spec cannot supply an error bar"):
        check_limit(_limit(gap=lambda ctx, g: (1 / g, 0.01 / g)), _ctx())
    ev = check_limit(_limit(gap=lambda ctx, g: 1 / g * (1 + 0.001 * ctx.numpy_rng("n").random(len(g))),
                            replicates=4), _ctx())
    assert ev["points"]["yerr"] is not None and ev["status"] == "agrees" and ev["replicates"] == 4


def test_limit_and_law_validation():
    with pytest.raises(ValueError, match="rate must be positive"):
        _limit(rate=0.0)
    with pytest.raises(ValueError, match="name the family"):
        _limit(family=" ")
    from types import SimpleNamespace

    negative = SimpleNamespace(value=-0.1, describe=lambda: "a negative tolerance")
    with pytest.raises(ValueError, match=">= 0"):
        _limit(tolerance=negative)
    with pytest.raises(ValueError, match=">= 0"):
        _law(tolerance=negative)
    assert _limit().rate_tolerance == 0.05 and _law().exponent_tolerance == 0.01


def test_batched_bisection_locates_every_boundary_and_rejects_a_bad_bracket():
    import torch

    from attnaudit.checks.bisection import bisect_monotone

    roots = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
    lo, hi = bisect_monotone(lambda x: x <= roots[:, None], torch.zeros(3, dtype=torch.float64),
                             torch.ones(3, dtype=torch.float64), candidates=15, rounds=6)
    assert bool((lo <= roots).all() and (roots < hi).all())
    assert float((hi - lo).max()) <= 2.0 / 16**6
    with pytest.raises(ValueError, match="does not straddle the root"):
        bisect_monotone(lambda x: x >= 2, torch.zeros(1), torch.ones(1), candidates=3, rounds=1,
                        what="root")


# ── the fit's arithmetic, pinned against references ─────────────────────────────────────────


def test_r2_is_the_coefficient_of_determination():
    from scipy import stats

    xs = np.logspace(0, 4, 9)
    ys = xs**-1.0 * np.exp(2 * np.array([0.3, -0.2, 0.5, 0.0, -0.4, 0.2, 0.1, -0.3, 0.25]))
    fit = fit_power_law(xs, ys, rng=np.random.default_rng(0), n_boot=20)
    ref = stats.linregress(np.log(xs), np.log(ys))
    assert fit.r2 == pytest.approx(ref.rvalue**2, rel=1e-12) and fit.r2 < 0.99
    assert fit.exponent == pytest.approx(ref.slope) and fit.prefactor == pytest.approx(np.exp(ref.intercept))


def _reference_bootstrap(lx, ly, sl, rng, n_boot):
    """The intervals the fit must report: percentile bootstrap (pairs) or parametric (errors)."""
    if sl is None:
        idx = rng.integers(0, len(lx), size=(n_boot, len(lx)))
        bx, by = lx[idx], ly[idx]
    else:
        by = ly[None, :] + rng.standard_normal((n_boot, len(lx))) * sl[None, :]
        bx = np.broadcast_to(lx, by.shape)
    slopes, intercepts = [], []
    for row_x, row_y in zip(bx, by, strict=True):
        if np.ptp(row_x) > 0:
            p, a = np.polyfit(row_x, row_y, 1)
            slopes.append(p)
            intercepts.append(a)
    slopes, intercepts = np.array(slopes), np.array(intercepts)
    lines = intercepts[:, None] + slopes[:, None] * lx[None, :]
    return (np.quantile(slopes, [0.025, 0.975]), np.exp(np.quantile(lines, [0.025, 0.975], axis=0)))


@pytest.mark.parametrize("with_errors", [False, True])
def test_bootstrap_interval_and_band_match_a_reference(with_errors):
    xs = np.array([2.0, 3.0, 10.0, 40.0, 300.0, 2000.0])
    noise = np.array([0.2, -0.1, 0.3, -0.25, 0.05, 0.15])
    ys = 5 * xs**0.7 * np.exp(noise)
    yerr = 0.2 * ys if with_errors else None
    fit = fit_power_law(xs, ys, yerr, rng=np.random.default_rng(11), n_boot=300)
    sl = None if yerr is None else yerr / ys
    ci, band = _reference_bootstrap(np.log(xs), np.log(ys), sl, np.random.default_rng(11), 300)
    assert fit.ci == pytest.approx(tuple(ci), rel=1e-9)
    assert np.allclose(np.array(fit.band).T, band, rtol=1e-9)


def test_a_resample_with_a_small_spread_of_x_keeps_its_slope():
    from attnaudit.checks.fitting import _batched_lstsq

    slopes, intercepts = _batched_lstsq(np.array([[0.0, 0.5, 1.0]]), np.array([[1.0, 2.0, 3.0]]))
    assert slopes.tolist() == [2.0] and intercepts.tolist() == [1.0]


def test_single_precision_input_is_fitted_in_double():
    xs = np.logspace(0, 3, 7).astype(np.float32)
    ys = (3 * np.logspace(0, 3, 7) ** -1.3 * np.exp(np.linspace(-0.1, 0.1, 7))).astype(np.float32)
    err = (0.1 * ys).astype(np.float32)
    for kwargs in ({}, {"yerr": err}):
        single = fit_power_law(xs, ys, rng=np.random.default_rng(2), n_boot=50, **kwargs)
        double = fit_power_law(xs.astype(float), ys.astype(float), rng=np.random.default_rng(2),
                               n_boot=50, **{k: v.astype(float) for k, v in kwargs.items()})
        assert single == double
    assert law_abscissa(xs, "power").dtype == np.float64
    assert law_abscissa(xs, "power").tolist() == np.log(xs.astype(float)).tolist()
    assert decades(np.array([np.float32(1.0), np.float32(3.0)])) == np.log10(3.0)
    assert closed_form_bias(xs, ys, -1.3) == closed_form_bias(xs.astype(float), ys.astype(float), -1.3)
    assert law_abscissa([10, 100], "exponential").dtype == np.float64


def test_fit_boundaries_and_messages():
    assert law_abscissa(np.array([1.5, 10.0]), "polylog") == pytest.approx(np.log(np.log([1.5, 10.0])))
    with pytest.raises(ValueError, match=r"^a polylog law \(log x\)\^p needs x > 1$"):
        law_abscissa(np.array([1.0, 10.0]), "polylog")
    xs = np.logspace(0, 3, 7)
    with pytest.raises(ValueError, match=r"^a log-log fit needs positive x and y \(measure a magnitude\)$"):
        fit_power_law(np.concatenate([[0.0], xs]), np.ones(8), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^a scaling fit needs finite measurements \(got NaN or inf\)$"):
        fit_power_law(xs, xs * np.nan, rng=np.random.default_rng(0))
    # exactly the required decades (up to the 1e-9 slack) passes
    two = np.array([1.0, 3.0, 10.0, 100.0])
    fit_power_law(two, two, rng=np.random.default_rng(0), min_decades=2.0 + 1e-9, n_boot=10)


def test_an_overflowing_band_is_reported_without_a_warning():
    import warnings

    xs = np.logspace(0, 3, 5)
    ys = np.array([1e-300, 1e300, 1e-300, 1e300, 1e-300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_power_law(xs, ys, rng=np.random.default_rng(0), n_boot=200)
    assert max(hi for _, hi in fit.band) == np.inf


# ── laws: the whole evidence record ──────────────────────────────────────────────────────────

NOISE = np.array([0.05, -0.04, 0.06, -0.02, 0.03, -0.05, 0.01])


def test_scaling_evidence_record_in_full():
    import torch

    from attnaudit.checks.laws import check_scaling

    def grid(ctx):
        return np.logspace(0, ctx.pick(quick=3, full=4), 7)

    def measure(ctx, g):
        assert ctx.claim_id == "toy/laws"
        y = 4.0 * g**1.234567 * (1 + 0.5 / g) * np.exp(NOISE)
        return torch.tensor(y, requires_grad=True)

    law = _law(name="full-law", exponent=1.234567, grid=grid, measure=measure, reading=None,
               role="proof")
    ev = check_scaling(law, _ctx())
    x = np.logspace(0, 3, 7)
    y = 4.0 * x**1.234567 * (1 + 0.5 / x) * np.exp(NOISE)
    ref = fit_power_law(x, y, rng=_ctx().numpy_rng("bootstrap:full-law"))
    local = local_exponents(x, y, rng=_ctx().numpy_rng("bootstrap-local:full-law"))
    assert set(ev) == {"type", "name", "reading", "quantity", "variable", "predicted", "family",
                       "tolerance", "role", "points", "fit", "predicted_exponent",
                       "predicted_prefactor", "order", "exponent_tolerance", "status", "decision",
                       "summary", "decided_by_tolerance", "replicates", "replicates_requested",
                       "second_replicate_drawn", "deterministic"}
    assert (ev["type"], ev["name"], ev["role"], ev["predicted"]) == ("scaling", "full-law", "proof",
                                                                     "Θ(n^1.23)")
    assert ev["points"] == {"x": pytest.approx(list(x)), "y": pytest.approx(list(y)),
                            "yerr": None, "draws": [pytest.approx(list(y))]}
    assert ev["fit"] == {"exponent": ref.exponent, "prefactor": ref.prefactor, "ci": list(ref.ci),
                         "ci_level": 0.95, "r2": ref.r2, "band": [list(b) for b in ref.band],
                         "decades": ref.decades, "law": "power", "flat": False,
                         "drifting": False, "local_exponents": local}
    assert (ev["replicates"], ev["second_replicate_drawn"], ev["decided_by_tolerance"]) == (1, False, False)
    # the prediction is drawn through the measurement at the largest x
    assert ev["predicted_prefactor"] == pytest.approx(y[-1] / x[-1] ** 1.234567)
    assert ev["summary"] == (f"y ~ n^{ref.exponent:.4g} (95% CI [{ref.ci[0]:.4g}, {ref.ci[1]:.4g}], "
                             f"R² {ref.r2:.4f}) vs predicted Θ(n^1.23): {ev['decision']}")
    assert ev["decision"].startswith(compare_exponent(ref.ci, 1.234567, "Θ", 0.01, 0.5)[1])
    # a refutation from one draw: the engine drew replicate 1, bitwise identical (deterministic)
    assert ev["status"] == "disagrees" and ev["deterministic"] is True


def test_limit_evidence_record_in_full():
    from attnaudit.checks.laws import check_limit

    def grid(ctx):
        return np.logspace(1, ctx.pick(quick=4, full=5), 7)

    def gap(ctx, g):
        assert ctx.claim_id == "toy/laws"
        return 2 / g * (1 + 3 / g) * np.exp(NOISE)

    lim = _limit(name="full-limit", grid=grid, gap=gap, reading=None)
    ev = check_limit(lim, _ctx())
    d = 1 / np.logspace(1, 4, 7)
    y = 2 * d * (1 + 3 * d) * np.exp(NOISE)
    ref = fit_power_law(d, y, rng=_ctx().numpy_rng("bootstrap:full-limit"))
    assert set(ev) == {"type", "name", "reading", "quantity", "variable", "value", "point", "family",
                       "tolerance", "role", "final_gap", "points", "fit", "predicted_exponent",
                       "predicted_prefactor", "order", "exponent_tolerance", "status", "decision",
                       "summary", "decided_by_tolerance", "replicates", "replicates_requested",
                       "second_replicate_drawn", "deterministic"}
    assert (ev["type"], ev["name"], ev["reading"], ev["quantity"], ev["variable"], ev["value"],
            ev["point"], ev["family"], ev["role"]) == ("limit", "full-limit", None, "q", "n", "1", "oo",
                                                        "exact", "statement")
    assert ev["tolerance"] == "systematic: ±0.05 for none"
    assert ev["fit"]["ci"] == list(ref.ci) and ev["fit"]["exponent"] == ref.exponent
    # drawn through the measurement closest to the limit point
    assert ev["predicted_prefactor"] == pytest.approx(y[-1] / d[-1])
    assert ev["final_gap"] == pytest.approx(y[-1])
    assert ev["summary"] == (f"|q − 1| shrinks like |n − oo|^{ref.exponent:.4g} (95% CI "
                             f"[{ref.ci[0]:.4g}, {ref.ci[1]:.4g}]), derived rate 1; gap "
                             f"{y[-1]:.3g} at the closest point: {ev['decision']}")


def test_a_limit_interval_wider_than_half_a_unit_is_undecided():
    from attnaudit.checks.laws import check_limit

    wobble = np.array([1.5, -1.0, 0.8, -1.2, 0.4, 1.1, -0.9])
    ev = check_limit(_limit(gap=lambda ctx, g: 1 / g * np.exp(wobble), rate=1.0,
                            tolerance=_limit().tolerance), _ctx())
    width = ev["fit"]["ci"][1] - ev["fit"]["ci"][0]
    assert 0.5 < width < 1.5 and ev["status"] == "undecided"


def test_an_exactly_zero_gap_points_to_a_relation():
    from attnaudit.checks.laws import check_limit

    with pytest.raises(ValueError, match=r"^limit 'lim': the gap is exactly 0 at some grid point; use a "
                                         r"Relation for an identity that holds exactly$"):
        check_limit(_limit(gap=lambda ctx, g: np.where(g > 100, 0.0, 1 / g)), _ctx())


def test_law_texts():
    from attnaudit.checks.laws import check_scaling

    flat = check_scaling(_law(exponent=0.0, measure=lambda ctx, g: np.full(len(g), 2.5)), _ctx())
    assert flat["summary"].startswith("y ~ n^0 (95% CI [0, 0], flat to round-off) vs predicted Θ(n^0): ")


def test_a_single_precision_grid_is_measured_in_double():
    from attnaudit.checks.laws import check_limit

    grid32 = np.logspace(1, 4, 7).astype(np.float32)
    single = check_limit(_limit(grid=lambda ctx: grid32), _ctx())
    double = check_limit(_limit(grid=lambda ctx: grid32.astype(np.float64)), _ctx())
    assert single["points"] == double["points"] and single["fit"] == double["fit"]
