"""Corollary 3.3: homogeneous metrics give a (d+1)-dimensional Gram form and rank ≤ d + 2 (clause
'gram'); their stacks collapse at least doubly exponentially with rate ≥ log 3, every layer computed
in full (clause 'collapse-applies'); heterogeneous factors break each."""

from __future__ import annotations

import dataclasses
import math

import pytest
from claimtest import evidence, only, run

from attnaudit.claims.riemannian_attention.corollary_3_3 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_clauses_and_controls(record):
    assert {c["id"] for c in record["clauses"]} == {"gram", "collapse-applies"}
    for ev in record["evidence"]:
        assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("hypothesis", True)]
    ev = evidence(record, "collapse-rate")
    assert abs(ev["fit"]["exponent"] - math.log(3)) < 0.01 and max(ev["points"]["y"]) > 1e10


def test_wrong_rank_bound_refutes():
    rel = CLAIM.check("score-rank")
    bad = dataclasses.replace(rel, evaluate=lambda c: (lambda a, b, t: (a, b - 1, t))(*rel.evaluate(c)),
                              controls=())
    assert run(only(CLAIM, bad))["verdict"] == "refuted"
