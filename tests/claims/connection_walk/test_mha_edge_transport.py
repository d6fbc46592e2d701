"""connection-walk/mha-edge-transport: confirmed (proof absent) for H = 1…16: MHA is one walk with
the attention-gated mixture of headwise transports; uniform gates (a constant transport) fail."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.connection_walk import mha_edge_transport as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_for_h_1_to_16(record):
    assert record["identity"] and record["clauses"][0]["quote"]
    assert [c["contrast"] for c in record["controls"]] == ["prediction", "setting"]
    ev = evidence(record, "mha-equals-edge-walk")
    assert ev["cases"] == 16 * len(spec.N_TOKENS) * 8
    for name in ("mha-equals-edge-walk", "gates-convex"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]


def test_uniform_gates_are_witnessed():
    wrong = dataclasses.replace(CLAIM.check("mha-equals-edge-walk"), controls=(),
                                evaluate=lambda case: spec.walk_sides(case, "uniform"))
    altered = only(CLAIM, wrong)
    record = run(altered)
    assert record["verdict"] == "refuted"
    assert assert_witnessed(record, wrong.name, altered)["lhs"] > 1e-3
