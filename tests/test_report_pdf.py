"""The PDF report: Typst compiles the fixture document; pypdf reads the text back.

No string from a results file may reach Typst source: the template is a fixed file that reads
report-data.json, so hostile strings must compile and come out literally as text.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from report_fixture import GATE, HOSTILE, hostile, report_baseline, typed

from attnaudit.checks.results import compare
from attnaudit.reports.document import PROOF_STATUSES, VERDICTS, build_document
from attnaudit.reports.pdf import TEMPLATE, formula, statement, write_pdf

pypdf = pytest.importorskip("pypdf")

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400" viewBox="0 0 640 400">'
       '<rect width="640" height="400" fill="#f5f7f9"/><path d="M40 360 L600 40" stroke="#0072B2" '
       'stroke-width="3"/><circle cx="320" cy="200" r="12" fill="#D55E00"/></svg>')

# Markup in every language the report passes through (Typst above all).
NASTY = ['#panic("x")', "]", "[", "$", '"', "\\", "*bold*", "_under_", "<script>", "@ref", "// comment",
         "/* c */", "#import", "<lab>", "`raw`", "= heading", "- item", "+ enum", "~", "'quote'"]
NASTY_TEXT = " ".join(NASTY)
NASTY_LATEX = r'\text{#import "x": * ] [ $ ) // @lab <b>} x \le y \text{ #panic("x") *bold* /* c */}'

# The formulas the template must rebuild with Typst's math functions (never as source text).
FORMULAS = [r"\frac{a+b}{c}", r"x_i^2", r"e^{-\mu t}", r"\sqrt{x^2+1}", r"\sqrt[3]{y}",
            r"\left( \frac{n}{\sqrt{d}} \right)", r"\lim_{x\to 0} \frac{\sin x}{x} = 1",
            r"\sum_{i=1}^n a_i", r"\mathcal{L}(q) - \mathcal{L}^*", r"q \in \mathbb{R}",
            r"\text{for all } x", r"a \le b", r"\Theta(n \log n)", r"\hat{x} + \bar{y} + \overline{ab}",
            r"\underbrace{a+b}_{n}", r"\operatorname{sign}(x)", r"\max_i x_i", r"\|x\|_2",
            r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}",
            r"\begin{cases} 1 & x > 0 \\ 0 & x \le 0 \end{cases}",
            r"a\,b\quad c", r"\binom{n}{k}", r"\left\{ x \right.", r"\mathrm{IDA}", r"\mathbf{x}"]


def document_of(results: dict, *, gate: bool = True) -> dict:
    results = typed(results)
    diffs = compare(results["results"], report_baseline()["claims"]) if gate else None
    return build_document(results, gate=diffs, baseline="baseline.json" if gate else None,
                          source="run/results.json", timings={r.id: 1.25 for r in results["results"]})


def compile_pdf(out: Path, document: dict) -> Path:
    """What render.py does around write_pdf: the plots as figures/<plot_id>.svg, then the PDF."""
    (out / "figures").mkdir(parents=True, exist_ok=True)
    for claim in document["claims"]:
        for ev in claim["evidence"]:
            if ev["plot_id"] is not None:
                (out / "figures" / f"{ev['plot_id']}.svg").write_text(SVG, encoding="utf-8")
    return write_pdf(document, out)


def pdf_text(path: Path) -> str:
    return "\n".join(page.extract_text() or "" for page in pypdf.PdfReader(str(path)).pages)


def squeeze(text: str) -> str:
    """Text without whitespace: a line may wrap anywhere in a long string."""
    return "".join(text.split())


@pytest.fixture
def document(report_results):
    return document_of(report_results)


@pytest.fixture
def built(tmp_path, document):
    pdf = compile_pdf(tmp_path / "report", document)
    return pdf, pdf_text(pdf)


def test_write_pdf_writes_the_pdf_its_data_and_the_fixed_template(built, tmp_path):
    pdf, _ = built
    out = tmp_path / "report"
    assert pdf == out / "report.pdf" and pdf.read_bytes().startswith(b"%PDF-")
    assert (out / "report.typ").read_bytes() == TEMPLATE.read_bytes()  # nothing spliced in
    data = json.loads((out / "report-data.json").read_text(encoding="utf-8"))
    assert [c["id"] for c in data["document"]["claims"]] == sorted(
        ["toy/confirmed-rate", "toy/flawed-proof", "toy/refuted-rate", "toy/refuted-witness",
         "toy/inconclusive-fit", "toy/unverifiable", "toy/errored"])
    assert [c["proof"]["status"] for c in data["document"]["claims"]] == [
        "sound", "unjudged", "flawed", "sound", "incomplete", "absent", "absent"]


def test_text_has_every_claim_id_and_both_answers(built, document):
    _, text = built
    lines = text.splitlines()
    for claim in document["claims"]:
        # The claim's heading: its id, unbroken, its verdict and its proof status on one line.
        proof = f"proof {claim['proof']['status']}"
        assert any(claim["id"] in line and claim["verdict"] in line and proof in line for line in lines), \
            claim["id"]
    for verdict in VERDICTS:
        assert verdict in text
    for status in PROOF_STATUSES:
        assert f"proof {status}" in text


def test_cover_claims_table_and_summary_table(built):
    _, text = built
    flat = " ".join(text.split())
    assert "attnaudit audit report" in flat and "run/results.json" in flat
    assert "7 claims from 1 paper" in flat
    for count in ("2 refuted", "1 error", "1 inconclusive", "1 unverifiable", "2 confirmed"):
        assert flat.count(count) == 2, count  # the run's counts and the paper's
    bare = squeeze(text)
    for status, n in {"flawed": 1, "incomplete": 1, "absent": 2, "sound": 2, "unjudged": 1}.items():
        assert bare.count(f"{status}{n}") >= 2, status  # a proof badge, then its count
    assert "A Toy Paper on Attention" in flat and "A. Tester, B. Prover" in flat and "2601.00001v1" in flat
    # The gate fails against the fixture's baseline: every difference is listed.
    assert "baseline.json" in flat
    for claim_id in GATE:
        assert claim_id in flat
    assert "proof sound → flawed" in flat and "confirmed → inconclusive" in flat
    assert "Key figure" in flat and "Proof" in flat and "step 'the rate' is false" in flat
    assert "Table 1 (toy §3): Guarantees" in flat
    assert "μ ∝ Δ^-6 (95% CI [-6.03, -5.97])" in flat and "not run in this selection" in flat


def test_claim_sections(built, report_results):
    _, text = built
    flat = " ".join(text.split())
    # The two findings: the proof's first false step (flawed-proof, step 2, not the later false
    # step 3) and the first false statement step (refuted-rate, step 3): the sentence and the mark.
    assert flat.lower().replace("’", "'").count("the proof's first false step") == 2
    assert flat.lower().count("first false statement step") == 2
    assert "First false step: the derivative vanishes" in flat
    assert "μ = Θ(ε²/Δ⁶), not Θ(ε²/Δ⁴)" in flat and "Derived by attnaudit from rate-vs-delta" in flat
    assert "ValueError: bad grid" in flat and "claims/toy/spec.py" in flat
    assert "No numerical checks." in flat and "No symbolic derivation" in flat
    assert "attnaudit replay witnesses/toy__refuted-witness__far-weight.json" in flat
    assert "found by random, case 7, seed 0, cpu" in flat
    for name in ("norm-vs-n", "weight-to-one", "rate-vs-delta", "far-weight", "near-weight", "slope-vs-d"):
        assert name in flat
    assert "violated on 40 of 512 cases" in flat
    assert "interval [0.999, 1.001] ± 0.01 contains 1" in flat  # a check's decision
    assert "1.25 s" in flat and "quick" in flat and "float64" in flat and "0123456789abcdef" in flat
    assert "sympy 1.14.0" in flat


def test_claim_sections_show_readings_roles_statuses_and_controls(built, report_results):
    _, text = built
    flat = " ".join(text.split())
    bare = squeeze(text)
    for record in report_results["results"]:
        proof = record["proof"]
        assert proof["reason"] in flat, record["id"]
        for reading in record["readings"]:
            for key in ("text", "why", "summary"):
                assert squeeze(reading[key]) in bare, (record["id"], key)
        for ev in record["evidence"]:
            for c in ev["controls"]:
                assert squeeze(c["variant"]) in bare and squeeze(c["summary"]) in bare
    assert "alternative all-eps" in flat  # the alternative reading, by id
    n_controls = [c["failed"] for r in report_results["results"] for ev in r["evidence"]
                  for c in ev["controls"]]
    assert flat.count("control failed") == n_controls.count(True)
    assert flat.count("control passed") == n_controls.count(False)
    assert flat.count("cannot discriminate") >= 2 * n_controls.count(False)
    steps = [s for r in report_results["results"] for s in r["derivation"]["steps"]]
    assert flat.count("undecided") >= sum(s["status"] == "undecided" for s in steps)
    assert flat.count("statement") >= sum(s["role"] == "statement" for s in steps)


def test_plots_are_embedded(tmp_path, document):
    out = tmp_path / "with"
    pdf = compile_pdf(out, document)
    data = json.loads((out / "report-data.json").read_text(encoding="utf-8"))
    plots = [ev["pdf"]["plot"] for c in data["document"]["claims"] for ev in c["evidence"]
             if ev["pdf"]["plot"]]
    assert plots == [f"figures/{ev['plot_id']}.svg" for c in document["claims"] for ev in c["evidence"]
                     if ev["plot_id"] is not None]
    assert len(plots) == 6  # two on the confirmed claim, one flat, one refuted, two inconclusive
    bare = copy.deepcopy(document)
    for claim in bare["claims"]:
        for ev in claim["evidence"]:
            ev["plot_id"] = None
    without = write_pdf(bare, tmp_path / "without")

    def drawn(path: Path) -> int:  # Typst draws an SVG's shapes into the page's content stream
        return sum(len(page.get_contents().get_data()) for page in pypdf.PdfReader(str(path)).pages)

    assert drawn(pdf) > drawn(without) + 6 * 100


def test_a_missing_figure_is_left_out_not_fatal(tmp_path, document):
    out = tmp_path / "report"
    pdf = write_pdf(document, out)  # no figures/ at all
    data = json.loads((out / "report-data.json").read_text(encoding="utf-8"))
    assert all(ev["pdf"]["plot"] is None for c in data["document"]["claims"] for ev in c["evidence"])
    assert "norm-vs-n" in pdf_text(pdf)


def test_the_same_document_gives_the_same_bytes(tmp_path, document):
    first = compile_pdf(tmp_path / "a", document).read_bytes()
    second = compile_pdf(tmp_path / "b", copy.deepcopy(document)).read_bytes()
    assert first == second


def test_gate_not_evaluated(tmp_path, report_results):
    text = " ".join(pdf_text(compile_pdf(tmp_path / "r", document_of(report_results, gate=False))).split())
    assert "Gate: not evaluated." in text and "No baseline was given." in text


@pytest.mark.parametrize("latex", FORMULAS)
def test_formulas_become_trees(latex):
    f = formula(latex)
    assert f is not None and "math" in f, latex


def test_formulas_compile_and_statements_split(tmp_path, report_results):
    results = copy.deepcopy(report_results)
    claim = results["results"][0]
    claim["statement"] = r"\text{Formulas: } " + r" \text{ and } ".join(FORMULAS) + r"\text{.}"
    steps = claim["derivation"]["steps"]
    steps[0]["paper_latex"] = r"\lim_{x\to 0} \sum_{i=1}^n \frac{\mathcal{L}_i}{\sqrt{x}} \le \Theta(1)"
    segments = statement(claim["statement"])
    assert segments[0] == {"text": "Formulas: "} and all("latex" not in s for s in segments)
    text = " ".join(pdf_text(compile_pdf(tmp_path / "r", document_of(results))).split())
    assert "Formulas:" in text and "for all" in text and "lim" in text and "sign" in text


def test_unparseable_and_absurdly_nested_formulas_are_shown_as_source(tmp_path, report_results):
    deep = "x"
    for _ in range(60):
        deep = r"\frac{1}{" + deep + "}"
    bad = r"\frac{1}{"
    assert formula(bad) == {"latex": bad} and formula(deep) == {"latex": deep}
    assert formula("") is None and formula(None) is None
    results = copy.deepcopy(report_results)
    steps = results["results"][1]["derivation"]["steps"]
    steps[0]["paper_latex"], steps[1]["derived_latex"] = deep, bad
    steps[2]["paper_latex"] = ""  # falls back to the plain `paper` string
    text = squeeze(pdf_text(compile_pdf(tmp_path / "r", document_of(results))))
    assert squeeze(bad) in text and squeeze(r"\frac{1}{\frac{1}{\frac{1}{") in text
    assert "epsilon**2/Delta**4" in text


def test_non_json_numbers_and_deep_data_do_not_break_the_template(tmp_path, report_results):
    results = copy.deepcopy(report_results)
    witness = next(r for r in results["results"] if r["id"] == "toy/refuted-witness")["evidence"][0]
    witness["controls"] = [{"check": "far-weight", "variant": float("nan"), "failed": "yes"}]
    witness["closest_relative_margin"] = float("inf")
    witness["witness"]["lhs"] = float("nan")
    witness["witness"]["seed"] = 2 ** 80
    nested: list = [1.0]
    for _ in range(150):
        nested = [nested]
    witness["witness"]["inputs"]["deep"] = {"dtype": "float64", "shape": [1] * 151, "data": nested}
    flat = " ".join(pdf_text(compile_pdf(tmp_path / "r", document_of(results))).split())
    assert "inf" in flat and "nan" in flat and str(2 ** 80) in flat


def test_hostile_strings_compile_and_read_back_literally(tmp_path, report_results):
    results = hostile(report_results)
    for r in results["results"]:
        r["statement"] = f"{r['statement']} {NASTY_LATEX}"
        r["notes"] = f"{r['notes']} {NASTY_TEXT}"
        r["reading"] = f"{r['reading']} {NASTY_TEXT}"
        r["label"] = f"{r['label']} {NASTY_TEXT}"
    document = document_of(results)
    for claim in document["claims"]:
        for ev in claim["evidence"]:
            ev["name"] = f"{ev['name']} {NASTY_TEXT}"
            ev["figure"] = f"{ev['figure']} {NASTY_TEXT}"
    for t in document["tables"]:
        for row in t["rows"]:
            for cell in row["cells"]:
                for m in cell["measured"]:
                    m["figure"] = f"{m['figure']} {NASTY_TEXT}"
    out = tmp_path / "report"
    pdf = compile_pdf(out, document)
    assert (out / "report.typ").read_bytes() == TEMPLATE.read_bytes()
    text = squeeze(pdf_text(pdf))
    for fragment in [HOSTILE, NASTY_TEXT, '#import "x": * ] [ $ ) // @lab <b>', ' #panic("x") *bold* /* c */',
                     '<script>alert(1)</script> #panic("boom") ] $ // @ref &amp; ']:
        assert squeeze(fragment) in text, fragment
    assert "panic" not in (out / "report.typ").read_text(encoding="utf-8")
    # The new fields come out literally too: the proof's reason and first false step, every
    # reading's text and why, every control's variant.
    for record in results["results"]:
        values = [record["proof"]["reason"], *(r[k] for r in record["readings"] for k in ("text", "why"))]
        values += [c["variant"] for ev in record["evidence"] for c in ev["controls"]]
        if record["proof"]["first_false_step"]:
            values.append(record["proof"]["first_false_step"])
        for value in values:
            assert squeeze(value) in text, (record["id"], value)


def test_page_one_renders(tmp_path, built):
    pdf, _ = built
    if shutil.which("pdftoppm") is None:
        if os.environ.get("ATTNAUDIT_REQUIRE_BROWSER") == "1":
            pytest.fail("pdftoppm is not on PATH and ATTNAUDIT_REQUIRE_BROWSER=1")
        pytest.skip("pdftoppm (poppler-utils) is not on PATH: page 1 is not rasterised")
    subprocess.run(["pdftoppm", "-png", "-r", "50", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "page")],
                   check=True, capture_output=True)
    pages = list(tmp_path.glob("page*.png"))
    assert len(pages) == 1 and pages[0].stat().st_size > 1000
    png = pages[0].read_bytes()
    assert png.startswith(b"\x89PNG")


def test_the_pdf_opens_with_findings_refuted_first(built):
    _, text = built
    flat = " ".join(text.split())
    findings = flat[flat.index("Findings"):flat.index("Papers")]
    assert findings.index("Refuted (2)") < findings.index("Errors and undecided (3)")
    assert "toy/refuted-rate" in findings and "toy/errored" in findings
    assert "Confirmed (2): 2 empirical, 0 identities" in findings
