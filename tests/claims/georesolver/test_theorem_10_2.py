"""Theorem 10.2 on a real gloo run: GSR bytes per query and messages are flat in B, All-to-All bytes
grow like B, the record holds the measured table, and the counting layer sees an added send."""

from __future__ import annotations

import dataclasses
import os

import pytest
from claimtest import evidence, run, run_predicting

from attnaudit.claims.georesolver import _gsr_dist
from attnaudit.claims.georesolver.theorem_10_2 import (
    CLAIM,
    GRID,
    LAW_K,
    LAW_K_POOL,
    LAW_P,
    P_SWEEP,
    POOL_SWEEP,
)


def _no_children_left():
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.fixture(scope="module")
def record():
    rec = run(CLAIM)
    _no_children_left()
    return rec


def test_message_counts_are_theta_p_squared_and_bytes_grow_with_p(record):
    rows = [r for r in record["attached"]["communication"]["rows"] if r["sweep"] == "P"]
    gsr = {r["P"]: r for r in rows if r["protocol"] == "gsr"}
    a2a = {r["P"]: r for r in rows if r["protocol"] == "a2a"}
    assert sorted(gsr) == P_SWEEP["P"]
    assert all(gsr[p]["messages"] == 3 * p * (p - 1) for p in gsr)  # three All-Gathers: Θ(P²)
    assert all(a2a[p]["messages"] <= 4 * p * (p - 1) for p in a2a)
    per_query = [gsr[p]["bytes"] / P_SWEEP["B"] for p in P_SWEEP["P"]]
    assert per_query == sorted(per_query) and per_query[-1] > 10 * per_query[0]  # not bounded in P
    clauses = {c["id"]: c["verdict"] for c in record["clauses"]}
    assert clauses["gsr-messages"] == clauses["gsr-bytes"] == "refuted"
    assert clauses["per-query"] == "inconclusive"  # All-to-All is flat per query too (vacuity)
    assert record["proof"]["first_false_step"] == "messages"


def test_like_for_like_gsr_sends_more_per_query_than_all_to_all(record):
    rows = record["attached"]["communication"]["rows"]
    key = (LAW_P, LAW_K_POOL, LAW_K)
    gsr = {r["B"]: r["bytes"] / r["B"] for r in rows if r["sweep"] == "grid" and r["protocol"] == "gsr"
           and (r["P"], r["K_pool"], r["K"]) == key}
    a2a = {r["B"]: r["bytes"] / r["B"] for r in rows if r["sweep"] == "grid" and r["protocol"] == "a2a"
           and (r["P"], r["K_pool"], r["K"]) == key}
    assert len(set(gsr.values())) == 1 and all(gsr[b] > 2 * a2a[b] for b in gsr)
    assert max(a2a.values()) < 1.2 * min(a2a.values())  # All-to-All per query: flat in B as well
    for name in ("gsr-bytes-per-query-flat", "gsr-per-query-vs-b", "a2a-bytes-vs-b"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
    fit = evidence(record, "a2a-bytes-vs-b")["fit"]
    assert 0.97 < fit["exponent"] < 1.03
    assert evidence(record, "gsr-vs-a2a-per-query")["status"] == "disagrees"


def test_record_holds_measured_bytes_and_messages_per_grid_point(record):
    rows = [r for r in record["attached"]["communication"]["rows"] if r["sweep"] == "grid"]
    grid = GRID["quick"]
    keys = {(r["protocol"], r["P"], r["K_pool"], r["B"]) for r in rows}
    assert keys == {(p, n, kp, b) for p in ("gsr", "a2a") for n in grid["P"] for kp in grid["K_pool"]
                    for b in grid["B"]} | {(p, n, kp, POOL_SWEEP["B"]) for p in ("gsr", "a2a")
                                           for n in grid["P"] for kp in POOL_SWEEP["K_pool"]}
    assert all(isinstance(r["bytes"], int) and r["bytes"] > 0 and r["messages"] > 0 for r in rows)
    gsr = {(r["P"], r["B"]): r for r in rows if r["protocol"] == "gsr" and r["K_pool"] == 8}
    assert gsr[(4, 12000)]["bytes"] == 1000 * gsr[(4, 12)]["bytes"]  # linear per batch
    assert {r["messages"] for (p, _), r in gsr.items() if p == 3} == {3 * 3 * 2}


def test_distributed_outputs_equal_the_single_process_operator(record):
    ev = evidence(record, "distributed-output-matches")
    assert ev["status"] == "agrees" and ev["cases"] >= 24


def test_counter_sees_a_deliberately_added_send():
    spec = {"cpu_limit_s": 600, "P": [2, 3], "reference_max_B": 0,
            "configs": [{"B": 12, "K_pool": 8, "K": 2, "eps": 1e-2, "seed": 5}]}
    plain = {(r["protocol"], r["P"]): r for r in _gsr_dist.run_grid(spec, 3)}
    extra = {(r["protocol"], r["P"]): r for r in _gsr_dist.run_grid(spec | {"extra_send": 800}, 3)}
    for p in (2, 3):
        assert extra[("gsr", p)]["messages"] == plain[("gsr", p)]["messages"] + 1
        assert extra[("gsr", p)]["bytes"] == plain[("gsr", p)]["bytes"] + 800
        assert extra[("gsr", p)]["recv_bytes"] == 800
        assert extra[("a2a", p)]["bytes"] == plain[("a2a", p)]["bytes"]
    _no_children_left()


def test_a_failing_worker_raises_and_leaves_no_process():
    spec = {"cpu_limit_s": 600, "P": [2], "reference_max_B": 0,
            "configs": [{"B": 12, "K_pool": 8, "K": 9, "eps": 1e-2, "seed": 5}]}  # K > K_pool
    with pytest.raises(RuntimeError, match="failed on ranks"):
        _gsr_dist.run_grid(spec, 2)
    _no_children_left()


def test_a_hung_worker_is_stopped_by_the_no_progress_guard_not_a_deadline():
    spec = SMALL | {"stall_s": 3.0, "hang_rank": 1}  # rank 1 sleeps, rank 0 waits for it at rendezvous
    with pytest.raises(RuntimeError, match="hung: no worker reported progress for 3 s"):
        _gsr_dist.run_grid(spec, 2)
    _no_children_left()


def test_no_wall_clock_deadline_in_the_claim_or_its_runner():
    import inspect

    from attnaudit.claims.georesolver import theorem_10_2

    assert "timeout_s" not in inspect.getsource(_gsr_dist.run_grid)
    assert "TIMEOUT" not in inspect.getsource(theorem_10_2)


def test_wrong_growth_prediction_is_refuted():
    law = dataclasses.replace(CLAIM.check("a2a-bytes-vs-b"), exponent=0.0, controls=())
    rec = run_predicting(CLAIM, law)
    assert rec["verdict"] == "refuted"


SMALL = {"cpu_limit_s": 600, "P": [2], "reference_max_B": 12,
         "configs": [{"B": 12, "K_pool": 8, "K": 2, "eps": 1e-2, "seed": 7}]}


def _counts(rows):
    return [(r["protocol"], r["P"], r["messages"], r["bytes"]) for r in rows]


def test_fresh_interpreters_and_forked_workers_count_the_same():
    forked = _gsr_dist.run_grid(SMALL, 2, fresh=False)
    fresh = _gsr_dist.run_grid(SMALL, 2, fresh=True)
    assert _counts(fresh) == _counts(forked)
    assert all(r["max_abs_error"] < 1e-12 for r in fresh)
    _no_children_left()


def test_runs_inside_a_child_process():
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(1) as pool:  # a (daemonic) pool worker
        rows = pool.apply(_gsr_dist.run_grid, (SMALL, 2))
    assert _counts(rows) == _counts(_gsr_dist.run_grid(SMALL, 2))
