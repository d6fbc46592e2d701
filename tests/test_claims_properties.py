"""GeoResolver Property 3 (concentration), Property 4 (sparsity) and Proposition 2.3's Gaussian part:
the real verdicts, and altered variants of each check showing it can go the other way (a true
statement confirmed, a false one refuted with a replayable witness or an excluding interval)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from claimtest import assert_excluded, evidence, only, run

from checks import Context, Kind
from checks.fitting import closed_form_bias
from checks.relations import replay_witness
from claims.georesolver import property_2_2_3, property_2_2_4, proposition_2_3

CONCENTRATION = property_2_2_3.CLAIMS[0]
SPARSITY = property_2_2_4.CLAIMS[0]
GAUSSIAN = proposition_2_3.GAUSSIAN


def false_steps(record: dict) -> list[str]:
    return [s["name"] for s in record["derivation"]["steps"] if not s["agrees"]]


def assert_witness_replays(record: dict, check) -> dict:
    assert record["verdict"] == "refuted"
    ev = evidence(record, check.name)
    assert ev["status"] == "disagrees" and ev["witness"] is not None
    replayed = replay_witness(check, ev["witness"])
    assert replayed["margin"] > 0 and replayed["lhs"] == pytest.approx(ev["witness"]["lhs"])
    return ev["witness"]


def altered_rhs(evaluate, transform):
    def altered(case):
        lhs, rhs, tol = evaluate(case)
        return lhs, transform(rhs), tol

    return altered


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in (CONCENTRATION, SPARSITY, GAUSSIAN)}


# ══ Property 3: concentration ══


def test_concentration_is_refuted_by_steps_witness_and_fits(records):
    record = records[CONCENTRATION.id]
    assert record["verdict"] == "refuted"
    first = record["derivation"]["steps"][record["derivation"]["first_disagreement"]]
    assert first["name"].startswith("the cited route") and first["derived"] == "t**2/(32*d_h*sigma**4)"
    # For every c > 0: the variance argument and the d = 2 exponential tail both fail.
    assert len(false_steps(record)) == 3
    assert any(name.startswith("Var‖q−k‖² = 8d_hσ⁴") for name in false_steps(record))
    witness = assert_witness_replays(record, CONCENTRATION.check("paper-bound"))
    assert witness["lhs"] - witness["tol"] > witness["rhs"]
    for name, limit in (("c-max-t-sigma2", -1.0), ("c-max-t-sqrt-d", -2.0)):
        ev = evidence(record, name)
        assert_excluded(ev)
        assert abs(ev["fit"]["exponent"] - limit) < ev["exponent_tolerance"]
    assert_excluded(evidence(record, "c-max-t-d-over-10"))
    assert evidence(record, "mc-matches-chi2-tail")["status"] == "agrees"
    assert evidence(record, "corrected-bound")["status"] == "agrees"
    assert "t²/(64 d_hσ⁴)" in record["corrected"]["statement"]


def test_strengthened_corrected_bound_is_refuted():
    """Four times the corrected exponent is false in the sub-exponential range."""
    check = CONCENTRATION.check("corrected-bound")
    too_strong = dataclasses.replace(
        check, evaluate=altered_rhs(check.evaluate, lambda rhs: 2 * (rhs / 2) ** 4))
    assert_witness_replays(run(only(CONCENTRATION, too_strong)), too_strong)


def test_monte_carlo_relations_go_both_ways():
    mc = CONCENTRATION.check("mc-matches-chi2-tail")
    off = dataclasses.replace(mc, evaluate=altered_rhs(mc.evaluate, lambda rhs: 1.2 * rhs))
    assert_witness_replays(run(only(CONCENTRATION, off)), off)

    def corrected_by_monte_carlo(case):
        p_hat, _, tol = property_2_2_3.paper_bound_sides(case)
        bound = property_2_2_3.corrected_bound(
            float(case["d"]), case["t"].numpy(), case["sigma"].numpy())
        return p_hat, p_hat.new_tensor(bound), tol

    holds = dataclasses.replace(CONCENTRATION.check("paper-bound"), name="mc-corrected",
                                evaluate=corrected_by_monte_carlo, strategy=None)
    assert run(only(CONCENTRATION, holds))["verdict"] == "confirmed"


def test_c_max_law_confirms_its_derived_exponent():
    law = dataclasses.replace(CONCENTRATION.check("c-max-t-sqrt-d"), exponent=-2.0, order="Θ")
    assert run(only(CONCENTRATION, law))["verdict"] == "confirmed"


def test_c_max_tolerance_covers_the_exact_curvature():
    grid = property_2_2_3.d_grid(Context("x", seed=0))
    assert math.log10(grid.max() / grid.min()) >= 3
    for name, limit in (("c-max-t-sigma2", -1.0), ("c-max-t-sqrt-d", -2.0)):
        bias = closed_form_bias(grid, property_2_2_3.exact_c_max(name, grid), limit)
        assert abs(bias) <= property_2_2_3.C_MAX_TOLERANCE


def test_exact_tail_matches_closed_forms():
    # d = 2: P(X − 4σ² ≥ t) = e^(−1 − t/(4σ²)) for t ≥ 4σ² (no lower tail there).
    t = np.array([4.0, 10.0, 100.0])
    assert np.allclose(property_2_2_3.exact_tail(2, t, 1.0), np.exp(-1 - t / 4), rtol=1e-12)


# ══ Property 4: sparsity ══


def test_sparsity_literal_reading_refuted_exact_match_confirmed(records):
    record = records[SPARSITY.id]
    assert record["verdict"] == "refuted"
    assert false_steps(record) == []
    witness = assert_witness_replays(record, SPARSITY.check("far-weight-no-near-key"))
    assert witness["lhs"] > witness["rhs"]
    exact = evidence(record, "far-weight-exact-match")
    assert exact["status"] == "agrees" and exact["hypothesis"]["examples"] > 0
    # The bound 1/(1+c²) is attained up to 1/n: it is tight, not loose.
    assert -1e-2 < exact["closest_relative_margin"] <= 0
    for name in ("worst-far-weight-limit", "radius-for-far-weight-vs-n",
                 "radius-for-far-weight-vs-eps", "far-weight-nearest-key-radius"):
        assert evidence(record, name)["status"] == "agrees", name
    assert "1/(1+c²)" in record["corrected"]["statement"]


def test_too_strong_far_weight_bounds_are_refuted():
    for name in ("far-weight-exact-match", "far-weight-nearest-key-radius"):
        check = SPARSITY.check(name)
        too_strong = dataclasses.replace(check, evaluate=altered_rhs(check.evaluate, lambda r: 0.9 * r))
        assert_witness_replays(run(only(SPARSITY, too_strong)), too_strong)


def test_exact_match_check_rejects_cases_without_a_match():
    case = next(iter(property_2_2_4.sample_no_near_key(Context("x", 0), Context("x", 0).generator("t"))))
    with pytest.raises(ValueError, match="exact-match"):
        property_2_2_4.exact_match_sides(case)


def test_vanishing_far_weight_reading_is_refuted():
    """'Negligible' as → 0 in n at fixed c: the gap to 0 does not shrink."""
    limit = SPARSITY.check("worst-far-weight-limit")
    bound = 1 / (1 + property_2_2_4.LAW_C**2)
    to_zero = dataclasses.replace(
        limit, name="far-weight-to-zero", value="0",
        gap=lambda ctx, grid: bound - property_2_2_4.worst_gap(ctx, grid))
    record = run(only(SPARSITY, to_zero))
    assert_excluded(evidence(record, "far-weight-to-zero"))


def test_radius_laws_refute_a_smaller_exponent():
    laws = [dataclasses.replace(SPARSITY.check(name), exponent=0.25)
            for name in ("radius-for-far-weight-vs-n", "radius-for-far-weight-vs-eps")]
    record = run(only(SPARSITY, *laws))
    for law in laws:
        assert_excluded(evidence(record, law.name))


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_radius_tolerance_covers_the_closed_form_curvature(profile):
    grid = property_2_2_4.n_grid(Context("x", seed=0, profile=profile))
    assert math.log10(grid.max() / grid.min()) >= 3
    exact = property_2_2_4.exact_far_radius(grid, property_2_2_4.LAW_EPS)
    assert abs(closed_form_bias(grid, exact, 0.5)) < property_2_2_4.RADIUS_TOLERANCE / 2.9


def test_bisection_matches_the_closed_form_radius():
    ctx = Context("x", seed=0)
    measured = property_2_2_4.far_radius(ctx, 100, 1e-2, "t")
    assert measured == pytest.approx(float(property_2_2_4.exact_far_radius(100, 1e-2)), rel=1e-10)


# ══ Proposition 2.3, Gaussian part ══


def test_gaussian_min_separation_refuted_nearest_neighbour_confirmed(records):
    record = records[GAUSSIAN.id]
    assert record["verdict"] == "refuted"
    assert [name.split(":")[0] for name in false_steps(record)] == [
        "all n keys lie in a ball of radius O(√d_hσ) w.h.p. (d_h = 2, n → ∞)",
        "squaring gives r² = Θ(d_hσ²n^(−2/d_h))"]
    for d_h in proposition_2_3.GAUSSIAN_DIMS:
        separation = evidence(record, f"min-separation-d{d_h}")
        assert_excluded(separation)
        lo, hi = separation["fit"]["ci"]
        tol = separation["exponent_tolerance"]
        assert lo - tol <= -4 / d_h <= hi + tol  # the suite's corrected exponent
        assert evidence(record, f"nearest-neighbour-d{d_h}")["status"] == "agrees"
    assert "Θ(n^(−4/d_h))" in record["corrected"]["statement"]


def test_gaussian_laws_go_both_ways():
    dims = proposition_2_3.GAUSSIAN_DIMS
    corrected = [dataclasses.replace(GAUSSIAN.check(f"min-separation-d{d_h}"), exponent=-4 / d_h)
                 for d_h in dims]
    assert run(only(GAUSSIAN, *corrected))["verdict"] == "confirmed"
    wrong = [dataclasses.replace(GAUSSIAN.check(f"nearest-neighbour-d{d_h}"), exponent=-4 / d_h)
             for d_h in dims]
    record = run(only(GAUSSIAN, *wrong))
    for law in wrong:
        assert_excluded(evidence(record, law.name))


def test_gaussian_tolerance_covers_the_exact_curvature():
    grid = proposition_2_3.separation_n_grid(Context("x", seed=0))
    assert math.log10(grid.max() / grid.min()) >= 3
    for d_h in proposition_2_3.GAUSSIAN_DIMS:
        median = [proposition_2_3.population_median_nn2(int(m), d_h, nodes=200) for m in grid]
        smallest = [proposition_2_3.poisson_min_sep2(int(m), d_h) for m in grid]
        assert abs(closed_form_bias(grid, median, -2 / d_h)) < proposition_2_3.SEPARATION_TOLERANCE / 1.9
        assert abs(closed_form_bias(grid, smallest, -4 / d_h)) < proposition_2_3.SEPARATION_TOLERANCE / 1.9


# ── well-formedness ──


def test_claims_are_well_formed():
    assert [c.id for c in proposition_2_3.CLAIMS] == ["georesolver/proposition-2.3/bound",
                                                      "georesolver/proposition-2.3/gaussian"]
    assert CONCENTRATION.id == "georesolver/property-2.2.3" and CONCENTRATION.kind is Kind.INEQUALITY
    assert SPARSITY.id == "georesolver/property-2.2.4" and SPARSITY.kind is Kind.INEQUALITY
    assert GAUSSIAN.kind is Kind.ASYMPTOTIC
    names = [c.name for c in GAUSSIAN.checks]
    assert names == [f"{r}-d{d}" for r in ("min-separation", "nearest-neighbour") for d in (1, 2, 3, 4)]
