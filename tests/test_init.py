"""``attnaudit init``: a LaTeX paper read into a pack of stubs (checks.latex, checks.paper_pack).

tests/latex_paper/ declares its environments with amsthm (a counter within sections, one shared
with it, one of its own, a starred one) and thmtools (a sibling, an unnumbered one), \\inputs its
results, has titled, starred and appendix results and proofs citing lemmas by \\ref and \\cref.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from attnaudit.checks.cli import main
from attnaudit.checks.latex import LatexError, read_paper

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "tests" / "latex_paper"
EXAMPLE = ROOT / "docs" / "example-paper" / "softmax-note.tex"

# id, environment, number, title, first \label, section: as LaTeX numbers them (theorems within
# sections, lemmas and propositions sharing their counter, corollaries on their own, the appendix
# lettered, starred forms unnumbered).
EXPECTED = [
    ("definition-1.1", "defn", "1.1", None, "def:frob", "§1 Setting"),
    ("lemma-2.1", "lem", "2.1", None, "lem:trace", "§2 Results"),
    ("theorem-2.2", "thm", "2.2", "Main bound", "thm:main", "§2 Results"),
    ("proposition-2.3", "prop", "2.3", None, "prop:sub", "§2 Results"),
    ("corollary-1", "cor", "1", None, "cor:one", "§2 Results"),
    ("remark-unnumbered-1", "rem*", None, None, None, "§2 Results"),
    ("theorem-unnumbered-1", "thm*", None, None, None, "§2 Results"),
    ("conjecture-tightness", "conj", None, "Tightness", "conj:tight", "Discussion"),
    ("lemma-a.1", "lem", "A.1", "Rank one", "lem:rank-one", "§A Auxiliary results"),
]


def test_every_result_is_found_and_numbered_as_the_paper_numbers_it():
    paper = read_paper(PAPER)  # a folder: its one file with \documentclass is the main file
    got = [(r.id, r.environment, r.number, r.title, r.labels[0] if r.labels else None, r.section)
           for r in paper.results]
    assert got == EXPECTED
    assert [r.kind for r in paper.results] == ["definition", "lemma", "theorem", "proposition",
                                               "corollary", "remark", "theorem", "conjecture", "lemma"]
    assert paper.files == ("main.tex", "sections/results.tex")
    lemma = paper.results[1]
    assert (lemma.file, lemma.line) == ("sections/results.tex", 3)
    assert paper.title == "Traces and norms: a test paper for attnaudit init"
    assert paper.authors == ("A. One", "B. Two")


def test_clauses_and_steps_are_verbatim_with_the_papers_macros_listed():
    paper = read_paper(PAPER / "main.tex")
    source = (PAPER / "sections" / "results.tex").read_text()
    by_id = {r.id: r for r in paper.results}
    lemma, theorem = by_id["lemma-2.1"], by_id["theorem-2.2"]
    # a set-up sentence ("Let …") joins the clause it sets up; the quote is the source's text
    assert lemma.clauses == (r"Let $A \in \R^{n \times n}$. Then $\tr(A^\top A) \ge 0$.",)
    assert lemma.macros == (r"\R", r"\tr")
    assert paper.macros[r"\norm"] == r"\left\lVert #1 \right\rVert"
    # a list's items are clauses (the lead-in ending in ':' joins the first)
    assert len(theorem.clauses) == 2 and theorem.clauses[1] == "equality holds when $A$ has rank one."
    assert theorem.clauses[0].endswith(r"\item $\norm{A}_2 \le \norm{A}_F$, and")
    for quote in (*lemma.clauses, *theorem.clauses, *theorem.proof.steps):
        assert quote in source
    # "i.e." does not end a sentence
    assert lemma.proof.steps[-1] == "Each term is non-negative, i.e. the sum is too."
    assert all(q in paper.source for r in paper.results for q in r.clauses)  # the flattened source


def test_a_proof_citing_results_by_ref_gives_uses_edges():
    by_id = {r.id: r for r in read_paper(PAPER).results}
    uses = [(u.target, u.label) for u in by_id["theorem-2.2"].proof.uses]
    assert uses == [("lemma-2.1", "lem:trace"), ("lemma-a.1", "lem:rank-one")]  # \ref and \cref
    assert by_id["theorem-2.2"].proof.uses[1].quote == r"For rank one, \cref{lem:rank-one} gives equality."
    assert [u.target for u in by_id["corollary-1"].proof.uses] == ["theorem-2.2"]
    # a \ref in a statement is no use (only a proof's are); a result with no proof has none
    assert by_id["conjecture-tightness"].proof is None and by_id["proposition-2.3"].proof is None


def _init(tmp_path, paper, key, capsys):
    code = main(["init", str(paper), "--key", key, "--claims", str(tmp_path / "mine")])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_init_writes_the_pack_whose_stubs_run_inconclusive(tmp_path, monkeypatch, capsys):
    code, out, _ = _init(tmp_path, PAPER, "traces", capsys)
    assert code == 0, out
    pack = tmp_path / "mine"
    catalogue = tomllib.loads((pack / "traces" / "catalogue.toml").read_text())
    entries = {e["id"]: e for e in catalogue["claim"]}
    assert list(entries) == [f"traces/{e[0]}" for e in EXPECTED]
    theorem = entries["traces/theorem-2.2"]
    assert theorem["aliases"] == ["thm:main"] and theorem["kind"] == "theorem"
    assert theorem["where"] == "sections/results.tex:10, §2 Results, environment thm"
    assert [u["claim"] for u in theorem["uses"]] == ["traces/lemma-2.1", "traces/lemma-a.1"]
    assert catalogue["macros"][r"\tr"] == "tr"
    assert (pack / "papers" / "traces.tex").read_text() == read_paper(PAPER).source
    assert len(list((pack / "tests").glob("test_traces_*.py"))) == len(EXPECTED)
    # from another directory, every stub runs at once and reads inconclusive, naming its clauses
    monkeypatch.chdir(tmp_path / "mine" / "traces")
    assert main(["run", "traces", "--claims", str(pack), "--json"]) == 0
    records = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert {r["verdict"] for r in records.values()} == {"inconclusive"}
    summary = records["traces/theorem-2.2"]["summary"]
    assert "clause 'clause-1'" in summary and "clause 'clause-2'" in summary
    assert records["traces/lemma-2.1"]["proof"]["status"] == "incomplete"  # steps quoted, unchecked
    assert records["traces/proposition-2.3"]["proof"]["status"] == "absent"


def test_the_written_tests_pass(tmp_path, capsys):
    assert _init(tmp_path, PAPER, "traces", capsys)[0] == 0
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path / "mine" / "tests")], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=300)
    assert proc.returncode == 0 and f"{3 * len(EXPECTED)} passed" in proc.stdout, proc.stdout + proc.stderr


def test_init_twice_exits_2_and_touches_nothing(tmp_path, capsys):
    assert _init(tmp_path, PAPER, "traces", capsys)[0] == 0
    files = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (tmp_path / "mine").rglob("*")
             if p.is_file()}
    (tmp_path / "mine" / "traces" / "lemma_2_1.py").unlink()  # even with one file gone
    code, _, err = _init(tmp_path, PAPER, "traces", capsys)
    assert code == 2 and "never overwrites" in err and "Traceback" not in err
    assert not (tmp_path / "mine" / "traces" / "lemma_2_1.py").exists()
    for path, (data, mtime) in files.items():
        if path.exists():
            assert (path.read_bytes(), path.stat().st_mtime_ns) == (data, mtime)


def test_the_docs_example_paper(tmp_path, capsys):
    paper = read_paper(EXAMPLE)
    assert [r.id for r in paper.results] == ["definition-1.1", "lemma-1.2", "theorem-1.3",
                                             "proposition-1.4"]
    assert [u.target for u in paper.results[2].proof.uses] == ["lemma-1.2"]
    assert _init(tmp_path, EXAMPLE, "softmax-note", capsys)[0] == 0


@pytest.mark.parametrize(("text", "where"), [
    ("\\documentclass{article}\n\\begin{document}\n\\begin{theorem}\nx\n\\end{lemma}\n\\end{document}\n",
     "paper.tex:5: cannot parse"),  # the mismatched \\end
    ("\\documentclass{article}\n\\begin{document}\n\\input{missing}\n\\end{document}\n",
     "paper.tex:3: \\input{missing}: no such file"),
])
def test_a_paper_that_cannot_be_read_says_where_and_exits_2(tmp_path, capsys, text, where):
    (tmp_path / "paper.tex").write_text(text)
    with pytest.raises(LatexError, match="^" + where.replace("\\", "\\\\")):
        read_paper(tmp_path / "paper.tex")
    code, _, err = _init(tmp_path, tmp_path / "paper.tex", "bad", capsys)
    assert code == 2 and where in err and not (tmp_path / "mine").exists()


def test_an_unparsable_input_file_is_named(tmp_path):
    (tmp_path / "main.tex").write_text("\\documentclass{article}\n\\begin{document}\n\\input{part}\n"
                                       "\\end{document}\n")
    (tmp_path / "part.tex").write_text("text\n\n\\begin{lemma} x \\end{theorem}\n")
    with pytest.raises(LatexError, match=r"^part\.tex:3: cannot parse"):
        read_paper(tmp_path)


def test_a_bad_key_is_a_usage_error(tmp_path, capsys):
    code, _, err = _init(tmp_path, PAPER, "Bad Key", capsys)
    assert code == 2 and "--key" in err and not (tmp_path / "mine").exists()


def test_a_claim_with_clauses_and_no_check_reads_inconclusive_never_confirmed():
    from attnaudit import Claim, Clause
    from attnaudit.checks.runner import run_claim

    claim = Claim(id="p/lemma-1", label="Lemma 1", section="§1", statement="x", reading="TODO",
                  kind="identity", no_derivation="a stub", clauses=(Clause("a", "x holds."),
                                                                     Clause("b", "y holds.")))
    record, _ = run_claim(claim, seed=0, profile="quick", device="cpu")
    assert record["verdict"] == "inconclusive"
    assert [c["summary"] for c in record["clauses"]] == [
        "no statement step or check tests clause 'a' yet", "no statement step or check tests clause 'b' yet"]
    with pytest.raises(ValueError, match="no checks"):  # without clauses a claim still needs a check
        Claim(id="p/lemma-2", label="Lemma 2", section="§1", statement="x", reading="r",
              kind="identity", no_derivation="a stub")


def test_init_refuses_the_built_in_claims_package(capsys):
    import attnaudit.claims

    builtin = next(iter(attnaudit.claims.__path__))
    assert main(["init", str(PAPER), "--key", "traces", "--claims", builtin]) == 2
    assert "built-in claims package" in capsys.readouterr().err
    assert not (Path(builtin) / "traces").exists()


def test_an_empty_statement_is_an_error_that_says_where_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n\\begin{document}\n"
                                        "\\begin{theorem}[On $\\ell_2$] $x \\ge 0$. \\end{theorem}\n"
                                        "\\begin{lemma}\\end{lemma}\n\\end{document}\n")
    code, _, err = _init(tmp_path, tmp_path / "paper.tex", "empty", capsys)
    assert code == 2 and "paper.tex:4: Lemma 1 has an empty statement" in err
    assert not (tmp_path / "mine").exists()


def test_a_file_input_twice_is_read_twice_and_a_loop_is_an_error(tmp_path):
    (tmp_path / "main.tex").write_text("\\documentclass{article}\n\\begin{document}\n\\input{part}\n"
                                       "\\input{part}\n\\end{document}\n")
    (tmp_path / "part.tex").write_text("\\begin{lemma} $x$ holds. \\end{lemma}\n")
    paper = read_paper(tmp_path / "main.tex")
    assert [r.id for r in paper.results] == ["lemma-1", "lemma-2"] and paper.files == ("main.tex", "part.tex")
    (tmp_path / "part.tex").write_text("\\input{main}\n")
    with pytest.raises(LatexError, match=r"^part\.tex:1: \\input of main\.tex inputs itself again"):
        read_paper(tmp_path / "main.tex")
