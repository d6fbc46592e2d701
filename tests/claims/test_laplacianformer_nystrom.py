"""laplacianformer/nystrom: exact at m = n, bounded in n at fixed m, decreasing in m; the sampled
error estimator agrees with the dense operator."""

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


def test_confirmed_with_failing_controls(record):
    assert record["verdict"] == "confirmed", record["summary"]
    assert record["proof"]["status"] == "absent"
    assert [c["failed"] for c in record["controls"]] == [True, True]


def test_error_bounded_in_n_and_decreasing_in_m(record):
    assert evidence(record, "error-vs-n")["fit"]["ci"][1] <= spec.N_TOL.value
    assert evidence(record, "error-vs-m")["fit"]["ci"][1] < 0


def test_growing_error_prediction_is_refuted():
    law = dataclasses.replace(CLAIM.check("error-vs-n"), exponent=-0.5, controls=())
    assert run(dataclasses.replace(CLAIM, checks=(law,)))["verdict"] == "refuted"


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
