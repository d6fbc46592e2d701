"""Lemma 2.4 (Lipschitz scaling) and its proof's Step 1. Step 1 is confirmed (an identity of the kernel's
calculus) with a sound proof; the lemma's bounds hold as stated — the worst-case per-query Jacobian norm
is flat in n — and the general and softmax bounds are confirmed by their ε- and d-laws behind failing
controls, while the clustered O(1 + log n) is vacuous (every normalised kernel is flat in n). Each proof is
flawed at the first false step in the paper's order."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp
import torch
from claimtest import assert_witnessed, evidence, only, run, scaled_rhs

from attnaudit.checks import Context, Kind
from attnaudit.checks.fitting import closed_form_bias
from attnaudit.claims.georesolver import _jacobians as jac
from attnaudit.claims.georesolver.lemma_2_4 import (
    _common,
    ida_clustered,
    ida_general,
    score_gradient_max,
    softmax,
)

CLAIMS = score_gradient_max.CLAIMS + ida_general.CLAIMS + ida_clustered.CLAIMS + softmax.CLAIMS
SCORE, GENERAL, CLUSTERED, SOFTMAX = CLAIMS
GRIDS = {"n": _common.N_GRID, "cluster-n": ida_clustered.CLUSTER_N_GRID,
         "1/eps": ida_general.INVERSE_EPS_GRID, "d": softmax.D_GRID}
LEMMA = (GENERAL, CLUSTERED, SOFTMAX)


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in CLAIMS}


def _first_false(record):
    """The proof's first false quoted step (in the paper's order); every step before it agrees."""
    assert record["proof"]["status"] == "flawed"
    steps = record["proof"]["steps"]
    at = [s["id"] for s in steps].index(record["proof"]["first_false_step"])
    assert steps[at]["status"] == "disagrees" and all(s["status"] == "agrees" for s in steps[:at])
    return steps[at]


def _items_of(record, step_id):
    """The derivation steps and checks that check quoted proof step ``step_id``."""
    return ([s for s in record["derivation"]["steps"] if s.get("step") == step_id]
            + [e for e in record["evidence"] if e.get("step") == step_id])


def _statement_checks(record):
    return [e for e in record["evidence"] if e["role"] == "statement" and e["reading"] is None]


# ── verdicts: statement and proof apart ──


def test_step1_confirmed_with_a_sound_proof(records):
    record = records[SCORE.id]
    assert record["verdict"] == "confirmed" and record["proof"]["status"] == "sound"
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    assert [c["id"] for c in record["clauses"]] == ["norm", "argmax", "bound"]
    assert SCORE.identity is not None
    assert record["corrected"] is None
    for ev in record["evidence"]:
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
    # The bound is attained: the closest approach is at round-off level, not a loose margin.
    assert -1e-9 < evidence(record, "bound")["closest_relative_margin"] <= 0


@pytest.mark.parametrize("claim", LEMMA, ids=lambda c: c.id)
def test_lemma_bounds_hold_and_only_proof_items_fail(records, claim):
    """The re-audit: the stated O(·) bounds hold and every false item is a proof step or proof
    check; the in-n laws are flat, so only the ε- and d-laws (not flat) back a confirmation."""
    record = records[claim.id]
    assert {r["id"]: r["verdict"] for r in record["readings"]}["n-free"] == "confirmed"
    statement = _statement_checks(record)
    assert statement and all(e["status"] == "agrees" for e in statement)
    assert evidence(record, "jacobian-norm-vs-n")["fit"]["flat"] or claim is CLUSTERED
    if claim is not CLUSTERED:
        backing = {e["name"] for e in statement if any(c["failed"] for c in e["controls"])
                   and not (e.get("fit") or {}).get("flat")}
        assert backing == {"jacobian-norm-vs-inverse-eps" if claim is GENERAL else "jacobian-norm-vs-d"}
    false = [s for s in record["derivation"]["steps"] if s["status"] != "agrees"]
    false += [e for e in record["evidence"] if e["status"] != "agrees"]
    assert false and all(item["role"] == "proof" and item["status"] == "disagrees" for item in false)
    _first_false(record)


def test_ida_general_proof_bound_is_quadratic_in_n_while_the_worst_case_is_flat(records):
    record = records[GENERAL.id]
    # In the paper's order the diagonal-term step comes first; its conclusion is false too.
    assert _first_false(record)["id"] == "z-lower-bound"
    (step,) = [s for s in _items_of(record, "conclusion") if "paper" in s]
    assert step["status"] == "disagrees"
    assert (step["paper"], step["derived"]) == ("L_V*R*n/epsilon", "4*L_V*R*n**2/epsilon")
    n_law = evidence(record, "jacobian-norm-vs-n")
    assert abs(n_law["fit"]["exponent"]) < 1e-12
    assert n_law["points"]["y"] == pytest.approx([1 / math.sqrt(_common.EPS)] * len(n_law["points"]["y"]),
                                                 rel=1e-12)
    for name in ("jacobian-norm-vs-inverse-eps", "jacobian-norm-vs-inverse-eps-proof"):
        assert evidence(record, name)["fit"]["exponent"] == pytest.approx(0.5, abs=1e-9)
    # The search alone (no construction) reaches within 10 % of the n-free supremum.
    assert -0.1 < evidence(record, "suite-supremum")["closest_relative_margin"] < 0


def test_ida_general_diagonal_term_fails_without_the_query_s_own_key(records):
    witness = assert_witnessed(records[GENERAL.id], "normaliser-lower-bound", GENERAL)
    assert witness["found_by"] == "hypothesis" and witness["shrunk"]
    assert witness["inputs"]["k"]["shape"][1] == 1  # one key suffices
    own = evidence(records[GENERAL.id], "normaliser-own-key")
    assert own["status"] == "agrees" and own["role"] == "derivation"  # the suite's repaired setting


def test_ida_clustered_proof_sums_to_n_while_the_worst_case_is_flat(records):
    record = records[CLUSTERED.id]
    assert _first_false(record)["id"] == "log-scales"
    (step,) = _items_of(record, "log-scales")
    assert step["name"].startswith("Step 4 conclusion") and step["paper"] == "log(n)"
    (vacuity,) = [s for s in record["derivation"]["steps"] if s["role"] == "vacuity"]
    assert vacuity["status"] == "agrees"
    assert record["clauses"][0]["summary"].startswith("vacuous")
    for name in ("jacobian-norm-vs-n", "jacobian-norm-vs-n-low-rank"):
        law = evidence(record, name)
        assert law["fit"]["law"] == "polylog" and law["fit"]["ci"][1] < 0.05


def test_softmax_step5_sum_is_false_and_the_linear_scaling_refuted(records):
    record = records[SOFTMAX.id]
    assert _first_false(record)["id"] == "sum-to-n"
    (step,) = _items_of(record, "sum-to-n")
    assert step["name"] == "Step 5: (2R/√d_h) Σ_j W_ij = 2nR/√d_h"
    assert (step["paper"], step["derived"]) == ("2*R*n/sqrt(d_h)", "2*R/sqrt(d_h)")
    linear = evidence(record, "jacobian-norm-vs-n-linear")
    assert linear["role"] == "proof" and linear["status"] == "disagrees"
    assert abs(linear["fit"]["exponent"]) < 1e-12 and linear["fit"]["ci"][1] < 1
    d_law = evidence(record, "jacobian-norm-vs-d")
    assert d_law["fit"]["exponent"] == pytest.approx(-0.5, abs=1e-9)
    assert [(c["contrast"], c["failed"]) for c in d_law["controls"]] == [("operator", True)]  # IDA: flat in d


# ── the checks' semantics ──


def test_score_tolerances_resolve_a_relative_error_of_one_in_a_billion():
    altered = only(SCORE, *(dataclasses.replace(SCORE.check(name), strategy=None,
                                                evaluate=scaled_rhs(SCORE.check(name).evaluate, 1 + 1e-9))
                            for name in ("gradient-norm", "max-value")))
    record = run(altered)
    for name in ("gradient-norm", "max-value"):
        assert_witnessed(record, name, altered)


def test_score_bound_with_a_looser_true_constant_is_confirmed():
    loose = dataclasses.replace(SCORE.check("bound"), evaluate=lambda case: score_gradient_max.bound_gap(
        case, 18 / (16 * math.sqrt(2))))
    clauses = {c["id"]: c["verdict"] for c in run(only(SCORE, loose))["clauses"]}
    assert clauses["bound"] == "confirmed"  # the other two clauses have no evidence in this variant


def test_flat_maximum_curvature():
    """g(a*(1+η)) = g(a*)(1 − ¾η² + …): why locating the maximum to η ≈ 1e-8 leaves max-value's
    comparison at round-off."""
    a, eps = sp.symbols("a epsilon", positive=True)
    g = a / (a**2 + eps) ** 2
    a_star = sp.sqrt(eps / 3)
    ratio = sp.diff(g, a, 2).subs(a, a_star) * a_star**2 / (2 * g.subs(a, a_star))
    assert sp.simplify(ratio) == -sp.Rational(3, 4)
    step1 = score_gradient_max
    assert step1.peak_constant(step1.PAPER_FRACTION) == pytest.approx(step1.PAPER_CONSTANT, rel=1e-15)


def test_clustered_law_admits_log_n_and_excludes_powers():
    law = CLUSTERED.check("jacobian-norm-vs-n")

    def synthetic(growth):
        return dataclasses.replace(law, measure=lambda ctx, grid: np.array([growth(n) for n in grid]))

    for growth in (lambda n: 1 + math.log(n), lambda n: 3 * math.log(n), lambda n: 4.0):
        assert evidence(run(only(CLUSTERED, synthetic(growth))), "jacobian-norm-vs-n")["status"] == "agrees"
    power = evidence(run(only(CLUSTERED, synthetic(lambda n: n**0.35))), "jacobian-norm-vs-n")
    assert power["status"] == "disagrees"


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_grids_and_the_log_tolerance(profile):
    ctx = Context("x", seed=0, profile=profile)
    for kind in ("n", "cluster-n", "1/eps", "d"):
        grid = GRIDS[kind](ctx)
        assert math.log10(grid.max() / grid.min()) >= 3
    cluster = GRIDS["cluster-n"](ctx)
    assert all(n % (2 * ida_clustered.CLUSTERS) == 0 for n in cluster)  # two groups in a cluster
    assert closed_form_bias(cluster, 1 + np.log(cluster), 1.0, law="polylog") < 0  # LOG_LAW's claim
    assert abs(closed_form_bias(cluster, np.log(cluster), 1.0, law="polylog")) < ida_clustered.LOG_LAW.value


# ── the numbers the specs rest on ──


def test_constructions_attain_the_closed_form_suprema():
    """Two key groups reach L_V/√ε (IDA, R = 1 ≥ √ε) and L_V·R/√d (softmax)."""
    for eps in (1e-4, 1e-2, 1.0):
        built = jac.two_group_construction(1, 6, 2, 2, math.sqrt(eps), 1.0, dtype=torch.float64, device="cpu")
        norm = _common.jacobian_norm("ida", *built, torch.tensor([eps], dtype=torch.float64))
        assert float(norm[0]) == pytest.approx(1 / math.sqrt(eps), rel=1e-12)
    for dim in (1, 7, 300):
        built = jac.two_group_construction(1, 4, dim, 2, 1.0, 1.0, dtype=torch.float64, device="cpu")
        norm = _common.jacobian_norm("softmax", *built)
        assert float(norm[0]) == pytest.approx(1 / math.sqrt(dim), rel=1e-12)


def test_jacobian_is_the_weighted_covariance():
    gen = torch.Generator().manual_seed(1)
    q = torch.randn(5, 3, generator=gen, dtype=torch.float64)
    k = torch.randn(5, 7, 3, generator=gen, dtype=torch.float64)
    v = torch.randn(5, 7, 2, generator=gen, dtype=torch.float64)
    eps = 0.3
    d2 = (q[:, None] - k).square().sum(-1) + eps
    w = torch.softmax(-torch.log(d2), -1)
    g = 2 * (k - q[:, None]) / d2[..., None]
    vc = v - (w[..., None] * v).sum(1, keepdim=True)
    gc = g - (w[..., None] * g).sum(1, keepdim=True)
    expected = torch.einsum("bj,bjc,bjd->bcd", w, vc, gc)
    torch.testing.assert_close(jac.query_jacobian(_common.attend("ida", eps), q, k, v), expected,
                               rtol=1e-12, atol=1e-12)


def test_claims_are_well_formed():
    assert [c.id for c in CLAIMS] == [
        "georesolver/lemma-2.4/score-gradient-max", "georesolver/lemma-2.4/ida-general",
        "georesolver/lemma-2.4/ida-clustered", "georesolver/lemma-2.4/softmax"]
    assert SCORE.kind is Kind.IDENTITY
    for claim in LEMMA:
        assert claim.kind is Kind.ASYMPTOTIC
        law = claim.check("jacobian-norm-vs-n")  # Table 3's measured entry
        assert law.order == "O" and law.role == "statement" and law.reading is None
