"""Formulas: the specs' LaTeX as MathML (HTML) and as a MathML tree for Typst (PDF), safely.

latex2mathml parses the LaTeX. Its string output un-escapes text (``\\text{<b>}`` comes out as a
raw ``<b>``), so it is not used: the element tree is taken instead, its character references are
decoded, unknown tags and attributes are dropped, and ElementTree serialises it, which escapes
every text node. The same sanitised tree goes to Typst as JSON, where strings are never markup.

Statements are prose with formulas (``\\text{For } x>0 \\text{ ...}``). MathML does not break
lines, so a statement is split at its top-level ``\\text{...}`` groups into text segments (plain
prose that wraps) and formula segments.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from latex2mathml.converter import convert_to_element

MATHML_NS = "http://www.w3.org/1998/Math/MathML"

# MathML Core presentation elements that latex2mathml emits and both renderers understand.
_TAGS = {"math", "mrow", "mi", "mn", "mo", "mtext", "mspace", "ms", "mfrac", "msqrt", "mroot",
         "msub", "msup", "msubsup", "munder", "mover", "munderover", "mtable", "mtr", "mtd",
         "mstyle", "mpadded", "mphantom", "menclose", "merror"}
_ATTRS = {"display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "width",
          "height", "depth", "linethickness", "displaystyle", "scriptlevel", "accent", "accentunder",
          "movablelimits", "columnalign", "rowspacing", "columnspacing", "notation", "minsize",
          "maxsize", "symmetric", "largeop", "form"}
_LEAVES = {"mi", "mn", "mo", "mtext", "ms"}
# Text-mode escapes that latex2mathml leaves verbatim inside \text{...}.
_TEXT_ESCAPES = {r"\&": "&", r"\%": "%", r"\$": "$", r"\#": "#", r"\_": "_", r"\{": "{", r"\}": "}",
                 r"\ ": " ", "~": "\u00a0", r"\,": "\u2009", r"\;": " ", r"\!": ""}
_TEXT_ESCAPE_RE = re.compile("|".join(re.escape(k) for k in sorted(_TEXT_ESCAPES, key=len, reverse=True)))


def latex_text(text: str) -> str:
    """LaTeX text-mode source as the characters it prints."""
    return _TEXT_ESCAPE_RE.sub(lambda m: _TEXT_ESCAPES[m.group(0)], text)


@dataclass(frozen=True)
class Segment:
    """A piece of a statement: prose (``text``) or a formula (``latex``)."""

    kind: str  # "text" | "math"
    source: str


def _group_end(latex: str, open_brace: int) -> int:
    """Index just past the brace group opening at ``open_brace``; -1 if unbalanced."""
    depth = 0
    i = open_brace
    while i < len(latex):
        c = latex[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


_TEXT_CMD = re.compile(r"\\(?:text|textrm|textnormal|mbox)\s*\{")


def split_statement(latex: str) -> list[Segment]:
    """Top-level ``\\text{...}`` groups (outside braces and environments) become prose; what lies
    between them, formulas."""
    segments: list[Segment] = []
    depth_scan = math_start = 0
    while True:
        m = _TEXT_CMD.search(latex, depth_scan)
        if m is None:
            break
        if _depth(latex, m.start()) != 0 or _environments_open(latex, m.start()):
            depth_scan = m.end()
            continue
        end = _group_end(latex, m.end() - 1)
        if end < 0:
            break  # unbalanced: leave the rest as one formula, which reports its own failure
        if latex[math_start:m.start()].strip():
            segments.append(Segment("math", latex[math_start:m.start()].strip()))
        segments.append(Segment("text", latex_text(latex[m.end():end - 1])))
        math_start = depth_scan = end
    if latex[math_start:].strip():
        segments.append(Segment("math", latex[math_start:].strip()))
    return _merge_text(segments)


def _depth(latex: str, index: int) -> int:
    depth, i = 0, 0
    while i < index:
        c = latex[i]
        if c == "\\":
            i += 2
            continue
        depth += (c == "{") - (c == "}")
        i += 1
    return depth


def _environments_open(latex: str, index: int) -> bool:
    """Inside ``\\begin{cases} ... \\end{cases}``: a \\text there belongs to the environment."""
    before = latex[:index]
    return before.count("\\begin{") > before.count("\\end{")


def _merge_text(segments: list[Segment]) -> list[Segment]:
    out: list[Segment] = []
    for s in segments:
        if out and s.kind == out[-1].kind == "text":
            out[-1] = Segment("text", out[-1].source + s.source)
        else:
            out.append(s)
    return out


def _sanitise(element: ET.Element) -> ET.Element | None:
    tag = element.tag.split("}")[-1]
    if tag not in _TAGS:
        return None
    clean = ET.Element(tag, {k: v for k, v in sorted(element.attrib.items()) if k in _ATTRS})
    if tag in _LEAVES:
        text = html.unescape(element.text or "")
        clean.text = latex_text(text) if tag == "mtext" else _restore(text)
    for child in element:
        kept = _sanitise(child)
        if kept is not None:
            clean.append(kept)
    return clean


_OPERATORNAME = re.compile(r"\\operatorname\*?\s*\{([^{}]*)\}")
_PLACEHOLDER = re.compile(r"Zop([a-j]+)Zop")


def _operator_names(latex: str) -> str:
    """``\\operatorname{eff-rank}``: latex2mathml keeps a name of letters as one upright operator
    but splits any other name into italic letters and a minus sign ("e f f − r a n k"). Its other
    characters are spelled as letter placeholders here and restored in the tree (``_sanitise``)."""
    def spell(m: re.Match) -> str:
        name = "".join(c if c.isascii() and c.isalpha() else
                       "Zop" + "".join(chr(ord("a") + int(d)) for d in str(ord(c))) + "Zop"
                       for c in m.group(1).strip())
        return f"\\operatorname{{{name}}}"
    return _OPERATORNAME.sub(spell, latex)


def _restore(text: str) -> str:
    return _PLACEHOLDER.sub(lambda m: chr(int("".join(str(ord(c) - ord("a")) for c in m.group(1)))),
                            text)


@lru_cache(maxsize=4096)
def _parse(latex: str, display: str) -> ET.Element | None:
    try:
        raw = convert_to_element(_operator_names(latex), display=display)
    except Exception:  # noqa: BLE001 - any parser failure: the caller shows the source instead
        return None
    return _sanitise(raw)


def mathml(latex: str, *, display: str = "inline") -> str | None:
    """A ``<math>`` element as escaped XML, or None when latex2mathml cannot parse the source."""
    tree = _parse(latex, display)
    if tree is None:
        return None
    tree = _copy(tree)
    tree.set("xmlns", MATHML_NS)
    return ET.tostring(tree, encoding="unicode", short_empty_elements=False)


def _copy(element: ET.Element) -> ET.Element:
    out = ET.Element(element.tag, dict(element.attrib))
    out.text = element.text
    out.extend(_copy(c) for c in element)
    return out


def math_tree(latex: str) -> dict[str, Any] | None:
    """The sanitised MathML as JSON for the Typst template: ``{"t": tag, "s": text, "c": [...],
    "a": {attributes}}``, or None when the source cannot be parsed."""
    tree = _parse(latex, "inline")
    return None if tree is None else _tree_json(tree)


def _tree_json(element: ET.Element) -> dict[str, Any]:
    node: dict[str, Any] = {"t": element.tag}
    if element.attrib:
        node["a"] = dict(element.attrib)
    if element.tag in _LEAVES:
        node["s"] = element.text or ""
    else:
        node["c"] = [_tree_json(c) for c in element]
    return node
