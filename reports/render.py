"""``attnaudit report``: results file → HTML site, PDF, JUnit XML and the plots, in one folder.

Layout of ``out``: ``index.html``, ``claims/<slug>.html`` and ``papers/<key>.html`` (the site;
plots and each paper's graph of results inline), ``figures/<plot id>.svg`` (the same plots and
graphs as files, which the PDF embeds), ``report.pdf`` with its Typst source ``report.typ`` and
data ``report-data.json``, ``letter-<key>.md`` and ``letter-<key>.pdf`` (a referee's letter per
paper) and ``junit.xml``.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TextIO

from attnaudit.checks.results import compare, load_baseline, load_document, load_stability, load_timings
from attnaudit.checks.results import groups as gate_groups
from attnaudit.reports.document import build_document
from attnaudit.reports.graph import extend_document, render_graphs, write_paper_pages
from attnaudit.reports.html import write_site
from attnaudit.reports.junit import write_junit


def _plot(job: tuple[str, dict[str, Any]]) -> str | None:
    from attnaudit.reports.plots import evidence_plot

    uid, ev = job
    return evidence_plot(ev, uid=uid)


# Below this many plots a process pool costs more than it saves.
PARALLEL_FROM = 12


def render_plots(document: dict[str, Any], out: Path, *, workers: int | None = None) -> dict[str, str]:
    """Every scaling and limit plot as SVG text (for the site) and as figures/<id>.svg (for the PDF).

    matplotlib is single-threaded, so plots are drawn in a process pool (one worker per core, at
    most four); each plot depends on its evidence alone, so the output does not depend on workers.
    """
    figures = out / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    evidence = [ev for claim in document["claims"] for ev in claim["evidence"] if ev["plot_id"]]
    jobs = [(ev["plot_id"], ev) for ev in evidence]
    workers = workers if workers is not None else min(4, os.cpu_count() or 1)
    if workers > 1 and len(jobs) >= PARALLEL_FROM:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            svgs = list(pool.map(_plot, jobs, chunksize=max(1, len(jobs) // (4 * workers))))
    else:
        svgs = [_plot(job) for job in jobs]
    plots: dict[str, str] = {}
    for ev, svg in zip(evidence, svgs, strict=True):
        if svg is None:
            ev["plot_id"] = None  # unplottable data: the page and the PDF show the figures only
            continue
        plots[ev["plot_id"]] = svg
        (figures / f"{ev['plot_id']}.svg").write_text(svg, encoding="utf-8")
    return plots


def render_report(results_path: Path, out: Path, *, baseline: Path | None = None, pdf: bool = True,
                  log: TextIO = sys.stderr, stability: Path | None = None) -> dict[str, Any]:
    """Render everything; returns the paths written and the seconds each stage took.

    ``baseline``: the gate's baseline; when given, the report and junit.xml show the gate's
    differences, otherwise the gate is reported as not evaluated.
    """
    results_path, out = Path(results_path), Path(out)
    stages: dict[str, float] = {}
    t0 = time.perf_counter()
    results = load_document(results_path)
    locked, diffs, paths = None, None, []
    # A claim pack's claims are gated against the pack's own baseline (recorded in the results),
    # a run of a selection on the selected ids alone; a pack not yet accepted is not gated here.
    for group in gate_groups(results, baseline or Path("-"), None, results_path):
        if (not group.is_pack and baseline is None) or (group.is_pack and not group.baseline.exists()):
            continue
        entries = load_baseline(group.baseline)
        locked = (locked or {}) | entries
        diffs = (diffs or []) + compare(group.records, entries, group.selection)
        paths.append(str(group.baseline))
    if diffs is not None:
        diffs.sort(key=lambda d: d.id)
    # A schema-1 baseline holds verdicts only: the gate then leaves proof statuses unlocked.
    proof_locked = not locked or any(e.get("proof") is not None for e in locked.values())
    document = build_document(results, timings=load_timings(results_path), gate=diffs,
                              baseline=", ".join(paths) if paths else None,
                              source=str(results_path), proof_locked=proof_locked,
                              stability=None if stability is None else load_stability(stability))
    extend_document(document, results)  # uses, used by, rests on; the abstract's contributions
    out.mkdir(parents=True, exist_ok=True)
    stages["load"] = time.perf_counter() - t0

    def stage(name: str, started: float) -> None:
        stages[name] = time.perf_counter() - started
        print(f"report: {name} done in {stages[name]:.1f}s", file=log, flush=True)

    t = time.perf_counter()
    n_plots = sum(ev["plot_id"] is not None for c in document["claims"] for ev in c["evidence"])
    print(f"report: {len(document['claims'])} claims, {n_plots} plots", file=log, flush=True)
    plots = render_plots(document, out) | render_graphs(document, out)
    stage("plots", t)
    t = time.perf_counter()
    written = {"html": write_site(document, plots, out)}
    for paper in document["papers"]:
        paper["letter_pdf"] = pdf
    written["papers"] = write_paper_pages(document, plots, out)
    written["junit"] = write_junit(document, out / "junit.xml")
    stage("html", t)
    if pdf:
        from attnaudit.reports.pdf import write_pdf

        t = time.perf_counter()
        written["pdf"] = write_pdf(document, out)
        stage("pdf", t)
    from attnaudit.reports.letter import write_report_letters

    t = time.perf_counter()
    written["letters"] = write_report_letters(results, out, source=str(results_path), pdf=pdf)
    stage("letters", t)
    stages["total"] = time.perf_counter() - t0
    return {"paths": written, "seconds": stages, "document": document}
