"""Definition 5.2: MetricNet gives metrics ⪰ I (as any factor does: vacuous) but costs Θ(d² r) per
token, not O(d r)."""

from __future__ import annotations

import pytest
from claimtest import assert_excluded, evidence, run

from attnaudit.claims.riemannian_attention.definition_5_2 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_cost_entry_refuted_referee_confirmed(record):
    ev = evidence(record, "flops-vs-d")
    assert_excluded(ev)
    assert abs(ev["fit"]["exponent"] - 2) < 0.05
    assert next(r for r in record["readings"] if r["id"] == "referee")["verdict"] == "confirmed"
    assert [c["failed"] for c in evidence(record, "metrics-are-spd")["controls"]] == [True]
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {"metricnet": "inconclusive",
                                                                  "cost": "refuted"}
