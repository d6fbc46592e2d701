"""Proposition 3.5: the entrywise Ū² bound is attained (tight family) and holds; the transfer to
singular values holds for every score perturbation (vacuous: Weyl + 1-Lipschitz softmax); the source
names the proof's ingredients only; halving Ū² is witnessed."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.riemannian_attention.proposition_3_5 import CLAIMS, entrywise

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_entrywise_tight_transfer_vacuous(record):
    ev = evidence(record, "entrywise-bound")
    assert ev["closest_relative_margin"] > -1e-6  # the tight family attains the bound
    assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("prediction", True)]
    clauses = {c["id"]: c["verdict"] for c in record["clauses"]}
    assert clauses == {"entrywise": "confirmed", "transfer": "inconclusive"}
    assert evidence(record, "transfer-holds-for-any-perturbation")["status"] == "agrees"


def test_halved_bound_is_witnessed():
    bad = dataclasses.replace(CLAIM.check("entrywise-bound"), evaluate=lambda c: entrywise(c, 0.5),
                              controls=())
    claim = only(CLAIM, bad)
    rec = run(claim)
    assert rec["verdict"] == "refuted"
    assert_witnessed(rec, bad.name, claim)
