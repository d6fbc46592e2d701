"""The PDF: the report document as JSON, read by a fixed Typst template, compiled with Typst.

Injection-proof by construction: no string from a results file is ever spliced into Typst source.
``templates/report.typ`` is copied verbatim; it reads ``report-data.json`` with ``json(...)`` and
places every string it finds there in content as a string, which Typst shows as text and never
parses as markup. Formulas travel as the sanitised MathML tree of :func:`reports.formulas.math_tree`
(JSON), which the template walks and rebuilds with Typst's math functions; a formula that cannot
be parsed (or is nested too deeply to rebuild) is shown as its LaTeX source, as text.

Everything that needs formatting (numbers to a few significant digits, the facts of a check) is
formatted here, so the template only lays out strings. The output is deterministic: the same
document and figures give a byte-identical PDF (no date, only Typst's bundled fonts).
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

from attnaudit.reports.document import truncate
from attnaudit.reports.formulas import math_tree, split_statement

TEMPLATE = Path(__file__).resolve().parent / "templates" / "report.typ"
DATA_NAME = "report-data.json"
# The template rebuilds a formula by recursion; Typst limits the call and layout depth (about 80),
# so a deeper tree (hostile nesting, never a real formula) is shown as its source instead.
MAX_TREE_DEPTH = 24
# Typst's JSON reader refuses nesting beyond 128 levels; a tree takes two per level.
MAX_DATA_DEPTH = 40
_EM = re.compile(r"^\s*(-?\d+(?:\.\d*)?|-?\.\d+)\s*em\s*$")
_I64 = 2 ** 63


class PdfError(RuntimeError):
    """Typst failed; the message is one line (the rest of the report is already written)."""


def _plain(value: Any, depth: int = 0) -> Any:
    """JSON that Typst reads: no NaN/inf (not JSON), no integers beyond 64 bits, str keys, and
    nothing nested deeper than Typst's JSON reader accepts (such a value is kept as its text)."""
    if isinstance(value, (dict, list, tuple)) and depth >= MAX_DATA_DEPTH:
        return truncate(json.dumps(value, ensure_ascii=False, default=str), 400)
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if -_I64 <= value < _I64 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)


def _depth(node: dict[str, Any]) -> int:
    return 1 + max((_depth(c) for c in node.get("c") or []), default=0)


_OPEN, _CLOSE = "([{|‖⟨⌊⌈", ")]}|‖⟩⌋⌉"
_FENCE = {"fence": "true", "stretchy": "true"}


def _delimiter(node: dict[str, Any], chars: str) -> bool:
    return (node.get("t") == "mo" and node.get("s", "") in chars and len(node.get("s", "")) == 1
            and (node.get("a") or {}).get("stretchy") != "false")


def _fenced(children: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A matrix's brackets (``mo``, ``mtable``, ``mo`` in a row) grouped as a stretchy fence, as a
    MathML renderer stretches them; \\left…\\right pairs arrive grouped already."""
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(children):
        trio = children[i:i + 3]
        if (len(trio) == 3 and trio[1].get("t") == "mtable" and _delimiter(trio[0], _OPEN)
                and _delimiter(trio[2], _CLOSE)):
            out.append({"t": "mrow", "c": [trio[0] | {"a": _FENCE}, trio[1], trio[2] | {"a": _FENCE}]})
            i += 3
        elif (len(trio) >= 2 and trio[1].get("t") == "mtable" and _delimiter(trio[0], "{")
              and not (len(trio) == 3 and _delimiter(trio[2], _CLOSE))):
            # cases: a brace on the left only, as \left\{ … \right.
            nothing = {"t": "mo", "a": _FENCE, "s": ""}
            out.append({"t": "mrow", "c": [trio[0] | {"a": _FENCE}, trio[1], nothing]})
            i += 2
        else:
            out.append(children[i])
            i += 1
    return out


def _prepare(node: dict[str, Any]) -> dict[str, Any]:
    """The tree as the template reads it: mspace widths become a number of em ("em"), and a
    matrix's brackets a stretchy fence."""
    out = {k: v for k, v in node.items() if k != "c"}
    if node.get("t") == "mspace":
        m = _EM.match(str((node.get("a") or {}).get("width", "")))
        if m and abs(float(m.group(1))) <= 10:
            out["em"] = float(m.group(1))
    if "c" in node:
        out["c"] = _fenced([_prepare(c) for c in node["c"]])
    return out


def formula(latex: str | None) -> dict[str, Any] | None:
    """``{"math": tree}``, or ``{"latex": source}`` when the source cannot be rebuilt; None if empty."""
    if not latex or not str(latex).strip():
        return None
    latex = str(latex)
    tree = math_tree(latex)
    tree = None if tree is None else _prepare(tree)
    if tree is None or _depth(tree) > MAX_TREE_DEPTH:
        return {"latex": latex}
    return {"math": tree}


def statement(latex: str | None) -> list[dict[str, Any]]:
    """A statement as segments: ``{"text": prose}``, ``{"math": tree}`` or ``{"latex": source}``."""
    segments: list[dict[str, Any]] = []
    for segment in split_statement(str(latex or "")):
        if segment.kind == "text":
            segments.append({"text": segment.source})
        else:
            f = formula(segment.source)
            if f is not None:
                segments.append(f)
    return segments


def _plot(plot_id: Any, out: Path) -> str | None:
    """``figures/<plot_id>.svg`` relative to ``out`` when render.py wrote it there, else None."""
    if not isinstance(plot_id, str) or not plot_id or plot_id.startswith(".") or "/" in plot_id \
            or "\\" in plot_id:
        return None
    path = out / "figures" / f"{plot_id}.svg"
    return f"figures/{plot_id}.svg" if path.is_file() else None


def report_data(document: dict[str, Any], out: Path) -> dict[str, Any]:
    """What the template reads: the document, each claim, step, check and table cell carrying a
    ``pdf`` entry with its formulas as trees and its facts formatted as strings."""
    doc = _plain(document)
    # The template computes its findings section from the claims: keep ids, not copies.
    doc["findings"] = {k: [c["id"] for c in v] if isinstance(v, list) else v
                       for k, v in (doc.get("findings") or {}).items()}
    for claim in doc.get("claims") or []:
        for step in (claim.get("derivation") or {}).get("steps") or []:
            step["pdf"] = {"paper": formula(step.get("paper_latex")),
                           "derived": formula(step.get("derived_latex"))}
        for ev in claim.get("evidence") or []:
            ev["pdf"] = {"plot": _plot(ev.get("plot_id"), out)}
        claim["pdf"] = {"statement": statement(claim.get("statement"))}
    for paper in doc.get("papers") or []:
        paper["pdf"] = {"graph": _plot(f"graph-{paper.get('key')}", out)}  # written by reports.graph
    for table in doc.get("tables") or []:
        for row in table.get("rows") or []:
            for cell in row.get("cells") or []:
                cell["pdf"] = {"paper": formula(cell.get("paper"))}
    return {"schema": "attnaudit.report-pdf/1", "document": doc}


def write_pdf(document: dict[str, Any], out: Path) -> Path:
    """Write ``report-data.json`` and ``report.typ`` into ``out`` and compile ``report.pdf``.

    The figures are read from ``out/figures/<plot_id>.svg`` (written by render.py beforehand).
    """
    import typst

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = report_data(document, out)
    (out / DATA_NAME).write_text(json.dumps(data, ensure_ascii=False, allow_nan=False, indent=None),
                                 encoding="utf-8")
    shutil.copyfile(TEMPLATE, out / "report.typ")
    pdf = out / "report.pdf"
    try:
        typst.compile(str(out / "report.typ"), output=str(pdf), root=str(out), ignore_system_fonts=True)
    except typst.TypstError as exc:  # a defect of the template or the data, never of the reader
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PdfError(f"Typst could not compile {out / 'report.typ'}: {first}") from exc
    return pdf
