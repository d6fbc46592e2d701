"""The report's HTML site, JUnit XML and CLI, rendered from the fixture results (no browser here)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_fixture import GATE, HOSTILE, hostile, report_baseline, typed

from attnaudit.checks.cli import main
from attnaudit.checks.results import Record, compare
from attnaudit.reports.document import build_document, key_figure, slug
from attnaudit.reports.formulas import mathml, split_statement
from attnaudit.reports.render import render_report

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


def spans(parsed: Tags, *classes: str) -> list[dict[str, str | None]]:
    """Attributes of every tag whose class list holds all of ``classes``."""
    return [a for _, a in parsed.tags if set(classes) <= set((a.get("class") or "").split())]


def test_front_page_counts_verdicts_and_proof_statuses_per_paper(tmp_path, report_results):
    out, report = render(tmp_path, report_results)
    doc = report["document"]
    verdicts = {"refuted": 2, "error": 1, "inconclusive": 1, "unverifiable": 1, "confirmed": 2}
    proofs = {"flawed": 1, "incomplete": 1, "absent": 2, "sound": 2, "unjudged": 1}
    assert doc["counts"] == doc["papers"][0]["counts"] == verdicts
    assert doc["proof_counts"] == doc["papers"][0]["proof_counts"] == proofs
    html = (out / "index.html").read_text(encoding="utf-8")
    # Twice each: the run's counts and the paper's card.
    for status, n in proofs.items():
        assert html.count(f'<span class="badge proof {status}">{n} {status}</span>') == 2, status
    for verdict, n in verdicts.items():
        assert html.count(f'<span class="badge {verdict}">{n} {verdict}</span>') == 2, verdict
    text = " ".join("".join(parse(out / "index.html").text).split())
    assert "A Toy Paper on Attention" in text
    assert "Table 1" in text and "μ ∝ Δ^-6 (95% CI [-6.03, -5.97])" in text
    assert "not run in this selection" in text


def test_claims_table_has_a_proof_column_beside_the_verdict(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    parsed = parse(out / "index.html")
    rows = [a for t, a in parsed.tags if t == "tr" and "data-verdict" in a]
    by_id = {r["id"]: r for r in report_results["results"]}
    assert len(rows) == len(by_id)
    # Findings first: worst verdict first (refuted, error, inconclusive, ...), then by id.
    from attnaudit.reports.document import VERDICTS, rank

    order = sorted(by_id, key=lambda cid: (rank(by_id[cid]["verdict"], VERDICTS), cid))
    for row, cid in zip(rows, order, strict=True):
        record = by_id[cid]
        assert row["data-verdict"] == record["verdict"]
        assert row["data-proof"] == (record["proof"]["status"] or "unjudged")
    ranks = {a["data-proof"]: int(a["data-proof-rank"]) for a in rows}
    assert ranks["flawed"] < ranks["incomplete"] < ranks["absent"] < ranks["sound"] < ranks["unjudged"]
    headers = [a.get("data-sort") for t, a in parsed.tags if t == "th" and a.get("data-sort")]
    assert headers == ["text", "text", "text", "verdict", "proof", "text"]
    options = [a.get("value") for t, a in parsed.tags if t == "option"]
    assert {"flawed", "incomplete", "absent", "sound", "unjudged"} <= set(options)
    assert any(a.get("id") == "proof-filter" for _, a in parsed.tags)


def test_claim_page_shows_both_answers_and_links_the_proofs_first_false_step(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    page = parse(out / "claims" / "toy__flawed-proof.html")
    assert [a["class"] for a in spans(page, "badge", "proof")] == ["badge proof flawed", "badge proof flawed"]
    assert spans(page, "badge", "confirmed")
    links = [a["href"] for t, a in page.tags if t == "a" and "proof-finding" in (a.get("class") or "")]
    assert links == ["#step-2"]
    text = "".join(page.text)
    record = next(r for r in report_results["results"] if r["id"] == "toy/flawed-proof")
    assert record["proof"]["reason"] in text and record["proof"]["first_false_step"] in text


def test_derivation_table_marks_the_findings_with_role_and_three_valued_status(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    by_id = {r["id"]: r for r in report_results["results"]}
    for cid, findings in [("toy/flawed-proof", ["step-2"]), ("toy/refuted-rate", ["step-3"]),
                          ("toy/confirmed-rate", []), ("toy/inconclusive-fit", [])]:
        tags = parse(out / "claims" / f"{slug(cid)}.html").tags
        rows = [a for t, a in tags if t == "tr" and (a.get("id") or "").startswith("step-")]
        steps = by_id[cid]["derivation"]["steps"]
        assert [r["data-status"] for r in rows] == [s["status"] for s in steps]
        assert [r["data-role"] for r in rows] == [s["role"] for s in steps]
        # Only the proof's first false step and the primary reading's first false statement step
        # are highlighted; later false steps, and an alternative reading's, are not.
        assert [r["id"] for r in rows if "finding" in r["class"].split()] == findings, cid
        undecided = [r["id"] for r in rows if "undecided" in r["class"].split()]
        assert undecided == [f"step-{i + 1}" for i, s in enumerate(steps) if s["status"] == "undecided"]
    page = parse(out / "claims" / "toy__refuted-rate.html")
    assert len(spans(page, "badge", "undecided")) == 1 and len(spans(page, "badge", "disagrees")) == 2


def test_claim_page_lists_the_readings_primary_first(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    page = parse(out / "claims" / "toy__flawed-proof.html")
    items = [a for t, a in page.tags if t == "li" and (a.get("id") or "").startswith("reading-")]
    assert [(a["id"], a["class"]) for a in items] == [("reading-primary", "reading primary"),
                                                      ("reading-all-eps", "reading alternative")]
    record = next(r for r in report_results["results"] if r["id"] == "toy/flawed-proof")
    text = "".join(page.text)
    for reading in record["readings"]:
        assert reading["text"] in text and reading["why"] in text and reading["summary"] in text
    html = (out / "claims" / "toy__flawed-proof.html").read_text(encoding="utf-8")
    alternative = html[html.index('id="reading-all-eps"'):]
    assert '<span class="badge refuted">refuted</span>' in alternative[:alternative.index("</li>")]
    # A step and a check of the alternative reading link to it.
    refs = [a["href"] for t, a in page.tags if t == "a" and "reading-ref" in (a.get("class") or "")]
    assert refs == ["#reading-all-eps", "#reading-all-eps"]


def test_each_check_shows_its_role_reading_and_controls(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    for record in report_results["results"]:
        page = parse(out / "claims" / f"{slug(record['id'])}.html")
        sections = [a for t, a in page.tags if t == "section"]
        assert [(a["id"], a["data-role"], a["data-reading"]) for a in sections] == [
            (f"check-{ev['name']}", ev["role"], ev["reading"] or "primary") for ev in record["evidence"]]
        controls = [a["class"] for t, a in page.tags if t == "li" and "control" in (a.get("class") or "")]
        assert controls == [f"control {'failed' if c['failed'] else 'passed'}"
                            for ev in record["evidence"] for c in ev["controls"]]
        text = "".join(page.text)
        for ev in record["evidence"]:
            for c in ev["controls"]:
                assert c["variant"] in text and c["summary"] in text
    confirmed = parse(out / "claims" / "toy__confirmed-rate.html")
    # The limit's control passed: the check is flagged, once, as unable to discriminate.
    assert len(spans(confirmed, "badge", "blind")) == 1
    assert len(spans(confirmed, "badge", "control-failed")) == 1
    assert len(spans(confirmed, "badge", "control-passed")) == 2  # the flag and the control's own


def test_a_proof_check_can_be_the_first_false_step(report_results):
    results = copy.deepcopy(report_results)
    record = next(r for r in results["results"] if r["id"] == "toy/refuted-witness")
    near = next(ev for ev in record["evidence"] if ev["name"] == "near-weight")
    near["status"] = "disagrees"
    record["proof"] = {"status": "flawed", "first_false_step": "near-weight", "reason": "check"}
    claim = next(c for c in build_document(typed(results))["claims"] if c["id"] == "toy/refuted-witness")
    assert claim["proof"]["anchor"] == "check-near-weight"
    assert [ev["finding"] for ev in claim["evidence"]] == [False, True]


def test_claim_page_carries_plots_formulas_witness_and_provenance(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    confirmed = parse(out / "claims" / "toy__confirmed-rate.html")
    assert sum(t == "svg" for t, _ in confirmed.tags) == 2  # one scaling law, one limit
    assert any(t == "math" for t, _ in confirmed.tags)
    assert "1.25 s" in "".join(confirmed.text)
    witness = "".join(parse(out / "claims" / "toy__refuted-witness.html").text)
    assert "attnaudit replay witnesses/toy__refuted-witness__far-weight.json" in witness
    refuted = "".join(parse(out / "claims" / "toy__refuted-rate.html").text)
    assert "μ = Θ(ε²/Δ⁶), not Θ(ε²/Δ⁴)" in refuted
    assert "ValueError: bad grid" in "".join(parse(out / "claims" / "toy__errored.html").text)
    for name in ("norm-vs-n", "weight-to-one"):
        assert (out / "figures" / f"toy__confirmed-rate__{name}.svg").exists()
    for name in ("slope-vs-d", "depth-vs-n"):  # an exponential and a polylog law
        assert (out / "figures" / f"toy__inconclusive-fit__{name}.svg").exists()
    assert (out / "figures" / "toy__flawed-proof__sup-vs-n.svg").exists()  # flat, R² undefined


def junit(out: Path) -> ET.Element:
    return ET.parse(out / "junit.xml").getroot()


def test_junit_fails_exactly_where_the_gate_does(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    suite = junit(out)
    failing = {case.get("name"): (case.find("failure") if case.find("failure") is not None
                                  else case.find("error"))
               for case in suite.iter("testcase")
               if case.find("failure") is not None or case.find("error") is not None}
    gate = {d.id: d.kind for d in compare(typed(report_results)["results"], report_baseline()["claims"])}
    assert gate == GATE  # a changed verdict and proof status, a new and a vanished claim, an error
    assert set(failing) == set(gate)
    assert {name: f.get("type") for name, f in failing.items()} == gate
    assert suite.get("tests") == "8" and suite.get("failures") == "4" and suite.get("errors") == "1"
    # Every message shows both answers.
    by_id = {r["id"]: r for r in report_results["results"]}
    for name, element in failing.items():
        if name in by_id:
            both = f"{by_id[name]['verdict']} · proof {by_id[name]['proof']['status'] or 'unjudged'}"
            assert both in element.get("message") and both in element.text, name
    for case in suite.iter("testcase"):
        if case.get("name") in by_id:
            record = by_id[case.get("name")]
            assert case.find("system-out").text.startswith(record["verdict"] + " · proof "), case.get("name")


def test_a_baseline_of_verdicts_only_leaves_proof_statuses_unlocked(tmp_path, report_results):
    path, _ = write_inputs(tmp_path / "run", report_results)
    old = tmp_path / "old-baseline.json"
    claims = report_baseline()["claims"]
    old.write_text(json.dumps({"schema": "attnaudit.baseline/1",
                               "verdicts": {cid: e["verdict"] for cid, e in claims.items()}}))
    report = render_report(path, tmp_path / "report", baseline=old, pdf=False)
    gate = report["document"]["gate"]
    assert gate["proof_locked"] is False
    assert {d["id"] for d in gate["differences"]} == set(GATE) - {"toy/flawed-proof"}
    failing = {case.get("name") for case in junit(tmp_path / "report").iter("testcase")
               if case.find("failure") is not None or case.find("error") is not None}
    assert failing == set(GATE) - {"toy/flawed-proof"}


def test_without_a_baseline_only_errors_fail(tmp_path, report_results):
    path, _ = write_inputs(tmp_path / "run", report_results)
    report = render_report(path, tmp_path / "report", pdf=False)
    suite = junit(tmp_path / "report")
    assert report["document"]["gate"] is None
    assert all(c["gate"] is None for c in report["document"]["claims"])
    assert suite.get("failures") == "0" and suite.get("errors") == "1"
    assert not spans(parse(tmp_path / "report" / "index.html"), "box", "gate-fail")


def test_a_results_file_of_format_1_is_refused_with_one_line(tmp_path, report_results, capsys):
    path, _ = write_inputs(tmp_path / "run", report_results | {"format": "attnaudit.results/1"})
    assert main(["report", str(path), "--out", str(tmp_path / "report"), "--no-pdf"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'attnaudit.results/1'" in err and "rerun 'attnaudit run" in err
    assert not (tmp_path / "report").exists()


def test_rendering_is_deterministic(tmp_path, report_results):
    first, _ = render(tmp_path / "a", report_results)
    second, _ = render(tmp_path / "b", report_results)
    pages = sorted(p.relative_to(first) for p in first.rglob("*.html"))
    pages += [Path("junit.xml")] + sorted(p.relative_to(first) for p in first.rglob("*.svg"))
    for rel in pages:
        # The results path differs between the two folders; everything else is byte-identical.
        a = (first / rel).read_text().replace(str(tmp_path / "a"), "")
        b = (second / rel).read_text().replace(str(tmp_path / "b"), "")
        assert a == b, rel


def test_hostile_strings_stay_text(tmp_path, report_results):
    results = hostile(report_results)
    out, _ = render(tmp_path, results)
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
    # ...and in the new fields: the proof's reason and first false step (still linked), each
    # reading's text and why, each control's variant.
    record = next(r for r in results["results"] if r["id"] == "toy/flawed-proof")
    page = parse(out / "claims" / "toy__flawed-proof.html")
    text = "".join(page.text)
    for value in (record["proof"]["reason"], record["proof"]["first_false_step"],
                  *(r[k] for r in record["readings"] for k in ("text", "why", "summary")),
                  record["evidence"][0]["controls"][0]["variant"]):
        assert value in text
    assert [a["href"] for t, a in page.tags if t == "a" and "proof-finding" in (a.get("class") or "")] \
        == ["#step-2"]


def test_formulas_split_prose_from_math_and_fall_back_to_source():
    segments = split_statement(r"\text{For } x>0 \text{ and } \mu_{\text{IDA}}=1\text{, done.}")
    assert [(s.kind, s.source) for s in segments] == [
        ("text", "For "), ("math", "x>0"), ("text", " and "), ("math", r"\mu_{\text{IDA}}=1"),
        ("text", ", done.")]
    assert mathml(r"\text{<b>x</b>}").count("<b>") == 0  # latex2mathml's own string would keep it
    assert "&lt;b&gt;" in mathml(r"\text{<b>x</b>}")
    assert mathml(r"\frac{1}{") is None or "<math" in mathml(r"\frac{1}{")


def test_key_figure_is_the_records_own():
    from report_fixture import report_results as build

    for record in map(Record.from_json, build()["results"]):
        if record.verdict == "error":
            assert key_figure(record) == "ValueError: bad grid (at spec.py:12)"
        elif record.figure:
            assert key_figure(record) == record.figure
        else:
            assert key_figure(record) == record.summary  # nothing measured (unverifiable)


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
    assert "7 claim pages" in out and f"gate fails ({len(GATE)} differences)" in out
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
    *progress, err = capsys.readouterr().err.strip().splitlines()  # progress lines, then the error
    assert all(line.startswith("report: ") for line in progress)
    assert err.startswith("attnaudit: error: ") and "unexpected argument" in err and "HTML site" in err
    assert (path.parent / "report" / "index.html").exists()


def test_informational_columns_are_shown_and_marked_not_compared(tmp_path, report_results):
    results = copy.deepcopy(report_results)
    record = next(r for r in results["results"]
                  if any(ev.get("type") == "scaling" for ev in r.get("evidence", [])))
    ev = next(ev for ev in record["evidence"] if ev.get("type") == "scaling")
    ev["info"] = {"columns": {"bytes per token": [8.0, 16.0, 32.0]}, "series": []}
    out, _ = render(tmp_path, results)
    text = " ".join(parse(out / "claims" / f"{slug(record['id'])}.html").text)
    assert "bytes per token (informational, not compared)" in text
    assert "8, 16, 32" in text


def with_new_fields(results: dict) -> dict:
    """The fields the engine adds (clauses, quoted proof steps, derivation roles, control
    contrasts, confirmation kind, drift and local exponents) on the fixture's records."""
    results = copy.deepcopy(results)
    by_id = {r["id"]: r for r in results["results"]}
    refuted = by_id["toy/refuted-rate"]
    refuted["clauses"] = [
        {"id": "(i)", "quote": "for every n ≥ 2", "verdict": "confirmed", "summary": "holds on 64 cases",
         "undefined": None},
        {"id": "(ii)", "quote": "‖J‖₂ = O(n/√d)", "verdict": "refuted",
         "summary": "slope 1.5 vs predicted 1: -(16*m**4)/(4*(m + 1)**2)", "undefined": None}]
    refuted["proof"]["steps"] = [{"id": "eq. (7)", "quote": "by Cauchy–Schwarz, ‖J‖ ≤ n",
                                  "status": "undecided",
                                  "items": [refuted["derivation"]["steps"][0]["name"], "no-such-item"]}]
    refuted["derivation"]["steps"][0]["role"] = "derivation"
    ev = next(e for e in refuted["evidence"] if e.get("fit"))
    ev["fit"] |= {"drifting": True, "ci": [1.5, 1.5],
                  "local_exponents": [{"x": [16, 128], "exponent": 1.2, "ci": [1.1, 1.3]},
                                      {"x": [128, 2048], "exponent": 1.6, "ci": [1.5, 1.7]}]}
    ev["decided_by_tolerance"] = False
    ev["controls"] = [_control_with_contrast()]
    by_id["toy/confirmed-rate"]["confirmation"] = "identity"
    return results


def _control_with_contrast() -> dict:
    return {"check": "rate", "variant": "keys not normalised", "failed": True, "status": "disagrees",
            "summary": "fails under the variant", "contrast": "hypothesis",
            "hypothesis": "the keys lie on the unit sphere"}


def test_new_record_fields_render_and_their_absence_does_not_crash(tmp_path, report_results):
    out, _ = render(tmp_path, with_new_fields(report_results))
    page = (out / "claims" / f"{slug('toy/refuted-rate')}.html").read_text(encoding="utf-8")
    assert 'id="clause-(ii)"' in page and "‖J‖₂ = O(n/√d)" in page
    assert "16·m⁴" in page and "m**4" not in page  # SymPy text shown as mathematics
    assert 'id="proof-steps"' in page and "by Cauchy–Schwarz" in page
    assert '<a href="#step-1"><code>' in page and "<code>no-such-item</code>" in page
    assert "suite&#39;s derivation" in page
    assert "contrast: hypothesis" in page and "Hypothesis: the keys lie on the unit sphere" in page
    assert "1.5 (exact)" in page and "[1.5, 1.5]" not in page
    assert "x 16–128: 1.2 [1.1, 1.3]" in page and "drifting" in page
    assert "decided by the tolerance" in page
    index = (out / "index.html").read_text(encoding="utf-8")
    findings = index[index.index('id="findings"'):index.index('id="papers"')]
    assert findings.index("Refuted") < findings.index("Errors and undecided")
    assert "clause <code>(ii)</code>" in findings
    assert "1 identity" in findings and "badge outline identity" in index
    # The fixture as it is (none of these fields) still renders.
    render(tmp_path / "plain", report_results)


def test_the_first_false_step_label_sits_in_the_step_cell_not_over_it(tmp_path, report_results):
    out, _ = render(tmp_path, report_results)
    page = (out / "claims" / f"{slug('toy/flawed-proof')}.html").read_text(encoding="utf-8")
    assert '<td class="num">' in page
    for cell in page.split('<td class="num">')[1:]:
        assert "step-mark" not in cell[:cell.index("</td>")]  # the narrow nowrap cell holds the index only
    assert '<div class="step-mark" title="the proof&#39;s first false step">' in page


def test_operator_names_render_upright_as_one_word():
    assert "<mo>eff-rank</mo>" in mathml(r"\operatorname{eff-rank}(X) \le 2")
    assert "<mi>e</mi>" not in mathml(r"\operatorname{eff-rank}(X)")
