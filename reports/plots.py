"""Scaling and limit plots: one SVG per fitted evidence, the same file for the HTML page and the PDF.

A plot shows the measured points (with their standard errors when given), the fitted law with the
confidence band of the fitted line, and the predicted law (drawn through the measurement at the
asymptotic end, as the record defines it: the largest x of a scaling law, the point nearest the
limit of a limit; an O()/Ω() bound through the smallest x, see :func:`predicted_prefactor`, with
the side that violates it shaded: above an O() bound, below an Ω() one).
The fit's ``law`` (checks.fitting) says what its exponent p is: a power law
``y = c · x**p`` (log–log axes, the default), an exponential ``y = c · exp(p·x)`` (log y against
linear x, where it is straight) or a polylog ``y = c · (log x)**p`` (log–log axes, a curve). A fit
flat to round-off (``flat``, R² undefined) says so in its legend. For a limit, x is the distance to
the limit point and y the gap ``|quantity − value|``. Every number comes from the evidence record;
nothing is refitted here.

The SVG is deterministic (same evidence and uid → same bytes): matplotlib's ``svg.hashsalt`` is
the uid, the date is left out, and every id in the file carries a prefix derived from the uid,
so that many plots inlined into one HTML page never share an id (matplotlib's glyph and group
ids are not salted). Text is drawn as paths, so the file renders the same in a browser and in
Typst without fonts. Only matplotlib's object-oriented API is used: no pyplot, no global state
beyond the ``rc_context`` of one call (which, like all rcParams, is not thread-safe).
"""

from __future__ import annotations

import hashlib
import io
import math
import re
import warnings
from typing import Any
from xml.sax.saxutils import escape

import matplotlib.style as mplstyle
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from attnaudit.checks.results import ROUNDOFF_EXPONENT
from attnaudit.reports.document import PLOTTED, truncate

__all__ = ["evidence_plot", "plot_labels"]

AT_INFINITY = ("oo", "∞", "inf", "+oo", "+inf")
TITLE_CHARS, YLABEL_CHARS = 70, 45
MIN_LOG_SPAN = 1.0  # decades: a y axis is never narrower, so noise on a flat law does not look steep

# Okabe–Ito colours (colour-blind safe); the fit and the prediction also differ by line style.
POINTS, FIT, PREDICTED, NOTE = "#0072B2", "#D55E00", "#009E73", "#444444"
VIOLATING, VIOLATING_ALPHA = "#777777", 0.12  # a bound's violating side: grey, apart from the fit's band
SERIES = ("#CC79A7", "#E69F00", "#56B4E9", "#000000")  # further series (evidence ``info``), in turn
SERIES_MARKERS = ("s", "^", "D", "v")

STYLE: dict[str, Any] = {
    "figure.figsize": (6.4, 4.0),
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "legend.fontsize": 8.5,
    "axes.grid": True,
    "axes.grid.which": "major",
    "grid.color": "#d9d9d9",
    "grid.linewidth": 0.6,
    "axes.linewidth": 0.8,
    "axes.edgecolor": "#333333",
    "svg.fonttype": "path",
    "svg.image_inline": True,
}


# --------------------------------------------------------------------------- labels


def _text(value: Any) -> str:
    """A label from a record string: '$' escaped, so matplotlib never parses it as mathtext."""
    return str(value).replace("$", r"\$")


def _one_line(text: str, limit: int) -> str:
    return truncate(" ".join(str(text).split()), limit)


def _num(value: float, digits: int = 3, *, measured: bool = False) -> str:
    """A number for a label: ``digits`` significant, a real minus sign, round-off printed as 0.

    A ``measured`` value keeps its trailing zeros (1.00, not 1: a fit is never exactly 1).
    """
    if not math.isfinite(value):
        return "n/a"
    if abs(value) < ROUNDOFF_EXPONENT:
        return "0"
    text = f"{value:#.{digits}g}" if measured else f"{value:.{digits}g}"
    return text.rstrip(".").replace(".e", "e").replace("-", "−")


def _float(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def _at_infinity(point: Any) -> bool:
    return str(point).strip().lower() in AT_INFINITY


LAWS = ("power", "exponential", "polylog")


def _law(ev: dict[str, Any]) -> str:
    """The fitted law: power unless the fit says exponential or polylog (a limit is a power law)."""
    fit = ev.get("fit") if isinstance(ev.get("fit"), dict) else {}
    law = fit.get("law")
    return law if law in LAWS and ev.get("type") != "limit" else "power"


def _exponent_word(ev: dict[str, Any]) -> str:
    """How a legend names the exponent p: a slope (power), a rate (limit), or p in the law's form."""
    law, variable = _law(ev), _text(ev.get("variable", "x"))
    if law == "exponential":
        return f"exp(p·{variable}), p ="
    if law == "polylog":
        return f"(log {variable})^p, p ="
    return "rate" if ev.get("type") == "limit" else "slope"


def _fit_label(ev: dict[str, Any]) -> str | None:
    fit = ev.get("fit") if isinstance(ev.get("fit"), dict) else {}
    exponent = _float(fit.get("exponent"))
    if exponent is None or _float(fit.get("prefactor")) is None:
        return None
    word = _exponent_word(ev)
    flat = ", flat to round-off" if fit.get("flat") is True else ""
    ci = fit.get("ci")
    lo, hi = (None, None)
    if isinstance(ci, (list, tuple)) and len(ci) == 2:
        lo, hi = _float(ci[0]), _float(ci[1])
    if lo is None or hi is None:
        return f"fit: {word} {_num(exponent, measured=True)}{flat}"
    digits = 3  # enough digits that the two ends of the interval print differently
    distinct = abs(hi - lo) > 1e-9 * max(1.0, abs(lo), abs(hi))  # not just round-off apart
    while distinct and digits < 6 and _num(lo, digits) == _num(hi, digits):
        digits += 1
    level = _float(fit.get("ci_level"))
    level_text = f"{level * 100:g}% CI" if level is not None and 0 < level < 1 else "CI"
    return (f"fit: {word} {_num(exponent, digits, measured=True)} "
            f"({level_text} [{_num(lo, digits, measured=True)}, {_num(hi, digits, measured=True)}]){flat}")


def _predicted_label(ev: dict[str, Any]) -> str | None:
    exponent = _float(ev.get("predicted_exponent"))
    if exponent is None or _float(ev.get("predicted_prefactor")) is None:
        return None
    if ev.get("type") == "limit":
        return f"derived rate {_num(exponent)}, through the point nearest the limit"
    order = ev.get("order")
    head = f"predicted ({_text(order)})" if order else "predicted"
    where = "smallest" if _bound(ev) else "largest"
    return f"{head}: {_exponent_word(ev)} {_num(exponent)}, through the {where}-x point"


BOUNDS = ("O", "Ω", "o", "ω")


def _bound(ev: dict[str, Any]) -> bool:
    """An O()/Ω() bound of a scaling law (not Θ, not a limit)."""
    return ev.get("type") == "scaling" and str(ev.get("order") or "").strip() in BOUNDS


def predicted_prefactor(ev: dict[str, Any], x: np.ndarray, y: np.ndarray, law: str) -> float:
    """The prefactor the predicted line is drawn with.

    The record anchors the predicted law at the largest x (the asymptotic end). For an O() or Ω()
    bound that is dishonest: a refuted O() bound grows faster than predicted, so a line through
    its largest-x point lies above every other point and the plot looks as if the bound held
    (likewise below, for a refuted Ω() bound). A bound is a claim about growth from where the
    sweep starts, so it is drawn through the smallest-x point instead: a measurement that grows
    faster (O) or slower (Ω) than the bound then visibly leaves it on the violating side."""
    recorded = float(ev["predicted_prefactor"])
    if not _bound(ev) or not len(x):
        return recorded
    i = int(np.argmin(x))
    unit = float(_line(np.array([x[i]]), 1.0, float(ev["predicted_exponent"]), law)[0])
    if not (math.isfinite(unit) and unit != 0 and math.isfinite(float(y[i]))):
        return recorded
    return float(y[i]) / unit


def plot_labels(ev: dict[str, Any]) -> list[str]:
    """The legend of :func:`evidence_plot` for ``ev``, in order: points, fit, prediction.

    Entries that would not be drawn are left out; evidence that is not plotted gives ``[]``.
    """
    if not isinstance(ev, dict) or ev.get("type") not in PLOTTED or not isinstance(ev.get("fit"), dict):
        return []
    points = ev.get("points") if isinstance(ev.get("points"), dict) else {}
    labels = ["measured ± s.e." if points.get("yerr") is not None else "measured"]
    labels += [label for label in (_fit_label(ev), _predicted_label(ev)) if label is not None]
    if _violating_side(ev) is not None and _predicted_label(ev) is not None:
        labels.append(f"{_violating_side(ev)} the line: violates the {_text(ev['order'])}() bound")
    return labels + [_text(series["label"]) for series in _series(ev)]


def _violating_side(ev: dict[str, Any]) -> str | None:
    """'above' for an O()/o() bound, 'below' for an Ω()/ω() one, None for anything else."""
    if not _bound(ev):
        return None
    return "above" if str(ev["order"]).strip() in ("O", "o") else "below"


def _series(ev: dict[str, Any]) -> list[dict[str, Any]]:
    """The evidence's further series (``info.series``) that can be drawn: equal-length finite x, y."""
    info = ev.get("info")
    out = []
    for series in (info.get("series") or []) if isinstance(info, dict) else []:
        x, y = _vector(series.get("x")), _vector(series.get("y"))
        if x is not None and y is not None and len(x) == len(y) and len(x) and "label" in series:
            out.append(series)
    return out


def _axis_labels(ev: dict[str, Any]) -> tuple[str, str]:
    variable, quantity = _text(ev.get("variable", "x")), _text(ev.get("quantity", "y"))
    if ev.get("type") != "limit":
        return variable, _one_line(quantity, YLABEL_CHARS)
    if _at_infinity(ev.get("point")):
        xlabel = f"1/({variable})" if re.search(r"[\s/+−\-]", variable) else f"1/{variable}"
    else:
        xlabel = f"|{variable} − {_text(ev.get('point'))}|"
    value = _text(ev.get("value", ""))
    return xlabel, f"|{_one_line(quantity, max(12, YLABEL_CHARS - len(value) - 5))} − {value}|"


# --------------------------------------------------------------------------- data


def _vector(values: Any) -> np.ndarray | None:
    try:
        out = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return None
    return out if out.ndim == 1 else None


def _data(ev: dict[str, Any]):
    """(x, y, yerr or None, band lo/hi or None) with non-finite points dropped; None if unusable."""
    points = ev.get("points")
    if not isinstance(points, dict):
        return None
    x, y = _vector(points.get("x")), _vector(points.get("y"))
    if x is None or y is None or len(x) != len(y) or len(x) == 0:
        return None
    yerr = None
    if points.get("yerr") is not None:
        yerr = _vector(points["yerr"])
        if yerr is None or len(yerr) != len(x):
            return None
        yerr = np.where(np.isfinite(yerr) & (yerr > 0), yerr, 0.0)
    band = None
    raw = ev["fit"].get("band")
    if raw is not None:
        try:
            band = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            band = None
        if band is not None and band.shape != (len(x), 2):
            band = None  # a malformed band is left out; the points and lines are still drawn
    keep = np.isfinite(x) & np.isfinite(y)
    return (x[keep], y[keep], None if yerr is None else yerr[keep],
            None if band is None else band[keep])


def _line(xs: np.ndarray, prefactor: float, exponent: float, law: str = "power") -> np.ndarray:
    """The law through (prefactor, exponent) at xs: c·x^p, c·exp(p·x) or c·(log x)^p (x > 1)."""
    with np.errstate(all="ignore"):
        if law == "exponential":
            return prefactor * np.exp(exponent * xs)
        if law == "polylog":
            return np.where(xs > 1, prefactor * np.power(np.log(np.where(xs > 1, xs, np.e)), exponent),
                            np.nan)
        return prefactor * np.power(xs, exponent)


# --------------------------------------------------------------------------- log ticks
# Tick labels are plain text with Unicode superscripts ("10⁻⁵", "2×10⁻⁵"), not mathtext: mathtext
# parsing was two thirds of the rendering time, and plain text looks the same in every viewer.

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _split(value: float) -> tuple[float, int]:
    exponent = math.floor(math.log10(value) + 1e-9)
    mantissa = value / 10.0**exponent
    return (round(mantissa) if abs(mantissa - round(mantissa)) < 1e-6 else mantissa), exponent


def _power(value: float, _pos: Any = None) -> str:
    """A tick on a wide log axis: 10⁻⁵ (other values, which LogLocator does not give, as 2×10⁻⁵)."""
    if not math.isfinite(value) or value <= 0:
        return ""
    mantissa, exponent = _split(value)
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if mantissa == 1 else f"{mantissa:g}×{power}"


def _plain(value: float, _pos: Any = None) -> str:
    """A tick on a narrow log axis (less than two powers of ten): 1, 2, 0.5, 3×10⁻⁵ …"""
    if not math.isfinite(value) or value <= 0:
        return ""
    mantissa, exponent = _split(value)
    if mantissa not in (1, 2, 3, 5):
        return ""  # ticked, not labelled: 0.7, 0.8, 0.9 crowd each other
    return _num(value, 3) if -3 <= exponent <= 3 else _power(value)


def _log_ticks(axis: Any, lo: float, hi: float) -> None:
    """Powers of ten, labelled; the multiples between them only when fewer than two powers show.

    Minor ticks are left out otherwise: they were half the rendering time, for little help.
    """
    if lo > 0 and hi > lo and math.floor(math.log10(hi)) - math.ceil(math.log10(lo)) + 1 < 2:
        axis.set_major_formatter(FuncFormatter(_plain))
        axis.set_minor_locator(LogLocator(subs=(2, 3, 4, 5, 6, 7, 8, 9)))
        axis.set_minor_formatter(FuncFormatter(_plain))
    else:
        axis.set_major_formatter(FuncFormatter(_power))
        axis.set_minor_locator(NullLocator())


# --------------------------------------------------------------------------- plot


def _draw(ev: dict[str, Any], uid: str, tag: str) -> str | None:
    data = _data(ev)
    if data is None or not len(data[0]):
        return None
    x, y, yerr, band = data
    fit = ev["fit"]
    fit_label, predicted_label = _fit_label(ev), _predicted_label(ev)

    law = _law(ev)
    title = _one_line(_text(ev.get("quantity", "")), TITLE_CHARS)
    # Log y wherever a value is positive; log x too, except for an exponential law (straight on
    # log y against linear x), and only where every x is positive.
    log = bool(np.any(y > 0)) and (law == "exponential" or bool(np.all(x > 0)))
    xlog = log and law != "exponential"
    if log:
        dropped = int(np.sum(y <= 0))
        if dropped:
            title += f" ({dropped} point{'s' if dropped > 1 else ''} ≤ 0 not shown)"
            keep = y > 0
            x, y = x[keep], y[keep]
            yerr = None if yerr is None else yerr[keep]
            band = None if band is None else band[keep]
    else:
        x_negative = law != "exponential" and bool(np.any(x <= 0))
        title += f" (linear axes: {'x ≤ 0' if x_negative else 'no positive values'})"
    lo, hi = float(x.min()), float(x.max())
    if log and law in ("power", "exponential"):
        xs = np.array([lo, hi])  # straight on these axes
    elif xlog:
        xs = np.geomspace(lo, hi, 101)  # a polylog law curves on log-log axes
    else:
        xs = np.linspace(lo, hi, 101)
    if law != "exponential":
        xs = xs[xs > 0]  # a power or polylog law has no meaning at x ≤ 0

    def visible(ys: np.ndarray) -> np.ndarray:
        return np.isfinite(ys) & (ys > 0) if log else np.isfinite(ys)

    with mplstyle.context(["default", STYLE | {"svg.hashsalt": uid}]):
        fig = Figure()
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        if log:
            if xlog:
                ax.set_xscale("log")
            ax.set_yscale("log")
        style = {"ms": 4.5, "color": POINTS, "mec": "white", "mew": 0.5, "zorder": 3}
        if yerr is not None:
            points = ax.errorbar(x, y, yerr=yerr, fmt="o", ecolor=POINTS, elinewidth=0.9, capsize=2.5,
                                 **style)
        else:
            (points,) = ax.plot(x, y, "o", **style)
        handles: list[Any] = [points]
        extra_handles = []
        for i, series in enumerate(_series(ev)):
            sx, sy = _vector(series["x"]), _vector(series["y"])
            ok = np.isfinite(sx) & np.isfinite(sy) & ((sy > 0) & (sx > 0) if log else True)
            (line,) = ax.plot(sx[ok], sy[ok], marker=SERIES_MARKERS[i % len(SERIES_MARKERS)], ms=4,
                              color=SERIES[i % len(SERIES)], lw=1.0, zorder=3)
            extra_handles.append(line)

        if fit_label is not None:
            ys = _line(xs, float(fit["prefactor"]), float(fit["exponent"]), law)
            (fit_line,) = ax.plot(xs[visible(ys)], ys[visible(ys)], "-", color=FIT, lw=1.5, zorder=2)
            handle: Any = fit_line
            if band is not None:
                order = np.argsort(x, kind="stable")
                bx, blo, bhi = x[order], band[order, 0], band[order, 1]
                ok = visible(blo) & visible(bhi)
                if np.count_nonzero(ok) >= 2:
                    shade = ax.fill_between(bx[ok], blo[ok], bhi[ok], color=FIT, alpha=0.2, lw=0, zorder=1)
                    handle = (shade, fit_line)  # one legend entry: the line over its band
            handles.append(handle)

        bound_line = None
        if predicted_label is not None:
            ys = _line(xs, predicted_prefactor(ev, x, y, law), float(ev["predicted_exponent"]), law)
            (pred_line,) = ax.plot(xs[visible(ys)], ys[visible(ys)], "--", color=PREDICTED, lw=1.5, zorder=2)
            handles.append(pred_line)
            if _violating_side(ev) is not None:
                bound_line = (xs[visible(ys)], ys[visible(ys)])

        if log:
            y0, y1 = ax.get_ylim()
            if 0 < y0 < y1 and math.log10(y1 / y0) < MIN_LOG_SPAN:
                mid, half = math.sqrt(y0 * y1), 10 ** (MIN_LOG_SPAN / 2)
                ax.set_ylim(mid / half, mid * half)
            if xlog:
                _log_ticks(ax.xaxis, *ax.get_xlim())
            _log_ticks(ax.yaxis, *ax.get_ylim())
        else:
            # A power law has no meaning at x ≤ 0 and can blow up near 0: the points set the view.
            y0, y1 = float(y.min()), float(y.max())
            pad = 0.08 * (y1 - y0) if y1 > y0 else 0.1 * max(abs(y0), 1.0)
            ax.set_ylim(y0 - pad, y1 + pad)
        if bound_line is not None and len(bound_line[0]) >= 2:
            # The side of an O()/Ω() bound where a measurement violates it, shaded to the axis edge
            # (the limits are final here: the shade must not move them).
            y0, y1 = ax.get_ylim()
            bx, by = bound_line
            edge = y1 if _violating_side(ev) == "above" else y0
            dense = np.geomspace(bx[0], bx[-1], 101) if xlog else np.linspace(bx[0], bx[-1], 101)
            curve = np.interp(np.log(dense) if xlog else dense, np.log(bx) if xlog else bx,
                              np.log(by) if log else by)
            curve = np.exp(curve) if log else curve
            violating = ax.fill_between(dense, curve, edge, color=VIOLATING, alpha=VIOLATING_ALPHA, lw=0,
                                        zorder=0)
            ax.set_ylim(y0, y1)
            handles.append(violating)

        xlabel, ylabel = _axis_labels(ev)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title, loc="left")
        ax.legend(handles + extra_handles, plot_labels(ev), loc="best", framealpha=0.92, edgecolor="#cccccc")
        status = ev.get("status")
        if status:
            fig.text(0.995, 0.012, f"check: {_text(status)}", ha="right", va="bottom", fontsize=8, color=NOTE)
        fig.tight_layout(pad=0.5)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return _finish(buffer.getvalue(), tag, title)


_ID = re.compile(r'\sid="([^"]*)"')
_REF = re.compile(r'(href="#|url\(#)([^")]*)')


def _finish(svg: str, tag: str, title: str) -> str:
    """Give every referenced id the plot's prefix, drop unreferenced ids, add a <title>.

    The XML declaration and DOCTYPE are dropped: the result is still a standalone SVG document
    (UTF-8, namespaces declared) and can also be inlined in HTML as it is.
    """
    svg = svg[svg.index("<svg"):].replace("<svg ", f'<svg id="{tag}" ', 1)
    referenced = {m.group(2) for m in _REF.finditer(svg)}

    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == tag:
            return match.group(0)
        return f' id="{tag}-{name}"' if name in referenced else ""

    svg = _ID.sub(rename, svg)
    svg = _REF.sub(lambda m: f"{m.group(1)}{tag}-{m.group(2)}", svg)
    head = svg.index(">") + 1
    plain = title.replace(r"\$", "$")  # the record's own text: no mathtext escapes in a <title>
    return f"{svg[:head]}\n <title>{escape(plain)}</title>{svg[head:]}"


def _tag(uid: str) -> str:
    return "plot-" + hashlib.sha256(uid.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def evidence_plot(ev: dict, *, uid: str) -> str | None:
    """The SVG document of a ``scaling`` or ``limit`` evidence with points and a fit, else None.

    ``uid`` names the plot uniquely (e.g. ``"georesolver__theorem-2.6__ida__pl-vs-eps"``): it salts
    matplotlib's ids and prefixes every id in the file, so plots on one page never share an id.
    The same ``ev`` and ``uid`` give byte-identical output. Never raises: evidence that cannot be
    drawn (no fit, mismatched lengths, non-numeric values) gives None.
    """
    if not isinstance(ev, dict) or ev.get("type") not in PLOTTED or not isinstance(ev.get("fit"), dict):
        return None
    uid = str(uid)
    try:
        return _draw(ev, uid, _tag(uid))
    except Exception as exc:  # the report must render: a plot that fails is left out, loudly
        warnings.warn(f"plot {uid!r} not drawn: {type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=2)
        return None
