"""Fused additive-bias attention: equals the direct form; peak memory linear in L vs quadratic."""

from __future__ import annotations

import pytest
from claimtest import evidence, run

from attnaudit.claims.riemannian_attention.fused_bias import CLAIMS, THREE_SIZES

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_clauses_decided_with_operator_controls(record):
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {"fused": "confirmed", "no-lxl": "confirmed"}
    for ev in record["evidence"]:
        if ev["role"] == "statement":
            assert ev["status"] == "agrees"
            assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("operator", True)]
    ev = evidence(record, "fused-peak-vs-l")
    assert abs(ev["fit"]["exponent"] - 1) < 0.02 and max(ev["points"]["x"]) >= 64000  # full calls


def test_three_sizes_in_the_note_are_measured():
    from attnaudit.claims.riemannian_attention._cost import attention_peak

    for n in (1024, 4096):  # 16384 is pinned too, but costs seconds: the two smaller ones suffice
        assert (attention_peak(n, 16, 4, "fused"), attention_peak(n, 16, 4, "direct")) == THREE_SIZES[n]
    assert f"{THREE_SIZES[4096][0]:,}" in CLAIM.notes


def test_accounting_on_real_tensors_equals_meta():
    """The allocation accounting gives the same peak on real CPU tensors as on meta tensors (so
    meta sizes stand for real allocations), and counts a known allocation exactly."""
    import torch

    from attnaudit import operators
    from attnaudit.claims.riemannian_attention._cost import attention_peak, peak_bytes

    g = torch.Generator().manual_seed(0)
    n, d, r = 256, 16, 4
    q, k, v = (torch.randn(n, d, generator=g, dtype=torch.float64) for _ in range(3))
    uq, uk = (torch.randn(n, d, r, generator=g, dtype=torch.float64) for _ in range(2))
    real = peak_bytes(lambda: operators.metric_bias_attention(q, k, v, uq=uq, uk=uk, block=64),
                      q, k, v, uq, uk)
    assert real == attention_peak(n, d, r, "fused")
    assert peak_bytes(lambda: torch.empty(1000, dtype=torch.float64) + 1.0) == 16000
