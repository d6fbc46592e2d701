"""GeoResolver Lemma 2.4 (Lipschitz scaling): ida-general, ida-clustered and softmax. The real
verdicts with their findings, and altered variants showing every kind of check can go either way
(a wrong exponent, constant or direction is refuted; a true one is confirmed)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp
import torch
from claimtest import (
    assert_excluded,
    assert_refuted_with_witness,
    evidence,
    first_false_step,
    only,
    run,
    scaled_rhs,
)

from checks import Context, Kind, symbolic
from checks.fitting import closed_form_bias
from checks.relations import replay_witness
from claims.georesolver import _jacobians as jac
from claims.georesolver import lemma_2_4 as lemma

GENERAL, CLUSTERED, SOFTMAX = lemma.IDA_GENERAL, lemma.IDA_CLUSTERED, lemma.SOFTMAX


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in (GENERAL, CLUSTERED, SOFTMAX)}


# ── the real claims ──


def test_ida_general_refuted_as_proved_confirmed_as_stated(records):
    record = records[GENERAL.id]
    assert record["verdict"] == "refuted"
    steps = record["derivation"]["steps"]
    assert [s["name"] for s in steps if not s["agrees"]] == [steps[-1]["name"]]
    assert first_false_step(record)["name"].startswith("Step 3 conclusion")
    assert first_false_step(record)["derived"] == "4*L_V*R*n**2/epsilon"
    # Z_i ≥ 1/ε fails without a key at the query, with a shrunk, replayable witness ...
    witness = assert_refuted_with_witness(record, "normaliser-lower-bound")
    assert witness["found_by"] == "hypothesis" and witness["shrunk"]
    assert witness["inputs"]["k"]["shape"][1] == 1  # one key suffices
    replayed = replay_witness(GENERAL.check("normaliser-lower-bound"), witness)
    assert replayed["margin"] > 0 and replayed["lhs"] == pytest.approx(witness["lhs"])
    # ... and holds with the query's own key present; every other check agrees.
    disagreeing = [e["name"] for e in record["evidence"] if e["status"] != "agrees"]
    assert disagreeing == ["normaliser-lower-bound"]
    # The statement's bound holds, loosely: n⁰ and ε^(−1/2).
    n_law = evidence(record, "jacobian-norm-vs-n")
    assert abs(n_law["fit"]["exponent"]) < 1e-6
    assert n_law["points"]["y"] == pytest.approx([10.0] * len(n_law["points"]["y"]), rel=1e-12)
    for name in ("jacobian-norm-vs-inverse-eps", "jacobian-norm-vs-inverse-eps-proof"):
        assert evidence(record, name)["fit"]["exponent"] == pytest.approx(0.5, abs=1e-9)
    # The independent search (no construction) reaches within 10 % of the supremum.
    assert -0.1 < evidence(record, "suite-supremum")["closest_relative_margin"] < 0
    assert "L_V/√ε" in record["corrected"]["statement"]


def test_ida_clustered_refuted_by_step_4_and_flat_in_n(records):
    record = records[CLUSTERED.id]
    assert record["verdict"] == "refuted"
    first = first_false_step(record)
    assert first["name"].startswith("Step 4 conclusion") and first["paper"] == "log(n)"
    assert all(s["agrees"] for s in record["derivation"]["steps"][:-1])
    for name in ("jacobian-norm-vs-n", "jacobian-norm-vs-n-low-rank"):
        law = evidence(record, name)
        assert law["status"] == "agrees"
        assert abs(law["fit"]["exponent"]) < 0.01 and law["fit"]["ci"][1] < 0.01
        assert law["exponent_tolerance"] == lemma.LOG_N_BIAS
    assert all(e["status"] == "agrees" for e in record["evidence"])


def test_softmax_step_5_sum_false_and_linear_scaling_refuted(records):
    record = records[SOFTMAX.id]
    assert record["verdict"] == "refuted"
    first = first_false_step(record)
    assert first["name"] == "Step 5: (2R/√d_h) Σ_j W_ij = 2nR/√d_h"
    assert first["paper"] == "2*R*n/sqrt(d_h)" and first["derived"] == "2*R/sqrt(d_h)"
    assert all(s["agrees"] for s in record["derivation"]["steps"][:2])
    linear = evidence(record, "jacobian-norm-vs-n-linear")
    assert_excluded(linear)
    assert abs(linear["fit"]["exponent"]) < 1e-6
    assert evidence(record, "jacobian-norm-vs-n")["status"] == "agrees"
    d_law = evidence(record, "jacobian-norm-vs-d")
    assert d_law["status"] == "agrees" and d_law["fit"]["exponent"] == pytest.approx(-0.5, abs=1e-9)
    disagreeing = [e["name"] for e in record["evidence"] if e["status"] != "agrees"]
    assert disagreeing == ["jacobian-norm-vs-n-linear"]
    assert "not 2nR/√d_h" in record["corrected"]["statement"]


# ── altered variants: each check can go the other way ──


def test_ida_scaling_laws_refute_a_too_small_exponent():
    n_law = dataclasses.replace(GENERAL.check("jacobian-norm-vs-n"), exponent=-0.2)
    eps_law = dataclasses.replace(GENERAL.check("jacobian-norm-vs-inverse-eps"), exponent=0.25)
    record = run(only(GENERAL, n_law, eps_law))
    assert_excluded(evidence(record, "jacobian-norm-vs-n"))
    assert_excluded(evidence(record, "jacobian-norm-vs-inverse-eps"))
    theta = dataclasses.replace(GENERAL.check("jacobian-norm-vs-inverse-eps"), order="Θ", exponent=0.5)
    assert run(only(GENERAL, theta))["verdict"] == "confirmed"


def test_ida_bounds_refuted_when_tightened_or_reversed():
    sup = GENERAL.check("suite-supremum")
    too_small = dataclasses.replace(sup, evaluate=scaled_rhs(sup.evaluate, 0.95))
    built = GENERAL.check("construction-attains")
    wrong_constant = dataclasses.replace(built, evaluate=scaled_rhs(built.evaluate, 1 + 1e-9))
    step2 = GENERAL.check("step2-weight-gradient-sum")
    halved = dataclasses.replace(step2, evaluate=scaled_rhs(step2.evaluate, 0.5))
    chain = GENERAL.check("output-jacobian-chain")
    reversed_chain = dataclasses.replace(chain, rel=">=")
    own = GENERAL.check("normaliser-own-key")
    reversed_own = dataclasses.replace(own, rel="<=", evaluate=scaled_rhs(own.evaluate, 0.999))
    record = run(only(GENERAL, too_small, wrong_constant, halved, reversed_chain, reversed_own))
    for name in ("suite-supremum", "construction-attains", "step2-weight-gradient-sum",
                 "output-jacobian-chain", "normaliser-own-key"):
        assert_refuted_with_witness(record, name)


def test_step3_sum_bound_is_loose_but_not_vacuous():
    step3 = GENERAL.check("step3-weight-gradient-sum")
    score = GENERAL.check("step3-score-gradient")
    record = run(only(GENERAL, dataclasses.replace(step3, evaluate=scaled_rhs(step3.evaluate, 0.1)),
                      dataclasses.replace(score, evaluate=scaled_rhs(score.evaluate, 0.9),
                                          strategy=None)))
    assert_refuted_with_witness(record, "step3-weight-gradient-sum")
    assert_refuted_with_witness(record, "step3-score-gradient")


def test_clustered_law_admits_log_n_and_excludes_powers():
    law = CLUSTERED.check("jacobian-norm-vs-n")

    def synthetic(growth):
        return dataclasses.replace(law, measure=lambda ctx, grid: np.array([growth(n) for n in grid]))

    # Exact log n growth is never refuted (3 decades cannot separate it from n^0.2) ...
    for growth in (lambda n: 1 + math.log(n), lambda n: 3 * math.log(n)):
        ev = evidence(run(only(CLUSTERED, synthetic(growth))), "jacobian-norm-vs-n")
        assert ev["status"] in ("agrees", "undecided")
        assert ev["fit"]["exponent"] <= lemma.LOG_N_BIAS + 1e-12
    # ... a flat worst case is confirmed, and a power law is refuted.
    assert run(only(CLUSTERED, synthetic(lambda n: 4.0)))["verdict"] == "confirmed"
    power = run(only(CLUSTERED, synthetic(lambda n: n**0.35)))
    assert_excluded(evidence(power, "jacobian-norm-vs-n"))
    too_small = dataclasses.replace(law, exponent=-0.3)
    assert_excluded(evidence(run(only(CLUSTERED, too_small)), "jacobian-norm-vs-n"))


def test_clustered_relations_can_fail():
    rank = CLUSTERED.check("effective-rank-of-low-rank-family")
    sup = CLUSTERED.check("suite-supremum")
    record = run(only(CLUSTERED, dataclasses.replace(rank, evaluate=scaled_rhs(rank.evaluate, 0.9)),
                      dataclasses.replace(sup, evaluate=scaled_rhs(sup.evaluate, 0.5))))
    assert_refuted_with_witness(record, "effective-rank-of-low-rank-family")
    assert_refuted_with_witness(record, "suite-supremum")


def test_softmax_true_order_confirmed_wrong_d_exponent_refuted():
    flat = dataclasses.replace(SOFTMAX.check("jacobian-norm-vs-n-linear"), exponent=0.0)
    steeper = dataclasses.replace(SOFTMAX.check("jacobian-norm-vs-d"), exponent=-1.0)
    record = run(only(SOFTMAX, flat, steeper))
    assert evidence(record, "jacobian-norm-vs-n-linear")["status"] == "agrees"
    assert_excluded(evidence(record, "jacobian-norm-vs-d"))


def test_softmax_relations_can_fail():
    sup = SOFTMAX.check("suite-supremum")
    built = SOFTMAX.check("construction-attains")
    formula = SOFTMAX.check("weight-gradient-formula")
    first = SOFTMAX.check("step5-first-inequality")
    spread = SOFTMAX.check("step5-spread-bound")
    record = run(only(
        SOFTMAX,
        dataclasses.replace(sup, evaluate=scaled_rhs(sup.evaluate, 0.95)),
        dataclasses.replace(built, evaluate=scaled_rhs(built.evaluate, 1 + 1e-9)),
        dataclasses.replace(formula, evaluate=scaled_rhs(formula.evaluate, 1 + 1e-6)),
        dataclasses.replace(first, rel=">=", evaluate=scaled_rhs(first.evaluate, 1.001)),
        dataclasses.replace(spread, evaluate=scaled_rhs(spread.evaluate, 0.4)),  # E‖k−k̄‖ ≤ R
    ))
    for name in ("suite-supremum", "construction-attains", "weight-gradient-formula",
                 "step5-first-inequality", "step5-spread-bound"):
        assert_refuted_with_witness(record, name)


def test_derivation_steps_go_both_ways():
    n, r, lv, eps = lemma.n_sym, lemma.R_sym, lemma.LV_sym, lemma.eps_sym
    chain = n * lv * 4 * n * r / eps
    assert symbolic.leading_order("n²", chain, n, n**2 * r * lv / eps).agrees
    assert not symbolic.leading_order("n", chain, n, n * r * lv / eps).agrees
    d = lemma.d_sym
    assert symbolic.exact("corrected Step 5", 2 * r / sp.sqrt(d), 2 * r / sp.sqrt(d) * 1).agrees
    assert symbolic.leading_order("log n", n, n, sp.log(n)).agrees is False
    assert symbolic.leading_order("n", 3 * n, n, n).agrees


# ── the numbers the specs rest on ──


def test_supremum_closed_forms():
    """The two-group constructions reach L_V/√ε (IDA, R = 1 ≥ √ε) and L_V·R/√d (softmax)."""
    ctx = Context("x", seed=0)
    for eps in (1e-4, 1e-2, 1.0):
        built = jac.two_group_construction(1, 6, 2, 2, math.sqrt(eps), 1.0, dtype=ctx.dtype,
                                           device="cpu")
        norm = jac.query_jacobian_norm(lemma.ida_attend(eps), *built)
        assert float(norm[0]) == pytest.approx(1 / math.sqrt(eps), rel=1e-12)
        assert float(lemma.ida_supremum(eps)) == pytest.approx(1 / math.sqrt(eps))
    assert float(lemma.ida_supremum(4.0)) == pytest.approx(2 / (1 + 4.0))  # R = 1 < √ε: a = R
    for dim in (1, 7, 300):
        built = jac.two_group_construction(1, 4, dim, 2, 1.0, 1.0, dtype=ctx.dtype, device="cpu")
        norm = jac.query_jacobian_norm(lemma.softmax_attend, *built)
        assert float(norm[0]) == pytest.approx(lemma.softmax_supremum(dim), rel=1e-12)


def test_jacobian_matches_the_covariance_formula():
    gen = torch.Generator().manual_seed(1)
    q = torch.randn(5, 3, generator=gen, dtype=torch.float64)
    k = torch.randn(5, 7, 3, generator=gen, dtype=torch.float64)
    v = torch.randn(5, 7, 2, generator=gen, dtype=torch.float64)
    eps = 0.3
    w = torch.softmax(-torch.log((q[:, None] - k).square().sum(-1) + eps), -1)
    g = 2 * (k - q[:, None]) / ((q[:, None] - k).square().sum(-1) + eps)[..., None]
    vc = v - (w[..., None] * v).sum(1, keepdim=True)
    gc = g - (w[..., None] * g).sum(1, keepdim=True)
    expected = torch.einsum("bj,bjc,bjd->bcd", w, vc, gc)
    got = jac.query_jacobian(lemma.ida_attend(eps), q, k, v)
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_grids_span_three_decades_and_log_bias(profile):
    ctx = Context("x", seed=0, profile=profile)
    for grid in (lemma._ida_n_grid(ctx), lemma._inverse_eps_grid(ctx), lemma._cluster_n_grid(ctx),
                 lemma._d_grid(ctx)):
        assert math.log10(grid.max() / grid.min()) >= 3
    grid = lemma._cluster_n_grid(ctx)
    bias = closed_form_bias(grid, np.log(grid), 0.0)
    assert 0 < bias <= lemma.LOG_N_BIAS
    assert all(n % (2 * lemma.CLUSTERS) == 0 for n in grid)  # two groups in a cluster


def test_claims_are_well_formed():
    assert [c.id for c in lemma.CLAIMS] == [
        "georesolver/lemma-2.4/score-gradient-max", "georesolver/lemma-2.4/ida-general",
        "georesolver/lemma-2.4/ida-clustered", "georesolver/lemma-2.4/softmax"]
    for claim in (GENERAL, CLUSTERED, SOFTMAX):
        assert claim.kind is Kind.ASYMPTOTIC
        assert claim.check("jacobian-norm-vs-n").order == "O"
        assert claim.time_limit_s <= 30
