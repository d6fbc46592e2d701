"""Proposition 4.2: Eq. (16) equals the direct form, but its per-pair terms cost O(d r), not O(r)."""

from __future__ import annotations

import pytest
from claimtest import assert_excluded, evidence, run

from attnaudit.claims.riemannian_attention.proposition_4_2 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_refuted_by_the_per_pair_exponent(record):
    ev = evidence(record, "per-pair-flops-vs-d")
    assert_excluded(ev)
    assert 0.85 < ev["fit"]["exponent"] < 1.05
    for name in ("decomposition-equals-direct", "per-token-flops-vs-d", "per-pair-flops-vs-r"):
        e = evidence(record, name)
        assert e["status"] == "agrees" and [c["failed"] for c in e["controls"]] == [True]
    assert record["derivation"]["steps"][0]["status"] == "agrees"
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {"per-token": "confirmed",
                                                                  "per-pair": "refuted"}
