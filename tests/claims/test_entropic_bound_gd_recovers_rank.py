"""entropic-bound/gd-recovers-rank: GD from small init fits the data and ends at energy effective
rank r*; a large initialisation (the control) does not."""

import dataclasses

import pytest
from claimtest import evidence, only, run

from attnaudit.checks.context import Context
from attnaudit.claims.entropic_bound import gd_recovers_rank as spec

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_with_failing_controls(record):
    assert record["verdict"] == "confirmed", record["summary"]
    assert record["proof"]["status"] == "absent"
    assert [c["failed"] for c in record["controls"]] == [True, True]
    assert evidence(record, "effective-rank-is-intrinsic")["violations"] == 0


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
    assert run(only(CLAIM, moved))["verdict"] == "refuted"
