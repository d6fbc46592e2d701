"""signal-subspace/convergence: in the stated model the gap 1 − |⟨w_t, θ*⟩| closes (its inverse
grows at every scale) for d = 8 and 32, and does not when a nuisance token's weight is the reward
(the hypothesis control); the suite's 1/t rate holds at d = 8 (a derivation); every run recovers
±θ*, and the signed alignment does not (the sign ambiguity)."""

import dataclasses

import pytest
from claimtest import evidence, run, run_predicting

from attnaudit.claims.signal_subspace import convergence as spec

CLAIM = spec.CLAIMS[0]
NAMES = [c.name for c in CLAIM.checks if c.name.startswith("alignment")]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_controls_by_contrast(record):
    nuisance = [c for c in record["controls"] if c["variant"].startswith("a nuisance token")]
    assert len(nuisance) == 2 and all(c["failed"] for c in nuisance)
    signed = [c for c in record["controls"] if c["check"] == "recovered-up-to-sign"]
    assert [(c["contrast"], c["failed"]) for c in signed] == [("prediction", True)]
    for name in ("gap-vanishes-d8", "gap-vanishes-d32"):
        assert all(w["exponent"] > 0 for w in evidence(record, name)["fit"]["local_exponents"])


def test_gap_closes_at_rate_near_one(record):
    for name in NAMES:
        ev = evidence(record, name)
        assert ev["final_gap"] < 0.01
        assert 0.8 < ev["fit"]["exponent"] < 1.2
    assert evidence(record, "alignment-d8")["status"] == "agrees"


def test_a_wrong_rate_is_refuted():
    limit = dataclasses.replace(CLAIM.check(NAMES[0]), rate=2.0, controls=())
    assert evidence(run_predicting(CLAIM, limit), limit.name)["status"] == "disagrees"
