"""Dong et al. (2021): −log ρ_l of pure dot-product stacks grows like 3^l (rate log 3); metric stacks
(the control) collapse at rate log 2; a wrong rate is refuted."""

from __future__ import annotations

import dataclasses
import math

import pytest
from claimtest import assert_excluded, evidence, only, run

from attnaudit.claims.rank_collapse.doubly_exponential import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed_rate_log3_with_failing_metric_control(record):
    assert record["verdict"] == "confirmed" and record["proof"]["status"] == "sound"
    ev = evidence(record, "loglog-residual-vs-depth")
    lo, hi = ev["fit"]["ci"]
    assert lo <= math.log(3) <= hi and hi - lo < 0.1
    assert max(ev["points"]["y"]) > 1e5  # followed far below float64 round-off
    assert [c["failed"] for c in ev["controls"]] == [True]


def test_wrong_rate_refutes():
    check = dataclasses.replace(CLAIM.checks[0], exponent=math.log(4), controls=())
    rec = run(only(CLAIM, check))
    assert rec["verdict"] == "refuted"
    assert_excluded(evidence(rec, check.name))
