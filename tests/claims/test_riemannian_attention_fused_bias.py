"""Fused additive-bias attention: equals the direct form; peak memory linear in L vs quadratic."""

from __future__ import annotations

import pytest
from claimtest import evidence, run

from claims.riemannian_attention.fused_bias import CLAIMS, THREE_SIZES

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_with_failing_controls(record):
    assert record["verdict"] == "confirmed"
    for ev in record["evidence"]:
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
    assert abs(evidence(record, "fused-peak-vs-l")["fit"]["exponent"] - 1) < 0.02


def test_three_sizes_in_the_note_are_measured():
    from claims.riemannian_attention._memory import attention_peak

    for n in (1024, 4096):  # 16384 is pinned too, but costs seconds: the two smaller ones suffice
        assert (attention_peak(n, 16, 4, "fused"), attention_peak(n, 16, 4, "direct")) == THREE_SIZES[n]
    assert f"{THREE_SIZES[4096][0]:,}" in CLAIM.notes
