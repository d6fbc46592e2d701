"""Theorem 2.6 (PL constants of the two-key loss): each part's one clause is refuted by
statement-level evidence (a false statement step, a fitted interval that excludes the prediction);
the IDA proof is flawed at its first false quoted step (W₁′(0) = 0), the ratio's at its IDA premise,
and the softmax part only names an ingredient; the real-line reading is refuted by a witness."""

from __future__ import annotations

import pytest
import sympy as sp
import torch
from claimtest import assert_excluded, assert_interval_excludes, assert_witnessed, evidence, run

from attnaudit.checks import Context
from attnaudit.checks.fitting import closed_form_bias
from attnaudit.claims.georesolver import _two_key as tk
from attnaudit.claims.georesolver import theorem_2_6 as spec

IDA, SOFT, RATIO = spec.CLAIMS


@pytest.fixture(scope="module")
def records():
    return {claim.id: run(claim) for claim in spec.CLAIMS}


def _readings(record):
    return {r["id"]: r["verdict"] for r in record["readings"]}


def _first_false(record):
    """The proof's first false step (the paper's, in source order) and the items that check it."""
    proof = record["proof"]
    assert proof["status"] == "flawed"
    steps = {s["name"]: s for s in record["derivation"]["steps"]}
    quoted = [q for q in proof["steps"]]
    first = next(q for q in quoted if q["id"] == proof["first_false_step"])
    assert all(q["status"] == "agrees" for q in quoted[: quoted.index(first)])
    return first, [steps[n] for n in first["items"] if n in steps]


def test_ida_refuted_by_the_statement_proof_flawed_at_the_vanishing_slope(records):
    record = records[IDA.id]
    assert [c["id"] for c in record["clauses"]] == ["mu-ida"]
    assert _readings(record) == {"primary": "refuted", "real-line": "refuted"}
    first, (step,) = _first_false(record)
    assert first["id"] == "slope-zero" and step["paper"] == "0"
    assert step["derived"] == sp.sstr(sp.factor(sp.diff(spec.W1, spec.q).subs(spec.q, 0)))
    # The expansions of A, B and A + B before it are right.
    assert [q["status"] for q in record["proof"]["steps"][:5]] == ["agrees"] * 5
    # Statement steps alone refute: the scaling symmetry forces Δ⁻⁶ given ε².
    false_statement = [s for s in record["derivation"]["steps"]
                       if s["role"] == "statement" and s["status"] == "disagrees"]
    assert "-6" in [s["derived"] for s in false_statement]
    fit = assert_interval_excludes(record, "pl-vs-delta", -4.0)
    assert abs(fit["exponent"] + 6) < 1e-3
    eps_law = evidence(record, "pl-vs-eps")
    assert eps_law["status"] == "agrees" and abs(eps_law["fit"]["exponent"] - 2) < 1e-2
    local = evidence(record, "proof-local-vs-delta")
    assert (local["role"], local["step"], local["status"]) == ("proof", "ratio", "disagrees")
    consistency = evidence(record, "operator-consistency")
    assert (consistency["role"], consistency["status"]) == ("derivation", "agrees")


def test_ida_real_line_reading_has_a_zero_pl_constant(records):
    witness = assert_witnessed(records[IDA.id], "pl-positive-on-line", IDA)
    assert evidence(records[IDA.id], "pl-positive-on-line")["reading"] == "real-line"
    assert witness["lhs"] + witness["tol"] < witness["rhs"]


def test_ida_infimum_is_the_ratio_at_the_far_key():
    """The numerical μ (grid + golden section) equals the statement step's closed form
    8ε²(Δ²+ε)²/(Δ²+2ε)⁵, the PL ratio at q = Δ."""
    e = torch.tensor([1e-7, 1e-5, 1e-3, 1e-6, 1e-6], dtype=torch.float64)
    d = torch.tensor([1.0, 1.0, 1.0, 0.1, 100.0], dtype=torch.float64)
    exact = 8 * e**2 * (d**2 + e) ** 2 / (d**2 + 2 * e) ** 5
    torch.testing.assert_close(tk.mu_key1("IDA", e, d, 1500), exact, rtol=1e-9, atol=0)


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_ida_fit_tolerance_is_the_closed_form_bias_on_either_grid(profile):
    ctx = Context(IDA.id, seed=0, profile=profile)
    far_key = lambda e, d: 8 * e**2 * (d**2 + e) ** 2 / (d**2 + 2 * e) ** 5  # noqa: E731
    local = lambda e, d: 16 * d**2 * e**2 / (d**2 + 2 * e) ** 4  # noqa: E731 (4W₁′(0)²)
    for exact, (eps_name, delta_name) in ((far_key, ("pl-vs-eps", "pl-vs-delta")),
                                          (local, ("proof-local-vs-eps", "proof-local-vs-delta"))):
        eps_grid, delta_grid = IDA.check(eps_name).grid(ctx), IDA.check(delta_name).grid(ctx)
        eps_bias = closed_form_bias(eps_grid, exact(eps_grid, 1.0), 2.0)
        delta_bias = closed_form_bias(delta_grid, exact(spec.EPS_FIXED, delta_grid), -6.0)
        assert max(abs(eps_bias), abs(delta_bias)) < 1e-3  # the regime ε ≪ Δ²: tiny curvature
        assert IDA.check(eps_name).exponent_tolerance >= 2 * abs(eps_bias)
        assert IDA.check(delta_name).exponent_tolerance >= 2 * abs(delta_bias)


def test_softmax_refuted_its_argument_only_names_an_ingredient(records):
    record = records[SOFT.id]
    steps = {s["name"]: s for s in record["derivation"]["steps"]}
    # The named ingredient is right; the rate it would give μ is not (a squared gradient: 2, not 1).
    fact = next(s for s in steps.values() if s.get("step") == "small-gradient")
    rate = next(s for s in steps.values() if s.get("step") == "pl-constant")
    assert fact["status"] == "agrees"
    assert (rate["status"], rate["paper"], rate["derived"]) == ("disagrees", "1", "2")
    for name in ("pl-soft-vs-delta", "pl-soft-vs-d"):
        assert_excluded(evidence(record, name))
    assert evidence(record, "operator-consistency")["status"] == "agrees"


def test_softmax_corrected_form_confirmed_behind_a_failing_control(records):
    record = records[SOFT.id]
    assert _readings(record) == {"primary": "refuted", "suite-corrected": "confirmed"}
    corrected = evidence(record, "corrected-soft-form")
    assert (corrected["reading"], corrected["status"]) == ("suite-corrected", "agrees")
    assert abs(corrected["fit"]["exponent"]) < 0.01
    assert [(c["contrast"], c["failed"]) for c in corrected["controls"]] == [("prediction", True)]
    # The suite-corrected form's ratio to the exact μ_soft is 2r²/(1 + e^{−x})⁴ → 2r².
    corrected_step = next(s for s in record["derivation"]["steps"] if s.get("reading") == "suite-corrected")
    assert corrected_step["status"] == "agrees"


def test_ratio_grows_in_the_gap_but_not_with_a_constant_free_of_delta_and_eps(records):
    record = records[RATIO.id]
    assert _first_false(record)[0]["id"] == "premise-ida"
    assert evidence(record, "ratio-vs-x")["status"] == "agrees"
    assert abs(assert_interval_excludes(record, "ratio-vs-delta", -2.0)["exponent"] + 4) < 0.01
    assert abs(assert_interval_excludes(record, "ratio-vs-inverse-eps", 0.0)["exponent"] + 2) < 0.01
