"""Theorem 2.2 on its orthogonal-keys instance. IDA half: the headline "O(1) resources" is refuted by
the inverse temperature R²/ε* growing like n (a false statement step and an excluding interval on the
theorem's own witness family), while the proof's algebra is sound. Softmax half: the stated requirement
holds on the proof's instance (no width or split retrieves at bounded radius, behind failing controls),
while the proof is flawed at its reversed inequality; the width-threshold and free-scale readings are
refuted."""

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


def test_ida_headline_is_refuted_by_the_growing_inverse_temperature(ida):
    assert ida["verdict"] == "refuted"
    assert _readings(ida)["primary"] == "refuted"
    statement = [s for s in ida["derivation"]["steps"] if s["role"] == "statement" and s["reading"] is None]
    assert [s["status"] for s in statement] == ["disagrees"]
    fit = assert_interval_excludes(ida, "inverse-temperature-vs-n", 0.0)
    assert fit["ci"][0] > 0.9  # R²/ε* grows like n, not like a constant
    assert evidence(ida, "inverse-temperature-vs-n")["role"] == "statement"
    assert ida["corrected"]["derived_by"] == "attnaudit"


def test_ida_witness_family_replays_the_closed_form(ida):
    # The measured points are the operator's ε* on the theorem's own instance; they match the suite's
    # closed form 2R²δ/((n−1)(1−δ)−δ), so 1/ε* ∝ n is no artefact of the bisection.
    points = evidence(ida, "inverse-temperature-vs-n")["points"]
    n = np.array(points["x"])
    assert list(n) == list(N_GRID)
    np.testing.assert_allclose(np.array(points["y"]), 1 / eps_star(n, DELTA, 1.0), rtol=1e-6)


def test_ida_proof_is_sound_and_its_laws_agree(ida):
    assert ida["proof"]["status"] == "sound"
    proof = [e for e in ida["evidence"] if e["role"] == "proof"]
    assert {e["name"] for e in proof} == {"w11-closed-form", "eps-star-vs-n", "eps-star-vs-r",
                                          "eps-star-vs-delta"}
    assert all(e["status"] == "agrees" for e in proof)
    assert all(s["status"] == "agrees" for s in ida["derivation"]["steps"] if s["role"] == "proof")


def test_ida_free_epsilon_reading_confirmed_behind_a_failing_softmax_control(ida):
    assert _readings(ida)["free-epsilon"] == "confirmed"
    assert [c["failed"] for c in evidence(ida, "retrieves-at-proof-eps")["controls"]] == [True]


def test_ida_fit_tolerances_cover_the_closed_form_bias():
    grid = np.array(N_GRID, float)
    bias = closed_form_bias(grid, eps_star(grid, DELTA, 1.0), -1.0)
    assert IDA.check("eps-star-vs-n").exponent_tolerance >= 2 * abs(bias)
    for points in (9, 41):  # both profiles' δ grids
        grid = np.geomspace(1e-6, 1e-2, points)
        bias = closed_form_bias(grid, eps_star(t22.SWEEP_N, grid, 1.0), 1.0)
        assert IDA.check("eps-star-vs-delta").exponent_tolerance >= 2 * abs(bias)


def test_softmax_statement_confirmed_behind_failing_controls(softmax):
    assert softmax["verdict"] == "confirmed"
    for name in ("no-retrieval-at-bounded-radius", "min-radius-vs-n"):
        ev = evidence(softmax, name)
        assert ev["status"] == "agrees" and ev["role"] == "statement" and ev["reading"] is None
        assert [c["failed"] for c in ev["controls"]] == [True]
    assert evidence(softmax, "multihead-split-weight")["status"] == "agrees"
    statement = [s for s in softmax["derivation"]["steps"]
                 if s["role"] == "statement" and s["reading"] is None]
    assert statement and all(s["status"] == "agrees" for s in statement)


def test_softmax_proof_flawed_at_the_reversed_inequality(softmax):
    steps = softmax["derivation"]["steps"]
    first = softmax["derivation"]["first_disagreement"]
    assert softmax["proof"]["status"] == "flawed"
    assert softmax["proof"]["first_false_step"] == steps[first]["name"]
    assert steps[first]["role"] == "proof" and steps[first]["paper"].endswith(">= R_max**4/L**2")
    assert all(s["status"] == "agrees" for s in steps[:first])
    # Its later false steps: the bound's claimed Ω((log n)²) order and the multi-head disjunction.
    assert sum(s["status"] == "disagrees" and s["role"] == "proof" for s in steps) == 3
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
