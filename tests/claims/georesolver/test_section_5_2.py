"""§5.2 (A): hyperbolic ball volume grows like e^{(d−1)R}, Euclidean like R^d (fitted rates, with a
curvature −1/4 control); the law needs d ≥ 2."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import evidence, run, run_predicting

from attnaudit.claims.georesolver.section_5_2 import CLAIMS, DIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_rates_and_exponents(record):
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {"hyperbolic": "confirmed",
                                                                  "euclidean": "confirmed"}
    verdicts = {r["id"]: r["verdict"] for r in record["readings"]}
    assert verdicts == {"primary": "confirmed", "every-d": "refuted"}
    for d in DIMS:
        rate = evidence(record, f"hyperbolic-growth-rate-d{d}")
        assert abs(rate["fit"]["exponent"] - (d - 1)) < 0.01
        assert [c["failed"] for c in rate["controls"]] == [True]
        assert rate["exponent_tolerance"] < 1e-3  # the closed form's own fit bias, not a hand-set value
        power = evidence(record, f"euclidean-growth-exponent-d{d}")
        assert abs(power["fit"]["exponent"] - d) < 1e-6 and [c["failed"] for c in power["controls"]] == [True]


def test_wrong_rate_turns_refuted():
    check = CLAIM.check("hyperbolic-growth-rate-d3")
    wrong = dataclasses.replace(check, exponent=3.0, controls=())
    assert run_predicting(CLAIM, wrong)["verdict"] == "refuted"
