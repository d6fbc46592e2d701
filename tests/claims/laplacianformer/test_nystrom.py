"""laplacianformer/nystrom: the clause is undefined as an accuracy statement; exact at m = n; the
error at fixed m grows with n at a fixed correlation length and is flat only when it grows ∝ n;
≤ 1 for any landmarks; decreasing in m; the sampled error estimator agrees with the dense operator."""

import dataclasses
import math

import pytest
import torch
from claimtest import evidence, run

from attnaudit.checks.context import Context
from attnaudit.claims.laplacianformer import _tokens
from attnaudit.claims.laplacianformer import nystrom as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_the_clause_is_undefined_and_the_readings_split(record):
    assert [c["undefined"] is not None for c in record["clauses"]] == [True]
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert readings["stationary"] == "refuted"
    assert readings["resolution"] != "refuted"


def test_error_grows_at_fixed_correlation_length(record):
    fit = evidence(record, "error-vs-n-stationary")["fit"]
    assert 0.1 < fit["ci"][0] and fit["ci"][1] < 0.3


def test_error_flat_under_resolution_decreasing_in_m(record):
    assert abs(evidence(record, "error-vs-n")["fit"]["exponent"]) < 0.1
    assert evidence(record, "error-vs-m")["fit"]["ci"][1] < 0
    assert evidence(record, "error-at-most-one")["status"] == "agrees"


def test_a_bounded_prediction_is_refuted():
    law = dataclasses.replace(CLAIM.check("error-vs-n"), order="O", exponent=-0.5, controls=())
    rec = run(dataclasses.replace(CLAIM, checks=(law,)))
    assert evidence(rec, "error-vs-n")["status"] == "disagrees"


def test_sampled_estimator_matches_the_dense_operator():
    """With every entry drawn many times, the Monte-Carlo ratio tends to the dense Frobenius ratio."""
    from attnaudit import operators

    ctx = Context("laplacianformer/nystrom", seed=0)
    gen = ctx.generator("t")
    x = _tokens.ou_tokens(ctx, gen, 3, 64, 4, math.exp(-16 / 64))
    sigma = _tokens.bandwidth(4)
    dense = operators.laplacian_kernel(x, x, sigma=sigma)
    approx = operators.nystrom_kernel(x, x, sigma=sigma, landmarks=8)
    exact = torch.linalg.matrix_norm(dense - approx) / torch.linalg.matrix_norm(dense)
    sampled = spec.relative_error(x, 8, sigma, gen, pairs=200_000)
    torch.testing.assert_close(sampled, exact, rtol=0.03, atol=0)
