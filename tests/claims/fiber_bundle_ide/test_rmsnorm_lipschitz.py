"""fiber-bundle-ide/rmsnorm-lipschitz: the ε^{-1/2} law is exact (supremum at x = 0), so the
fit's slope is −1/2 and R² = 1 to round-off; the fixed-point and origin-free controls fail."""

import dataclasses

import pytest
from claimtest import evidence, run

from attnaudit.claims.fiber_bundle_ide import rmsnorm_lipschitz as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_operator_contrast_fails_and_identity_is_stated(record):
    assert record["identity"]
    assert all(c["failed"] for c in record["controls"])
    operator = [c for c in record["controls"] if c["contrast"] == "operator"]
    assert len(operator) == 2


def test_eps_outside_the_root_scales_as_one_over_eps():
    import torch

    g = torch.ones(1, 4, dtype=torch.float64)
    pts = torch.zeros(1, 1, 4, dtype=torch.float64)
    lip = spec.lipschitz([1e-4, 1e-2], g, pts, spec.outside_norm)[0]
    torch.testing.assert_close(lip, torch.tensor([1e4, 1e2], dtype=torch.float64))


def test_slope_is_minus_half_and_r2_one(record):
    fit = evidence(record, "lipschitz-vs-eps")["fit"]
    assert abs(fit["exponent"] + 0.5) < 1e-10
    assert 1 - fit["r2"] < 1e-12
    assert evidence(record, "sup-times-sqrt-eps")["violations"] == 0


def test_wrong_exponent_is_refuted():
    law = dataclasses.replace(CLAIM.check("lipschitz-vs-eps"), exponent=-1.0, controls=())
    record = run(dataclasses.replace(CLAIM, checks=(law,)))
    assert record["verdict"] == "refuted"
