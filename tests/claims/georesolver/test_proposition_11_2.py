"""Proposition 11.2: the routing bound holds (tight on balanced routing); the storage clause is
undefined as written; the proof's log-volume substitute is not proportional to log 1/(1 − ‖c‖²) (its
ratio drifts toward d_h − 1) and holds only asymptotically. A wrongly stated bound is refuted by a
witness that replays."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.checks.context import Context
from attnaudit.claims.georesolver import proposition_11_2 as spec

CLAIM = spec.CLAIM


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_storage_clause_undefined_and_proof_stops_short_of_it(record):
    clauses = {c["id"]: c for c in record["clauses"]}
    assert clauses["routing"]["verdict"] == "confirmed" and clauses["storage"]["undefined"]
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    for name in ("routing-mi-below-log-kpool", "log-volume-over-l"):
        assert [c["failed"] for c in evidence(record, name)["controls"]] == [True]


def test_log_volume_is_not_proportional_its_ratio_drifts_to_d_minus_one():
    ctx = Context(CLAIM.id, 0)
    h3, h8 = (c["ratio"].tolist() for c in spec.sample_ratios(ctx, None))
    for ratios, n in ((h3, 3), (h8, 8)):
        assert ratios == sorted(ratios, reverse=True) and ratios[-1] > n - 1  # falls toward d_h − 1
    assert h8[0] > 8.5 and h8[3] < 7.7  # ℍ⁸: 8.61 at ‖c‖ = 0.99, 7.59 at 0.99999


def test_routing_bound_is_tight_and_storage_constant_is_d_minus_one(record):
    ev = evidence(record, "routing-mi-below-log-kpool")
    assert ev["violations"] == 0 and ev["closest_relative_margin"] > -1e-9  # balanced routing attains it
    lim = evidence(record, "log-volume-over-l")
    assert lim["final_gap"] < 1e-3 and abs(lim["fit"]["exponent"] - 1) < 0.02


def test_a_wrong_bound_is_refuted_by_a_replayable_witness():
    check = dataclasses.replace(CLAIM.check("routing-mi-below-log-kpool"),
                                evaluate=lambda case: spec.mi_sides(case, shrink=2.0), controls=())
    altered = only(CLAIM, check)
    record = run(altered)
    assert record["verdict"] == "refuted"
    witness = assert_witnessed(record, "routing-mi-below-log-kpool", altered)
    assert witness["lhs"] > witness["rhs"]
