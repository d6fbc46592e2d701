"""Proposition 11.1: the four HIDA variants' per-token FLOPs scale as stated (confirmed behind
failing controls); one plot carries all four operators."""

from __future__ import annotations

import dataclasses

import pytest
from claimtest import evidence, only, run

from attnaudit.claims.georesolver import proposition_11_1 as spec
from attnaudit.reports.plots import evidence_plot, plot_labels

CLAIM = spec.CLAIMS[0]


@pytest.fixture(scope="module")
def record():
    return run(CLAIM)


def test_confirmed(record):
    assert record["verdict"] == "confirmed" and record["proof"]["status"] == "absent"
    for name in ("dense-flops-vs-n", "fp-flops-vs-n", "l-flops-vs-n", "c-flops-per-token-vs-n"):
        ev = evidence(record, name)
        assert ev["status"] == "agrees" and [c["failed"] for c in ev["controls"]] == [True]
    assert abs(evidence(record, "dense-flops-vs-n")["fit"]["exponent"] - 1) < 1e-6


def test_one_plot_of_all_four(record):
    ev = evidence(record, "dense-flops-vs-n")
    labels = plot_labels(ev)
    assert sum(any(op in lab for lab in labels) for op in ("FP-HIDA", "L-HIDA", "C-HIDA")) == 3
    svg = evidence_plot(ev, uid="prop-11-1")
    assert svg is not None and svg.count("<path") > 20


def test_wrong_prediction_refutes():
    law = dataclasses.replace(CLAIM.check("c-flops-per-token-vs-n"), exponent=1.0, controls=(), info=None)
    assert run(only(CLAIM, law))["verdict"] == "refuted"


def test_same_seed_gives_identical_records(record):
    import json

    again = run(CLAIM)
    assert json.dumps(again, sort_keys=True) == json.dumps(record, sort_keys=True)
