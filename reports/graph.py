"""The results of each paper as a graph: one node per claim (filled by verdict, bordered by proof
status), an arrow from each used result to the result whose argument uses it (red when the used
result is refuted or unverifiable), laid out by Graphviz ``dot``.

The site embeds the SVG inline (each node links to its claim page); the PDF embeds the same graph
as ``figures/graph-<paper>.svg``. Without ``dot`` the pages show the same graph as a plain list and
say how to install Graphviz. The DOT source is built here from the document alone, every string
quoted; ``dot`` escapes it again as XML text, so its SVG carries no markup from a results file.
The same document gives the same SVG (sorted input; the version banner and comments are dropped).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from attnaudit.checks.results import NOT_ESTABLISHED, contributions
from attnaudit.reports.document import slug

INSTALL = ("Install Graphviz to draw this graph: 'apt-get install graphviz' (Debian, Ubuntu), "
           "'brew install graphviz' (macOS), or https://graphviz.org/download/; the report calls its "
           "'dot' program.")

# Node fill by verdict (a tint of the report's verdict colour, so the text stays dark) and border
# by proof status (the report's proof colour, and a dash pattern so it does not rest on colour).
FILL = {"confirmed": "#d3f0da", "refuted": "#f9d4cf", "inconclusive": "#f8ebc0",
        "unverifiable": "#e3e6ea", "error": "#ead7f5"}
BORDER = {"sound": ("#1a7f37", "solid"), "flawed": ("#b42318", "bold"),
          "incomplete": ("#9a6700", "dashed"), "absent": ("#57606a", "dotted")}
RED, GREY = "#b42318", "#5b6672"
# Isolated results (no edge in this paper) are laid in rows of this many, so a paper with
# many unconnected results gives a block rather than one very wide row.
COLUMN = 5
# Graphviz runs well under a second on a paper's graph; a hung process must not hang the report.
DOT_TIMEOUT_S = 60


def natural(claim_id: str) -> list[Any]:
    """Sort key reading numbers as numbers: theorem-2.10 after theorem-2.9."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", claim_id)]


def extend_document(document: dict[str, Any], results: dict[str, Any]) -> dict[str, Any]:
    """Add to each claim of the report document ``graph``: what it uses (with the quote), what uses
    it, and what it rests on; and to each paper its abstract's ``contributions`` with their
    readings. Read from the records' ``uses``, ``used_by`` and ``rests_on``, which the run wrote
    (:func:`checks.graph.annotate`) once every record existed."""
    records = list(results["results"])
    by_id = {r.id: r for r in records}
    in_report = {c["id"] for c in document["claims"]}

    def ref(cid: str, **extra: Any) -> dict[str, Any]:
        record = by_id.get(cid)
        return {"id": cid, "slug": slug(cid) if cid in in_report else None,
                "verdict": record.verdict if record else None,
                "proof": record.proof.status if record else None} | extra

    for claim in document["claims"]:
        r = by_id.get(claim["id"])
        claim["graph"] = {
            "uses": [ref(u.claim, quote=u.quote) for u in r.uses] if r else [],
            "used_by": [ref(cid) for cid in r.used_by] if r else [],
            "rests_on": [ref(f.claim, through=list(f.through)) for f in r.rests_on] if r else [],
        }
    readings = contributions(results.get("papers") or [], records)
    for paper in document["papers"]:
        paper["contributions"] = [c | {"carriers": [ref(x["id"]) for x in c["carriers"]]}
                                  for c in readings.get(paper["key"], [])]
        paper["edges"] = sum(len(c["graph"]["uses"]) for c in document["claims"]
                             if c["paper"] == paper["key"])
    return document


def _q(text: Any) -> str:
    """A DOT string literal."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def paper_dot(document: dict[str, Any], key: str, *, link: str | None, font: str) -> str:
    """The DOT source of paper ``key``'s graph. ``link``: prefix of the claim pages' addresses
    (``claims/`` from the front page), or None for no links (the PDF figure)."""
    claims = sorted((c for c in document["claims"] if c["paper"] == key), key=lambda c: natural(c["id"]))
    by_id = {c["id"]: c for c in document["claims"]}
    prefix = "g_" + key.replace("-", "_")  # dot writes a "-" in an id as an entity
    edges = []  # (used, user)
    for c in claims:
        for u in c.get("graph", {}).get("uses", []):
            edges.append((u["id"], c["id"], u.get("quote") or ""))
    connected = {a for a, _, _ in edges} | {b for _, b, _ in edges}
    lines = [f"digraph {_q(key)} {{",
             f'  graph [id={_q(prefix)}, rankdir=LR, nodesep=0.18, ranksep=0.35, bgcolor="transparent", '
             f"fontname={_q(font)}, tooltip={_q(key + ': results and what their proofs use')}];",
             f'  node [shape=box, style="rounded,filled", fontname={_q(font)}, fontsize=10, '
             f'margin="0.10,0.05", color="{GREY}", fontcolor="#1d232b"];',
             f'  edge [color="{GREY}", arrowsize=0.7];']
    numbered = {}
    for cid in [c["id"] for c in claims] + sorted(connected - {c["id"] for c in claims}, key=natural):
        numbered[cid] = len(numbered) + 1
        c = by_id.get(cid)
        attrs: dict[str, Any] = {"id": f"{prefix}_n{numbered[cid]}"}
        if c is None or c["paper"] != key:
            # Another paper's result, or one not in this run: drawn apart, dashed and white.
            attrs |= {"label": (cid,) if c else (cid, "not in this run"), "style": "rounded,dashed",
                      "fillcolor": "white", "tooltip": cid}
        else:
            verdict, proof = c["verdict"], c["proof"]["status"]
            colour, dash = BORDER.get(proof, ("#6e2594", "solid"))
            attrs |= {"label": (cid.split("/", 1)[1], f"{verdict} · proof {proof}"),
                      "fillcolor": FILL.get(verdict, "white"), "color": colour, "penwidth": "2",
                      "style": f"rounded,filled,{dash}",
                      "tooltip": f"{cid}: {c.get('label', '')}: {verdict}, proof {proof}"}
        if c is not None and link is not None:
            attrs |= {"URL": f"{link}{c['slug']}.html", "target": "_top"}
        lines.append(f"  {_q(cid)} [" + ", ".join(f"{k}={_attr(v)}" for k, v in attrs.items()) + "];")
    for i, (used, user, quote) in enumerate(sorted(edges), start=1):
        source = by_id.get(used)
        weak = source is not None and source["verdict"] in NOT_ESTABLISHED
        attrs = {"id": f"{prefix}_e{i}", "tooltip": f"{user} uses {used}: “{quote}”"}
        if weak:
            attrs |= {"color": RED, "penwidth": "1.8"}
        lines.append(f"  {_q(used)} -> {_q(user)} [" + ", ".join(f"{k}={_attr(v)}" for k, v in attrs.items())
                     + "];")
    isolated = [c["id"] for c in claims if c["id"] not in connected]
    for start in range(0, len(isolated), COLUMN):
        column = isolated[start:start + COLUMN]
        for a, b in zip(column, column[1:], strict=False):
            lines.append(f"  {_q(a)} -> {_q(b)} [style=invis];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _attr(value: str | tuple[str, ...]) -> str:
    """An attribute value: a string, or a tuple of label lines joined by DOT's line break."""
    if isinstance(value, tuple):
        return '"' + "\\n".join(_q(line)[1:-1] for line in value) + '"'
    return _q(value)


def dot_program() -> str | None:
    return shutil.which("dot")


def render_svg(source: str, program: str) -> str:
    """SVG from ``dot -Tsvg``, from its ``<svg`` on, comments dropped, sized to fit its box."""
    done = subprocess.run([program, "-Tsvg"], input=source, capture_output=True, text=True,
                          timeout=DOT_TIMEOUT_S, check=False)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise RuntimeError(f"dot failed (exit {done.returncode}): {first}")
    svg = done.stdout[done.stdout.index("<svg"):]
    svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.DOTALL)
    return svg.replace("<svg ", '<svg class="results-graph" role="img" ', 1)


def render_graphs(document: dict[str, Any], out: Path) -> dict[str, str]:
    """Each paper's graph: SVG for the front page (``graph-<key>``) and for its paper page
    (``graph-<key>-page``), and ``figures/graph-<key>.svg`` for the PDF. Each paper of the
    document gets ``graph``: ``{"drawn": bool, "figure": path or None, "note": why not}``.
    Returns plot id → SVG text (for the site, beside the evidence plots)."""
    program = dot_program()
    svgs: dict[str, str] = {}
    figures = Path(out) / "figures"
    for paper in document["papers"]:
        key = paper["key"]
        if program is None:
            paper["graph"] = {"drawn": False, "figure": None, "note": INSTALL}
            continue
        try:
            svgs[f"graph-{key}"] = render_svg(
                paper_dot(document, key, link="claims/", font=HTML_FONT), program)
            svgs[f"graph-{key}-page"] = render_svg(
                paper_dot(document, key, link="../claims/", font=HTML_FONT), program)
            figures.mkdir(parents=True, exist_ok=True)
            (figures / f"graph-{key}.svg").write_text(
                render_svg(paper_dot(document, key, link=None, font=PDF_FONT), program), encoding="utf-8")
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            paper["graph"] = {"drawn": False, "figure": None, "note": f"{exc}; {INSTALL}"}
            continue
        paper["graph"] = {"drawn": True, "figure": f"figures/graph-{key}.svg", "note": None}
    return svgs


HTML_FONT = "Helvetica,Arial,sans-serif"
# A font Typst bundles, so the PDF shows the figure's text without system fonts.
PDF_FONT = "DejaVu Sans Mono"


def write_paper_pages(document: dict[str, Any], plots: dict[str, str], out: Path) -> list[Path]:
    """``papers/<key>.html``: the paper's contributions with their readings, its graph and its
    claims, with links to its referee's letter."""
    from markupsafe import Markup

    from attnaudit.reports.html import environment

    env = environment()
    page = env.get_template("paper.html.j2")
    folder = Path(out) / "papers"
    folder.mkdir(parents=True, exist_ok=True)
    svg = {k: Markup(v) for k, v in plots.items()}
    written = []
    for paper in document["papers"]:
        path = folder / f"{paper['key']}.html"
        path.write_text(page.render(doc=document, paper=paper, plots=svg, root=".."), encoding="utf-8")
        written.append(path)
    return written
