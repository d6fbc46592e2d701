"""Honest numbers (DESIGN.md): error bars only from replicates the engine draws, decisions that
only a tolerance turns marked (and a hand-set one never confirming), a tolerance as wide as the
bound an error, and every fitted law testing its own model (local exponents, drift)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnaudit.checks import Limit, Relation, ScalingLaw, tolerances
from attnaudit.checks.context import Context
from attnaudit.checks.laws import check_limit, check_scaling
from attnaudit.checks.relations import check_relation

SYS = tolerances.Systematic(0.05, "a stated systematic error")
ZERO = tolerances.Systematic(0.0, "none: the drift test sees the bare intervals")


def ctx():
    return Context("toy/honesty", seed=7)


def law(**changes) -> ScalingLaw:
    base = dict(name="law", quantity="y", variable="n", exponent=-1.0, order="Θ",
                grid=lambda c: np.logspace(1, 4, 10), measure=lambda c, g: 3.0 / g,
                family="toy", tolerance=SYS)
    return ScalingLaw(**(base | changes))


def noisy(c, g):
    return 3.0 / g * np.exp(0.05 * c.numpy_rng("noise").standard_normal(len(g)))


# ── 1. engine-owned uncertainty ──────────────────────────────────────────────────────────────

def test_a_spec_supplied_error_bar_is_rejected():
    with pytest.raises(ValueError, match=r"a spec cannot supply an error bar: set replicates=R"):
        check_scaling(law(measure=lambda c, g: (3.0 / g, 0.1 / g)), ctx())
    lim = Limit(name="lim", quantity="q", variable="n", value="0", point="oo", rate=1.0,
                grid=lambda c: np.logspace(1, 4, 7), gap=lambda c, g: (1 / g, 0.01 / g), family="toy",
                tolerance=SYS)
    with pytest.raises(ValueError, match="a spec cannot supply an error bar"):
        check_limit(lim, ctx())


def test_replicate_contexts_differ_reproducibly_and_replicate_zero_is_the_run():
    base = ctx()
    assert base.replicate(0) is base
    r1, r2 = base.replicate(1), base.replicate(2)
    assert (r1.claim_id, r1.seed, r1.profile) == (base.claim_id, base.seed, base.profile)
    draws = [c.numpy_rng("x").random(3).tolist() for c in (base, r1, r2)]
    assert len({tuple(d) for d in draws}) == 3
    assert ctx().replicate(1).numpy_rng("x").random(3).tolist() == draws[1]
    assert r1.generator("t").initial_seed() != base.generator("t").initial_seed()
    assert r1.cached("k", lambda: 1) == 1 and base.cached("k", lambda: 2) == 2  # own memos


def test_case_seeds_are_distinct_reproducible_and_keyed_by_tag():
    seeds = ctx().case_seeds("cases", 50)
    assert len(set(seeds)) == 50 and seeds == ctx().case_seeds("cases", 50)
    assert all(isinstance(s, int) and 0 <= s < 2**63 for s in seeds)
    assert set(seeds).isdisjoint(ctx().case_seeds("other", 50))
    assert seeds != ctx().replicate(1).case_seeds("cases", 50)


def test_the_engine_draws_replicates_and_records_them():
    ev = check_scaling(law(measure=noisy, replicates=4), ctx())
    g = np.logspace(1, 4, 10)
    draws = np.array([noisy(ctx().replicate(r), g) for r in range(4)])
    assert ev["replicates"] == 4 and len(ev["points"]["draws"]) == 4
    assert np.array_equal(np.array(ev["points"]["draws"]), draws)
    assert np.allclose(ev["points"]["yerr"], draws.std(axis=0, ddof=1) / 2, rtol=1e-12)
    assert ev["deterministic"] is False and ev["second_replicate_drawn"] is False
    assert check_scaling(law(measure=noisy, replicates=4), ctx()) == ev  # one seed, one record
    single = check_scaling(law(measure=noisy), ctx())
    assert single["replicates"] == 1 and single["points"]["yerr"] is None


def test_a_single_draw_refutation_is_redrawn_unless_the_measurement_is_deterministic():
    # noisy: one draw would refute -0.9 by its pair-bootstrap interval; the engine draws a second
    wrong = law(measure=noisy, exponent=-0.9, tolerance=ZERO)
    ev = check_scaling(wrong, ctx())
    assert ev["second_replicate_drawn"] is True and ev["replicates"] == 2
    assert ev["replicates_requested"] == 1 and ev["deterministic"] is False
    assert len(ev["points"]["draws"]) == 2 and ev["points"]["yerr"] is not None
    assert "drew a second replicate" in ev["decision"]
    # exact: the second draw is bitwise identical, the refutation stands on one draw
    exact = check_scaling(law(exponent=-0.9, tolerance=ZERO), ctx())
    assert exact["status"] == "disagrees" and exact["deterministic"] is True
    assert exact["replicates"] == 1 and exact["second_replicate_drawn"] is False


# ── 2. tolerance honesty ─────────────────────────────────────────────────────────────────────

def _rel(evaluate, tolerance, rel="<="):
    def sample(c, gen):
        yield {"r": 1 + torch.rand(100, generator=gen, dtype=torch.float64)}

    return Relation(name="rel", lhs="l", rel=rel, rhs="r", evaluate=evaluate, sample=sample,
                    tolerance=tolerance, sampler="r uniform in (1, 2)")


def _over(k):
    """lhs above the bound on every other case by k (absolute), tolerance 1e-3."""
    def evaluate(case):
        r = case["r"]
        bump = torch.zeros_like(r)
        bump[::2] = k
        return r + bump, r, 1e-3  # a scalar tolerance, broadcast over the batch

    return evaluate


def test_a_hand_set_tolerance_that_decides_cases_cannot_confirm():
    ev = check_relation(_rel(_over(5e-4), tolerances.Systematic(1e-3, "stated")), ctx())
    assert ev["decided_by_tolerance"] == {"cases": 50, "of": 100, "share": 0.5}
    assert ev["status"] == "undecided" and "decided by a hand-set tolerance on 50 of 100" in ev["decision"]
    rounded = check_relation(_rel(_over(5e-4), tolerances.Roundoff("1", scale="|r|")), ctx())
    assert rounded["status"] == "agrees" and rounded["decided_by_tolerance"]["cases"] == 50
    clean = check_relation(_rel(_over(0.0), tolerances.Systematic(1e-3, "stated")), ctx())
    assert clean["status"] == "agrees"
    assert clean["decided_by_tolerance"] == {"cases": 0, "of": 100, "share": 0.0}


def test_scalar_tolerances_broadcast_to_any_batch():
    for tol in (1e-3, np.float64(1e-3), torch.tensor(1e-3), torch.tensor([1e-3])):
        def evaluate(case, tol=tol):
            return case["r"] - 0.5, case["r"], tol
        assert check_relation(_rel(evaluate, SYS), ctx())["status"] == "agrees"


def test_a_tolerance_as_wide_as_the_bound_is_an_error():
    def jacobian(case):  # ‖J‖ <= 1/4 checked with a tolerance of 1.11
        r = case["r"]
        return 0.2 * r / r.max(), torch.full_like(r, 0.25), 1.11

    with pytest.raises(ValueError, match=r"relation 'rel': tolerance 1.11 is as wide as the bound"):
        check_relation(_rel(jacobian, SYS), ctx())

    def residual(case):  # a residual compared with 0 within round-off is not a bound's width
        r = case["r"]
        return 1e-17 * r, torch.zeros_like(r), 1e-14

    roundoff = tolerances.Roundoff("1", scale="1e-14 / u")
    assert check_relation(_rel(residual, roundoff, rel="=="), ctx())["status"] == "agrees"


def test_an_exponent_decided_by_a_hand_set_tolerance_is_undecided():
    # exact exponent -1, prediction -1.03: inside ±0.05, outside the bare interval
    ev = check_scaling(law(exponent=-1.03), ctx())
    assert ev["decided_by_tolerance"] is True and ev["status"] == "undecided"
    fitbias = check_scaling(law(exponent=-1.03, tolerance=tolerances.FitBias(0.025, "a closed form")),
                            ctx())
    assert fitbias["decided_by_tolerance"] is True and fitbias["status"] == "agrees"
    bare = check_scaling(law(), ctx())
    assert bare["decided_by_tolerance"] is False and bare["status"] == "agrees"


def test_tolerance_scaling_mutation_keeps_the_kind_and_scales_the_numbers():
    from attnaudit.checks.mutation import scale_tolerance

    mutant, _ = scale_tolerance(law(), 10)
    assert isinstance(mutant.tolerance, tolerances.Systematic) and mutant.exponent_tolerance == 0.5
    fb, _ = scale_tolerance(law(tolerance=tolerances.FitBias(0.01, "c", margin=2.0)), 10)
    assert fb.exponent_tolerance == pytest.approx(0.2)
    rel, _ = scale_tolerance(_rel(_over(0.0), SYS), 10)
    assert rel.evaluate({"r": torch.ones(2, dtype=torch.float64)})[2] == pytest.approx(1e-2)


# ── 3. drift ─────────────────────────────────────────────────────────────────────────────────

def _max_softmax(c, grid):
    """E[max softmax(z)], z ~ N(0, I_n): Monte Carlo, trials per point falling with n."""
    def at(n):
        rng = c.numpy_rng(f"z:{n}")
        trials = int(max(16, min(512, 1e6 // n)))
        per = max(1, int(2e6 // n))
        vals = []
        for start in range(0, trials, per):
            z = rng.standard_normal((min(per, trials - start), n))
            z -= z.max(axis=1, keepdims=True)
            vals.append(1.0 / np.exp(z).sum(axis=1))
        return np.concatenate(vals).mean()

    # one measurement per replicate, shared by both predictions (each replicate has its own memo)
    return np.array([c.cached(("max-softmax", int(n)), lambda n=int(n): at(n)) for n in grid])


@pytest.fixture(scope="module")
def softmax_fits():
    grid = lambda c: np.round(np.logspace(1, 6, 11))  # noqa: E731
    base = dict(grid=grid, measure=_max_softmax, replicates=4, tolerance=ZERO,
                family="z ~ N(0, I_n)", quantity="E max softmax(z)")
    shared = ctx()
    return [check_scaling(law(exponent=p, **base), shared) for p in (-1.0, -0.75)]


def test_expected_max_softmax_is_drifting_and_confirms_no_single_exponent(softmax_fits):
    for ev in softmax_fits:
        fit = ev["fit"]
        assert fit["drifting"] is True and ev["status"] != "agrees", ev["decision"]
        local = fit["local_exponents"]
        assert len(local) == 3 and local[0]["x"][0] == 10 and local[-1]["x"][1] == 1e6
        # the local exponent falls toward -1 along the grid (e^{√(2 log n)}/n)
        assert local[0]["exponent"] > local[-1]["exponent"] > -1.0
        assert "local exponents from" in ev["decision"]
    assert softmax_fits[0]["status"] == "disagrees"  # every local interval excludes -1


def test_an_exact_power_law_does_not_drift_and_curvature_does():
    ev = check_scaling(law(tolerance=ZERO), ctx())
    assert ev["fit"]["drifting"] is False and ev["status"] == "agrees"
    bent = check_scaling(law(measure=lambda c, g: 1 / g + 1 / np.sqrt(g), exponent=-0.75,
                             tolerance=ZERO), ctx())
    assert bent["fit"]["drifting"] is True and bent["status"] == "disagrees"  # every window excludes
    middle = bent["fit"]["local_exponents"][1]["exponent"]
    bent = check_scaling(law(measure=lambda c, g: 1 / g + 1 / np.sqrt(g), exponent=middle,
                             tolerance=ZERO), ctx())
    assert bent["status"] == "undecided" and "drifting" in bent["decision"]


def test_one_sided_bounds_use_the_asymptotic_end():
    # y = n^-0.5 up to 10^2.5, then n^-1 (continuous): globally about -0.75, at the end -1
    def kink(c, g):
        knee = 10**2.5
        return np.where(g < knee, g**-0.5, knee**0.5 / g)

    ev = check_scaling(law(measure=kink, exponent=-0.6, order="Ω", tolerance=ZERO), ctx())
    assert ev["status"] == "disagrees" and "asymptotic end" in ev["decision"]


def test_unbounded_and_subpolynomial_orders():
    grid = lambda c: np.logspace(1, 6, 11)  # noqa: E731
    log = dict(measure=lambda c, g: np.log(g), grid=grid, exponent=0.0, tolerance=ZERO)
    assert check_scaling(law(order="unbounded", **log), ctx())["status"] == "agrees"
    assert check_scaling(law(order="subpolynomial", **log), ctx())["status"] == "agrees"
    bounded = dict(log, measure=lambda c, g: 1 - 1 / g)
    assert check_scaling(law(order="unbounded", **bounded), ctx())["status"] == "undecided"
    root = dict(log, measure=lambda c, g: np.sqrt(g))
    assert check_scaling(law(order="unbounded", **root), ctx())["status"] == "agrees"
    assert check_scaling(law(order="subpolynomial", **root), ctx())["status"] == "disagrees"
    decay = dict(log, measure=lambda c, g: 1 / g)
    assert check_scaling(law(order="unbounded", **decay), ctx())["status"] == "disagrees"
    assert check_scaling(law(order="unbounded", **log), ctx())["predicted"] == "unbounded in n"
