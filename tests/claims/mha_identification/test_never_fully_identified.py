"""mha-identification/never-fully-identified: confirmed (proof absent). Every size has a positive
rank deficiency, exact orbits give one function from distinct parameters, and the merged
(W_Q W_K^T, W_V W_O) parametrisation, which is identified, fails the check as its control."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.mha_identification import _jacobian as J
from attnaudit.claims.mha_identification import never_fully_identified as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_behind_failing_controls(record):
    assert record["identity"] and record["clauses"][0]["id"] == "never"
    for name in ("deficiency-positive", "deficiency-positive-rope-gqa", "orbit-same-function"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]


def test_counts_match_the_derivation_including_d_h_above_d():
    for h, d, d_h in spec.GRID:
        assert J.measure(h, d, d_h)["deficiency"] == J.derived_deficiency(h, d, d_h) >= 2
    assert J.measure(2, 3, 2, merged=True)["deficiency"] == 0
    for h, h_kv, d_h, rope in spec.VARIANTS:
        m = J.measure(h, h * d_h, d_h, h_kv=h_kv, rope=rope)
        assert m["deficiency"] == J.derived_deficiency(h, h * d_h, d_h, h_kv=h_kv, rope=rope) >= 2


def test_a_non_symmetry_is_caught_with_a_witness():
    wrong = dataclasses.replace(CLAIM.check("orbit-same-function"), controls=(),
                                evaluate=lambda case: spec.orbit_sides(case, "query-only"))
    altered = only(CLAIM, wrong)
    record = run(altered)
    assert record["verdict"] == "refuted"
    assert assert_witnessed(record, wrong.name, altered)["lhs"] > 1e-3
