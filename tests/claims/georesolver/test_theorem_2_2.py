"""Theorem 2.2 on its orthogonal-keys instance. IDA half: one head at the instance's width retrieves at
the proof's ε = δR²/n (behind a failing softmax control), the proof's algebra is sound, and the inverse
temperature R²/ε* it pays grows like n (the suite's derivation, shown: bounding it would exclude every
normalised kernel).
Softmax half: the stated requirement is vacuous on the instance (H·d_h = d >= n for every operator), the proof
is flawed at its reversed inequality; the width-threshold and free-scale readings are refuted."""

from __future__ import annotations

import numpy as np
import pytest
from claimtest import assert_interval_excludes, assert_witnessed, evidence, run

from attnaudit.checks.fitting import closed_form_bias
from attnaudit.claims.georesolver import theorem_2_2 as t22
from attnaudit.claims.georesolver.theorem_2_2 import DELTA, N_GRID, eps_star

IDA, SOFTMAX = t22.CLAIMS


@pytest.fixture(scope="module")
def ida():
    return run(IDA)


@pytest.fixture(scope="module")
def softmax():
    return run(SOFTMAX)


def _readings(record):
    return {r["id"]: r["verdict"] for r in record["readings"]}


def test_ida_retrieves_at_the_proofs_eps_behind_a_failing_softmax_control(ida):
    ev = evidence(ida, "retrieves-at-proof-eps")
    assert ev["role"] == "statement" and ev["status"] == "agrees"
    assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("operator", True)]
    assert [c["id"] for c in ida["clauses"]] == ["ida-retrieval"]


def test_ida_inverse_temperature_grows_like_n_as_the_suites_derivation(ida):
    # The measured points are the operator's ε* on the theorem's own instance; they match the suite's
    # closed form 2R²δ/((n−1)(1−δ)−δ), so R²/ε* ∝ n is no artefact of the bisection.
    ev = evidence(ida, "inverse-temperature-vs-n")
    assert ev["role"] == "derivation"
    n = np.array(ev["points"]["x"])
    assert list(n) == list(N_GRID)
    np.testing.assert_allclose(np.array(ev["points"]["y"]), 1 / eps_star(n, DELTA, 1.0), rtol=1e-6)
    assert ev["fit"]["ci"][0] > 0.9


def test_ida_bounded_contrast_kernels_cannot_retrieve():
    # Why R²/ε is no resource: a kernel of contrast <= B has W₁₁ <= B/(B+n−1) → 0.
    step = next(s for s in t22.ida_derivation() if s.name.startswith("why R²/ε"))
    assert step.role == "derivation" and step.status == "agrees"


def test_ida_proof_is_sound_and_every_quoted_step_is_checked(ida):
    assert {s["id"]: s["status"] for s in ida["proof"]["steps"]} == dict.fromkeys(
        ("distances", "w11", "limit", "within-delta", "eps-order"), "agrees")
    proof = [e for e in ida["evidence"] if e["role"] == "proof"]
    assert {e["name"] for e in proof} == {"w11-closed-form", "eps-star-vs-n", "eps-star-vs-r",
                                          "eps-star-vs-delta"}
    assert all(e["status"] == "agrees" for e in proof)


def test_ida_fit_tolerances_cover_the_closed_form_bias():
    grid = np.array(N_GRID, float)
    bias = closed_form_bias(grid, eps_star(grid, DELTA, 1.0), -1.0)
    assert IDA.check("eps-star-vs-n").exponent_tolerance >= 2 * abs(bias)
    for points in (9, 41):  # both profiles' δ grids
        grid = np.geomspace(1e-6, 1e-2, points)
        bias = closed_form_bias(grid, eps_star(t22.SWEEP_N, grid, 1.0), 1.0)
        assert IDA.check("eps-star-vs-delta").exponent_tolerance >= 2 * abs(bias)


def test_softmax_requirement_is_vacuous_on_the_instance(softmax):
    for name in ("no-retrieval-at-bounded-radius", "min-radius-vs-n"):
        ev = evidence(softmax, name)
        assert ev["status"] == "agrees" and ev["role"] == "statement" and ev["reading"] is None
        assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("operator", True)]
    assert evidence(softmax, "multihead-split-weight")["status"] == "agrees"
    vacuity = [s for s in softmax["derivation"]["steps"] if s["role"] == "vacuity"]
    assert len(vacuity) == 3 and all(s["status"] == "agrees" for s in vacuity)
    (clause,) = softmax["clauses"]
    assert clause["id"] == "softmax-requirement" and clause["summary"].startswith("vacuous")


def test_softmax_proof_flawed_at_the_reversed_inequality(softmax):
    steps = {s["id"]: s["status"] for s in softmax["proof"]["steps"]}
    assert softmax["proof"]["first_false_step"] == "width-bound"
    order = list(steps)
    assert all(steps[i] == "agrees" for i in order[: order.index("width-bound")])
    # Its later false steps: the bound's claimed Ω((log n)²) order and the multi-head disjunction.
    false = [i for i, st in steps.items() if st == "disagrees"]
    assert false == ["width-bound", "bound-order", "disjunction"]
    reversed_step = next(s for s in softmax["derivation"]["steps"] if s.get("step") == "width-bound")
    assert reversed_step["paper"].endswith(">= R_max**4/L**2")
    assert evidence(softmax, "retrieval-region")["status"] == "agrees"


def test_softmax_paper_bound_has_a_retrieving_witness_below_it(softmax):
    witness = assert_witnessed(softmax, "paper-necessary-condition", SOFTMAX)
    inputs = witness["inputs"]
    n, d = inputs["n"]["value"], inputs["d"]["value"]
    r, delta = inputs["R"]["data"][0], inputs["delta"]["data"][0]
    exact_boundary = (r**2 / np.log((n - 1) * (1 - delta) / delta)) ** 2
    assert n <= d <= exact_boundary  # the operator retrieves there (inside the exact region)
    assert d < witness["rhs"] == pytest.approx((r**2 / np.log((n - 1) / (2 * delta))) ** 2)


def test_softmax_alternative_readings_refuted(softmax):
    readings = _readings(softmax)
    assert readings["width-threshold"] == readings["free-scale"] == "refuted"
    fit = assert_interval_excludes(softmax, "retrieval-boundary-vs-n", 2.0)
    assert fit["ci"][1] < 0  # the turning width falls with n
    assert evidence(softmax, "retrieval-boundary-vs-n")["points"]["x"] == list(map(float, t22.LAW_N))
    free = [s for s in softmax["derivation"]["steps"] if s["reading"] == "free-scale"]
    assert [s["status"] for s in free] == ["agrees", "disagrees"]


def test_derivations_decide_every_step():
    for steps in (t22.ida_derivation(), t22.softmax_derivation()):
        assert all(s.status != "undecided" for s in steps)
