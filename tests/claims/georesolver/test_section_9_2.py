"""§9.2 (DMG total regret): refuted with Definition 5.4's constant step (linear regret, a false
statement step and fits that exclude O(log T)); the proof is flawed where it drops Theorem 5.6's
O(T·ε_opt); the running-mean reading is confirmed behind a failing control, and a wrong prediction
turns it into a refutation."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from claimtest import assert_excluded, evidence, run, run_predicting

from attnaudit.checks import Context
from attnaudit.claims.georesolver import _dmg
from attnaudit.claims.georesolver import section_9_2 as spec

CLAIM = spec.CLAIM


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_constant_step_regret_is_linear(record):
    assert_excluded(evidence(record, "regret-vs-log-t"))
    incr = evidence(record, "regret-increment-vs-t")
    assert_excluded(incr)
    assert incr["fit"]["exponent"] > 0.6
    # At the far end the per-step regret approaches the stationary ηdσ²/(2−η).
    slope = incr["points"]["y"][-1] / (incr["points"]["x"][-1] * (1 - 1 / spec.RATIO))
    assert 0.5 < slope / (spec.ETA * 2 / (2 - spec.ETA)) < 1.5


def test_corrected_statement_says_what_the_data_show(record):
    text = record["corrected"]["statement"]
    incr = evidence(record, "regret-increment-vs-t")["fit"]
    end = incr["local_exponents"][-1]
    assert end["ci"][0] <= 1 <= end["ci"][1]  # linear at the grid's end
    assert f"{incr['exponent']:.3g}" not in text  # the global (window-bent) exponent is not quoted
    assert "grows linearly" in text and "per step" in text


def test_proof_flawed_where_it_drops_the_linear_term(record):
    assert record["proof"]["first_false_step"] == "between-spawns"


def test_running_mean_confirmed_behind_a_failing_control(record):
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings == {"primary": "refuted", "running-mean": "confirmed"}
    ev = evidence(record, "running-mean-increment-vs-t")
    assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]


def test_running_mean_regret_matches_its_closed_form():
    ctx = Context(CLAIM.id, seed=0)
    grid = spec.LOG_GRID(ctx)
    regret = _dmg.pool_regret(ctx, _dmg.POOL, _dmg.STEPS, grid)["running"]
    exact = _dmg.running_mean_regret(grid)
    assert np.all(np.abs(regret - exact) < 0.25 * exact + 1.0)  # 4 runs per cluster rule


def test_a_wrong_prediction_turns_the_confirmation_into_a_refutation():
    check = dataclasses.replace(CLAIM.check("running-mean-increment-vs-t"), reading=None, exponent=-0.5,
                                controls=())
    record = run_predicting(CLAIM, check)
    assert record["verdict"] == "refuted"
