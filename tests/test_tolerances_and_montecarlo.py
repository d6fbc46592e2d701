"""Tolerance objects describe themselves from the constants they use; the one Monte-Carlo
interval type agrees with scipy and covers at its stated (Bonferroni-corrected) level."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy import stats

from attnaudit.checks import montecarlo, tolerances
from attnaudit.checks.model import describe_tolerance
from attnaudit.checks.tolerances import (
    SAFETY,
    Exact,
    FitBias,
    MonteCarlo,
    Roundoff,
    Systematic,
    roundoff,
    unit_roundoff,
)

DTYPES = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unit_roundoff_is_half_the_machine_epsilon(dtype):
    u = torch.finfo(dtype).eps / 2
    assert unit_roundoff(dtype) == u
    assert unit_roundoff(str(dtype).removeprefix("torch.")) == u
    assert roundoff(dtype) == SAFETY * u
    assert roundoff(dtype, 3.0, safety=2.0) == 6.0 * u


def test_unit_roundoff_of_an_unknown_dtype_is_an_error_and_float64_is_the_default():
    with pytest.raises(ValueError, match="no unit round-off known for dtype 'int8'"):
        unit_roundoff("int8")
    assert unit_roundoff() == torch.finfo(torch.float64).eps / 2
    assert roundoff() == SAFETY * unit_roundoff("float64")


def test_roundoff_takes_a_tensor_condition():
    cond = torch.tensor([1.0, 10.0], dtype=torch.float64)
    assert torch.equal(roundoff("float64", cond), SAFETY * unit_roundoff("float64") * cond)


def test_roundoff_object_computes_and_describes_from_its_fields():
    tol = Roundoff("n: a sum of n terms", safety=16.0, dtype="float32", scale="max|v|")
    u = unit_roundoff("float32")
    assert tol() == 16.0 * u
    assert tol(4.0) == 64.0 * u
    assert tol(4.0, dtype=torch.float64) == 64.0 * unit_roundoff("float64")
    assert tol.describe() == (f"float32 round-off: {tol.safety:g}·u (u = {u:.3g}) = {16.0 * u:.3g} "
                              f"× condition {tol.condition}, times {tol.scale}")
    plain = Roundoff("1")
    assert plain.safety == SAFETY and plain() == SAFETY * unit_roundoff("float64")
    assert plain.describe() == (f"float64 round-off: {SAFETY:g}·u (u = {unit_roundoff('float64'):.3g})"
                                f" = {SAFETY * unit_roundoff('float64'):.3g} × condition {plain.condition}")
    assert Roundoff("1", dtype=torch.float16).describe().startswith("float16 round-off")
    assert describe_tolerance(tol) == tol.describe()
    assert describe_tolerance("a stated reason") == "a stated reason"


def test_monte_carlo_tolerance_is_validated_and_bonferroni_corrected():
    for bad in (dict(confidence=0.0), dict(confidence=1.0), dict(comparisons=0), dict(method="t")):
        with pytest.raises(ValueError):
            MonteCarlo("x", **bad)
    single = MonteCarlo("mean eff-rank over 200 sets")
    assert single.per_comparison == pytest.approx(0.95)
    assert single.describe() == (f"Monte-Carlo: {single.confidence:.3g} normal interval of the mean of "
                                 f"{single.estimator}")
    joint = MonteCarlo("a proportion of failures", confidence=0.99, comparisons=4, method="wilson")
    assert joint.per_comparison == pytest.approx(1 - 0.01 / 4)
    alpha = (1 - joint.confidence) / joint.comparisons
    assert joint.describe() == (f"Monte-Carlo: {joint.confidence:.3g} Wilson interval of "
                                f"{joint.estimator}, Bonferroni over {joint.comparisons} comparisons "
                                f"(each at level 1 − {alpha:.3g})")


def test_a_lazy_fit_bias_is_computed_once_when_first_used_and_never_at_construction():
    from attnaudit.checks import ScalingLaw

    calls = []

    def bias():
        calls.append(1)
        return -0.02

    tol = FitBias(bias=bias, source="1/(n-5) on the grid")
    law = ScalingLaw(name="law", quantity="y", variable="n", exponent=-1.0, order="Θ",
                     grid=lambda ctx: None, measure=lambda ctx, g: None, family="f", tolerance=tol)
    assert tol.lazy and calls == []
    assert law.exponent_tolerance == pytest.approx(0.04) and tol.value == pytest.approx(0.04)
    assert tol.describe().startswith("fit bias: ±0.04 = 2 × |-0.02|")
    assert calls == [1]


def test_fit_bias_systematic_and_exact_tolerances():
    bias = FitBias(bias=-0.03, source="1/(n-5) on the grid 10..10⁴")
    assert bias.value == pytest.approx(2 * 0.03)
    assert not bias.lazy and bias.bias_value == -0.03
    assert bias.describe() == (f"fit bias: ±{bias.value:.3g} = {bias.margin:g} × |{bias.bias_value:.3g}|, "
                               f"the fitted minus asymptotic exponent of {bias.source}")
    floored = FitBias(bias=1e-6, source="an exact closed form", margin=3.0, floor=0.01)
    assert floored.value == 0.01
    assert floored.describe().endswith(f", at least {floored.floor:g}")
    assert FitBias(bias=0.2, source="s", margin=3.0, floor=0.01).value == pytest.approx(0.6)
    sys_ = Systematic(0.05, "pre-asymptotic curvature on a wider grid")
    assert sys_.describe() == f"systematic: ±{sys_.value:g} for {sys_.reason}"
    assert Systematic(0.0, "none").value == 0.0
    with pytest.raises(ValueError, match="non-negative"):
        Systematic(-0.1, "r")
    with pytest.raises(ValueError, match="states its reason"):
        Systematic(0.1, " ")
    exact = Exact("integer counts")
    assert exact.value == 0.0 and exact() == 0.0 and exact(1, dtype="x") == 0.0
    assert exact.describe() == f"none: {exact.reason}"
    assert Exact().describe() == "none: exact comparison"


# ── Monte-Carlo intervals ────────────────────────────────────────────────────────────────────


def test_mean_interval_is_scipys_normal_interval_at_the_per_comparison_level():
    rng = np.random.default_rng(0)
    samples = rng.normal(2.0, 3.0, 40)
    for tol in (MonteCarlo("m"), MonteCarlo("m", confidence=0.9, comparisons=3)):
        est = montecarlo.mean(samples, tol)
        lo, hi = stats.norm.interval(tol.per_comparison, loc=samples.mean(), scale=stats.sem(samples))
        assert (est.low, est.high) == pytest.approx((lo, hi))
        assert est.value == pytest.approx(samples.mean()) and est.n == 40
        assert est.stderr == pytest.approx(stats.sem(samples))
    assert montecarlo.mean(torch.as_tensor(samples), MonteCarlo("m")) == montecarlo.mean(
        samples, MonteCarlo("m"))


def test_mean_along_an_axis_gives_one_estimate_per_row_and_covers_at_its_level():
    rng = np.random.default_rng(1)
    rows = rng.normal(1.0, 1.0, (2000, 30))
    for tol, low, high in ((MonteCarlo("m"), 0.93, 0.965), (MonteCarlo("m", comparisons=5), 0.98, 0.995)):
        estimates = montecarlo.mean(rows, tol)
        assert len(estimates) == 2000 and estimates[0].n == 30
        coverage = np.mean([not e.excludes(1.0) for e in estimates])
        assert low <= coverage <= high, coverage
    by_column = montecarlo.mean(rows[:3].T, MonteCarlo("m"), axis=0)
    assert [e.value for e in by_column] == pytest.approx(rows[:3].mean(axis=1))
    with pytest.raises(ValueError, match="at least 2 samples"):
        montecarlo.mean(np.ones((4, 1)), MonteCarlo("m"))
    assert montecarlo.mean(np.array([1.0, 3.0]), MonteCarlo("m")).value == 2.0


def test_proportion_is_scipys_wilson_interval():
    tol = MonteCarlo("failures", comparisons=2, method="wilson")
    est = montecarlo.proportion(7, 50, tol)
    ci = stats.binomtest(7, 50).proportion_ci(confidence_level=tol.per_comparison, method="wilson")
    assert (est.low, est.high) == pytest.approx((ci.low, ci.high))
    assert est.value == pytest.approx(7 / 50) and est.n == 50
    assert est.stderr == pytest.approx(np.sqrt(0.14 * 0.86 / 50))
    assert montecarlo.proportion(0, 10, tol).low == 0.0
    assert montecarlo.proportion(10, 10, tol).high == pytest.approx(1.0)
    for bad in ((1, 0), (-1, 5), (6, 5)):
        with pytest.raises(ValueError, match="need 0 <= successes <= trials"):
            montecarlo.proportion(*bad, tol)


def test_estimate_excludes_only_outside_its_interval():
    est = montecarlo.Estimate(value=1.0, stderr=0.1, low=0.8, high=1.2, n=10)
    assert est.excludes(0.7) and est.excludes(1.3)
    assert not est.excludes(0.8) and not est.excludes(1.2) and not est.excludes(1.0)


def test_means_and_errors_per_row():
    samples = np.array([[1.0, 3.0], [2.0, 2.0], [0.0, 4.0]])
    means, errors = montecarlo.means_and_errors(samples)
    assert means.tolist() == [2.0, 2.0, 2.0]
    assert errors == pytest.approx([1.0, 0.0, 2.0])
    for bad in (np.ones(4), np.ones((3, 1))):
        with pytest.raises(ValueError, match="points, trials >= 2"):
            montecarlo.means_and_errors(bad)


def test_tolerances_module_loads_without_torch_at_import():
    import subprocess
    import sys

    code = "import sys, checks.tolerances; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert tolerances.unit_roundoff is unit_roundoff
