"""The paper as a graph of results (issue 25): uses edges, rests_on, the graph in the report, the
abstract's contributions, and the referee's letter.

A small pack: two lemmas refuted (``lemma-0`` used by nothing, ``lemma-1`` used by the theorem), a
theorem whose argument uses ``lemma-1`` and a corollary whose argument uses the theorem. The
theorem and the corollary are confirmed: their neighbours never change their own verdicts.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import FALSE, GOOD

from attnaudit.checks import Claim, Contribution, Paper, Use, Verdict
from attnaudit.checks.cli import main
from attnaudit.checks.discovery import discover
from attnaudit.checks.graph import annotate, edges
from attnaudit.checks.results import Record, contribution_reading, dependants, load_document
from attnaudit.reports.render import render_report  # at collection: its log is the real stderr

PAPER = """
from attnaudit.checks import Contribution, Paper
PAPER = Paper(key="toy", title="A toy paper", authors=("A. Tester",), arxiv=None, source_file="none",
              contributions=(Contribution("the lemma and the theorem", ("toy/lemma-1", "toy/theorem-2")),
                             Contribution("the corollary", ("toy/corollary-3",))))
"""


def _renamed(source: str, old: str, new: str, label: str, uses: str = "") -> str:
    out = source.replace(f'id="{old}"', f'id="{new}"').replace("from attnaudit.checks import ",
                                                               "from attnaudit.checks import Use, ")
    out = re.sub(r'label="[^"]*"', f'label="{label}"', out, count=1)
    return out.replace("CLAIMS = (Claim(", f"CLAIMS = (Claim({uses}", 1)


MODULES = {
    "lemma_0": _renamed(FALSE, "toy/false", "toy/lemma-0", "Lemma 0 (unused)"),
    "lemma_1": _renamed(FALSE, "toy/false", "toy/lemma-1", "Lemma 1"),
    "theorem_2": _renamed(GOOD, "toy/good", "toy/theorem-2", "Theorem 2",
                          'uses=(Use("toy/lemma-1", "by Lemma 1"),), '),
    "corollary_3": _renamed(GOOD, "toy/good", "toy/corollary-3", "Corollary 3",
                            'uses=(Use("toy/theorem-2", "Theorem 2 gives"),), '),
}


@pytest.fixture
def pack(claims_package):
    return claims_package(MODULES, paper_init=PAPER)


@pytest.fixture
def run_out(pack, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--claims", pack, "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def _records(out: Path) -> dict[str, Record]:
    return {r.id: r for r in load_document(out / "results.json")["results"]}


def test_rests_on_is_transitive_and_never_changes_a_verdict(run_out):
    typed = _records(run_out)
    assert dependants(typed.values(), "toy/lemma-1") == ["toy/corollary-3", "toy/theorem-2"]
    assert dependants(typed.values(), "toy/lemma-0") == []
    r = {cid: record.to_json() for cid, record in typed.items()}
    assert [r[i]["verdict"] for i in ("toy/lemma-0", "toy/lemma-1", "toy/theorem-2", "toy/corollary-3")] \
        == ["refuted", "refuted", "confirmed", "confirmed"]
    assert r["toy/theorem-2"]["uses"] == [{"claim": "toy/lemma-1", "quote": "by Lemma 1",
                                           "verdict": "refuted"}]
    assert r["toy/theorem-2"]["rests_on"] == [{"claim": "toy/lemma-1", "verdict": "refuted", "through": []}]
    assert r["toy/corollary-3"]["rests_on"] == [{"claim": "toy/lemma-1", "verdict": "refuted",
                                                 "through": ["toy/theorem-2"]}]
    assert r["toy/lemma-1"]["used_by"] == ["toy/theorem-2"] and r["toy/lemma-1"]["rests_on"] == []
    assert r["toy/lemma-0"]["used_by"] == [] and r["toy/theorem-2"]["used_by"] == ["toy/corollary-3"]
    records = list(r.values())
    assert edges(records) == [("toy/corollary-3", "toy/theorem-2"), ("toy/theorem-2", "toy/lemma-1")]
    # Recomputed from the uses alone: the same fields again.
    assert annotate([dict(x) for x in records]) == records


def test_rests_on_lists_only_results_not_established_and_skips_absent_ones():
    records = [{"id": "p/a", "verdict": "confirmed", "uses": [{"claim": "p/b", "quote": "q"}]},
               {"id": "p/b", "verdict": "inconclusive", "uses": [{"claim": "p/c", "quote": "q"},
                                                                 {"claim": "p/gone", "quote": "q"}]},
               {"id": "p/c", "verdict": "unverifiable", "uses": [{"claim": "p/a", "quote": "q"}]}]
    annotate(records)
    assert records[0]["rests_on"] == [{"claim": "p/c", "verdict": "unverifiable", "through": ["p/b"]}]
    assert records[1]["uses"][1]["verdict"] is None  # not in this run
    assert records[2]["rests_on"] == []  # a cycle back to itself: p/a and p/b are established enough


def test_a_contribution_reads_from_the_clauses_of_its_claims(run_out):
    by_id = _records(run_out)
    assert contribution_reading({"claims": ["toy/lemma-1", "toy/theorem-2"]}, by_id)["reading"] == "partly"
    assert contribution_reading({"claims": ["toy/corollary-3"]}, by_id)["reading"] == "survived"
    assert contribution_reading({"claims": ["toy/lemma-0"]}, by_id)["reading"] == "refuted"
    assert contribution_reading({"claims": ["toy/elsewhere"]}, by_id)["reading"] == "not run"
    undecided = {"x/y": Record.from_json({"id": "x/y", "verdict": "inconclusive", "proof": {},
                                          "clauses": [{"verdict": "inconclusive"}]})}
    assert contribution_reading({"claims": ["x/y"]}, undecided)["reading"] == "undecided"
    papers = load_document(run_out / "results.json")["papers"]
    assert papers[0]["contributions"][1] == {"quote": "the corollary", "claims": ["toy/corollary-3"]}


def test_the_model_refuses_bad_edges_and_contributions():
    with pytest.raises(ValueError, match="name a claim id"):
        Use("not an id", "q")
    with pytest.raises(ValueError, match="quote"):
        Use("p/a", " ")
    base = dict(id="p/a", label="L", section="§", statement="s", reading="r", kind="identity",
                unverifiable="none")
    with pytest.raises(ValueError, match="cannot use itself"):
        Claim(**base, uses=(Use("p/a", "q"),))
    with pytest.raises(ValueError, match="listed twice"):
        Claim(**base, uses=(Use("p/b", "q"), Use("p/b", "r")))
    with pytest.raises(ValueError, match="another paper"):
        Paper(key="p", title="T", authors=("A",), arxiv=None, source_file="x",
              contributions=(Contribution("q", ("other/a",)),))
    with pytest.raises(TypeError, match="tuple of ids"):
        Contribution("q", "p/a")
    assert Verdict.REFUTED.value == "refuted"


def test_every_built_in_edge_and_contribution_names_a_catalogued_claim():
    """An edge may only point to a claim the catalogue carries; each contribution too."""
    catalogue = discover(entry_points=False)
    ids = {c.id for c in catalogue.claims}
    unknown = [f"{c.id} uses {u.claim}" for c in catalogue.claims for u in c.uses if u.claim not in ids]
    unknown += [f"{p.key}: {cid}" for p in catalogue.papers.values() for k in p.contributions
                for cid in k.claims if cid not in ids]
    assert unknown == []
    geo = [c for c in catalogue.claims if c.paper == "georesolver"]
    assert sum(len(c.uses) for c in geo) >= 15
    # "proved with analogous arguments": the Part II PL theorems name Theorem 2's expansion.
    by_id = {c.id: c for c in geo}
    for part_two in ("georesolver/theorem-5.3", "georesolver/theorem-8.1"):
        assert [u.claim for u in by_id[part_two].uses] == ["georesolver/theorem-2.6/ida"]
    assert len(catalogue.papers["georesolver"].contributions) == 15


# ----------------------------------------------------------------------------- the letter

def test_letter_ranks_the_refuted_clauses_by_what_rests_on_them(run_out, capsys, monkeypatch, pack):
    code = main(["letter", str(run_out / "results.json"), "--paper", "toy"])
    text = capsys.readouterr().out
    assert code == 0
    major = text[text.index("## Major comments"):text.index("## Minor comments")]
    first, second = major.index("### 1. Lemma 1"), major.index("### 2. Lemma 0")
    assert first < second
    assert "2 results of this run rest on it: `toy/corollary-3`, `toy/theorem-2`" in major
    assert "No result of this run rests on it." in major[second:]
    assert "> for all a, b \\> 0" in major  # the clause (here the reading) quoted, Markdown-escaped
    replay = re.findall(r"```\n(attnaudit replay witnesses/[^\n]+)\n```", major)
    assert len(replay) == 2
    assert "The abstract makes 2 promises that the suite carries: 1 partly, 1 survived." in text
    minor = text[text.index("## Minor comments"):]
    assert "`toy/corollary-3` (confirmed · proof incomplete) rests on `toy/lemma-1` (refuted, through " \
           "toy/theorem-2)." in minor
    # The replay command runs from the results folder.
    monkeypatch.chdir(run_out)
    assert main(["replay", replay[0].split()[-1], "--claims", pack]) == 0
    assert "VIOLATED" in capsys.readouterr().out


def test_letter_writes_markdown_and_pdf_files_and_refuses_bad_input(run_out, tmp_path, capsys):
    md, pdf = tmp_path / "l.md", tmp_path / "l.pdf"
    assert main(["letter", str(run_out / "results.json"), "--out", str(md)]) == 0
    assert md.read_text(encoding="utf-8").startswith("# Referee's letter on “A toy paper”")
    assert main(["letter", str(run_out / "results.json"), "--out", str(pdf), "--format", "pdf"]) == 0
    assert pdf.read_bytes().startswith(b"%PDF")
    first = pdf.read_bytes()
    assert main(["letter", str(run_out / "results.json"), "--out", str(pdf)]) == 0
    assert pdf.read_bytes() == first  # same records, same bytes
    capsys.readouterr()
    for args, message in ((["--paper", "nope"], "no records of paper 'nope'"),
                          (["--format", "pdf"], "--format pdf needs --out FILE")):
        assert main(["letter", str(run_out / "results.json"), *args]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1


# ----------------------------------------------------------------------------- the report

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


@pytest.fixture
def report(run_out, capsys):
    assert main(["report", str(run_out / "results.json"), "--no-pdf"]) == 0
    capsys.readouterr()
    return run_out / "report"


@needs_dot
def test_the_report_draws_each_paper_as_a_graph_with_links(report):
    index = (report / "index.html").read_text(encoding="utf-8")
    svg = index[index.index('<figure class="results-graph" id="graph-toy">'):]
    svg = svg[:svg.index("</figure>")]
    assert len(re.findall(r'<g id="g_toy_n\d+" class="node"', svg)) == 4
    assert len(re.findall(r'<g id="g_toy_e\d+" class="edge"', svg)) == 2
    assert 'xlink:href="claims/toy__lemma-1.html"' in svg
    assert 'stroke="#b42318"' in svg  # the arrow out of the refuted lemma is red
    page = (report / "papers" / "toy.html").read_text(encoding="utf-8")
    assert 'xlink:href="../claims/toy__theorem-2.html"' in page and "letter-toy.md" in page
    assert "partly" in page and "survived" in page
    claim = (report / "claims" / "toy__theorem-2.html").read_text(encoding="utf-8")
    assert 'id="answer-rests-on"' in claim and "by Lemma 1" in claim and "Used by" in claim
    assert (report / "letter-toy.md").is_file() and not (report / "letter-toy.pdf").exists()


def test_without_dot_the_report_lists_the_graph_and_says_how_to_install_it(run_out, monkeypatch, capsys):
    monkeypatch.setattr("attnaudit.reports.graph.dot_program", lambda: None)
    assert main(["report", str(run_out / "results.json"), "--no-pdf", "--out", str(run_out / "plain")]) == 0
    capsys.readouterr()
    index = (run_out / "plain" / "index.html").read_text(encoding="utf-8")
    assert "Install Graphviz to draw this graph" in index and "<svg class=\"results-graph\"" not in index
    assert "uses <code>toy/lemma-1</code> (refuted)" in index


def test_without_dot_the_pdf_says_how_to_install_it(run_out, monkeypatch, capsys):
    pypdf = pytest.importorskip("pypdf")
    monkeypatch.setattr("attnaudit.reports.graph.dot_program", lambda: None)
    assert main(["report", str(run_out / "results.json"), "--out", str(run_out / "plain")]) == 0
    capsys.readouterr()
    pages = pypdf.PdfReader(str(run_out / "plain" / "report.pdf")).pages
    text = " ".join(p.extract_text() or "" for p in pages)
    assert "Install Graphviz to draw this graph" in " ".join(text.split())


@needs_dot
def test_the_pdf_holds_the_graph_figure_and_the_letters(run_out, capsys):
    pypdf = pytest.importorskip("pypdf")
    assert main(["report", str(run_out / "results.json")]) == 0
    capsys.readouterr()
    report = run_out / "report"
    assert (report / "figures" / "graph-toy.svg").is_file()
    data = json.loads((report / "report-data.json").read_text(encoding="utf-8"))
    assert data["document"]["papers"][0]["pdf"]["graph"] == "figures/graph-toy.svg"
    pages = pypdf.PdfReader(str(report / "report.pdf")).pages
    at = next(i for i, p in enumerate(pages) if "Results as graphs" in (p.extract_text() or ""))
    text = pages[at].extract_text()
    # The figure is drawn as vectors with its labels as text: every node, then the caption.
    for node in ("corollary-3\nconfirmed · proof incomplete", "lemma-1\nrefuted · proof incomplete"):
        assert node in text
    assert "A toy paper (toy)" in text
    assert (report / "letter-toy.pdf").read_bytes().startswith(b"%PDF")


# ----------------------------------------------------------------------------- GeoResolver

def georesolver_results() -> dict:
    """A results document for every GeoResolver claim, its verdict and proof status as the gate's
    baseline locks them and its uses as the catalogue states them (no claim is run)."""
    catalogue = discover(entry_points=False)
    baseline = json.loads((Path(__file__).resolve().parents[1] / "claims" / "baseline.json")
                          .read_text(encoding="utf-8"))["claims"]
    records = []
    for c in sorted((c for c in catalogue.claims if c.paper == "georesolver"), key=lambda c: c.id):
        b = baseline[c.id]
        records.append({"id": c.id, "paper": c.paper, "label": c.label, "section": c.section,
                        "kind": c.kind.value, "verdict": b["verdict"],
                        "proof": {"status": b["proof"], "first_false_step": None, "reason": ""},
                        "clauses": [{"id": "statement", "verdict": b["verdict"], "summary": ""}],
                        "uses": [{"claim": u.claim, "quote": u.quote} for u in c.uses]})
    annotate(records)  # used_by and rests_on, as 'attnaudit run' writes them once every record exists
    paper = catalogue.papers["georesolver"]
    return {"format": "attnaudit.results/2", "results": records, "tables": [],
            "papers": [{"key": paper.key, "title": paper.title, "authors": list(paper.authors),
                        "arxiv": paper.arxiv, "source_file": paper.source_file,
                        "contributions": paper.contributions_json()}]}


def georesolver_dependants(results: dict) -> dict[str, list[str]]:
    """Each refuted GeoResolver result → the results whose argument uses it directly."""
    refuted = {r["id"] for r in results["results"] if r["verdict"] == "refuted"}
    out: dict[str, list[str]] = {}
    for r in results["results"]:
        for u in r["uses"]:
            if u["claim"] in refuted:
                out.setdefault(u["claim"], []).append(r["id"])
    return out


@needs_dot
def test_the_georesolver_graph_has_one_node_per_claim_and_every_refuted_results_dependants(tmp_path):
    results = georesolver_results()
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    render_report(path, tmp_path / "report", pdf=True)
    page = (tmp_path / "report" / "papers" / "georesolver.html").read_text(encoding="utf-8")
    nodes = [html.unescape(t) for t in
             re.findall(r'<g id="g_georesolver_n\d+" class="node">\s*<title>([^<]+)</title>', page)]
    assert sorted(nodes) == sorted(r["id"] for r in results["results"]) and len(nodes) == 52
    titles = {html.unescape(t) for t in re.findall(r'class="edge">\s*<title>([^<]+)</title>', page)}
    dependants = georesolver_dependants(results)
    assert "georesolver/theorem-2.6/ida" in dependants and len(dependants["georesolver/theorem-2.6/ida"]) == 5
    for used, users in dependants.items():
        for user in users:
            assert f"{used}->{user}" in titles
    pages = pytest.importorskip("pypdf").PdfReader(str(tmp_path / "report" / "report.pdf")).pages
    text = next(p.extract_text() for p in pages if "Results as graphs" in (p.extract_text() or ""))
    for label in ("theorem-2.6/ida", "corollary-2.7/no-spurious-minima", "theorem-5.3", "lemma-9.1"):
        assert label in text


@needs_dot
def test_hostile_strings_stay_text_in_the_graph(tmp_path):
    from attnaudit.reports.document import build_document
    from attnaudit.reports.graph import dot_program, extend_document, paper_dot, render_svg

    results = georesolver_results()
    hostile = '"]; x [URL="javascript:alert(1)"]; y [label="\\N\\G</text><script>alert(1)</script>'
    results["results"][0]["label"] = hostile
    results["results"][1]["uses"] = [{"claim": results["results"][0]["id"], "quote": hostile + "\n\\l"}]
    typed = results | {"results": [Record.from_json(r) for r in results["results"]]}
    document = build_document(typed)
    extend_document(document, typed)
    svg = render_svg(paper_dot(document, "georesolver", link="claims/", font="Helvetica"), dot_program())
    hrefs = re.findall(r'xlink:href="([^"]*)"', svg)
    assert hrefs and all(h.startswith("claims/georesolver__") and h.endswith(".html") for h in hrefs)
    assert "<script" not in svg and "javascript:alert(1)" not in " ".join(hrefs)
    assert "&lt;script&gt;" in svg  # the label is there, as text
    assert len(re.findall(r'class="node"', svg)) == 52
