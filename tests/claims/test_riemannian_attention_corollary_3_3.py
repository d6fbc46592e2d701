"""Corollary 3.3: homogeneous metrics give a (d+1)-dimensional Gram form, rank ≤ d + 2, cubic collapse."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import only, run

from attnaudit.claims.riemannian_attention.corollary_3_3 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed(record):
    assert record["verdict"] == "confirmed"
    for ev in record["evidence"]:
        assert [c["failed"] for c in ev["controls"]] == [True]


def test_wrong_rank_bound_refutes():
    rel = CLAIM.check("score-rank")
    bad = dataclasses.replace(rel, evaluate=lambda c: (lambda a, b, t: (a, b - 1, t))(*rel.evaluate(c)),
                              controls=())
    assert run(only(CLAIM, bad))["verdict"] == "refuted"
