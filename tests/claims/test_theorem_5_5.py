"""Theorem 5.5: L-HIDA's cost is linear (confirmed); the error bound fails for Definition 5.3's
operator (its summaries are sums: error grows like n), the proof analyses a different object
(Nyström), and the mean-summaries variant meets the n-rate."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_excluded, evidence, only, run

from attnaudit.claims.georesolver import theorem_5_5 as spec

COMPLEXITY, ERROR = spec.CLAIMS


@pytest.fixture(scope="module")
def complexity():
    return run(COMPLEXITY)


@pytest.fixture(scope="module")
def error():
    return run(ERROR)


def test_complexity_confirmed(complexity):
    assert complexity["verdict"] == "confirmed"
    ev = evidence(complexity, "flops-vs-n")
    assert abs(ev["fit"]["exponent"] - 1) < 1e-6
    assert [c["failed"] for c in ev["controls"]] == [True]


def test_complexity_wrong_prediction_refutes():
    law = dataclasses.replace(COMPLEXITY.check("flops-vs-n"), exponent=0.5, controls=())
    assert run(only(COMPLEXITY, law))["verdict"] == "refuted"


def test_error_refuted_for_the_papers_operator(error):
    assert error["verdict"] == "refuted"
    assert error["proof"]["status"] == "flawed"
    ev = evidence(error, "error-vs-n")
    assert_excluded(ev)
    assert ev["fit"]["exponent"] > 0.9
    readings = {r["id"]: r["verdict"] for r in error["readings"]}
    assert readings["primary"] == "refuted" and readings["mean-summaries"] == "confirmed"


def test_proof_object_differs_from_the_operator(error):
    step = error["derivation"]["steps"][0]
    assert step["role"] == "proof" and step["status"] == "disagrees"


def test_error_correction_comes_from_the_fit(error):
    text = error["corrected"]["statement"]
    assert "n^" in text and "Definition 5.3" in text
