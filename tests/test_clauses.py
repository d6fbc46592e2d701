"""The clauses model (issue 22): a statement is the conjunction of its quoted clauses; controls
count only when their contrast keeps the statement's setting; a statement that every operator of
its kind satisfies is vacuous; a measure flat across its grid is not backed by moving the
prediction; an identity true by construction is labelled apart from empirical confirmations.

Each test runs tiny in-memory claims through the runner, so the whole path (model, runner,
verdict) is exercised. Every test here fails on the engine before clauses existed.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from attnaudit import Claim, Clause, Kind, ProofStep, Relation, ScalingLaw, control, tolerances
from attnaudit.checks.runner import run_claim

ROUNDOFF = tolerances.Roundoff("1: a mean and a square root of positive numbers", scale="(a+b)/2")


def _pairs(ctx, gen):
    yield {"a": torch.rand(300, generator=gen, dtype=ctx.dtype) * 10 + 0.1,
           "b": torch.rand(300, generator=gen, dtype=ctx.dtype) * 10 + 0.1}


def _am_gm(case):
    a, b = case["a"], case["b"]
    return (a + b) / 2, torch.sqrt(a * b), ROUNDOFF((a + b) / 2, a.dtype)


def _quadratic(case):
    a, b = case["a"], case["b"]
    return (a + b) / 2, torch.sqrt((a * a + b * b) / 2), ROUNDOFF((a + b) / 2, a.dtype)


def _gm_over_hm(case):  # √(ab) ≥ 2ab/(a+b): true
    a, b = case["a"], case["b"]
    return torch.sqrt(a * b), 2 * a * b / (a + b), ROUNDOFF(torch.sqrt(a * b), a.dtype)


def _am_below_gm(case):  # (a+b)/2 ≤ √(ab): false off the diagonal
    a, b = case["a"], case["b"]
    return torch.sqrt(a * b), (a + b) / 2, ROUNDOFF((a + b) / 2, a.dtype)


def _relation(name, evaluate, *, clause=None, controls=None, **kw):
    controls = (control("quadratic mean in place of the geometric", contrast="operator",
                        evaluate=_quadratic),) if controls is None else controls
    return Relation(name=name, lhs="l", rel=">=", rhs="r", evaluate=evaluate, sample=_pairs,
                    tolerance=ROUNDOFF, sampler="uniform a, b in (0.1, 10.1)", clause=clause,
                    controls=controls, **kw)


CLAUSES = (Clause("am-gm", "the arithmetic mean is at least the geometric mean"),
           Clause("in-particular", "in particular, the geometric mean is at least the arithmetic"))


def _claim(*checks, **changes):
    base = dict(id="toy/clauses", label="Means", section="§0", statement="AM ≥ GM; in particular …",
                reading="for all a, b > 0", kind=Kind.INEQUALITY, no_derivation="engine test",
                checks=checks, clauses=CLAUSES)
    return Claim(**(base | changes))


def run(claim):
    record, _ = run_claim(claim, seed=0, profile="quick", device="cpu")
    assert record["verdict"] != "error", record.get("error")
    return record


def test_a_claim_whose_second_clause_is_false_reads_refuted():
    record = run(_claim(_relation("am-gm", _am_gm, clause="am-gm"),
                        _relation("in-particular", _am_below_gm, clause="in-particular")))
    assert [(c["id"], c["verdict"]) for c in record["clauses"]] == [
        ("am-gm", "confirmed"), ("in-particular", "refuted")]
    assert record["verdict"] == "refuted"
    assert record["summary"].startswith("clause 'in-particular' refuted")
    assert record["clauses"][1]["quote"] == CLAUSES[1].quote
    # the same claim with the second clause true is confirmed: the conjunction, not the first clause
    record = run(_claim(_relation("am-gm", _am_gm, clause="am-gm"),
                        _relation("in-particular", _gm_over_hm, clause="in-particular")))
    assert record["verdict"] == "confirmed" and record["summary"].startswith("all 2 clauses confirmed")


def test_a_clause_nothing_decides_leaves_the_statement_inconclusive_and_an_undefined_one_unverifiable():
    record = run(_claim(_relation("am-gm", _am_gm, clause="am-gm")))
    assert [c["verdict"] for c in record["clauses"]] == ["confirmed", "inconclusive"]
    assert record["verdict"] == "inconclusive"
    undefined = (CLAUSES[0], dataclasses.replace(CLAUSES[1], undefined="name the operator it bounds"))
    record = run(_claim(_relation("am-gm", _am_gm, clause="am-gm"), clauses=undefined))
    assert record["verdict"] == "unverifiable" and "name the operator it bounds" in record["summary"]
    refuted = run(_claim(_relation("am-gm", _am_below_gm, clause="am-gm"), clauses=undefined))
    assert refuted["verdict"] == "refuted"  # a refuted clause outranks an undefined one


def test_with_several_clauses_every_statement_check_names_its_clause():
    with pytest.raises(ValueError, match="must name the clause"):
        _claim(_relation("am-gm", _am_gm))
    with pytest.raises(ValueError, match="unknown clause"):
        _claim(_relation("am-gm", _am_gm, clause="nowhere"))


def test_a_setting_only_control_does_not_count():
    setting = control("the same check on a, b in (0, 1)", contrast="setting", evaluate=_am_below_gm)
    one = (CLAUSES[0],)
    record = run(_claim(_relation("am-gm", _am_gm, controls=(setting,)), clauses=one))
    assert record["controls"][0]["failed"] and record["controls"][0]["contrast"] == "setting"
    assert record["verdict"] == "inconclusive" and "change only the setting" in record["summary"]
    counted = control("quadratic mean in place of the geometric", contrast="operator", evaluate=_quadratic)
    assert run(_claim(_relation("am-gm", _am_gm, controls=(setting, counted)),
                      clauses=one))["verdict"] == "confirmed"


def test_a_hypothesis_control_names_its_hypothesis_and_contrasts_are_known():
    with pytest.raises(ValueError, match="name the hypothesis"):
        control("b < 0", contrast="hypothesis", evaluate=_am_below_gm)
    with pytest.raises(ValueError, match="contrast must be one of"):
        control("x", contrast="elsewhere", evaluate=_am_below_gm)
    assert control("exponent moved", exponent=2.0).contrast == "prediction"  # inferred
    assert control("other kernel", evaluate=_quadratic).contrast is None  # must be declared


def test_a_vacuous_statement_reads_inconclusive():
    """A vacuity item shows that every operator of the kind satisfies the clause (here: every
    pair of means in the family, since the 'operator' varies over all of them): a confirmation of
    such a clause carries no information."""
    vacuity = _relation("every-mean-pair", _gm_over_hm, controls=(), role="vacuity")
    record = run(_claim(_relation("am-gm", _am_gm), vacuity, clauses=(CLAUSES[0],)))
    assert record["verdict"] == "inconclusive" and record["summary"].startswith("vacuous")
    assert record["clauses"][0]["verdict"] == "inconclusive"


def _flat_measure(ctx, grid):
    return np.full(len(grid), 7.0)  # ignores its variable


def _linear_measure(ctx, grid):
    return 7.0 * np.asarray(grid, dtype=float)


def _flat_law(**kw):
    return ScalingLaw(name="cost-per-token", quantity="cost per token", variable="n", exponent=0.0,
                      order="Θ", grid=lambda ctx: np.logspace(1, 4, 7), measure=_flat_measure,
                      family="exact counts", tolerance=tolerances.Exact("exact integer counts"), **kw)


def test_a_scaling_check_whose_measure_ignores_its_variable_is_caught():
    """Moving the prediction (n⁰ → n¹) fails for any constant, so it cannot show that the measure
    depends on n at all; only a contrast that changes the operator can back a flat measurement."""
    moved = _flat_law(controls=(control("prediction n¹", exponent=1.0),))
    claim = _claim(moved, clauses=(CLAUSES[0],), kind=Kind.COMPLEXITY)
    record = run(claim)
    assert record["controls"][0]["failed"]
    assert record["verdict"] == "inconclusive"
    dense = _flat_law(controls=(control("dense attention's cost in place", contrast="operator",
                                        measure=_linear_measure),))
    assert run(dataclasses.replace(claim, checks=(dense,)))["verdict"] == "confirmed"


def test_an_identity_is_labelled_apart_from_an_empirical_confirmation():
    plain = _claim(_relation("am-gm", _am_gm), clauses=(CLAUSES[0],))
    assert run(plain)["confirmation"] == "empirical"
    identity = dataclasses.replace(plain, identity="the operator is defined as this mean")
    record = run(identity)
    assert (record["verdict"], record["confirmation"]) == ("confirmed", "identity")
    assert record["identity"] == "the operator is defined as this mean"
    assert run(_claim(_relation("am-gm", _am_below_gm), clauses=(CLAUSES[0],)))["confirmation"] is None


def test_proof_steps_are_quoted_and_a_check_names_a_known_one():
    with pytest.raises(ValueError, match="unknown proof step"):
        _claim(_relation("am-gm", _am_gm, clause="am-gm"),
               _relation("p", _am_gm, role="proof", step="nowhere", controls=()))
    with pytest.raises(ValueError, match="only a proof item"):
        _claim(_relation("am-gm", _am_gm, clause="am-gm", step="s"),
               proof_steps=(ProofStep("s", "squaring both sides"),))
    with pytest.raises(ValueError, match="quote"):
        ProofStep("s", "  ")
