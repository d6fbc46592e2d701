"""entropic-bound/gd-recovers-rank: GD from small init fits the data and ends at energy effective
rank r*; a large initialisation (the hypothesis control) does not; each GD run is done once."""

import dataclasses

import pytest
from claimtest import evidence, only, run

from attnaudit.checks.context import Context
from attnaudit.claims.entropic_bound import gd_recovers_rank as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_rank_recovered_behind_the_init_contrast(record):
    controls = [(c["contrast"], c["failed"]) for c in record["controls"]]
    assert controls == [("setting", True), ("hypothesis", True)]
    assert evidence(record, "effective-rank-is-intrinsic")["violations"] == 0
    assert evidence(record, "fits-the-data")["violations"] == 0


def test_training_runs_once_per_case():
    ctx = Context(CLAIM.id, seed=0)
    case = next(iter(spec._cases(ctx, ctx.generator("t"))))
    assert spec.train(case, spec.SMALL_INIT, 20) is spec.train(case, spec.SMALL_INIT, 20)


def test_large_init_overshoots_the_rank():
    ctx = Context(CLAIM.id, seed=0)
    case = next(iter(spec._cases(ctx, ctx.generator("t"))))
    ranks = spec.energy_rank(spec.train(case, spec.LARGE_INIT))
    assert bool((ranks > case["rank"]).all())


def test_a_wrong_rank_prediction_is_refuted():
    check = CLAIM.check("effective-rank-is-intrinsic")

    def one_more(case):
        lhs, rhs, tol = check.evaluate(case)
        return lhs, rhs + 1, tol

    moved = dataclasses.replace(check, evaluate=one_more, controls=())
    assert evidence(run(only(CLAIM, moved)), check.name)["status"] == "disagrees"
