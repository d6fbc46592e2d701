"""Claim pages a referee can read, measured in headless Chromium: over EVERY claim page of a report
built from real records, no two text boxes overlap and no formula overflows its container.

Geometry, not presence: each visible run of text (one box per line of a text node; a formula is
one box) is taken from the DOM's layout boxes, clipped to the scrolling or clipping boxes around
it, and compared with every other; each formula's box must lie inside its nearest block
container, or inside a box that scrolls. An overlap or an overflow is reported with its page and
the two texts, so a failure says where to look.

The records: ``ATTNAUDIT_REPORT_RESULTS`` names a results file (the lead's catalogue run, say);
otherwise a representative set of built-in claims (refuted, confirmed, flawed and absent proofs,
scaling laws, bounds, identities, several clauses) is run through the test session's record store
(tests/claimtest.py), so each claim still runs once per session.

Skipped like tests/test_report_browser.py when Chromium or Playwright is missing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import claimtest
import pytest
from test_report_browser import CHROMIUM_ARGS, _chromium

from attnaudit.checks.discovery import discover
from attnaudit.checks.results import write_results
from attnaudit.checks.tables import fill_tables
from attnaudit.checks.witnesses import attach_witness_files
from attnaudit.reports.render import render_report

# Chosen to cover what a page can hold: a refuted Θ with an Ω clause and a symbolic derivation
# (theorem-5.3), a refuted O() bound over a grid (proposition-4.2, theorem-10.1/bound), flawed proofs
# with a first false step, a confirmed rate, an identity with a witness-free confirmation, an
# unverifiable construction whose reason is a paragraph, and several papers.
REPRESENTATIVE = (
    "connection-walk/mha-edge-transport",
    "entropic-bound/rank-lower-bound",
    "fiber-bundle-ide/rmsnorm-lipschitz",
    "georesolver/lemma-2.5/softmax",
    "georesolver/proposition-2.3/gaussian",
    "georesolver/section-2.8/degradation",
    "georesolver/theorem-10.1/bound",
    "georesolver/theorem-5.3",
    "icl-nonlinear/construction",
    "laplacianformer/newton-schulz",
    "mha-identification/rebalancing",
    "rank-collapse/doubly-exponential",
    "riemannian-attention/proposition-4.2",
    "riemannian-attention/theorem-3.2",
    "signal-subspace/convergence",
)

# A line's glyph box may reach past its line box by a pixel or two when the font's ascent and
# descent exceed the line height; two boxes overlap only when they share more than this.
OVERLAP_PX = 2.0
# Sub-pixel layout: a formula may end a fraction of a pixel past its container's edge.
OVERFLOW_PX = 1.0

MEASURE = """([overlapPx, overflowPx]) => {
  const clipping = v => v !== 'visible';
  const scrolls = v => v === 'auto' || v === 'scroll';
  // The part of a rect that shows: inside every clipping or scrolling box around the element.
  function visible(el, r) {
    let [l, t, rr, b] = [r.left, r.top, r.right, r.bottom];
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (clipping(s.overflowX) || clipping(s.overflowY)) {
        const c = a.getBoundingClientRect();
        if (clipping(s.overflowX)) { l = Math.max(l, c.left); rr = Math.min(rr, c.right); }
        if (clipping(s.overflowY)) { t = Math.max(t, c.top); b = Math.min(b, c.bottom); }
      }
    }
    return (rr - l > 0.5 && b - t > 0.5) ? {l, t, r: rr, b} : null;
  }
  const shown = el => !!(el.offsetParent || el.getClientRects().length)
      && getComputedStyle(el).visibility !== 'hidden';
  const boxes = [];
  // Each formula is one box: its glyphs overlap one another by design (scripts, fractions).
  for (const m of document.querySelectorAll('math')) {
    if (!shown(m)) continue;
    const v = visible(m, m.getBoundingClientRect());
    if (v) boxes.push({...v, owner: m, text: (m.textContent || '').trim().slice(0, 60)});
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || el.closest('math, svg, script, style, title')) continue;
    if (!shown(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) {
      const v = visible(el, r);
      if (v) boxes.push({...v, owner: n, text: n.textContent.trim().slice(0, 60)});
    }
  }
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.owner === b.owner) continue;  // one text's own lines
      const w = Math.min(a.r, b.r) - Math.max(a.l, b.l), h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
      if (w > overlapPx && h > overlapPx) {
        overlaps.push(`"${a.text}" overlaps "${b.text}" (${w.toFixed(1)}x${h.toFixed(1)} px)`);
      }
    }
  }
  // A formula, or a line of text, must lie inside its nearest block container unless a box
  // between them scrolls (then it is never clipped and never spills over its neighbours).
  const overflows = [];
  function spill(what, start, r) {
    for (let a = start; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (scrolls(s.overflowX)) return;
      if (s.display === 'inline' || s.display === 'contents') continue;
      const c = a.getBoundingClientRect();
      const by = Math.max(r.right - c.right, c.left - r.left);
      if (by > overflowPx) {
        overflows.push(`${what} (${r.width.toFixed(0)} px) spills out of its ` +
                       `<${a.tagName.toLowerCase()}${a.className ? '.' + a.className : ''}> ` +
                       `(${c.width.toFixed(0)} px) by ${by.toFixed(1)} px`);
      }
      return;  // the nearest block container decides
    }
  }
  for (const m of document.querySelectorAll('math')) {
    if (shown(m)) spill(`formula "${(m.textContent || '').trim().slice(0, 60)}"`, m.parentElement,
                        m.getBoundingClientRect());
  }
  const texts = new Map(boxes.filter(b => b.owner.nodeType === Node.TEXT_NODE).map(b => [b.owner, b.text]));
  for (const [node, text] of texts) {
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) spill(`text "${text}"`, node.parentElement, r);
  }
  return {boxes: boxes.length, formulas: document.querySelectorAll('math').length, overlaps, overflows};
}"""


def measure(page, path: Path) -> dict:
    """Open ``path`` and measure it: {boxes, formulas, overlaps: [...], overflows: [...]}."""
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    return page.evaluate(MEASURE, [OVERLAP_PX, OVERFLOW_PX])


def measure_site(browser, out: Path, widths=(1280,)) -> dict[str, list[str]]:
    """Every claim page of the site at ``out``, and its front page, at each width: 'page @ width:
    problem' lines."""
    problems: dict[str, list[str]] = {"overlaps": [], "overflows": []}
    pages = sorted((out / "claims").glob("*.html"))
    assert pages, f"no claim pages under {out}"
    pages += [out / "index.html"] if (out / "index.html").exists() else []
    for width in widths:
        tab = browser.new_page(viewport={"width": width, "height": 900})
        for path in pages:
            found = measure(tab, path)
            assert found["boxes"] > 0, path
            for kind in problems:
                problems[kind] += [f"{path.stem} @ {width}px: {p}" for p in found[kind]]
        tab.close()
    return problems


def real_results(folder: Path) -> Path:
    """A results file of real records: ATTNAUDIT_REPORT_RESULTS, or the representative claims from
    the session's record store, assembled as ``attnaudit run --out`` assembles them."""
    given = os.environ.get("ATTNAUDIT_REPORT_RESULTS")
    if given:
        return Path(given)
    catalogue = discover(entry_points=False)
    by_id = {c.id: c for c in catalogue.claims}
    records = [json.loads(json.dumps(claimtest.run(by_id[cid]))) for cid in REPRESENTATIVE]
    attach_witness_files(records)
    papers = [{"key": p.key, "title": p.title, "authors": list(p.authors), "arxiv": p.arxiv,
               "source_file": p.source_file}
              for key, p in sorted(catalogue.papers.items()) if key in {r["paper"] for r in records}]
    return write_results(folder, records, {r["id"]: 1.0 for r in records},
                         fill_tables(catalogue.tables, records), papers)


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if executable is None or sync_playwright is None:
        if os.environ.get("ATTNAUDIT_REQUIRE_BROWSER") == "1":
            pytest.fail("ATTNAUDIT_REQUIRE_BROWSER=1 but no chromium or playwright")
        pytest.skip("no chromium or playwright (see tests/test_report_browser.py)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def real_site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("geometry")
    out = folder / "report"
    render_report(real_results(folder), out, pdf=False)
    return out


def test_no_text_overlaps_and_no_formula_overflows_on_any_claim_page(browser, real_site):
    problems = measure_site(browser, real_site, widths=(1280, 800))
    assert problems == {"overlaps": [], "overflows": []}, "\n".join(
        problems["overlaps"] + problems["overflows"])


def test_the_measure_sees_an_overlap_and_an_overflow(browser, tmp_path):
    """The measure can fail: a label drawn over text, and a formula in a fixed-width cell that
    neither wraps nor scrolls (what the templates did before), are each found once."""
    page = tmp_path / "claims" / "bad.html"
    page.parent.mkdir()
    page.write_text("""<!doctype html><html><body style="font: 16px sans-serif">
<p style="position: relative">the step's text<span style="position: absolute; left: 0">◀ label</span></p>
<table style="table-layout: fixed; width: 200px"><tr><td style="white-space: nowrap; width: 100px">
<math><mi>a</mi><mo>+</mo><mi>b</mi><mo>+</mo><mi>c</mi><mo>+</mo><mi>d</mi><mo>+</mo><mi>e</mi>
<mo>+</mo><mi>f</mi><mo>+</mo><mi>g</mi><mo>+</mo><mi>h</mi><mo>+</mo><mi>i</mi><mo>+</mo><mi>j</mi>
</math></td><td>next cell</td></tr></table>
<div style="overflow-x: auto; width: 80px"><math><mi>x</mi><mo>+</mo><mi>y</mi><mo>+</mo><mi>z</mi>
<mo>+</mo><mi>w</mi><mo>+</mo><mi>v</mi><mo>+</mo><mi>u</mi><mo>+</mo><mi>t</mi></math></div>
</body></html>""", encoding="utf-8")
    problems = measure_site(browser, tmp_path)
    assert len(problems["overlaps"]) == 2, problems  # the label over the step; the formula over the next cell
    assert any("label" in p and "the step's text" in p for p in problems["overlaps"])
    assert any("next cell" in p for p in problems["overlaps"])
    assert len(problems["overflows"]) == 1 and "spills out of its <td>" in problems["overflows"][0]
