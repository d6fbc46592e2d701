"""mha-identification/rope-gqa: confirmed (proof absent). RoPE's deficiency is H·(d_h + d_h²), GQA's
2·H_kv·d_h², and both raise rank/P strictly; the plain-MHA counts fail as controls."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, only, run

from attnaudit.claims.mha_identification import _jacobian as J
from attnaudit.claims.mha_identification import rope_gqa as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_behind_failing_controls(record):
    assert record["clauses"][0]["id"] == "improve"
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    for ev in record["evidence"]:
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True], ev["name"]


def test_ratios_against_the_closed_forms():
    h, d_h = 4, 2
    rope = J.measure(h, h * d_h, d_h, rope=True)
    assert rope["deficiency"] / rope["total"] == pytest.approx(1 / (4 * h) + 1 / (4 * h * d_h))
    mqa = J.measure(4, 4, 1, h_kv=1)
    assert mqa["deficiency"] / mqa["total"] == pytest.approx(1 / (4 * 5))


def test_the_mha_count_for_rope_is_refuted_with_a_witness():
    wrong = dataclasses.replace(CLAIM.check("rope-deficiency-count"), controls=(),
                                evaluate=lambda case: spec.rope_count_sides(case, rope_count=False))
    altered = only(CLAIM, wrong)
    record = run(altered)
    assert record["verdict"] == "refuted"
    witness = assert_witnessed(record, wrong.name, altered)
    assert witness["lhs"] < witness["rhs"]
