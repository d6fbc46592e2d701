"""A referee's letter per paper, generated from the records of a results file alone.

The letter is a list of blocks (headings, paragraphs of text and code spans, quotes, commands,
list items); every sentence is a record field or one of the fixed templates below, so the letter
says nothing the records do not. It is written as Markdown (:func:`markdown`) or compiled to PDF
through Typst, as the report is (``templates/letter.typ`` reads the blocks as JSON data and places
every string as text, never as markup).

- **Summary**: which of the abstract's contributions survive (:func:`checks.graph.contribution_reading`),
  counts of results, refuted clauses and proof statuses.
- **Major comments**: every refuted clause, ranked by how many of the run's results rest on its
  claim (``rests_on``, through the uses of their proofs), then by id: the clause quoted, the
  decisive evidence (a witness with its numbers and the replay command, which runs from the
  results folder; a fitted interval excluding the prediction; the false statement step), the proof's
  status, and the corrected statement where the suite derived one.
- **Minor comments**: true statements with flawed proofs (the first false step quoted, with what
  fails), incomplete proofs, proofs that rest on refuted or unverifiable results, identities that
  need no proof, unverifiable statements with what they would have to state.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from attnaudit.checks.results import Evidence, Record, Step, contribution_reading, dependants
from attnaudit.reports.graph import natural

TEMPLATE = Path(__file__).resolve().parent / "templates" / "letter.typ"
LETTER_SCHEMA = "attnaudit.letter/1"
Span = list[str]  # ["t", text] or ["c", code]


class LetterError(Exception):
    """The letter cannot be written (no such paper in the results); the message is one line."""


class LetterPdfError(LetterError):
    """Typst failed on the letter (a defect of the template or the data, never of the reader)."""


def _t(text: Any) -> Span:
    return ["t", str(text)]


def _c(text: Any) -> Span:
    return ["c", str(text)]


def _p(*spans: Span) -> dict[str, Any]:
    return {"kind": "p", "spans": list(spans)}


def _item(*spans: Span) -> dict[str, Any]:
    return {"kind": "item", "spans": list(spans)}


def _h(level: int, text: str) -> dict[str, Any]:
    return {"kind": f"h{level}", "spans": [_t(text)]}


def _quote(text: str) -> dict[str, Any]:
    return {"kind": "quote", "spans": [_t(" ".join(str(text).split()))]}


def _cmd(text: str) -> dict[str, Any]:
    return {"kind": "cmd", "spans": [_c(text)]}


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _num(value: Any, digits: int = 4) -> str:
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _clause_items(record: Record, clause_id: str) -> tuple[list[Step], list[Evidence]]:
    """The disagreeing statement steps and checks of the primary reading that decide ``clause_id``."""
    only = len(record.clauses) <= 1

    def mine(item: Step | Evidence) -> bool:
        return (item.role == "statement" and item.reading is None
                and (item.clause == clause_id or (only and item.clause is None)))

    steps = [s for s in record.derivation.steps if mine(s) and s.status == "disagrees"]
    checks = [e for e in record.evidence if mine(e) and e.status == "disagrees"]
    return steps, checks


def _evidence_blocks(record: Record, clause_id: str) -> list[dict[str, Any]]:
    steps, checks = _clause_items(record, clause_id)
    blocks: list[dict[str, Any]] = []
    for s in steps[:1]:  # the first false statement step decides
        blocks.append(_item(_t("False statement step "), _c(s.name), _t(": the paper has "),
                            _c(s.paper), _t(", the derivation gives "), _c(s.derived), _t(".")))
    for e in checks:
        w, fit = e.witness, e.fit
        if w is not None:
            blocks.append(_item(_t("Witness of "), _c(e.name), _t(f" ({e.get('lhs')} {e.get('rel')} "
                                                                 f"{e.get('rhs')}): lhs = "),
                                _c(_num(w.lhs, 17)), _t(", rhs = "), _c(_num(w.rhs, 17)),
                                _t(", tolerance "), _c(_num(w.tol, 6)),
                                _t(f"; found by {w.found_by}, seed {w.seed}, on {w.device}.")))
            if w.replay:
                blocks.append(_p(_t("Replay it from the results folder:")))
                blocks.append(_cmd(str(w.replay)))
        elif fit is not None and "ci" in fit:
            lo, hi = fit["ci"][0], fit["ci"][1]
            what = ("rate" if e.type == "limit" else "exponent")
            predicted = (f"derived rate {_num(e.get('predicted_exponent'))}" if e.type == "limit"
                         else f"predicted {e.get('predicted')} (order {e.get('order')}, exponent "
                              f"{_num(e.get('predicted_exponent'))})")
            blocks.append(_item(_t("Check "), _c(e.name), _t(f" ({e.get('family')}): fitted {what} "),
                                _c(_num(fit.get("exponent"))), _t(", 95% interval "),
                                _c(f"[{_num(lo)}, {_num(hi)}]"), _t(f" over {_num(fit.get('decades'), 3)} "
                                                                    f"decades; {predicted}.")))
    if not steps and not checks:
        blocks.append(_item(_t("Recorded: "), _t(next((c.summary for c in record.clauses
                                                      if c.id == clause_id), record.summary))))
    return blocks


def _major(records: list[Record], mine: list[Record], pack: str | None
           ) -> list[dict[str, Any]]:
    """``pack``: where the paper's claims were loaded from when they are not built in."""
    comments = []
    for r in mine:
        for order, clause in enumerate(r.clauses):
            if clause.verdict == "refuted":
                resting = dependants(records, r.id)
                comments.append((-len(resting), natural(r.id), order, r, clause, resting))
    comments.sort(key=lambda c: c[:3])
    blocks: list[dict[str, Any]] = [_h(2, "Major comments")]
    if not comments:
        return blocks + [_p(_t("No clause of this paper's results is refuted."))]
    blocks.append(_p(_t("Every refuted clause, ranked by how many results of this run rest on it (through "
                        "the uses of their proofs), then by id.")))
    for i, (_, _, _, r, clause, resting) in enumerate(comments, start=1):
        blocks.append(_h(3, f"{i}. {r.label or r.id}, clause {clause.id}"))
        blocks.append(_p(_c(r.id), _t(f" · {r.section} · refuted · proof {r.proof.status}")))
        if resting:
            blocks.append(_p(_t(f"{_plural(len(resting), 'result')} of this run rest"
                                f"{'s' if len(resting) == 1 else ''} on it: "),
                             *_join([_c(x) for x in resting])))
        else:
            blocks.append(_p(_t("No result of this run rests on it.")))
        blocks.append(_quote(clause.quote or r.reading or r.statement))
        blocks.append(_p(_t("Finding: "), _t(clause.summary)))
        blocks += _evidence_blocks(r, clause.id)
        blocks.append(_p(_t("Run the claim again, with this record's seed and profile"
                            + (f" (its claims were loaded from {pack}: add the --claims that loads them)"
                               if pack else "") + ":")))
        blocks.append(_cmd(f"attnaudit run {r.id} --seed {r.seed} --profile {r.profile}"))
        if r.proof.status in ("flawed", "incomplete"):
            blocks.append(_p(_t(f"The proof is {r.proof.status}: "), _t(r.proof.reason)))
        corrected = r.corrected
        if corrected is not None and corrected.get("statement"):
            blocks.append(_p(_t("Corrected statement (derived by attnaudit from the evidence): "),
                             _t(corrected["statement"])))
    return blocks


def _join(spans: list[Span], sep: str = ", ") -> list[Span]:
    out: list[Span] = []
    for i, s in enumerate(spans):
        if i:
            out.append(_t(sep))
        out.append(s)
    return out


def _minor(mine: list[Record]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [_h(2, "Minor comments")]

    def section(title: str, items: list[list[dict[str, Any]]]) -> None:
        blocks.append(_h(3, title))
        if not items:
            blocks.append(_p(_t("None.")))
        for item in items:
            blocks.extend(item)

    flawed = []
    for r in mine:
        proof = r.proof
        if r.verdict == "confirmed" and proof.status == "flawed":
            quote = next((s.quote for s in proof.steps or () if s.id == proof.first_false_step), "")
            flawed.append([_item(_c(r.id), _t(f" ({r.label}): the statement is confirmed; "
                                              "the proof's first false step is "),
                                 _c(proof.first_false_step)),
                           _quote(quote),
                           _p(_t("What fails: "), _t(proof.reason))])
    section("True statements with flawed proofs", flawed)
    section("Incomplete proofs", [[_item(_c(r.id), _t(f" ({r.verdict}): "), _t(r.proof.reason))]
                                  for r in mine if r.proof.status == "incomplete"])
    resting = []
    for r in mine:
        if not r.rests_on:
            continue
        spans = [_c(r.id), _t(f" ({r.verdict} · proof {r.proof.status}) rests on ")]
        for k, f in enumerate(r.rests_on):
            through = ", through " + ", ".join(f.through) if f.through else ""
            spans += ([_t("; ")] if k else []) + [_c(f.claim), _t(f" ({f.verdict}{through})")]
        resting.append([_item(*spans, _t("."))])
    section("Proofs that rest on refuted or unverifiable results", resting)
    section("Identities that need no proof", [
        [_item(_c(r.id), _t(" holds by construction: "), _t(r.identity or ""))]
        for r in mine if r.confirmation == "identity"])
    unverifiable = []
    for r in mine:
        if r.verdict != "unverifiable":
            continue
        undefined = [c for c in r.clauses if c.undefined]
        if undefined:
            for c in undefined:
                unverifiable.append([_item(_c(r.id), _t(", clause "), _c(c.id),
                                           _t(" would have to state: "), _t(c.undefined))])
        else:
            unverifiable.append([_item(_c(r.id), _t(": "), _t(r.summary))])
    section("Unverifiable statements", unverifiable)
    return blocks


def build_letter(results: dict[str, Any], key: str, *, source: str) -> dict[str, Any]:
    """The letter on paper ``key`` from a loaded results document (``checks.results.load_document``)."""
    records = list(results["results"])  # annotated by the run: uses, used_by, rests_on
    mine = sorted((r for r in records if r.paper == key), key=lambda r: natural(r.id))
    if not mine:
        known = sorted({r.paper for r in records})
        raise LetterError(f"no records of paper {key!r} in {source} (papers: {', '.join(known) or 'none'})")
    paper = next((p for p in results.get("papers") or [] if p.get("key") == key), {"key": key})
    title = paper.get("title") or key
    blocks: list[dict[str, Any]] = [_h(1, f"Referee's letter on “{title}”")]
    authors = ", ".join(paper.get("authors") or [])
    blocks.append(_p(_t(f"Authors: {authors or 'not recorded'}"
                        + (f" · arXiv {paper['arxiv']}" if paper.get("arxiv") else "") + " · key "), _c(key)))
    first = mine[0]
    blocks.append(_p(_t(f"Written by attnaudit from the records of {source} "
                        f"({_plural(len(mine), 'result')} of this paper; seed {first.seed}, profile "
                        f"{first.profile}, device {first.device}). Each sentence is a field "
                        "of a record or a fixed template.")))
    blocks.append(_h(2, "Summary"))
    by_id = {r.id: r for r in records}
    readings = [c | contribution_reading(c, by_id) for c in paper.get("contributions") or []]
    if readings:
        tally = Counter(c["reading"] for c in readings)
        told = ", ".join(f"{n} {reading}" for reading, n in sorted(tally.items()))
        blocks.append(_p(_t(f"The abstract makes {_plural(len(readings), 'promise')} that the suite carries: "
                            f"{told}.")))
        for c in readings:
            carriers = [[_c(x["id"]), _t(f" {x['verdict']}")] for x in c["carriers"]]
            carriers += [[_c(m), _t(" not in this run")] for m in c["missing"]]
            spans = [s for k, pair in enumerate(carriers) for s in ([_t(", ")] if k else []) + pair]
            blocks.append(_item(_t(f"“{' '.join(c['quote'].split())}”: {c['reading']} ("), *spans, _t(")")))
    else:
        blocks.append(_p(_t("The records list no contributions of the abstract for this paper.")))
    verdicts = Counter(r.verdict for r in mine)
    proofs = Counter(r.proof.status for r in mine)
    refuted_clauses = sum(c.verdict == "refuted" for r in mine for c in r.clauses)
    blocks.append(_p(_t(f"Of {_plural(len(mine), 'result')}: "
                        + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items()))
                        + f"; {_plural(refuted_clauses, 'clause')} refuted. Proofs: "
                        + ", ".join(f"{n} {s}" for s, n in sorted(proofs.items(), key=lambda x: str(x[0])))
                        + ".")))
    blocks += _major(records, mine, paper.get("pack"))
    blocks += _minor(mine)
    return {"schema": LETTER_SCHEMA, "paper": key, "title": title, "blocks": blocks}


# ----------------------------------------------------------------------------- Markdown

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def _md_text(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", re.sub(r"\s+", " ", str(text)))


def _md_code(text: str) -> str:
    text = re.sub(r"\s+", " ", str(text)).strip()
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}" if fence == "`" else f"{fence} {text} {fence}"


def _md_spans(spans: list[Span]) -> str:
    return "".join(_md_code(s) if kind == "c" else _md_text(s) for kind, s in spans)


def markdown(letters: list[dict[str, Any]]) -> str:
    """The letters as Markdown, one after another."""
    out: list[str] = []
    for letter in letters:
        previous = None
        for block in letter["blocks"]:
            kind, text = block["kind"], _md_spans(block["spans"])
            if previous == "item" and kind != "item":
                out.append("")
            if kind.startswith("h"):
                out += ["#" * int(kind[1:]) + " " + text, ""]
            elif kind == "p":
                out += [text, ""]
            elif kind == "quote":
                out += ["> " + text, ""]
            elif kind == "cmd":
                out += ["```", " ".join(block["spans"][0][1].split()), "```", ""]
            elif kind == "item":
                out.append("- " + text)
            previous = kind
        if previous == "item":
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# ----------------------------------------------------------------------------- PDF

def write_pdf(letters: list[dict[str, Any]], path: Path) -> Path:
    """Compile the letters to ``path`` with the fixed Typst template (no date: the same letters
    give a byte-identical PDF)."""
    import typst

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="attnaudit-letter-") as tmp:
        folder = Path(tmp)
        (folder / "letter-data.json").write_text(
            json.dumps({"schema": LETTER_SCHEMA, "letters": letters}, ensure_ascii=False), encoding="utf-8")
        shutil.copyfile(TEMPLATE, folder / "letter.typ")
        try:
            typst.compile(str(folder / "letter.typ"), output=str(folder / "letter.pdf"), root=str(folder),
                          ignore_system_fonts=True)
        except typst.TypstError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise LetterPdfError(f"Typst could not compile the letter: {first}") from exc
        shutil.copyfile(folder / "letter.pdf", path)
    return path


def paper_keys(results: dict[str, Any]) -> list[str]:
    return sorted({r.paper for r in results["results"] if r.paper})


def write_report_letters(results: dict[str, Any], out: Path, *, source: str, pdf: bool) -> list[Path]:
    """``letter-<paper>.md`` (and ``.pdf`` when ``pdf``) for every paper of the results, in ``out``."""
    written = []
    for key in paper_keys(results):
        letter = build_letter(results, key, source=source)
        md = Path(out) / f"letter-{key}.md"
        md.write_text(markdown([letter]), encoding="utf-8")
        written.append(md)
        if pdf:
            written.append(write_pdf([letter], Path(out) / f"letter-{key}.pdf"))
    return written
