"""mha-identification/unidentified-ratio: confirmed (proof absent). The Jacobian's rank deficiency
equals the derived 2·H·d_h² on every size, so (P − rank)/P = 1/(2H) at d_h = d/H; the 1/H and
one-GL-per-head controls fail, and a wrong prediction refutes with a replayable witness."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.mha_identification import _jacobian as J
from attnaudit.claims.mha_identification import unidentified_ratio as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_behind_failing_controls(record):
    assert record["clauses"][0]["id"] == "ratio" and not record["identity"]
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"] if s["reading"] is None)
    for name in ("ratio-equals-1-over-2h", "deficiency-equals-2hdh2"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
    assert evidence(record, "ratio-equals-1-over-2h")["cases"] == len(spec.QUICK_H)


def test_fixed_head_size_reading_refuted_by_step_and_witness(record):
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings == {"primary": "confirmed", spec.FIXED_HEAD: "refuted"}
    witness = assert_witnessed(record, "ratio-at-fixed-head-size", CLAIM)
    assert witness["lhs"] == pytest.approx(spec.FIXED_D_H / (2 * spec.FIXED_D))  # d_h/(2d) for every H
    step = next(s for s in record["derivation"]["steps"] if s["reading"] == spec.FIXED_HEAD)
    assert step["status"] == "disagrees"


def test_the_rank_has_a_clear_gap():
    for h in (1, 4, 16):
        m = J.measure(h, h, 1)
        assert m["deficiency"] == J.derived_deficiency(h, h, 1) == 2 * h
        assert m["smallest_kept"] > 1e6 * m["threshold"] > 1e6 * m["largest_dropped"] / 10


def test_a_wrong_prediction_is_refuted_with_a_witness():
    wrong = dataclasses.replace(CLAIM.check("ratio-equals-1-over-2h"), controls=(),
                                evaluate=lambda case: spec.ratio_sides(case, lambda h: 1.0 / h))
    altered = only(CLAIM, wrong)
    record = run(altered)
    assert record["verdict"] == "refuted"
    witness = assert_witnessed(record, wrong.name, altered)
    assert witness["lhs"] == pytest.approx(witness["rhs"] / 2)
