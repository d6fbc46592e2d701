"""Theorem 2.9: the construction fits every labelling above a finite threshold, but its test error
against clean labels is η, not 2η (statement refuted by a false statement step and by replayable
Monte-Carlo witnesses); the proof is flawed at its multi-class Bayes error 2η. With noisy test
labels, 2η holds to first order only, and eff-rank(W) at the threshold grows like n (both confirmed
behind failing controls)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from claimtest import assert_witnessed, evidence, run

from attnaudit.checks import Context
from attnaudit.checks.fitting import closed_form_bias
from attnaudit.claims.georesolver import theorem_2_9 as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_statement_refuted_proof_flawed_at_the_multiclass_bayes_error(record):
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {
        "zero-training-error": "confirmed", "test-error": "refuted"}
    assert record["proof"]["first_false_step"] == "bayes-multiclass"
    quoted = {q["id"]: q["status"] for q in record["proof"]["steps"]}
    assert quoted["bayes-binary"] == "agrees" and quoted["memorised"] == "unchecked"
    steps = {s["name"]: s for s in record["derivation"]["steps"]}
    first = next(s for s in steps.values() if s.get("step") == "bayes-multiclass")
    assert (first["role"], first["paper"], first["derived"]) == ("proof", "2*eta", "eta")
    false = [s for s in steps.values() if s["status"] == "disagrees" and s["reading"] is None]
    assert {s["role"] for s in false} == {"statement", "proof"}  # the statement's 2η is false too
    assert {r["id"]: r["verdict"] for r in record["readings"]} == {
        "primary": "refuted", "noisy-test-labels": "refuted", "first-order": "confirmed",
        "unbounded-rank": "confirmed"}


def test_zero_training_error_above_the_exact_threshold(record):
    for name in ("train-error-threshold", "train-error-zero-random-labels"):
        ev = evidence(record, name)
        assert (ev["status"], ev["role"], ev["violations"]) == ("agrees", "statement", 0)
    controls = evidence(record, "train-error-threshold")["controls"]
    assert [(c["contrast"], c["failed"]) for c in controls] == [("prediction", True)]


def test_clean_label_error_is_eta_not_two_eta(record):
    for name in ("clean-error-vs-2eta", "multiclass-clean-error-vs-2eta"):
        witness = assert_witnessed(record, name, CLAIM)
        eta = witness["inputs"]["eta"]["data"][0]
        assert abs(witness["lhs"] - eta) < witness["tol"] < eta  # measured η, interval excludes 2η
    for name, role in (("clean-error-vs-eta", "proof"), ("fresh-clean-error-vs-eta", "proof"),
                       ("multiclass-clean-error-vs-eta", "derivation")):
        ev = evidence(record, name)
        assert (ev["status"], ev["role"]) == ("agrees", role)


def test_witness_replays_from_its_seed(record):
    """The witness's per-task error rates are those ``simulate`` draws again from its seed."""
    inputs = evidence(record, "clean-error-vs-2eta")["witness"]["inputs"]
    value = lambda key: inputs[key]["value"]  # noqa: E731
    run_again = spec.simulate(value("n"), value("d_h"), 2, value("trials"), value("seed"), "cpu",
                              torch.float64)
    eta = spec.ETAS.index(inputs["eta"]["data"][0])
    assert run_again["clean"][eta].tolist() == inputs["clean"]["data"][0]


def test_noisy_test_labels_first_order_only(record):
    assert_witnessed(record, "fresh-noisy-error-vs-2eta", CLAIM)
    for name in ("fresh-noisy-error-vs-derived", "multiclass-noisy-error-vs-derived"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and ev["reading"] == "first-order"
        assert [(c["contrast"], c["failed"]) for c in ev["controls"]] == [("hypothesis", True)]


def test_effective_rank_at_the_threshold_is_n_minus_one(record):
    law = evidence(record, "softmax-eff-rank-vs-n")
    assert law["status"] == "agrees" and [c["failed"] for c in law["controls"]] == [True]
    assert law["points"]["y"] == pytest.approx(np.array(law["points"]["x"]) - 1, rel=1e-9)
    for profile in ("quick", "full"):
        grid = spec.RANK_GRID(Context("x", seed=0, profile=profile))
        assert math.log10(grid.max() / grid.min()) >= 3
        assert 2 * abs(closed_form_bias(grid, grid - 1, 1.0)) <= spec.RANK_TOL.value


def test_threshold_is_sharp_for_the_worst_labelling():
    for count, width in ((3, 5), (32, 32)):
        worst = torch.tensor([[1.0] + [-1.0] * (count - 1)], dtype=torch.float64)
        a_star = math.log(count - 1)
        fits = spec._fits_all(torch.tensor([[a_star * (1 - 1e-9), a_star * (1 + 1e-9)]],
                                           dtype=torch.float64), worst, width)
        assert fits.tolist() == [[False, True]]
