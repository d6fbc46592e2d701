"""mha-identification/bias-no-effect: confirmed (proof absent). The key bias moves neither the output
nor, beyond round-off, the loss; the query bias (the control) does, and a witness replays."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.mha_identification import _jacobian as J
from attnaudit.claims.mha_identification import bias_no_effect as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_for_every_head_count(record):
    assert record["identity"] and record["clauses"][0]["id"] == "no-effect"
    for name in ("outputs-unchanged", "key-bias-gradient-zero"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["cases"] == len(spec.HEADS) * spec.DRAWS
        assert [c["failed"] for c in ev["controls"]] == [True]
        assert ev["closest_relative_margin"] < -0.9  # the tolerance is not what decides


def test_biases_add_the_derived_invariant_directions():
    # b_K (no effect) and b_V (absorbed by b_O): d_h each per head on top of 2·H·d_h²
    for h, d_h in ((1, 2), (2, 2), (4, 1)):
        m = J.measure(h, h * d_h, d_h, biases=True)
        derived = J.derived_deficiency(h, h * d_h, d_h, biases=True)
        assert m["deficiency"] == 2 * h * d_h * d_h + 2 * h * d_h == derived


def test_the_query_bias_acts_and_is_witnessed():
    wrong = dataclasses.replace(CLAIM.check("key-bias-gradient-zero"), controls=(),
                                evaluate=lambda case: spec.gradient_sides(case, "bq"))
    altered = only(CLAIM, wrong)
    record = run(altered)
    assert record["verdict"] == "refuted"
    assert assert_witnessed(record, wrong.name, altered)["lhs"] > 1e-2
