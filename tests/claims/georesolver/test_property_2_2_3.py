"""Property 2.2.3 (concentration): refuted by a false statement step (the χ² variance grows with
d_h) and a replayable Monte-Carlo witness. The source only cites its proof (absent; the cited route is
the suite's derivation, and gives d_h dividing t²); its 'kernel approximately constant' clause is
undefined as written; the weaker readings fail too, and the suite's reconstructed bound holds behind
failing controls."""

from __future__ import annotations

import numpy as np
import pytest
from claimtest import assert_excluded, assert_witnessed, evidence, run

from attnaudit.checks import Context
from attnaudit.checks.fitting import closed_form_bias
from attnaudit.claims.georesolver import property_2_2_3 as module

CLAIM = module.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def _false(record, reading, role="statement"):
    return [s["name"] for s in record["derivation"]["steps"]
            if s["reading"] == reading and s["role"] == role and s["status"] == "disagrees"]


def test_primary_refuted_by_a_step_and_a_witness_proof_flawed(record):
    assert len(_false(record, None)) == 1  # the variance the bound implies
    assert _false(record, None, "derivation")  # the cited Lipschitz route: d_h divides t², not multiplies
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {"tail-bound": "refuted",
                                                                  "kernel-constant": "unverifiable"}
    witness = assert_witnessed(record, "paper-bound", CLAIM)
    assert witness["lhs"] - witness["tol"] > witness["rhs"]
    assert record["corrected"]["derived_by"] == "attnaudit"


def test_weaker_readings_refuted_and_reconstruction_confirmed(record):
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings == {"primary": "refuted", module.PER_DIM: "refuted",
                        module.SUB_GAUSSIAN: "refuted", module.RECONSTRUCTED: "confirmed"}
    assert len(_false(record, module.PER_DIM)) == 1  # the d_h = 2 tail is exponential in t
    for name in module.FAMILIES:
        assert_excluded(evidence(record, name))
    for name in ("mc-matches-chi2-tail", "corrected-bound"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]


def test_c_max_limits_and_the_fit_tolerance(record):
    grid = np.asarray(module.D_GRID, dtype=float)
    assert np.log10(grid.max() / grid.min()) >= 3
    for name, limit in (("c-max-t-sigma2", -1.0), ("c-max-t-sqrt-d", -2.0)):
        tt = np.array([module.FAMILIES[name][1](int(v)) for v in grid])
        exact = np.log(2 / module.exact_tail(grid, tt, 1.0)) / (grid * tt**2)
        bias = closed_form_bias(grid, exact, limit)
        assert abs(bias) <= abs(module.C_MAX_TOL.bias) + 1e-4
        assert abs(evidence(record, name)["fit"]["exponent"] - limit) < module.C_MAX_TOL.value
    tt = np.ones_like(grid)
    exact = np.log(2 / module.exact_tail(grid, tt, 1.0)) / (grid * tt**2)
    assert closed_form_bias(grid, exact, -1.0) == pytest.approx(module.C_MAX_TOL.bias, abs=1e-4)


def test_exact_tail_matches_the_chi2_closed_form():
    # d = 2: P(X − 4σ² ≥ t) = e^(−1 − t/(4σ²)) for t ≥ 4σ² (no lower tail there).
    t = np.array([4.0, 10.0, 100.0])
    assert np.allclose(module.exact_tail(2, t, 1.0), np.exp(-1 - t / 4), rtol=1e-12)
    ctx = Context(CLAIM.id, seed=0)
    case = next(module.sample_mc_cases(ctx, ctx.generator("t")))
    p_hat, low, high = module._estimated_tails(case)
    assert bool(((low <= p_hat) & (p_hat <= high)).all())
