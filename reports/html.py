"""The HTML site: ``index.html`` and one page per claim under ``claims/``, opening from disk.

Jinja2 with autoescaping renders every string from a results file as text. The only markup that
is not escaped is markup built here: MathML from :mod:`reports.formulas` (serialised by
ElementTree), the plots' SVG (written by matplotlib from numbers and escaped labels) and the graphs'
SVG (written by Graphviz from quoted DOT strings, :mod:`reports.graph`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from attnaudit.reports.document import PROOF_STATUSES, VERDICTS, pretty, rank
from attnaudit.reports.formulas import mathml, split_statement


def _formula(latex: str | None, display: str = "inline") -> Markup:
    """A formula as MathML; the LaTeX source, escaped and marked, when it cannot be converted."""
    if not latex:
        return Markup("")
    converted = mathml(latex, display=display)
    if converted is None:
        return Markup('<code class="latex" title="formula could not be converted">{}</code>').format(latex)
    return Markup(converted)


def _statement(latex: str | None) -> Markup:
    parts = []
    for segment in split_statement(latex or ""):
        parts.append(escape(segment.source) if segment.kind == "text" else _formula(segment.source))
    return Markup("").join(parts)


def _claim_id(claim_id: str) -> Markup:
    """An id that may wrap after each '/', never inside a word."""
    return Markup("/<wbr>").join(escape(part) for part in str(claim_id).split("/"))


def environment() -> Environment:
    env = Environment(loader=PackageLoader("attnaudit.reports", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters.update(formula=_formula, statement=_statement, claim_id=_claim_id, rank=rank,
                       pretty=pretty)
    env.globals["verdicts"] = VERDICTS
    env.globals["proof_statuses"] = PROOF_STATUSES
    return env


def write_site(document: dict[str, Any], plots: dict[str, str], out: Path) -> list[Path]:
    """Write index.html and claims/<slug>.html; ``plots`` maps plot id to SVG text."""
    env = environment()
    out.mkdir(parents=True, exist_ok=True)
    (out / "claims").mkdir(exist_ok=True)
    svg = {k: Markup(v) for k, v in plots.items()}
    written = [out / "index.html"]
    written[0].write_text(env.get_template("index.html.j2").render(doc=document, plots=svg, root="."),
                          encoding="utf-8")
    page = env.get_template("claim.html.j2")
    for claim in document["claims"]:
        path = out / "claims" / f"{claim['slug']}.html"
        path.write_text(page.render(doc=document, claim=claim, plots=svg, root=".."), encoding="utf-8")
        written.append(path)
    return written
