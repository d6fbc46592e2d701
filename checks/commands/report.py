"""``attnaudit report``: the HTML site, the PDF and JUnit XML from a results file."""

from __future__ import annotations

import sys
from pathlib import Path

from attnaudit.checks.commands import _args

EXIT_OK, EXIT_FAIL = 0, 1


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="render the HTML site, PDF and JUnit XML from a results file")
    p.add_argument("results", type=Path, metavar="RESULTS.json")
    p.add_argument("--out", type=Path, help="output folder (default: 'report' beside RESULTS.json)")
    p.add_argument("--baseline", type=Path, default=None,
                   help="gate the verdicts against this baseline in the report and junit.xml "
                        "(default: the installed claims' baseline.json)")
    p.add_argument("--no-pdf", action="store_true", help="skip the PDF (Typst)")
    p.add_argument("--stability", type=Path, default=None, metavar="STABILITY.json",
                   help="add a stability column from an 'attnaudit stability --out' file")
    p.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from attnaudit.checks.results import load_document
    from attnaudit.reports.pdf import PdfError
    from attnaudit.reports.render import render_report

    baseline = args.baseline
    if baseline is None and _args.default_baseline().exists():
        baseline = _args.default_baseline()
    out = args.out if args.out is not None else args.results.parent / "report"
    load_document(args.results)  # an unreadable or invalid results file: one line, nothing written
    for folder in (out, out / "claims", out / "figures"):  # before any rendering
        _args.writable_folder(folder, "--out")
    try:
        report = render_report(args.results, out, baseline=baseline, pdf=not args.no_pdf,
                               stability=args.stability, log=sys.stderr)  # today's stderr
    except PdfError as exc:
        print(f"attnaudit: error: {exc} (the HTML site and junit.xml are written)", file=sys.stderr)
        return EXIT_FAIL
    paths, seconds = report["paths"], report["seconds"]
    gate = report["document"]["gate"]
    print(f"wrote {out / 'index.html'} ({len(paths['html']) - 1} claim pages)"
          + (f", {paths['pdf']}" if "pdf" in paths else "") + f", {paths['junit']} "
          f"in {seconds['total']:.1f}s; gate "
          + ("not evaluated (no baseline)" if gate is None else
             "passes" if gate["passes"] else f"fails ({len(gate['differences'])} differences)"))
    return EXIT_OK
