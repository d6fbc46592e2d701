"""Property 2.2.4 (sparsity), exact-match reading: the far weight beyond c√(εn) stays below the
derived 1/(1+c²), tightly; the radius scales like √n and √ε; a heavier-tailed kernel fails each
check. The no-near-key reading is a strawman and is not tested."""

from __future__ import annotations

import numpy as np
import pytest
from claimtest import evidence, run

from attnaudit.checks import Context
from attnaudit.checks.fitting import closed_form_bias
from attnaudit.claims.georesolver import property_2_2_4 as module

CLAIM = module.CLAIMS[0]


def exact_far_radius(count, eps):
    """Closed form: (n−1)ε/(R²+ε+(n−1)ε) = δ ⇔ R² = ε((n−1)(1−δ)/δ − 1)."""
    return np.sqrt(eps * ((np.asarray(count) - 1) * (1 - module.FAR_LEVEL) / module.FAR_LEVEL - 1))


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_with_every_check_controlled(record):
    assert [(s["id"], s["status"]) for s in record["proof"]["steps"]] == [("since", "agrees")]
    assert CLAIM.proof_gap  # the displayed bound never uses the normalisation or n
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    assert {r["id"]: r["verdict"] for r in record["readings"]} == {
        "primary": "confirmed", module.ANY_QUERY: "confirmed"}
    for check in CLAIM.checks:
        ev = evidence(record, check.name)
        assert ev["status"] == "agrees", check.name
        assert [c["failed"] for c in ev["controls"]] == [True], check.name
    # The bound 1/(1+c²) is attained up to 1/n on the worst-case placements: tight, not loose.
    assert -1e-2 < evidence(record, "far-weight-exact-match")["closest_relative_margin"] <= 0


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_radius_tolerance_covers_the_closed_form_curvature(profile):
    grid = module.N_GRID(Context("x", seed=0, profile=profile))
    assert np.log10(grid.max() / grid.min()) >= 3
    bias = closed_form_bias(grid, exact_far_radius(grid, module.LAW_EPS), 0.5)
    law = CLAIM.check("radius-for-far-weight-vs-n")
    assert abs(bias) <= law.tolerance.bias + 1e-4


def test_bisection_matches_the_closed_form_radius():
    measured = module.far_radius(Context("x", seed=0), 100, 1e-2, "t")
    assert measured == pytest.approx(float(exact_far_radius(100, 1e-2)), rel=1e-7)


def test_exact_match_check_rejects_cases_without_a_match():
    ctx = Context("x", seed=0)
    case = next(iter(module.sample_nearest_key_radius(ctx, ctx.generator("t"))))
    with pytest.raises(ValueError, match="exact-match"):
        module.far_weight_sides(case)
