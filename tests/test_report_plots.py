"""reports.plots: one deterministic, self-contained SVG per scaling or limit evidence.

Text in the SVG is drawn as paths; matplotlib also writes each string as an XML comment beside its
glyphs (``<!-- fit: slope … -->``), which is what these tests read to see what a plot says.
"""

from __future__ import annotations

import copy
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib as mpl
import pytest

from attnaudit.reports.plots import evidence_plot, plot_labels

SVG_NS = "{http://www.w3.org/2000/svg}"
X = [1.0, 10.0, 100.0, 1000.0]


def scaling(**changes):
    """y = 2·x^−1.03 measured at four points, predicted Θ(n^−1): a small, complete record."""
    ev = {
        "type": "scaling", "name": "toy-vs-n", "quantity": "toy error", "variable": "n",
        "predicted": "Θ(n^-1)", "order": "Θ",
        "points": {"x": list(X), "y": [2.0, 0.19, 0.0175, 0.0016], "yerr": None},
        "fit": {"exponent": -1.0312, "prefactor": 2.01, "ci": [-1.0498, -1.0103], "ci_level": 0.95,
                "r2": 0.999, "band": [[1.9, 2.1], [0.18, 0.2], [0.016, 0.018], [0.0015, 0.0017]],
                "decades": 3.0},
        "predicted_exponent": -1.0, "predicted_prefactor": 1.6, "status": "agrees",
    }
    for key, value in changes.items():
        if key in ("x", "y", "yerr"):
            ev["points"][key] = value
        else:
            ev[key] = value
    return ev


def limit(point="oo"):
    return {
        "type": "limit", "name": "toy-limit", "quantity": "W", "variable": "n", "value": "1",
        "point": point,
        "points": {"x": [0.1, 0.01, 0.001, 0.0001], "y": [0.05, 0.005, 0.0005, 0.00005], "yerr": None},
        "fit": {"exponent": 1.0, "prefactor": 0.5, "ci": [0.98, 1.02], "ci_level": 0.95, "r2": 1.0,
                "band": [[0.049, 0.051], [0.0049, 0.0051], [0.00049, 0.00051], [0.000049, 0.000051]],
                "decades": 3.0},
        "predicted_exponent": 1.0, "predicted_prefactor": 0.5, "order": "Θ", "status": "agrees",
    }


def texts(svg: str) -> list[str]:
    return re.findall(r"<!-- (.*?) -->", svg)


def ids(svg: str) -> set[str]:
    return set(re.findall(r'\sid="([^"]+)"', svg))


def test_a_scaling_plot_is_an_svg_document():
    svg = evidence_plot(scaling(), uid="paper__lemma-1__toy-vs-n")
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    assert root.find(f"{SVG_NS}title").text == "toy error"
    assert "Date" not in svg and "<dc:date>" not in svg


def test_the_same_input_gives_the_same_bytes():
    ev = scaling()
    first = evidence_plot(ev, uid="a")
    assert evidence_plot(copy.deepcopy(ev), uid="a") == first
    assert ev == scaling()  # the evidence is not modified


def test_plots_with_different_uids_share_no_id():
    one, two = evidence_plot(scaling(), uid="p__one"), evidence_plot(scaling(), uid="p__two")
    assert ids(one) and ids(two)
    assert not ids(one) & ids(two)  # glyphs, clip paths and markers included
    for svg in (one, two):
        refs = set(re.findall(r'href="#([^"]+)"', svg)) | set(re.findall(r"url\(#([^)]+)\)", svg))
        assert refs and refs <= ids(svg)  # every reference resolves inside its own file


def test_the_legend_carries_both_exponents():
    labels = plot_labels(scaling())
    assert labels == ["measured", "fit: slope −1.03 (95% CI [−1.05, −1.01])",
                      "predicted (Θ): slope −1, through the largest-x point"]
    shown = texts(evidence_plot(scaling(), uid="u"))
    assert all(label in shown for label in labels)
    assert "check: agrees" in shown and "n" in shown and "toy error" in shown


def test_the_interval_gets_the_digits_that_tell_its_ends_apart():
    ev = scaling()
    ev["fit"] |= {"exponent": 0.99991, "ci": [0.99978, 0.99999]}
    assert plot_labels(ev)[1] == "fit: slope 0.9999 (95% CI [0.9998, 1.000])"


def test_a_round_off_exponent_prints_as_zero():
    ev = scaling(predicted_exponent=1e-17)
    ev["fit"] |= {"exponent": 3.6e-16, "ci": [-2e-31, 2e-31]}
    assert plot_labels(ev)[1:] == ["fit: slope 0 (95% CI [0, 0])",
                                   "predicted (Θ): slope 0, through the largest-x point"]


def test_error_bars_are_named_in_the_legend():
    ev = scaling(yerr=[0.1, 0.01, 0.001, 0.0001])
    assert plot_labels(ev)[0] == "measured ± s.e."
    assert "measured ± s.e." in texts(evidence_plot(ev, uid="u"))


@pytest.mark.parametrize(("point", "xlabel"), [("oo", "1/n"), ("∞", "1/n"), ("0", "|n − 0|")])
def test_a_limit_plots_the_gap_against_the_distance_to_the_point(point, xlabel):
    ev = limit(point)
    assert plot_labels(ev)[1:] == ["fit: rate 1.00 (95% CI [0.980, 1.02])",
                                   "derived rate 1, through the point nearest the limit"]
    shown = texts(evidence_plot(ev, uid="u"))
    assert xlabel in shown and "|W − 1|" in shown
    assert "derived rate 1, through the point nearest the limit" in shown


def exponential():
    """y = 2·exp(−0.5·n), predicted exp(−0.45·n); x runs through 0 (allowed: x is not logged)."""
    xs = [0.0, 4.0, 8.0, 12.0, 16.0]
    ys = [2.0 * math.exp(-0.5 * x) for x in xs]
    ev = scaling(x=xs, y=ys, predicted_exponent=-0.45, predicted_prefactor=ys[-1] / math.exp(-0.45 * 16))
    ev["fit"] |= {"exponent": -0.5, "prefactor": 2.0, "ci": [-0.52, -0.48], "law": "exponential",
                  "band": [[0.98 * y, 1.02 * y] for y in ys]}
    return ev


def polylog():
    """y = (log n)², predicted Θ((log n)²)."""
    xs = [10.0, 100.0, 1000.0, 10000.0]
    ys = [math.log(x) ** 2 for x in xs]
    ev = scaling(x=xs, y=ys, predicted_exponent=2.0, predicted_prefactor=1.0)
    ev["fit"] |= {"exponent": 2.0, "prefactor": 1.0, "ci": [1.98, 2.02], "law": "polylog",
                  "band": [[0.98 * y, 1.02 * y] for y in ys]}
    return ev


def test_an_exponential_law_is_drawn_on_log_y_against_linear_x():
    ev = exponential()
    labels = plot_labels(ev)
    assert labels[1] == "fit: exp(p·n), p = −0.500 (95% CI [−0.520, −0.480])"
    assert labels[2] == "predicted (Θ): exp(p·n), p = −0.45, through the largest-x point"
    shown = texts(evidence_plot(ev, uid="u"))
    assert all(label in shown for label in labels)
    assert "toy error" in shown  # x = 0 does not force linear axes: x is not logged
    assert "0" in shown and "10⁻¹" in shown  # a linear x tick at 0, a power-of-ten y tick


def test_a_polylog_law_is_drawn_as_a_curve_on_log_log_axes():
    ev = polylog()
    labels = plot_labels(ev)
    assert labels[1] == "fit: (log n)^p, p = 2.00 (95% CI [1.98, 2.02])"
    svg = evidence_plot(ev, uid="u")
    shown = texts(svg)
    assert all(label in shown for label in labels) and "10³" in shown  # log x
    power = copy.deepcopy(ev)
    power["fit"]["law"] = "power"  # the same numbers as a power law: a straight line of 2 points
    assert len(svg) > len(evidence_plot(power, uid="u")) + 1000  # the curves have many vertices


def test_a_flat_fit_says_so_and_needs_no_r2():
    ev = scaling(predicted_exponent=0.0, y=[0.5] * 4)
    ev["fit"] |= {"exponent": 1e-17, "ci": [1e-17, 1e-17], "r2": None, "flat": True}
    assert plot_labels(ev)[1] == "fit: slope 0 (95% CI [0, 0]), flat to round-off"
    assert "fit: slope 0 (95% CI [0, 0]), flat to round-off" in texts(evidence_plot(ev, uid="u"))


def test_an_unknown_law_is_drawn_as_a_power_law():
    ev = scaling()
    ev["fit"]["law"] = "<script>"
    assert plot_labels(ev) == plot_labels(scaling())


@pytest.mark.parametrize("ev", [
    {"type": "relation", "name": "r", "relation": "a <= b"},
    {k: v for k, v in scaling().items() if k != "fit"},
    {k: v for k, v in scaling().items() if k != "points"},
    scaling(fit=None),
    scaling(points=[1, 2]),
    scaling(y=[1.0, 2.0]),                        # mismatched lengths
    scaling(yerr=[0.1]),                          # mismatched error bars
    scaling(x=["a", "b", "c", "d"]),              # not numbers
    scaling(x=[[1, 2], [3, 4]], y=[[1, 2], [3, 4]]),
    scaling(x=[], y=[]),
    scaling(y=[float("nan")] * 4),                # nothing finite left
    None, "scaling", [],
])
def test_what_cannot_be_plotted_gives_none(ev):
    assert evidence_plot(ev, uid="u") is None


def test_evidence_that_is_not_plotted_has_no_labels():
    assert plot_labels({"type": "relation", "name": "r"}) == []
    assert plot_labels(scaling(fit=None)) == []


def test_nan_and_inf_are_dropped():
    ev = scaling(x=[1.0, 10.0, float("nan"), 1000.0, 1e4], y=[2.0, float("inf"), 0.02, 0.0016, 1e-4],
                 yerr=[0.1, 0.1, float("nan"), float("inf"), -1.0])
    ev["fit"]["band"] = [[1.9, 2.1], [float("inf"), float("nan")], [0.016, 0.018], [1e-3, 2e-3], [1e-4, 2e-4]]
    svg = evidence_plot(ev, uid="u")
    ET.fromstring(svg)
    assert "toy error" in texts(svg)  # log axes, nothing to report in the title


def test_non_positive_values_are_left_off_log_axes_and_said_so():
    svg = evidence_plot(scaling(y=[2.0, 0.0, -0.01, 0.0016]), uid="u")
    assert "toy error (2 points ≤ 0 not shown)" in texts(svg)


@pytest.mark.parametrize(("changes", "why"), [
    ({"y": [0.0, -1.0, -2.0, 0.0]}, "no positive values"),
    ({"x": [-1.0, 0.0, 1.0, 2.0]}, "x ≤ 0"),
])
def test_without_positive_data_the_axes_are_linear(changes, why):
    svg = evidence_plot(scaling(**changes), uid="u")
    ET.fromstring(svg)
    assert f"toy error (linear axes: {why})" in texts(svg)


def test_a_malformed_or_infinite_band_is_left_out_not_fatal():
    ev = scaling()
    ev["fit"]["band"] = [[1.0, 2.0]]  # one row for four points
    assert evidence_plot(ev, uid="u") is not None
    ev["fit"]["band"] = [[0.0, float("inf")]] * 4
    assert evidence_plot(ev, uid="u") is not None


def test_record_text_is_never_parsed_as_mathtext():
    long = "cost in $ of " + "a very long quantity name " * 5 + "$x^2$"
    svg = evidence_plot(scaling(quantity=long, variable="$n$"), uid="u")
    title = next(t for t in texts(svg) if t.startswith("cost in"))
    assert title.endswith("…") and len(title) <= 70
    assert ET.fromstring(svg).find(f"{SVG_NS}title").text.startswith("cost in $ of a very")
    assert "$n$" in texts(svg)


def test_rc_params_are_left_as_they_were():
    before = dict(mpl.rcParams)
    evidence_plot(scaling(), uid="u")
    assert dict(mpl.rcParams) == before


def test_importing_plots_pulls_in_neither_pyplot_nor_torch():
    code = ("import sys, reports.plots; "
            "print(sorted(m for m in ('matplotlib.pyplot', 'torch', 'sympy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]"


def test_a_refuted_O_bound_is_drawn_through_its_smallest_x_so_the_violation_shows():
    """Measured y ~ x^2 against an O(x^1) bound: through the largest-x point (the record's anchor)
    every point would lie under the line. Through the smallest-x point they rise above it."""
    import numpy as np

    from attnaudit.reports.plots import predicted_prefactor

    x, y = np.array(X), np.array([1.0, 100.0, 1e4, 1e6])
    ev = scaling(order="O", predicted="O(n)", predicted_exponent=1.0, predicted_prefactor=1e3,
                 y=list(y), status="disagrees")
    c = predicted_prefactor(ev, x, y, "power")
    assert c == pytest.approx(1.0)
    assert np.all(y[1:] > c * x[1:])  # the violating side, visibly
    assert np.all(y[:-1] < 1e3 * x[:-1])  # what the largest-x anchor would have shown
    assert plot_labels(ev)[2].endswith("through the smallest-x point")
    theta = scaling()
    assert predicted_prefactor(theta, x, y, "power") == theta["predicted_prefactor"]
    assert evidence_plot(ev, uid="bound") is not None


@pytest.mark.parametrize("order, side", [("O", "above"), ("Ω", "below")])
def test_a_bound_shades_the_side_that_violates_it(order, side):
    """The shaded region lies on the violating side of the predicted line: above an O() bound,
    below an Ω() one; a Θ law has no such region."""
    import numpy as np
    from matplotlib.collections import PolyCollection

    import attnaudit.reports.plots as plots

    ev = scaling(order=order, predicted=f"{order}(n)", predicted_exponent=1.0, predicted_prefactor=1e3,
                 y=[1.0, 100.0, 1e4, 1e6], status="disagrees")
    label = f"{side} the line: violates the {order}() bound"
    assert plot_labels(ev)[3] == label
    assert label not in plot_labels(scaling())
    shaded = []
    original = plots.Figure

    def spy(*args, **kwargs):  # keep the axes to read what was drawn on them
        fig = original(*args, **kwargs)
        shaded.append(fig)
        return fig

    plots.Figure = spy
    try:
        assert evidence_plot(ev, uid=f"bound-{order}") is not None
        assert evidence_plot(scaling(), uid="theta") is not None
    finally:
        plots.Figure = original
    theta = shaded[1].axes[0]
    assert not [c for c in theta.collections if c.get_alpha() == plots.VIOLATING_ALPHA]
    ax = shaded[0].axes[0]
    (region,) = [c for c in ax.collections
                 if isinstance(c, PolyCollection) and c.get_alpha() == plots.VIOLATING_ALPHA]
    vertices = region.get_paths()[0].vertices
    y0, y1 = ax.get_ylim()
    line = next(ln for ln in ax.lines if ln.get_linestyle() == "--")
    lx, ly = line.get_data()
    mid = np.sqrt(lx[0] * lx[-1])
    on_line = np.exp(np.interp(np.log(mid), np.log(lx), np.log(ly)))
    column = vertices[np.isclose(vertices[:, 0], vertices[np.argmin(abs(vertices[:, 0] - mid)), 0]), 1]
    if side == "above":
        assert column.max() == pytest.approx(y1) and column.min() >= on_line * 0.99
    else:
        assert column.min() == pytest.approx(y0) and column.max() <= on_line * 1.01
