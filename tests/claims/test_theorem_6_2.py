"""Theorem 6.2: the stated ratios are exact arithmetic of the stated bit count, but a real packed
cache of the §6 quantiser needs d_h·b + b_r bits per key (witness replays); the rounded ratios
8×, 1.8×, 2.4× survive on the measured buffer behind a failing control."""

from __future__ import annotations

import pytest
from claimtest import assert_witnessed, evidence, run

from attnaudit.claims.georesolver import theorem_6_2 as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_ratio_arithmetic_exact(record):
    steps = [s for s in record["derivation"]["steps"] if s["role"] == "statement"]
    assert len(steps) == 6 and all(s["status"] == "agrees" for s in steps)


def test_measured_bits_refute_the_count(record):
    assert record["verdict"] == "refuted"
    witness = assert_witnessed(record, "measured-key-bits", CLAIM)
    n, d = witness["inputs"]["n"]["data"][0], witness["inputs"]["d"]["data"][0]
    b, b_r = witness["inputs"]["b"]["data"][0], witness["inputs"]["b_r"]["data"][0]
    assert witness["lhs"] == 8 * -(-n * (d * b + b_r) // 8)


def test_rounded_ratios_confirmed(record):
    ev = evidence(record, "measured-ratios")
    assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
    assert {r["id"]: r["verdict"] for r in record["readings"]}["rounded-ratios"] == "confirmed"


def test_cache_bytes_at_the_papers_setting():
    cache = spec._cache(1000, 32, 4, 6, 0)
    assert cache.nbytes == 1000 * 134 // 8  # 134 bits per key, measured from the buffer
