"""The graph of GeoResolver's results in headless Chromium: one visible node per claim, each
refuted result's dependants joined to it, a node opening its claim page; screenshots of the front
page's graph and the paper's page go to ATTNAUDIT_ARTIFACTS (see tests/test_report_browser.py)."""

from __future__ import annotations

import json
import shutil

import pytest
from test_graph import georesolver_dependants, georesolver_results
from test_report_browser import ARTIFACTS, Page, browser  # noqa: F401  (the fixture)

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def test_georesolver_graph_in_chromium(browser, tmp_path):  # noqa: F811
    from attnaudit.reports.render import render_report

    results = georesolver_results()
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    render_report(path, tmp_path / "report", pdf=False)
    tab = Page(browser)
    tab.open(tmp_path / "report" / "index.html")
    figure = tab.page.locator("#graph-georesolver")
    figure.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    figure.screenshot(path=str(ARTIFACTS / "graph-georesolver.png"))
    boxes = tab.page.eval_on_selector_all("#graph-georesolver g.node", """gs => gs.map(g => {
        const r = g.getBoundingClientRect();
        return {id: g.querySelector('title').textContent, w: r.width, h: r.height}; })""")
    assert sorted(b["id"] for b in boxes) == sorted(r["id"] for r in results["results"])
    assert all(b["w"] > 20 and b["h"] > 10 for b in boxes), [b for b in boxes if b["w"] <= 20]
    edges = set(tab.page.eval_on_selector_all("#graph-georesolver g.edge title",
                                              "ts => ts.map(t => t.textContent)"))
    for used, users in georesolver_dependants(results).items():
        assert {f"{used}->{user}" for user in users} <= edges
    # A node opens its claim page.
    tab.page.locator("#graph-georesolver g.node", has_text="theorem-2.6/ida").locator("a").first.click()
    tab.page.wait_for_load_state("load")
    assert tab.page.url.endswith("claims/georesolver__theorem-2.6__ida.html")
    assert tab.page.locator("h1").inner_text() == "georesolver/theorem-2.6/ida"
    assert tab.page.locator("ul.used-by li").count() == 5
    tab.open(tmp_path / "report" / "papers" / "georesolver.html")
    tab.page.screenshot(path=str(ARTIFACTS / "paper-georesolver.png"), full_page=True)
    assert tab.page.locator("table.contributions tbody tr").count() == 15
    assert tab.problems == []
