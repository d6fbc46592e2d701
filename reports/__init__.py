"""The audit report: a self-contained HTML site, a Typst PDF and JUnit XML, from a results file.

``reports`` reads results files only (no torch, no sympy), so a report can be rebuilt on a machine
without the numerical stack. Entry point: :func:`reports.render.render_report`.
"""
