"""Dong et al. (2021), read one-sided: −log ρ_l of pure dot-product stacks grows at least like 3^l
(rate ≥ log 3), every layer computed in full; metric stacks (rate log 2) and the rate log 4 fail as
controls; a faster collapse is not refuted; larger weights (a lower threshold) delay the collapse
but not its rate."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from claimtest import evidence, only, run

from attnaudit.claims.rank_collapse.doubly_exponential import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_rate_log3_measured_far_below_float64_with_failing_controls(record):
    ev = evidence(record, "loglog-residual-vs-depth")
    lo, hi = ev["fit"]["ci"]
    assert lo <= math.log(3) + 1e-3 and hi >= math.log(3) - 1e-3 and hi - lo < 0.01
    assert max(ev["points"]["y"]) > 1e10  # ρ below 10^(−4·10⁹): every layer computed in full
    assert ev["replicates"] == 4
    assert {c["contrast"]: c["failed"] for c in ev["controls"]} == {"operator": True, "prediction": True}


def test_larger_weights_delay_the_collapse_not_its_rate(record):
    base = evidence(record, "loglog-residual-vs-depth")
    big = evidence(record, "loglog-residual-vs-depth-large-beta")
    assert big["points"]["x"][0] > base["points"]["x"][0]  # the threshold is passed later
    assert abs(big["fit"]["exponent"] - math.log(3)) < 0.01


def test_a_faster_collapse_is_not_refuted():
    fast = dataclasses.replace(CLAIM.checks[0], controls=(),
                               measure=lambda ctx, g: 200.0 * np.exp(math.log(4.0) * (np.asarray(g) - g[0])))
    rec = run(only(CLAIM, fast))
    assert rec["verdict"] != "refuted" and evidence(rec, fast.name)["status"] == "agrees"
