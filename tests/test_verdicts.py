"""The auditor is tested: for each kind of check, a true statement is confirmed and a
deliberately wrong prediction is refuted with a witness, an excluding interval or a false step."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy as sp
import torch

from checks import Claim, Kind, Limit, Relation, ScalingLaw, symbolic, tolerances
from checks.runner import run_claim

n = sp.Symbol("n", positive=True)


def run(claim):
    record, _ = run_claim(claim, seed=0, profile="quick", device="cpu")
    return record


def _am_gm(case):
    a, b = case["a"], case["b"]
    return (a + b) / 2, torch.sqrt(a * b), tolerances.roundoff(a.dtype, (a + b) / 2)


def _positive_pairs(ctx, gen):
    yield {"a": torch.rand(5000, generator=gen, dtype=ctx.dtype) * 10,
           "b": torch.rand(5000, generator=gen, dtype=ctx.dtype) * 10}


def _pair_strategy(ctx):
    from hypothesis import strategies as st

    pos = st.floats(1e-3, 1e3)
    return st.tuples(pos, pos).map(lambda ab: {"a": ctx.tensor([ab[0]]), "b": ctx.tensor([ab[1]])})


INEQUALITY = Claim(
    id="toy/am-gm", label="AM–GM", section="§0", statement=r"\frac{a+b}{2} \ge \sqrt{ab}",
    reading="for all a, b > 0", kind=Kind.INEQUALITY,
    no_derivation="textbook inequality; the test is of the relation machinery",
    checks=(Relation(name="am-gm", lhs="(a+b)/2", rel=">=", rhs="√(ab)", evaluate=_am_gm,
                     sample=_positive_pairs, strategy=_pair_strategy,
                     tolerance="64 u relative", sampler="uniform a, b in (0, 10)"),),
)


def _harmonic(ctx, grid):
    # Exact 1/n measured through a batched tensor sum of n equal terms n⁻².
    return np.array([torch.full((int(m),), 1.0 / m**2, dtype=torch.float64).sum().item()
                     for m in grid])


ASYMPTOTIC = Claim(
    id="toy/harmonic", label="Toy law", section="§0", statement=r"\sum_{i=1}^n n^{-2} = \Theta(n^{-1})",
    reading="as n → ∞", kind=Kind.ASYMPTOTIC,
    derivation=lambda: [symbolic.leading_order("order", n * n**-2, n, n**-1)],
    checks=(ScalingLaw(name="law", quantity="S(n)", variable="n", exponent=-1.0, order="Θ",
                       grid=lambda ctx: np.logspace(1, 5, 9), measure=_harmonic,
                       family="exact sums", tolerance="exact values: round-off only"),),
)


def _euler_gap(ctx, grid):
    return np.abs((1 + 1 / grid) ** grid - np.e)


LIMIT = Claim(
    id="toy/euler", label="Toy limit", section="§0", statement=r"(1+1/n)^n \to e",
    reading="as n → ∞", kind=Kind.LIMIT,
    derivation=lambda: [symbolic.limit("limit", (1 + 1 / n) ** n, n, sp.oo, sp.E)],
    checks=(Limit(name="limit", quantity="(1+1/n)^n", variable="n", value="e", point="oo",
                  rate=1.0, grid=lambda ctx: np.logspace(1, 5, 9), gap=_euler_gap,
                  family="integers n", tolerance="gap ~ e/(2n): rate 1, round-off far below"),),
)


def test_true_inequality_confirmed_and_wrong_one_refuted_with_a_shrunk_witness():
    assert run(INEQUALITY)["verdict"] == "confirmed"
    rel = INEQUALITY.checks[0]
    wrong = dataclasses.replace(INEQUALITY, checks=(dataclasses.replace(rel, rel="<="),))
    record = run(wrong)
    assert record["verdict"] == "refuted"
    witness = record["evidence"][0]["witness"]
    assert witness["found_by"] == "hypothesis" and witness["shrunk"]
    assert witness["lhs"] > witness["rhs"] + witness["tol"]


def test_true_identity_confirmed_and_wrong_identity_refuted():
    rel = INEQUALITY.checks[0]
    identity = dataclasses.replace(INEQUALITY, id="toy/identity", kind=Kind.IDENTITY, checks=(
        dataclasses.replace(rel, rel="==", evaluate=lambda c: (c["a"] * c["b"], c["b"] * c["a"],
                                                               torch.zeros_like(c["a"]))),))
    assert run(identity)["verdict"] == "confirmed"
    wrong = dataclasses.replace(identity, checks=(
        dataclasses.replace(rel, rel="==", evaluate=lambda c: (c["a"] + c["b"], c["a"] * c["b"],
                                                               torch.zeros_like(c["a"]))),))
    record = run(wrong)
    assert record["verdict"] == "refuted" and record["evidence"][0]["witness"] is not None


def test_asymptotic_order_confirmed_and_wrong_exponent_refuted_by_the_interval():
    record = run(ASYMPTOTIC)
    assert record["verdict"] == "confirmed"
    wrong = dataclasses.replace(ASYMPTOTIC, checks=(
        dataclasses.replace(ASYMPTOTIC.checks[0], exponent=-2.0),))
    record = run(wrong)
    assert record["verdict"] == "refuted"
    ev = record["evidence"][0]
    lo, hi = ev["fit"]["ci"]
    assert not (lo - ev["exponent_tolerance"] <= -2.0 <= hi + ev["exponent_tolerance"])
    assert "Θ(n^-1)" in record["corrected"]["statement"]
    assert record["corrected"]["derived_by"] == "attnaudit"


def test_bounds_in_O_and_Omega_are_decided_in_the_right_direction():
    law = ASYMPTOTIC.checks[0]
    for order, exponent, verdict in (("O", 0.0, "confirmed"), ("O", -2.0, "refuted"),
                                     ("Ω", -2.0, "confirmed"), ("Ω", 0.0, "refuted")):
        claim = dataclasses.replace(ASYMPTOTIC, checks=(
            dataclasses.replace(law, order=order, exponent=exponent),))
        assert run(claim)["verdict"] == verdict, (order, exponent)


def test_limit_confirmed_and_wrong_limit_value_refuted():
    assert run(LIMIT)["verdict"] == "confirmed"
    wrong = dataclasses.replace(LIMIT, checks=(dataclasses.replace(
        LIMIT.checks[0], value="2.7", gap=lambda ctx, g: np.abs((1 + 1 / g) ** g - 2.7)),))
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert record["evidence"][0]["fit"]["ci"][1] < 0.5  # the gap stops shrinking


def test_a_false_derivation_step_refutes_and_is_reported_first():
    wrong = dataclasses.replace(LIMIT, derivation=lambda: [
        symbolic.exact("true step", n + n, 2 * n),
        symbolic.limit("wrong limit", (1 + 1 / n) ** n, n, sp.oo, sp.Integer(3)),
        symbolic.exact("another false step", n, n + 1),
    ])
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert record["derivation"]["first_disagreement"] == 1
    assert "wrong limit" in record["summary"]


def test_too_few_decades_is_an_error_of_the_spec_not_a_verdict():
    short = dataclasses.replace(ASYMPTOTIC, checks=(dataclasses.replace(
        ASYMPTOTIC.checks[0], grid=lambda ctx: np.logspace(1, 3, 9)),))
    record = run(short)
    assert record["verdict"] == "error"
    assert "at least 3 are required" in record["summary"]


def test_noisy_measurement_that_cannot_decide_is_inconclusive():
    def noisy(ctx, grid):
        rng = ctx.numpy_rng("noise")
        return grid**-1.0 * np.exp(rng.normal(0, 3.0, len(grid))), grid**-1.0 * 3.0

    claim = dataclasses.replace(ASYMPTOTIC, checks=(dataclasses.replace(
        ASYMPTOTIC.checks[0], measure=noisy, grid=lambda ctx: np.logspace(1, 4, 5)),))
    record = run(claim)
    assert record["verdict"] == "inconclusive"
    assert "widen the grid" in record["summary"]


@pytest.mark.parametrize("bad", [
    dict(id="no-slash"), dict(kind="lemma"), dict(statement=" "),
    dict(derivation=None, no_derivation=None),
    dict(checks=()),
])
def test_claims_are_validated_when_built(bad):
    with pytest.raises(ValueError):
        dataclasses.replace(ASYMPTOTIC, **bad)
