"""Proposition 11.2: the routing bound holds (tight on balanced routing) and the storage relation,
read through the proof's log-volume, holds with constant d_h − 1; both behind failing controls. A
wrongly stated bound is refuted by a witness that replays."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.georesolver import proposition_11_2 as spec

CLAIM = spec.CLAIM


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_with_sound_proof(record):
    assert record["verdict"] == "confirmed" and record["proof"]["status"] == "sound"
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    for name in ("routing-mi-below-log-kpool", "log-volume-over-l"):
        assert [c["failed"] for c in evidence(record, name)["controls"]] == [True]


def test_routing_bound_is_tight_and_storage_constant_is_d_minus_one(record):
    ev = evidence(record, "routing-mi-below-log-kpool")
    assert ev["violations"] == 0 and ev["closest_relative_margin"] > -1e-9  # balanced routing attains it
    lim = evidence(record, "log-volume-over-l")
    assert lim["final_gap"] < 1e-3 and abs(lim["fit"]["exponent"] - 1) < 0.02


def test_a_wrong_bound_is_refuted_by_a_replayable_witness():
    check = dataclasses.replace(CLAIM.check("routing-mi-below-log-kpool"),
                                evaluate=spec.mi_sides_half_pool, controls=())
    altered = only(CLAIM, check)
    record = run(altered)
    assert record["verdict"] == "refuted"
    witness = assert_witnessed(record, "routing-mi-below-log-kpool", altered)
    assert witness["lhs"] > witness["rhs"]
