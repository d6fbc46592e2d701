"""laplacianformer/gaussian-oversuppression: undefined as written (the sign of the mid-band mass
difference turns with the bandwidth matching): negative when both kernels fall to 1/e at the median
distance, positive at the same σ in the standard forms and at equal attention entropy."""

import dataclasses

import pytest
from claimtest import assert_witnessed, evidence, only, run

from attnaudit.claims.laplacianformer import gaussian_oversuppression as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_both_clauses_undefined(record):
    assert [c["id"] for c in record["clauses"] if c["undefined"]] == ["grounding", "oversuppress"]


def test_sign_turns_with_the_matching(record):
    readings = {r["id"]: r["verdict"] for r in record["readings"]}
    assert evidence(record, "mid-mass-gaussian-below-laplacian")["violations"] == 0
    assert readings["slope-matched"] == "refuted" and readings["entropy-matched"] == "refuted"
    assert assert_witnessed(record, "slope-matched-mid-mass", CLAIM)["lhs"] > 0
    assert assert_witnessed(record, "entropy-matched-mid-mass", CLAIM)["lhs"] > 0


def test_entropy_matching_equalises_entropy():
    import torch

    from attnaudit.checks.context import Context

    ctx = Context(CLAIM.id, seed=0)
    gen = ctx.generator("t")
    q = torch.randn(2, 4, 16, 2, generator=gen, dtype=torch.float64)
    k = torch.randn(2, 4, 128, 2, generator=gen, dtype=torch.float64)
    r = torch.cdist(q, k)
    ell = r.flatten(-2).median(dim=-1).values[..., None, None]
    scale = spec._entropy_matched_scale(q, k, ell)
    gau = spec._row_entropy(-(r / ell).square() / (2 * scale**2))
    torch.testing.assert_close(gau, spec._row_entropy(-r / ell), rtol=1e-5, atol=0)


def test_reversed_prediction_is_refuted():
    check = CLAIM.check("mid-mass-gaussian-below-laplacian")
    flipped = dataclasses.replace(check, rel=">=", controls=())
    record = run(only(CLAIM, flipped))
    assert evidence(record, check.name)["status"] == "disagrees"
