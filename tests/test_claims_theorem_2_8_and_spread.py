"""GeoResolver Theorem 2.8 general case and width independence, and Lemma 2.5's Hessian spread
(Corollary 2.7's escape times): the real verdicts, and altered variants of every kind of check
showing it can go either way (a true statement confirmed, a false one refuted)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
from claimtest import assert_excluded, assert_refuted_with_witness, evidence, only, run, scaled_rhs

from checks import Context, Kind, fitting
from checks.relations import replay_witness
from claims.georesolver import lemma_2_5, theorem_2_8

SMALL_EPS, GENERAL, WIDTH = theorem_2_8.CLAIMS
SPREAD = lemma_2_5.CLAIMS[2]


def steps_by_name(record: dict) -> dict:
    return {s["name"]: s for s in record["derivation"]["steps"]}


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in (GENERAL, WIDTH, SPREAD)}


# ── Theorem 2.8, general case ──


def test_general_case_refuted_by_both_upper_readings_with_replayable_witnesses(records):
    record = records[GENERAL.id]
    first = record["derivation"]["steps"][record["derivation"]["first_disagreement"]]
    assert first["name"].startswith("E = K − ε⁻¹I")
    for name in ("literal-upper-bound", "proof-intermediate-upper-bound"):
        witness = assert_refuted_with_witness(record, name)
        assert witness["found_by"] == "hypothesis" and witness["shrunk"]
        assert witness["inputs"]["x"]["shape"][-2] == 2  # shrunk to two points
        replayed = replay_witness(GENERAL.check(name), witness)
        assert replayed["margin"] > 0 and replayed["lhs"] == pytest.approx(witness["lhs"])
    # Every random case violates reading (a) on its domain: the derivation says all of them must.
    literal = evidence(record, "literal-upper-bound")
    assert literal["violations"] == literal["cases"]
    for name in ("fraction-upper-bound", "reversed-lower-bound", "corrected-lower-bound"):
        assert evidence(record, name)["status"] == "agrees"
    # The corrected lower bound is attained (regular simplices): margin at round-off level.
    assert -1e-9 < evidence(record, "corrected-lower-bound")["closest_relative_margin"] <= 0
    steps = [s for s in record["derivation"]["steps"] if s["name"].startswith("reading")]
    assert [s["agrees"] for s in steps] == [False, False, True, True]
    assert "No upper bound below n" in record["corrected"]["statement"]


def test_small_eps_derivation_kept_its_steps():
    steps = theorem_2_8.derivation()
    assert len(steps) == 8
    assert [s.agrees for s in steps] == [True, False, True, False, True, False, False, False]


def test_general_true_bounds_fail_when_nudged_past_tight():
    # Reading (d) and the fraction reading are tight as c → 0 (both sides → n); the corrected
    # bound is attained by the simplex. Nudged by a relative 1e-5 (1e-9) past that, each is refuted.
    for name, factor in (("reversed-lower-bound", 1 + 1e-5), ("fraction-upper-bound", 1 - 1e-5),
                         ("corrected-lower-bound", 1 + 1e-9)):
        check = GENERAL.check(name)
        altered = dataclasses.replace(check, evaluate=scaled_rhs(check.evaluate, factor),
                                      strategy=None)
        witness = assert_refuted_with_witness(run(only(GENERAL, altered)), name)
        assert replay_witness(altered, witness)["margin"] > 0


# ── Theorem 2.8, width independence ──


def test_width_independence_is_confirmed_between_two_width_free_bounds(records):
    record = records[WIDTH.id]
    assert record["verdict"] == "confirmed", record["summary"]
    assert all(step["agrees"] for step in record["derivation"]["steps"])
    for name in ("dmax-upper-bound-over-width", "corrected-lower-bound-over-width"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["violations"] == 0 and ev["cases"] >= 1200
    fixed = evidence(record, "eff-rank-vs-width-dmin-fixed")
    assert fixed["status"] == "agrees" and fixed["fit"]["ci"][1] < 0
    assert math.log10(max(fixed["points"]["x"]) / min(fixed["points"]["x"])) >= 3


def test_width_checks_go_both_ways():
    # The d_max bound with d_min in its place is an upper bound that fails (it is the lower one).
    upper = WIDTH.check("dmax-upper-bound-over-width")
    swapped = dataclasses.replace(upper, evaluate=theorem_2_8.corrected_bound_gap, strategy=None)
    witness = assert_refuted_with_witness(run(only(WIDTH, swapped)), upper.name)
    assert replay_witness(swapped, witness)["margin"] > 0
    tighter = dataclasses.replace(upper, evaluate=scaled_rhs(upper.evaluate, 0.99), strategy=None)
    assert_refuted_with_witness(run(only(WIDTH, tighter)), upper.name)
    lower = WIDTH.check("corrected-lower-bound-over-width")
    raised = dataclasses.replace(lower, evaluate=scaled_rhs(lower.evaluate, 1.01), strategy=None)
    assert_refuted_with_witness(run(only(WIDTH, raised)), lower.name)
    falling_fast = dataclasses.replace(WIDTH.check("eff-rank-vs-width-dmin-fixed"), exponent=-1.0)
    assert_excluded(evidence(run(only(WIDTH, falling_fast)), "eff-rank-vs-width-dmin-fixed"))


def test_bartlett_points_have_the_gaussian_distance_distribution():
    ctx = Context("bartlett-test", seed=0)
    batch, count, width = 4000, 16, 40
    bartlett = theorem_2_8.gaussian_points_in_width(ctx, ctx.generator("b"), "b", batch, count,
                                                    width)
    direct = torch.randn(batch, count, width, generator=ctx.generator("d"), dtype=ctx.dtype)
    ranks = [operators_rank(x, float(width)) for x in (bartlett, direct)]
    error = math.hypot(*(float(r.std()) / math.sqrt(batch) for r in ranks))
    assert abs(float(ranks[0].mean() - ranks[1].mean())) < 4 * error  # 4 standard errors
    assert bartlett.shape == (batch, count, count)


def operators_rank(x, eps):
    import operators

    return operators.effective_rank(operators.ida_kernel(x, eps=eps))


# ── Lemma 2.5, Hessian spread and escape time ──


def test_spread_refuted_first_by_the_all_directions_step(records):
    record = records[SPREAD.id]
    assert record["verdict"] == "refuted"
    first = record["derivation"]["steps"][record["derivation"]["first_disagreement"]]
    assert "cross-polytope" in first["name"] and first["derived"] == "-n/2"
    steps = steps_by_name(record)
    assert steps["IDA spread Θ(1), n-gon"]["agrees"]
    assert not steps["IDA spread Θ(1), cross-polytope"]["agrees"]
    for name in ("ida-hessian-closed-form", "softmax-hessian-closed-form"):
        assert evidence(record, name)["status"] == "agrees"
    agree = {"spread-ida-vs-n", "escape-softmax-vs-n", "escape-softmax-vs-n-cross-polytope"}
    for ev in record["evidence"]:
        if ev["type"] == "scaling":
            if ev["name"] in agree:
                assert ev["status"] == "agrees", ev["name"]
            else:
                assert_excluded(ev)
    fits = {ev["name"]: ev["fit"]["exponent"] for ev in record["evidence"] if ev["type"] == "scaling"}
    assert abs(fits["spread-softmax-vs-n"]) < 0.05  # Θ(1), not Θ(n⁻²)
    assert abs(fits["spread-ida-vs-n-cross-polytope"] - 1) < 0.1
    assert abs(fits["escape-ida-vs-n"] - 1) < 0.05


def test_hessian_closed_form_refuted_when_off_by_a_millionth():
    for kernel in ("ida", "softmax"):
        check = SPREAD.check(f"{kernel}-hessian-closed-form")
        altered = dataclasses.replace(check, evaluate=lemma_2_5._hessian_gap(kernel, 1 + 1e-6))
        witness = assert_refuted_with_witness(run(only(SPREAD, altered)), check.name)
        assert replay_witness(altered, witness)["margin"] > 0


def test_spread_and_escape_laws_go_both_ways():
    wrong_ida = dataclasses.replace(SPREAD.check("spread-ida-vs-n"), exponent=0.2)
    true_softmax = dataclasses.replace(SPREAD.check("spread-softmax-vs-n"), exponent=0.0)
    tight_softmax = dataclasses.replace(SPREAD.check("escape-softmax-vs-n-cross-polytope"),
                                        exponent=1.0)
    loose_ida = dataclasses.replace(SPREAD.check("escape-ida-vs-n"), exponent=1.0)
    record = run(only(SPREAD, wrong_ida, true_softmax, tight_softmax, loose_ida))
    assert_excluded(evidence(record, "spread-ida-vs-n"))
    assert evidence(record, "spread-softmax-vs-n")["status"] == "agrees"
    assert_excluded(evidence(record, "escape-softmax-vs-n-cross-polytope"))
    assert evidence(record, "escape-ida-vs-n")["status"] == "agrees"


def test_spread_tolerances_are_the_exact_laws_fit_bias(records):
    record = records[SPREAD.id]
    for ev in record["evidence"]:
        if ev["type"] != "scaling":
            continue
        kernel = "ida" if ev["name"].split("-")[1] == "ida" else "softmax"
        config = "cross" if ev["name"].endswith("cross-polytope") else "ngon"
        spread = ev["name"].startswith("spread")
        expr = (lemma_2_5.exact_spread if spread else lemma_2_5.exact_escape)(kernel, config)
        law = lemma_2_5.exact_values(expr, np.array(ev["points"]["x"]), spread)
        # The measured values are the exact law to round-off...
        np.testing.assert_allclose(ev["points"]["y"], law, rtol=1e-8)
        # ...so the fitted exponent is the asymptotic one plus the bias the tolerance allows for.
        bias = fitting.closed_form_bias(ev["points"]["x"], law, 0.0)
        assert ev["fit"]["exponent"] == pytest.approx(bias, abs=1e-8)
        assert ev["exponent_tolerance"] >= 1e-3
        assert math.log10(max(ev["points"]["x"]) / min(ev["points"]["x"])) >= 3


def test_claims_are_well_formed():
    assert GENERAL.kind is Kind.INEQUALITY and WIDTH.kind is Kind.INEQUALITY
    assert SPREAD.kind is Kind.ASYMPTOTIC
    assert [c.id for c in theorem_2_8.CLAIMS] == [
        "georesolver/theorem-2.8/small-eps", "georesolver/theorem-2.8/general",
        "georesolver/theorem-2.8/width-independence"]
    assert [c.id for c in lemma_2_5.CLAIMS] == [
        "georesolver/lemma-2.5/softmax", "georesolver/lemma-2.5/ida", "georesolver/lemma-2.5/spread"]
    names = {c.name for c in SPREAD.checks}
    assert {"spread-ida-vs-n", "spread-softmax-vs-n"} <= names
