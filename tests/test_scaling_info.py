"""ScalingLaw.info: informational columns recorded beside a fit (never compared) and further series
drawn in the check's plot (e.g. Proposition 11.1's four operators on one figure)."""

import dataclasses

import numpy as np
import pytest

from attnaudit.checks import ScalingLaw, tolerances
from attnaudit.checks.context import Context
from attnaudit.checks.laws import check_scaling
from attnaudit.reports.plots import evidence_plot, plot_labels


def _law(info=None):
    return ScalingLaw(name="toy", quantity="y", variable="n", exponent=2.0, order="Θ",
                      grid=lambda ctx: np.logspace(1, 4, 7), measure=lambda ctx, x: 3 * x**2,
                      family="toy", tolerance=tolerances.Systematic(0.01, "toy"), info=info)


def _info(ctx, grid):
    return {"columns": {"wall s": grid * 1e-6}, "series": [{"label": "other", "x": grid, "y": grid}]}


def test_info_is_recorded_and_never_decides():
    ctx = Context(claim_id="toy/law", seed=0)
    plain = check_scaling(_law(), ctx)
    with_info = check_scaling(_law(_info), Context(claim_id="toy/law", seed=0))
    assert "info" not in plain
    assert with_info["info"]["columns"]["wall s"] == pytest.approx(list(np.logspace(1, 4, 7) * 1e-6))
    assert with_info["info"]["series"][0]["label"] == "other"
    assert {k: v for k, v in with_info.items() if k != "info"} == plain


def test_series_are_drawn_and_labelled():
    ev = check_scaling(_law(_info), Context(claim_id="toy/law", seed=0))
    assert plot_labels(ev)[-1] == "other"
    svg = evidence_plot(ev, uid="toy")
    assert svg is not None and svg == evidence_plot(ev, uid="toy")
    bad = dataclasses.replace(_law(lambda ctx, g: {"series": [{"label": "x", "x": [1, 2], "y": [1]}]}))
    with pytest.raises(ValueError, match="one y per x"):
        check_scaling(bad, Context(claim_id="toy/law", seed=0))
    ev["info"]["series"][0]["y"] = [1.0]  # malformed in a record: left out of the plot, not an error
    assert plot_labels(ev)[-1] != "other" and evidence_plot(ev, uid="toy") is not None
