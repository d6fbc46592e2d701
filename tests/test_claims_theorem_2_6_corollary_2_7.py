"""GeoResolver Theorem 2.6 (PL constants of the two-key loss) and Corollary 2.7 (no spurious
minima, linear convergence): the real verdicts, and altered variants showing that every check
that agrees would refute a wrong prediction (exponent, constant, formula, inequality)."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch
from claimtest import assert_excluded, evidence, first_false_step, only, run

from checks import Context
from checks.relations import replay_witness
from claims.georesolver import _two_key as tk
from claims.georesolver import corollary_2_7, theorem_2_6

IDA, SOFT, RATIO = theorem_2_6.CLAIMS
NO_SPURIOUS, LINEAR = corollary_2_7.CLAIMS


def assert_witnessed(record, name, check):
    ev = evidence(record, name)
    assert record["verdict"] == "refuted" and ev["status"] == "disagrees", ev["summary"]
    witness = ev["witness"]
    assert witness is not None and witness["margin"] > 0
    assert replay_witness(check, witness)["margin"] > 0
    return witness


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in (IDA, SOFT, RATIO, NO_SPURIOUS, LINEAR)}


# ── Theorem 2.6, IDA ──


def test_ida_first_false_step_is_the_vanishing_slope(records):
    record = records[IDA.id]
    assert record["verdict"] == "refuted"
    first = first_false_step(record)
    assert first["name"] == "W₁′(0) = 0"
    assert first["derived"] == "-2*Delta*epsilon/(Delta**2 + 2*epsilon)**2"
    steps = {s["name"]: s for s in record["derivation"]["steps"]}
    # The expansions before it are right; W₁″(0), the quotient and the Δ order are wrong.
    assert all(s["agrees"] for s in record["derivation"]["steps"][:4])
    assert not steps["W₁″(0) = −4ε/Δ⁴ + O(ε²/Δ⁶)"]["agrees"]
    assert steps["W₁″(0) = −4ε/Δ⁴ + O(ε²/Δ⁶)"]["derived"] == "-2/Delta**2"
    assert steps["μ = Θ(ε²Δᵇ) with μ(λΔ, λ²ε) = λ⁻²μ(Δ, ε) forces b"]["derived"] == "-6"
    assert steps["μ_IDA = Θ(ε²/Δ⁴) in ε (ε → 0, Δ fixed)"]["agrees"]
    assert not steps["μ_IDA = Θ(ε²/Δ⁴) in Δ (Δ → ∞, ε fixed)"]["agrees"]


def test_ida_exponents_eps_confirmed_delta_refuted(records):
    record = records[IDA.id]
    for name in ("pl-vs-eps", "proof-local-vs-eps"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and abs(ev["fit"]["exponent"] - 2) < 0.01
    for name in ("pl-vs-delta", "proof-local-vs-delta"):
        ev = evidence(record, name)
        assert_excluded(ev)
        assert abs(ev["fit"]["exponent"] + 6) < 0.01
    assert evidence(record, "operator-consistency")["status"] == "agrees"
    assert "Θ(ε²/Δ⁶)" in record["corrected"]["statement"]


def test_ida_line_reading_has_zero_pl_constant(records):
    witness = assert_witnessed(records[IDA.id], "pl-positive-on-line", IDA.check("pl-positive-on-line"))
    assert witness["lhs"] < 1e-20 < witness["rhs"]


def test_ida_segment_infimum_finds_the_exact_constant():
    """With L(0) = L* = 0 the PL ratio is 2W₁′(q)² (v₁ − v₂ = 1), whose infimum over [0, Δ] is at
    the keys: exactly 8Δ²ε²/(Δ²+2ε)⁴; the grid + golden-section search must find it."""
    ctx = Context(IDA.id, seed=0)
    e = ctx.tensor([1e-6, 1e-3, 0.1, 1.0, 10.0])
    d = ctx.tensor([1.0, 0.5, 2.0, 1.0, 1.0])
    mu, where = tk.segment_infimum(lambda qs: 2 * tk.ida_dw1(qs, e[:, None], d[:, None]).square(),
                                   torch.zeros_like(d), d, 2000)
    exact = 8 * d**2 * e**2 / (d**2 + 2 * e) ** 4
    torch.testing.assert_close(mu, exact, rtol=1e-9, atol=0)
    assert torch.all((where < 1e-6 * d) | (where > d * (1 - 1e-6)))


def test_ida_key1_infimum_is_at_the_far_key():
    """Target y = v₁: the infimum sits at q = Δ, where the ratio is 2W₂(Δ)²W₁′(Δ)²/(W₂(Δ)² − W₂(0)²)."""
    ctx = Context(IDA.id, seed=0)
    e = ctx.tensor([1e-7, 1e-5, 1e-3])
    d = torch.ones_like(e)
    mu = theorem_2_6.ida_mu_key1(ctx, e, d)
    w2_far, w2_near = tk.ida_w2(d, e, d), tk.ida_w2(0 * d, e, d)
    at_far_key = 2 * w2_far**2 * tk.ida_dw1(d, e, d) ** 2 / (w2_far**2 - w2_near**2)
    torch.testing.assert_close(mu, at_far_key, rtol=1e-9, atol=0)


def test_ida_confirmed_exponent_refutes_a_wrong_one_and_a_wrong_slope():
    wrong = dataclasses.replace(IDA.check("pl-vs-eps"), exponent=3.0)
    assert_excluded(evidence(run(only(IDA, wrong)), "pl-vs-eps"))
    check = IDA.check("operator-consistency")

    def scaled(case):
        lhs, rhs, tol = check.evaluate(case)
        return lhs, rhs * (1 + 1e-9), tol

    altered = dataclasses.replace(check, evaluate=scaled)
    assert_witnessed(run(only(IDA, altered)), "operator-consistency", altered)


def test_exponent_tolerances_cover_the_closed_form_bias():
    assert abs(theorem_2_6._EPS_BIAS) < theorem_2_6.IDA_EXPONENT_TOLERANCE
    assert abs(theorem_2_6._DELTA_BIAS) < theorem_2_6.IDA_EXPONENT_TOLERANCE
    assert abs(theorem_2_6._LOCAL_EPS_BIAS) < theorem_2_6.IDA_EXPONENT_TOLERANCE
    assert abs(theorem_2_6._LOCAL_DELTA_BIAS) < theorem_2_6.IDA_EXPONENT_TOLERANCE


# ── Theorem 2.6, softmax and ratio ──


def test_softmax_refuted_and_corrected_form_confirmed(records):
    record = records[SOFT.id]
    assert record["verdict"] == "refuted"
    assert first_false_step(record)["name"] == "μ_soft = Θ(e^{−Δ²/√d}ε²/Δ²) as Δ → ∞ (d, ε fixed)"
    for name in ("pl-soft-vs-delta", "pl-soft-vs-d", "pl-soft-vs-eps"):
        assert_excluded(evidence(record, name))
    # The ratio to the paper's form decays like x²e^{−x}: a fitted power of e^x near −0.8.
    assert -0.9 < evidence(record, "pl-soft-vs-delta")["fit"]["exponent"] < -0.7
    assert evidence(record, "corrected-soft-form")["status"] == "agrees"
    assert evidence(record, "operator-consistency")["status"] == "agrees"
    assert "e^{−2Δ²/√d}" in record["corrected"]["statement"]


def test_softmax_corrected_form_would_refute_a_wrong_exponent():
    wrong = dataclasses.replace(SOFT.check("corrected-soft-form"), exponent=0.5)
    assert_excluded(evidence(run(only(SOFT, wrong)), "corrected-soft-form"))


def test_ratio_grows_exponentially_but_fails_in_delta_and_eps(records):
    record = records[RATIO.id]
    assert record["verdict"] == "refuted"
    assert evidence(record, "ratio-vs-x")["status"] == "agrees"
    assert_excluded(evidence(record, "ratio-vs-delta"))
    assert abs(evidence(record, "ratio-vs-delta")["fit"]["exponent"] + 4) < 0.01
    assert_excluded(evidence(record, "ratio-vs-inverse-eps"))
    assert first_false_step(record)["method"] == "holds"


def test_ratio_lower_bound_would_refute_a_faster_growth():
    wrong = dataclasses.replace(RATIO.check("ratio-vs-x"), exponent=2.5)
    assert_excluded(evidence(run(only(RATIO, wrong)), "ratio-vs-x"))


# ── Corollary 2.7, no spurious minima ──


def test_no_spurious_minima_confirmed(records):
    record = records[NO_SPURIOUS.id]
    assert record["verdict"] == "confirmed", record["summary"]
    for name in ("local-minima-are-global", "global-minimum-found", "non-minima-are-strict-maxima"):
        assert evidence(record, name)["violations"] == 0


def _every_stationary_point_global(case):
    """Altered: the PL consequence on ℝ, 'every stationary point has L = L*'."""
    size = case["eps"].shape[0]
    inst, _, excess, gap_tol, _, _ = corollary_2_7._stationary_figures(case, 400)
    worst = corollary_2_7._reduce(inst, excess - gap_tol, size, "amax", -math.inf)
    return worst, torch.zeros_like(worst), torch.zeros_like(worst)


def _all_minima_at_zero_loss(case):
    """Altered: a wrong L* (0: 'every local minimum has L = 0')."""
    size = case["eps"].shape[0]
    inst, is_min, excess, gap_tol, _, _ = corollary_2_7._stationary_figures(case, 400)
    loss = excess + corollary_2_7.global_minimum(case)[inst]
    margin = torch.where(is_min, loss - gap_tol, torch.full_like(loss, -math.inf))
    worst = corollary_2_7._reduce(inst, margin, size, "amax", -math.inf)
    return worst, torch.zeros_like(worst), torch.zeros_like(worst)


def _maxima_are_minima(case):
    """Altered direction: 'the non-global stationary points have L″ ≥ 0'."""
    lhs, rhs, tol = corollary_2_7.non_minima_are_strict_maxima(case)
    return -lhs + 2 * tol, rhs, tol


@pytest.mark.parametrize("evaluate", [_every_stationary_point_global, _all_minima_at_zero_loss,
                                      _maxima_are_minima])
def test_stationary_point_checks_refute_wrong_statements(evaluate):
    altered = dataclasses.replace(NO_SPURIOUS.check("local-minima-are-global"), evaluate=evaluate)
    witness = assert_witnessed(run(only(NO_SPURIOUS, altered)), "local-minima-are-global", altered)
    assert set(witness["inputs"]) >= {"eps", "delta", "v1", "v2", "y"}


# ── Corollary 2.7, linear convergence ──


def test_linear_convergence_holds_on_segment_fails_on_line(records):
    record = records[LINEAR.id]
    assert record["verdict"] == "refuted"
    assert evidence(record, "gd-bound-time")["status"] == "agrees"
    assert evidence(record, "gd-per-step-rate")["status"] == "agrees"
    witness = assert_witnessed(record, "gd-bound-line", LINEAR.check("gd-bound-line"))
    ev = evidence(record, "gd-bound-line")
    # Starts beyond the local maximum (about 2/5 of [−2Δ, 3Δ]) and, for w* < 1/2, left of q₋.
    assert 0.3 < ev["violations"] / ev["cases"] < 0.8
    inputs = witness["inputs"]
    assert inputs["q0"]["data"][0] > inputs["delta"]["data"][0] or inputs["q0"]["data"][0] < 0


def _faster_bound(factor):
    check = LINEAR.check("gd-bound-time")

    def evaluate(case):
        lhs, rhs, tol = check.evaluate(case)
        l0 = rhs / torch.exp(-_mu_time(case))
        return lhs, torch.exp(-factor * _mu_time(case)) * l0, tol

    return dataclasses.replace(check, evaluate=evaluate)


def _mu_time(case):
    eta, mu, *_ = corollary_2_7.run_gradient_descent(case, line=False, steps=0)
    return mu * eta * case["steps"]


def test_gd_bounds_refute_a_rate_three_times_faster():
    faster = _faster_bound(3.0)
    assert_witnessed(run(only(LINEAR, faster)), "gd-bound-time", faster)
    check = LINEAR.check("gd-per-step-rate")

    def evaluate(case):
        lhs, rhs, tol = check.evaluate(case)
        return lhs, 1 - 3 * (1 - rhs), tol

    altered = dataclasses.replace(check, evaluate=evaluate)
    assert_witnessed(run(only(LINEAR, altered)), "gd-per-step-rate", altered)
