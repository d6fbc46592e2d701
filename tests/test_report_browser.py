"""The HTML report in a real headless Chromium (the system's, driven by Playwright).

Opens the site from disk (file://, as a reader would), with no network: no console errors, every
claim page reachable from the claims table, every plot visible, every formula a non-empty MathML
box, the table's filters (text, verdict, proof status) and sorts (by id, verdict and proof) working,
the proof's first false step one click from the proof badge, an undecided step styled apart from
agreeing and disagreeing ones, each check's controls visible, and hostile strings inert (no dialog
ever opens).
Screenshots go to ATTNAUDIT_ARTIFACTS (default build/test-artifacts) for a person to look at.

Skipped when Chromium or Playwright is missing, unless ATTNAUDIT_REQUIRE_BROWSER=1 (set by
.ci/run, which installs Debian's chromium), where a missing browser fails the test.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from report_fixture import hostile
from test_report_html import render

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(os.environ.get("ATTNAUDIT_ARTIFACTS", ROOT / "build" / "test-artifacts"))
# As root in a container, without a sandbox; no background traffic on a closed network.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def _chromium() -> str | None:
    return os.environ.get("ATTNAUDIT_CHROMIUM") or shutil.which("chromium") or shutil.which(
        "chromium-browser")


@pytest.fixture(scope="module")
def browser():
    required = os.environ.get("ATTNAUDIT_REQUIRE_BROWSER") == "1"
    executable = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if executable is None or sync_playwright is None:
        why = "no chromium on PATH" if executable is None else "playwright is not installed"
        if required:
            pytest.fail(f"ATTNAUDIT_REQUIRE_BROWSER=1 but {why}")
        pytest.skip(f"{why} (install Debian's chromium, or set ATTNAUDIT_CHROMIUM)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Page:
    """A page that records console errors, uncaught exceptions and dialogs."""

    def __init__(self, browser):
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.set_default_timeout(10_000)
        self.problems: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"pageerror: {e}"))
        self.page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss()))
        self.page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url}"))

    def open(self, path: Path) -> None:
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_load_state("load")


def _boxes(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(selector, """els => els.map(e => {
        const r = e.getBoundingClientRect();
        return {w: r.width, h: r.height, visible: !!(e.offsetParent || e.getClientRects().length),
                html: e.outerHTML.slice(0, 80)};
    })""")


def test_site_in_chromium(browser, tmp_path, report_results):
    out, report = render(tmp_path, report_results)
    claims = report["document"]["claims"]
    tab = Page(browser)
    tab.open(out / "index.html")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(ARTIFACTS / "report-index.png"), full_page=True)

    rows = tab.page.locator("#claims tbody tr")
    assert rows.count() == len(claims)
    # Filter by text, then by verdict; the counter follows.
    tab.page.fill("#claim-filter", "witness")
    assert tab.page.locator("#claims tbody tr:visible").count() == 1
    tab.page.fill("#claim-filter", "")
    tab.page.select_option("#verdict-filter", "refuted")
    assert tab.page.locator("#claims tbody tr:visible").count() == 2
    assert tab.page.inner_text("#claim-count") == "2 shown"
    # The proof filter, alone and with the verdict filter.
    tab.page.select_option("#proof-filter", "absent")
    assert tab.page.locator("#claims tbody tr:visible").count() == 1  # refuted and absent
    tab.page.select_option("#verdict-filter", "")
    assert tab.page.locator("#claims tbody tr:visible").count() == 2
    tab.page.select_option("#verdict-filter", "confirmed")
    tab.page.select_option("#proof-filter", "flawed")
    assert tab.page.locator("#claims tbody tr:visible").count() == 1
    assert tab.page.inner_text("#claim-count") == "1 shown"
    tab.page.select_option("#verdict-filter", "")
    tab.page.select_option("#proof-filter", "")
    assert tab.page.locator("#claims tbody tr:visible").count() == len(claims)
    # Sorting by proof status: worst first, then reversed.
    order = ["flawed", "incomplete", "absent", "sound", "unjudged"]
    tab.page.click("#claims th >> text=Proof")
    proofs = tab.page.eval_on_selector_all("#claims tbody tr", "rs => rs.map(r => r.dataset.proof)")
    assert proofs == sorted((c["proof"]["status"] for c in claims), key=order.index)
    tab.page.click("#claims th >> text=Proof")
    assert tab.page.eval_on_selector_all("#claims tbody tr", "rs => rs.map(r => r.dataset.proof)") \
        == proofs[::-1]
    # Sorting by id twice reverses the order.
    tab.page.click("#claims th >> text=Claim")
    ascending = tab.page.locator("#claims tbody tr td:first-child").all_inner_texts()
    tab.page.click("#claims th >> text=Claim")
    assert tab.page.locator("#claims tbody tr td:first-child").all_inner_texts() == ascending[::-1]
    assert ascending == sorted(ascending)

    formulas = _boxes(tab.page, "math")
    assert formulas and all(b["w"] > 0 and b["h"] > 0 for b in formulas), formulas

    hrefs = tab.page.eval_on_selector_all("#claims tbody a", "as => as.map(a => a.href)")
    assert len(hrefs) == len(claims)
    for href, claim in zip(sorted(hrefs), sorted(claims, key=lambda c: c["slug"]), strict=True):
        tab.page.goto(href)
        assert tab.page.locator("h1").inner_text() == claim["id"]
        plots = _boxes(tab.page, "figure.plot svg")
        expected = sum(ev["plot_id"] is not None for ev in claim["evidence"])
        assert len(plots) == expected
        assert all(b["visible"] and b["w"] > 200 and b["h"] > 100 for b in plots), plots
        formulas = _boxes(tab.page, "math")
        assert all(b["w"] > 0 and b["h"] > 0 for b in formulas), [b for b in formulas if not b["w"]]
        # Both answers beside the label.
        assert tab.page.locator("#answer-proof .badge.proof").count() == 1
        assert tab.page.locator("#answer-proof .badge.proof").inner_text() == claim["proof"]["status"]
        controls = _boxes(tab.page, ".controls li")
        assert len(controls) == sum(len(ev["controls"]) for ev in claim["evidence"])
        assert all(b["visible"] and b["h"] > 0 for b in controls), controls
        if claim["id"] == "toy/confirmed-rate":
            tab.page.screenshot(path=str(ARTIFACTS / "report-claim.png"), full_page=True)
        if claim["id"] == "toy/refuted-rate":
            # Undecided is styled apart: dashed and unfilled, unlike agrees and disagrees.
            style = """e => { const s = getComputedStyle(e);
                return {bg: s.backgroundColor, border: s.borderTopStyle}; }"""
            undecided = tab.page.eval_on_selector("tr.undecided .badge.undecided", style)
            agrees = tab.page.eval_on_selector("tr.agrees .badge.agrees", style)
            disagrees = tab.page.eval_on_selector("tr.disagrees .badge.disagrees", style)
            assert undecided["border"] == "dashed"
            assert len({undecided["bg"], agrees["bg"], disagrees["bg"]}) == 3
        if claim["id"] == "toy/flawed-proof":
            tab.page.screenshot(path=str(ARTIFACTS / "report-claim-flawed.png"), full_page=True)
            # The proof's first false step is one click away, and highlighted.
            tab.page.click("#answer-proof a.proof-finding")
            assert tab.page.url.endswith("#step-2")
            assert "finding" in tab.page.get_attribute("#step-2", "class").split()
            row = tab.page.eval_on_selector("#step-2", "e => e.getBoundingClientRect().top")
            assert -1 <= row < 900  # scrolled into view (to within a sub-pixel)
    # Back to the index through the page's own link.
    tab.page.click("text=← all claims")
    assert tab.page.url.endswith("index.html#claims-heading")
    assert tab.problems == []


def test_hostile_site_runs_nothing(browser, tmp_path, report_results):
    out, report = render(tmp_path, hostile(report_results))
    tab = Page(browser)
    tab.open(out / "index.html")
    tab.page.fill("#claim-filter", "panic")  # our script still works around the hostile text
    assert tab.page.locator("#claims tbody tr:visible").count() == len(report["document"]["claims"])
    for claim in report["document"]["claims"]:
        tab.open(out / "claims" / f"{claim['slug']}.html")
        assert tab.page.locator("script").count() == 0
        assert tab.page.locator("img").count() == 0
    assert tab.problems == []
