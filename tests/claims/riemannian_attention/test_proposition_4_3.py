"""Proposition 4.3: the correction is O(L² d r), the overhead O(r) (the review's reading confirmed)."""

from __future__ import annotations

import pytest
from claimtest import assert_excluded, evidence, run

from attnaudit.claims.riemannian_attention.proposition_4_3 import CLAIMS

CLAIM = CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_paper_refuted_referee_confirmed(record):
    assert_excluded(evidence(record, "correction-vs-d"))
    assert_excluded(evidence(record, "overhead-vs-d"))
    referee = next(r for r in record["readings"] if r["id"] == "referee")
    assert referee["verdict"] == "confirmed"
    assert abs(evidence(record, "referee-overhead-vs-d")["fit"]["exponent"]) < 0.1


def test_overhead_ratio_is_about_r():
    from attnaudit.claims.riemannian_attention._cost import score_flops

    ratio = score_flops(1024, 4096, 8, "correction") / score_flops(1024, 4096, 8, "standard")
    assert 7.5 < ratio < 8.5


def test_closed_form_is_the_counters_on_every_grid_point():
    from attnaudit.claims.riemannian_attention._cost import score_flops
    from attnaudit.claims.riemannian_attention.proposition_4_3 import (
        D_FOR_R,
        D_GRID,
        N_GRID,
        R_GRID,
        D,
        N,
        R,
        correction_closed_form,
    )

    for n, d, r in ([(N, d, R) for d in D_GRID] + [(N, D_FOR_R, r) for r in R_GRID]
                    + [(n, D, R) for n in N_GRID]):
        assert score_flops(n, d, r, "correction") == correction_closed_form(n, d, r)


def test_clauses(record):
    assert {c["id"]: c["verdict"] for c in record["clauses"]} == {"pairwise-cost": "refuted",
                                                                  "overhead": "refuted"}
