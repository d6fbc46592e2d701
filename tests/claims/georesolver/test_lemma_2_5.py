"""Lemma 2.5: the softmax and IDA curvature orders are refuted (statement); the softmax proof is flawed at
its last order step, the IDA proof's steps all hold but end at Θ(n) in another regime (a gap). Spread: its
spread clause holds at key 1 behind failing softmax controls, its escape clause (Corollary 2.7, at the
saddle) is refuted, and its argument, 'the Θ(n) scaling', is false at the statement's fixed ε."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from claimtest import assert_interval_excludes, evidence, run

from attnaudit.checks import fitting
from attnaudit.claims.georesolver import lemma_2_5 as L

SOFTMAX, IDA, SPREAD = L.CLAIMS


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in L.CLAIMS}


def steps(record):
    return {s["name"]: s for s in record["derivation"]["steps"]}


def verdicts(record):
    return {r["id"]: r["verdict"] for r in record["readings"]}


def test_softmax_order_refuted_and_the_proof_flawed_only_at_its_last_order_step(records):
    record = records[SOFTMAX.id]
    assert record["proof"]["first_false_step"] == "l2-order"
    (first,) = [s for s in record["derivation"]["steps"] if s.get("step") == "l2-order"]
    assert first["method"] == "leading-order" and first["derived"] == "-2/n"
    quoted = [s["status"] for s in record["proof"]["steps"]]
    assert quoted == ["agrees"] * (len(quoted) - 1) + ["disagrees"]
    fit = assert_interval_excludes(record, "order-in-n", -2.0)
    assert abs(fit["exponent"] + 1) < 0.02  # Θ(n⁻¹)
    check = evidence(record, "second-derivative")
    assert (check["status"], check["role"]) == ("agrees", "derivation")


def test_ida_fixed_eps_refuted_the_proofs_regime_gives_theta_n(records):
    record = records[IDA.id]
    assert all(s["status"] == "agrees" for s in record["proof"]["steps"])  # a gap, no false step
    (suite,) = [s for s in record["derivation"]["steps"] if s["name"].startswith("the suite: where")]
    assert (suite["role"], suite["status"]) == ("derivation", "disagrees")
    statement = [s for s in record["derivation"]["steps"] if s["role"] == "statement"]
    assert [s["status"] for s in statement] == ["disagrees"]
    assert abs(assert_interval_excludes(record, "fixed-eps", 0.0)["exponent"] + 1) < 0.02
    regime = evidence(record, "proof-regime")
    assert (regime["status"], regime["role"]) == ("agrees", "proof")
    assert abs(regime["fit"]["exponent"] - 1) < 0.02


def test_spread_clause_confirmed_at_key_one_behind_failing_softmax_controls(records):
    record = records[SPREAD.id]
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {"spread": "confirmed", "escape": "refuted"}
    for name in ("spread-bound", "spread-ida-vs-n"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["reading"] is None and ev["role"] == "statement"
        assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("operator", True)]
    assert evidence(record, "spread-bound")["violations"] == 0
    # the measured spreads are the family's exact (2n−4)/(n+3), bounded by 2
    law = evidence(record, "spread-ida-vs-n")
    x = np.array(law["points"]["x"])
    np.testing.assert_allclose(law["points"]["y"], (2 * x - 4) / (x + 3), rtol=1e-8)
    bound = steps(record)["key 1: spread ≤ v·Hv|_(S₂=(n−1)ρ²) / v·Hv|_(S₂=0) = 1 + 4ε/(ρ²+ε) for every n"]
    assert (bound["status"], bound["role"]) == ("agrees", "statement")


def test_spread_proof_flawed_the_theta_n_scaling_is_false_at_fixed_eps(records):
    record = records[SPREAD.id]
    assert record["proof"]["first_false_step"] == "theta-n-scaling"
    at_fixed = [s for s in record["derivation"]["steps"] if s.get("step") == "theta-n-scaling"]
    assert [s["status"] for s in at_fixed] == ["disagrees", "disagrees"]
    assert at_fixed[0]["derived"] == "4*rho**2/(epsilon**2*n)"  # Θ(1/n), not Θ(n)
    regime = [s for s in record["derivation"]["steps"] if "regime ε = cρ²/n" in s["name"]]
    assert [(s["role"], s["status"]) for s in regime] == [("derivation", "agrees")] * 2


def test_spread_escape_clause_and_centre_reading_refuted(records):
    record = records[SPREAD.id]
    assert verdicts(record) == {"primary": "refuted", "centre": "refuted"}
    assert evidence(record, "escape-ida-vs-n")["clause"] == "escape"
    assert abs(assert_interval_excludes(record, "spread-ida-vs-n-cross-polytope", 0.0)["exponent"] - 1) < 0.1
    assert abs(assert_interval_excludes(record, "escape-ida-vs-n", 0.0)["exponent"] - 1) < 0.05
    for name in ("ida-hessian-closed-form", "softmax-hessian-closed-form", "spread-ida-vs-n-ngon",
                 "escape-softmax-vs-n", "escape-softmax-vs-n-cross-polytope"):
        assert evidence(record, name)["status"] == "agrees", name
    assert steps(record)["centre: IDA spread Θ(1), cross-polytope"]["derived"] == "n/2"
    # no Θ(n⁻²) softmax spread is tested: a ratio ≥ 1 cannot decay (strawman)
    assert not any("softmax" in c.name and "spread" in c.name for c in SPREAD.checks)


def _exact_laws():
    """(check, grid, exact law, asymptotic exponent) of every fitted law of the module."""
    n = L.n
    centre = {}
    for kernel, config in (("ida", "ngon"), ("ida", "cross"), ("softmax", "ngon"), ("softmax", "cross")):
        along, across = (e.subs({L.rho: 1, L.eps: 1}) for e in L._eigenvalues(kernel, config))
        centre[kernel, config] = (sp.Max(-along / across, across / -along), -1 / along)
    e = sp.Rational(1, 100) / n
    return [
        (SOFTMAX.check("order-in-n"), L.N_GRID, -2 * (n - 1) ** 2 * (n - 3) / n**4, -1),
        (IDA.check("fixed-eps"), L.N_GRID, L.CURVATURE_IDA.subs({L.rho: 1, L.eps: 1}), -1),
        (IDA.check("proof-regime"), L.N_GRID, L.CURVATURE_IDA.subs({L.rho: 1, L.eps: e}), 1),
        (SPREAD.check("spread-ida-vs-n"), L.GRIDS["ngon"], (2 * n - 4) / (n + 3), 0),
        (SPREAD.check("spread-ida-vs-n-ngon"), L.GRIDS["ngon"], centre["ida", "ngon"][0], 0),
        (SPREAD.check("spread-ida-vs-n-cross-polytope"), L.GRIDS["cross"], centre["ida", "cross"][0], 1),
        (SPREAD.check("escape-ida-vs-n"), L.GRIDS["ngon"], centre["ida", "ngon"][1], 1),
        (SPREAD.check("escape-ida-vs-n-cross-polytope"), L.GRIDS["cross"], centre["ida", "cross"][1], 1),
        (SPREAD.check("escape-softmax-vs-n"), L.GRIDS["ngon"], centre["softmax", "ngon"][1], 1),
        (SPREAD.check("escape-softmax-vs-n-cross-polytope"), L.GRIDS["cross"],
         centre["softmax", "cross"][1], 2),
    ]


def test_fit_tolerances_are_the_exact_laws_fit_bias():
    for check, grid, law, asymptotic in _exact_laws():
        values = [abs(float(law.subs(L.n, x))) for x in grid]
        bias = fitting.closed_form_bias(grid, values, asymptotic)
        assert check.tolerance.bias == pytest.approx(bias, rel=1e-3, abs=1e-6), check.name
        assert math.log10(max(grid) / min(grid)) >= 3


def test_centre_laws_measure_the_exact_laws(records):
    record = records[SPREAD.id]
    for check, grid, law, _ in _exact_laws()[4:]:
        ev = evidence(record, check.name)
        np.testing.assert_allclose(ev["points"]["y"], [abs(float(law.subs(L.n, x))) for x in grid],
                                   rtol=1e-8, err_msg=check.name)
