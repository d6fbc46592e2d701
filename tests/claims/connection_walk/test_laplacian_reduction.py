"""connection-walk/laplacian-reduction: confirmed (proof absent). On reversible attention walks with
orthogonal compatible transports the generator has the Dirichlet form, is π-self-adjoint and has its
spectrum in [0, 2]; breaking each condition makes the property that needs it fail."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.connection_walk import laplacian_reduction as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_and_every_break_fails(record):
    assert record["identity"] and record["clauses"][0]["quote"]
    assert {c["contrast"] for c in record["controls"]} == {"hypothesis"}
    assert all(s["status"] == "agrees" for s in record["derivation"]["steps"])
    counts = {"dirichlet-form": 2, "pi-self-adjoint": 2, "spectrum-in-0-2": 4}
    for name, n in counts.items():
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True] * n


def test_scaled_isometries_break_the_spectrum_with_a_witness():
    wrong = dataclasses.replace(CLAIM.check("spectrum-in-0-2"), controls=(),
                                evaluate=lambda case: spec.spectrum_sides(case, "non-orthogonal"))
    altered = only(CLAIM, wrong)
    record = run(altered)
    assert record["verdict"] == "refuted"
    assert assert_witnessed(record, wrong.name, altered)["lhs"] > 0.05
