"""The report's HTML site, JUnit XML and CLI, rendered from the fixture results (no browser here)."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_fixture import HOSTILE, hostile, report_baseline

from checks.cli import main
from checks.gate import compare
from reports.document import key_figure, slug
from reports.formulas import mathml, split_statement
from reports.render import render_report

ROOT = Path(__file__).resolve().parents[1]


def write_inputs(folder: Path, results: dict) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.json"
    path.write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    (folder / "timings.json").write_text(json.dumps({r["id"]: 1.25 for r in results["results"]}))
    baseline = folder / "baseline.json"
    baseline.write_text(json.dumps(report_baseline()))
    return path, baseline


def render(tmp_path: Path, results: dict, **kwargs) -> tuple[Path, dict]:
    path, baseline = write_inputs(tmp_path / "run", results)
    out = tmp_path / "report"
    report = render_report(path, out, baseline=baseline, pdf=False, **kwargs)
    return out, report


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text, of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(path: Path) -> Tags:
    parser = Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_claim_has_a_page_linked_from_the_table(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    links = {a.get("href") for tag, a in parse(out / "index.html").tags if tag == "a"}
    for record in report_results["results"]:
        page = out / "claims" / f"{slug(record['id'])}.html"
        assert page.exists()
        assert f"claims/{slug(record['id'])}.html" in links
        assert record["id"] in "".join(parse(page).text)


def test_front_page_counts_verdicts_per_paper_and_shows_the_summary_table(tmp_path, report_results):
    out, report = render(tmp_path, report_results)
    text = " ".join("".join(parse(out / "index.html").text).split())
    assert report["document"]["papers"][0]["counts"] == {
        "refuted": 2, "error": 1, "inconclusive": 1, "unverifiable": 1, "confirmed": 1}
    assert "2 refuted" in text and "1 confirmed" in text and "A Toy Paper on Attention" in text
    assert "Table 1" in text and "μ ∝ Δ^-6 (95% CI [-6.03, -5.97])" in text
    assert "not run in this selection" in text


def test_claim_page_marks_the_first_disagreeing_step(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    tags = parse(out / "claims" / "toy__refuted-proof.html").tags
    highlighted = [a["id"] for t, a in tags if t == "tr" and "first-disagreement" in (a.get("class") or "")]
    assert highlighted == ["step-2"]  # steps 2 and 3 disagree; only the first is marked


def test_claim_page_carries_plots_formulas_witness_and_provenance(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    confirmed = parse(out / "claims" / "toy__confirmed-rate.html")
    assert sum(t == "svg" for t, _ in confirmed.tags) == 2  # one scaling law, one limit
    assert any(t == "math" for t, _ in confirmed.tags)
    assert "1.25 s" in "".join(confirmed.text)
    witness = "".join(parse(out / "claims" / "toy__refuted-witness.html").text)
    assert "attnaudit replay witnesses/toy__refuted-witness__far-weight.json" in witness
    refuted = "".join(parse(out / "claims" / "toy__refuted-proof.html").text)
    assert "μ = Θ(ε²/Δ⁶), not Θ(ε²/Δ⁴)" in refuted
    assert "ValueError: bad grid" in "".join(parse(out / "claims" / "toy__errored.html").text)
    for name in ("norm-vs-n", "weight-to-one"):
        assert (out / "figures" / f"toy__confirmed-rate__{name}.svg").exists()


def test_junit_fails_exactly_where_the_gate_does(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    suite = ET.parse(out / "junit.xml").getroot()
    failing = {case.get("name") for case in suite.iter("testcase")
               if case.find("failure") is not None or case.find("error") is not None}
    gate = {d.id for d in compare(report_results["results"], report_baseline()["verdicts"])}
    assert failing == gate == {"toy/inconclusive-fit", "toy/vanished", "toy/errored"}
    assert suite.get("tests") == "7" and suite.get("failures") == "2" and suite.get("errors") == "1"


def test_without_a_baseline_only_errors_fail(tmp_path, report_results):
    path, _ = write_inputs(tmp_path / "run", report_results)
    report = render_report(path, tmp_path / "report", pdf=False)
    suite = ET.parse(tmp_path / "report" / "junit.xml").getroot()
    assert report["document"]["gate"] is None
    assert suite.get("failures") == "0" and suite.get("errors") == "1"
    assert "gate was not evaluated" in (tmp_path / "report" / "index.html").read_text()


def test_rendering_is_deterministic(tmp_path, report_results):
    first, _ = render(tmp_path / "a", report_results)
    second, _ = render(tmp_path / "b", report_results)
    pages = sorted(p.relative_to(first) for p in first.rglob("*.html"))
    for rel in pages:
        # The results path differs between the two folders; everything else is byte-identical.
        a = (first / rel).read_text().replace(str(tmp_path / "a"), "")
        b = (second / rel).read_text().replace(str(tmp_path / "b"), "")
        assert a == b, rel


def test_hostile_strings_stay_text(tmp_path, report_results):
    out, _ = render(tmp_path, hostile(report_results))
    for page in [out / "index.html", *sorted((out / "claims").glob("*.html"))]:
        parsed = parse(page)
        scripts = [t for t, _ in parsed.tags if t == "script"]
        assert len(scripts) == (1 if page.name == "index.html" else 0), page  # only our own
        assert not [t for t, _ in parsed.tags if t in ("img", "lab", "b")], page
        handlers = [(t, k) for t, attrs in parsed.tags for k in attrs if k.startswith("on")]
        assert not handlers, page
    # The hostile text is shown, as text, in the label, the reading and the table.
    text = "".join(parse(out / "claims" / "toy__refuted-witness.html").text)
    assert HOSTILE in text
    index = "".join(parse(out / "index.html").text)
    assert "#panic(\"boom\")" in index and "<script>alert(1)</script>" in index


def test_formulas_split_prose_from_math_and_fall_back_to_source():
    segments = split_statement(r"\text{For } x>0 \text{ and } \mu_{\text{IDA}}=1\text{, done.}")
    assert [(s.kind, s.source) for s in segments] == [
        ("text", "For "), ("math", "x>0"), ("text", " and "), ("math", r"\mu_{\text{IDA}}=1"),
        ("text", ", done.")]
    assert mathml(r"\text{<b>x</b>}").count("<b>") == 0  # latex2mathml's own string would keep it
    assert "&lt;b&gt;" in mathml(r"\text{<b>x</b>}")
    assert mathml(r"\frac{1}{") is None or "<math" in mathml(r"\frac{1}{")


def test_key_figure_says_why():
    from report_fixture import report_results as build

    by_id = {r["id"]: r for r in build()["results"]}
    assert key_figure(by_id["toy/refuted-proof"]) == "false proof step: the derivative vanishes"
    assert key_figure(by_id["toy/refuted-witness"]).endswith("violated on 40 of 512 cases")
    assert key_figure(by_id["toy/confirmed-rate"]).startswith("‖J‖₂ (worst case) ∝ n^1")
    assert key_figure(by_id["toy/errored"]) == "ValueError: bad grid (at spec.py:12)"


def test_reports_import_no_torch_or_sympy(tmp_path, report_results):
    path, baseline = write_inputs(tmp_path / "run", report_results)
    code = (
        "import sys\n"
        "for name in ('torch', 'sympy', 'scipy', 'mpmath'):\n"
        "    sys.modules[name] = None  # any import of them raises ImportError\n"
        "from reports.render import render_report\n"
        f"render_report({str(path)!r}, {str(tmp_path / 'out')!r}, baseline={str(baseline)!r}, pdf=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "report.pdf").exists()


def test_cli_report(tmp_path, report_results, capsys):
    path, baseline = write_inputs(tmp_path / "run", report_results)
    status = main(["report", str(path), "--baseline", str(baseline), "--no-pdf"])
    out = capsys.readouterr().out
    assert status == 0
    assert "6 claim pages" in out and "gate fails (3 differences)" in out
    assert (path.parent / "report" / "index.html").exists()


@pytest.mark.parametrize("argv, message", [
    (["report", "missing.json"], "does not exist"),
    (["report", "RESULTS", "--baseline", "nope.json"], "baseline nope.json does not exist"),
])
def test_cli_report_bad_input_is_one_line(tmp_path, report_results, capsys, argv, message):
    path, _ = write_inputs(tmp_path / "run", report_results)
    argv = [str(path) if a == "RESULTS" else str(tmp_path / a) if a.endswith(".json") else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message.split()[-1] in err and len(err.splitlines()) == 1


def test_text_inside_an_environment_stays_in_the_formula():
    segments = split_statement(r"\text{Let } f=\begin{cases} 1 & \text{if } x>0\end{cases} \text{ hold.}")
    assert [s.kind for s in segments] == ["text", "math", "text"]
    assert mathml(segments[1].source) is not None


def test_cli_report_says_in_one_line_when_typst_fails(tmp_path, report_results, capsys, monkeypatch):
    import typst

    def broken(*args, **kwargs):
        raise typst.TypstError("error: unexpected argument\n  ┌─ report.typ:1:1")

    monkeypatch.setattr(typst, "compile", broken)
    path, baseline = write_inputs(tmp_path / "run", report_results)
    assert main(["report", str(path), "--baseline", str(baseline)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unexpected argument" in err and "HTML site" in err
    assert (path.parent / "report" / "index.html").exists()
