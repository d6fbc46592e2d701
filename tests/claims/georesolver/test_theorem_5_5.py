"""Theorem 5.5: L-HIDA's cost is linear; the error of Definition 5.3's operator grows like n (its
summaries are sums over the keys), the proof analyses a different object (Nyström), and neither the
Nyström object nor the mean-summaries variant falls like m^(−1/2) in the number of anchors."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import assert_excluded, evidence, run, run_predicting

from attnaudit.claims.georesolver import theorem_5_5 as spec

COMPLEXITY, ERROR = spec.CLAIMS


@pytest.fixture(scope="module")
def complexity():
    return run(COMPLEXITY)


@pytest.fixture(scope="module")
def error():
    return run(ERROR)


def test_complexity_is_linear_behind_an_operator_control(complexity):
    ev = evidence(complexity, "flops-vs-n")
    assert abs(ev["fit"]["exponent"] - 1) < 1e-6
    assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("operator", True)]


def test_complexity_wrong_prediction_refutes():
    law = dataclasses.replace(COMPLEXITY.check("flops-vs-n"), exponent=0.5, controls=())
    assert run_predicting(COMPLEXITY, law)["verdict"] == "refuted"


def test_error_of_the_papers_operator_grows_like_n(error):
    ev = evidence(error, "error-vs-n")
    assert_excluded(ev)
    lo, hi = ev["fit"]["ci"]
    assert 0.85 < ev["fit"]["exponent"] < 1.1 and lo > 0.5
    # replicates drawn by the engine: every point has an error bar from R >= 2 draws
    assert ev["replicates"] == spec.R and all(e > 0 for e in ev["points"]["yerr"][1:])


def test_m_rate_fails_for_both_alternatives(error):
    for name in ("nystrom-error-vs-m", "mean-summaries-error-vs-m"):
        ev = evidence(error, name)
        assert ev["status"] == "disagrees" and ev["fit"]["ci"][0] > -0.5, name


def test_clauses_and_proof_step(error):
    clauses = {c["id"]: c["verdict"] for c in error["clauses"]}
    assert clauses == {"bound": "refuted", "spectral": "inconclusive"}
    step = error["derivation"]["steps"][0]
    assert step["role"] == "proof" and step["status"] == "disagrees" and step["step"] == "output-bound"


def test_error_correction_comes_from_the_fit(error):
    text = error["corrected"]["statement"]
    assert "n^" in text and "Definition 5.3" in text
