"""Read a LaTeX paper: its theorem-like results, numbered as LaTeX numbers them, with their
statements split into clauses, the proofs that follow them and the results those proofs cite.

Parsing is pylatexenc's (a maintained LaTeX parser), never regular expressions over the source;
the only text-level work is splitting the characters between macros into sentences.

What is read:

- the main file and, in document order, every ``\\input``/``\\include``/``\\subfile`` it names
  (a folder is searched for the one file holding ``\\documentclass``);
- theorem-like environments: the standard names (theorem, lemma, proposition, corollary,
  conjecture, definition, claim, remark) and every environment declared with amsthm's
  ``\\newtheorem{name}[shared]{Title}[within]`` / ``\\newtheorem*`` or thmtools'
  ``\\declaretheorem[name=…, numberwithin=…, sibling=…, numbered=no]{name}``; ``name*`` is the
  unnumbered form of ``name`` unless declared itself; an optional ``[title]`` is kept;
- numbering as LaTeX does it: shared counters, counters numbered within a section (or reset by
  ``\\numberwithin``), ``\\setcounter``, sections and subsections (starred ones unnumbered) and
  ``\\appendix`` (lettered sections);
- the paper's own macros (``\\newcommand``, ``\\renewcommand``, ``\\providecommand``,
  ``\\DeclareMathOperator``), listed per result where its statement uses them;
- the ``proof`` environment that follows a result (before the next result), or one anywhere whose
  optional title cites the result by ``\\ref``; every ``\\ref``/``\\cref``/``\\Cref``/``\\eqref``/
  ``\\autoref`` in that proof to a label inside another result is a use of that result.

A statement's clauses are its sentences (a sentence that only sets up, "Let …", "Suppose …",
joins the one after it) and the items of a list in it; a proof's steps are its sentences. Each is
the verbatim source text, so it stands in the flattened source that ``init`` writes beside the pack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pylatexenc import latexwalker
from pylatexenc.macrospec import EnvironmentSpec, MacroSpec

KINDS = ("theorem", "lemma", "proposition", "corollary", "conjecture", "definition", "claim", "remark")
STANDARD_ENVIRONMENTS = KINDS
# Words of an environment's title or name that say its kind (the first that matches decides);
# any other declared environment (an example, an assumption) is catalogued as a remark.
_KIND_WORDS = (("theorem", "theorem"), ("thm", "theorem"), ("lemma", "lemma"), ("lem", "lemma"),
               ("proposition", "proposition"), ("prop", "proposition"), ("corollary", "corollary"),
               ("cor", "corollary"), ("conjecture", "conjecture"), ("conj", "conjecture"),
               ("definition", "definition"), ("defn", "definition"), ("def", "definition"),
               ("claim", "claim"), ("remark", "remark"), ("rem", "remark"))
_REFS = ("ref", "cref", "Cref", "eqref", "autoref", "cpageref", "Cpageref", "vref", "nameref")
_INPUTS = ("input", "include", "subfile")
_DEFINERS = ("newcommand", "renewcommand", "providecommand", "DeclareMathOperator")
_SECTIONS = ("chapter", "section", "subsection", "subsubsection")
_LISTS = ("enumerate", "itemize", "description")
# A sentence that only sets up what follows ("Let x ∈ X.", or a lead-in ending in ':' before a
# list) joins the next one in one clause.
_SETUP = re.compile(r"^(let|suppose|assume|fix|given|consider|denote|write)\b", re.I)
# A sentence ends at . ! ? followed by white space, unless the word is a common abbreviation.
_SENTENCE_END = re.compile(r"[.!?](?=\s)")
_ABBREVIATIONS = ("e.g", "i.e", "cf", "resp", "etc", "vs", "w.r.t", "Fig", "Eq", "Thm", "Lem", "Sec",
                  "Prop", "Cor", "Def", "Ref", "et al", "a.s", "i.i.d", "approx")


class LatexError(Exception):
    """A paper that cannot be read: the message says where (file and line) and why, in one line."""


@dataclass(frozen=True)
class Use:
    label: str  # the \label cited
    target: str  # the local id of the result it belongs to
    quote: str  # the proof sentence that cites it, verbatim


@dataclass(frozen=True)
class Proof:
    file: str
    line: int
    text: str  # the proof's body, verbatim
    steps: tuple[str, ...]
    uses: tuple[Use, ...] = ()


@dataclass(frozen=True)
class Result:
    id: str  # e.g. theorem-3.2 (kind word and number; unnumbered ones get a title or a count)
    kind: str  # one of KINDS
    environment: str  # as written, e.g. thm or theorem*
    heading: str  # the environment's printed name, e.g. Theorem
    number: str | None  # as LaTeX prints it, e.g. 3.2 or A.1; None when unnumbered
    title: str | None  # the optional [title]
    labels: tuple[str, ...]  # every \label in the statement (the first is the result's own)
    section: str  # e.g. "§3.1 Main results", or "front matter"
    file: str  # relative to the paper's folder
    line: int
    statement: str  # the body, verbatim
    clauses: tuple[str, ...]
    macros: tuple[str, ...]  # the paper's own macros that the statement uses
    proof: Proof | None = None

    @property
    def display(self) -> str:
        return f"{self.heading} {self.number}" if self.number else f"{self.heading} (unnumbered)"


@dataclass
class Paper:
    main: Path
    root: Path
    title: str | None
    authors: tuple[str, ...]
    results: list[Result]
    macros: dict[str, str]  # \name -> its definition, verbatim
    source: str  # the paper with every \input spliced in (what the clauses are quoted from)
    files: tuple[str, ...] = field(default=())


# ── files ──────────────────────────────────────────────────────────────────────────────────


def main_file(path: Path) -> Path:
    """The paper's main file: ``path`` itself, or the one .tex file under the folder ``path``
    that holds ``\\documentclass``."""
    path = Path(path)
    if path.is_file():
        return path
    if not path.is_dir():
        raise LatexError(f"{path}: no such file or folder")
    candidates = sorted(p for p in path.rglob("*.tex")
                        if "\\documentclass" in p.read_text(encoding="utf-8", errors="replace"))
    if len(candidates) != 1:
        found = ", ".join(str(p.relative_to(path)) for p in candidates) or "none"
        raise LatexError(f"{path}: expected one .tex file with \\documentclass, found {found} "
                         "(name the main file)")
    return candidates[0]


def _context(theorem_envs: set[str]):
    """pylatexenc's default LaTeX context, plus the argument shapes of the macros read here and
    an optional [title] for every theorem-like environment (so the title is not body text)."""
    db = latexwalker.get_default_latex_context_db().filter_context()
    macros = [MacroSpec("newtheorem", "*{[{["), MacroSpec("declaretheorem", "[{["),
              MacroSpec("numberwithin", "[{{"), MacroSpec("setcounter", "{{"),
              MacroSpec("DeclareMathOperator", "*{{"), MacroSpec("label", "{"),
              MacroSpec("appendix", ""), MacroSpec("title", "[{"), MacroSpec("author", "[{"),
              *(MacroSpec(name, "*{") for name in _REFS), *(MacroSpec(name, "{") for name in _INPUTS),
              *(MacroSpec(name, "*[{") for name in _SECTIONS)]
    envs = [EnvironmentSpec(name, "[") for name in sorted(theorem_envs | {"proof"})]
    db.add_context_category("attnaudit", macros=macros, environments=envs, prepend=True)
    return db


@dataclass
class _Source:
    file: Path
    rel: str
    text: str
    walker: latexwalker.LatexWalker
    nodes: list


def _parse(file: Path, root: Path, context) -> _Source:
    text = file.read_text(encoding="utf-8", errors="replace")
    rel = str(file.relative_to(root)) if file.is_relative_to(root) else str(file)
    walker = latexwalker.LatexWalker(text, latex_context=context, tolerant_parsing=False)
    try:
        nodes, _, _ = walker.get_latex_nodes()
    except latexwalker.LatexWalkerParseError as exc:
        where = f"{rel}:{exc.lineno}" if exc.lineno else rel
        raise LatexError(f"{where}: cannot parse: {exc.msg}") from None
    return _Source(file, rel, text, walker, nodes)


def _arg(node, i: int) -> str | None:
    """The text of argument ``i`` of a macro or environment (without its braces), or None."""
    args = node.nodeargd.argnlist if node.nodeargd is not None else []
    if i >= len(args) or args[i] is None:
        return None
    arg = args[i]
    if arg.isNodeType(latexwalker.LatexGroupNode):
        return "".join(n.latex_verbatim() for n in arg.nodelist).strip()
    return arg.latex_verbatim().strip()


def _has_star(node) -> bool:
    args = node.nodeargd.argnlist if node.nodeargd is not None else []
    return bool(args) and args[0] is not None and args[0].latex_verbatim() == "*"


class _Walk:
    """Document order across files: yields (source, node) for every node, entering environments
    and groups, and splicing in each \\input file where it stands."""

    def __init__(self, main: Path, root: Path, context) -> None:
        self.root, self.context = root, context
        self.sources: list[_Source] = []
        self.main = self._load(main, None)

    def _load(self, file: Path, at: str | None, chain: tuple[Path, ...] = ()) -> _Source:
        """The parsed ``file`` (parsed once, however often it is input); a file that inputs
        itself, directly or through others, is an error naming where."""
        file = file.resolve()
        if file in chain:
            raise LatexError(f"{at}: \\input of {file.name} inputs itself again (a loop)")
        known = next((s for s in self.sources if s.file == file), None)
        if known is not None:
            return known
        source = _parse(file, self.root, self.context)
        self.sources.append(source)
        return source

    def _resolve(self, source: _Source, node) -> Path:
        name = _arg(node, 0) or ""
        line = source.walker.pos_to_lineno_colno(node.pos)[0]
        for candidate in (self.root / name, self.root / f"{name}.tex", source.file.parent / name,
                          source.file.parent / f"{name}.tex"):
            if candidate.is_file():
                return candidate
        raise LatexError(f"{source.rel}:{line}: \\{node.macroname}{{{name}}}: no such file")

    def nodes(self, source: _Source | None = None, nodes=None, chain: tuple[Path, ...] = ()):
        source = source or self.main
        chain = chain or (source.file,)
        for node in source.nodes if nodes is None else nodes:
            if node is None:
                continue
            if node.isNodeType(latexwalker.LatexMacroNode) and node.macroname in _INPUTS:
                line = source.walker.pos_to_lineno_colno(node.pos)[0]
                child = self._load(self._resolve(source, node), f"{source.rel}:{line}", chain)
                yield from self.nodes(child, None, (*chain, child.file))
                continue
            yield source, node
            if node.isNodeType(latexwalker.LatexEnvironmentNode) or node.isNodeType(
                    latexwalker.LatexGroupNode):
                yield from self.nodes(source, node.nodelist, chain)

    def flattened(self) -> str:
        """The main file with each \\input replaced by its file's text, recursively."""
        return self._flatten(self.main)

    def _flatten(self, source: _Source) -> str:
        out, at = [], 0
        for node in _all_nodes(source.nodes):
            if node.isNodeType(latexwalker.LatexMacroNode) and node.macroname in _INPUTS:
                child = next(s for s in self.sources if s.file == self._resolve(source, node).resolve())
                out += [source.text[at:node.pos], self._flatten(child)]
                at = node.pos + node.len
        return "".join(out) + source.text[at:]


def _all_nodes(nodes):
    """Every node under ``nodes``: inside environments, groups and mathematics, and in the
    arguments of macros and environments."""
    for node in nodes or ():
        if node is None:
            continue
        yield node
        yield from _all_nodes(getattr(node, "nodelist", None))
        if getattr(node, "nodeargd", None) is not None:
            yield from _all_nodes(node.nodeargd.argnlist)


# ── declarations and counters ────────────────────────────────────────────────────────────────


@dataclass
class _Declared:
    heading: str
    counter: str | None  # None: unnumbered


def _options(text: str | None) -> dict[str, str]:
    out = {}
    for part in (text or "").split(","):
        key, _, value = part.partition("=")
        if key.strip():
            out[key.strip()] = value.strip().strip("{}")
    return out


def _declarations(walk: _Walk) -> tuple[dict[str, _Declared], dict[str, str]]:
    """(theorem-like environments, counter → counter it is numbered within), from the preamble's
    and the files' \\newtheorem, \\declaretheorem and \\numberwithin."""
    envs: dict[str, _Declared] = {}
    within: dict[str, str] = {}
    for _, node in walk.nodes():
        if not node.isNodeType(latexwalker.LatexMacroNode):
            continue
        if node.macroname == "newtheorem":
            name, shared, heading, parent = _arg(node, 1), _arg(node, 2), _arg(node, 3), _arg(node, 4)
            if not name:
                continue
            if _has_star(node):
                envs[name] = _Declared(heading or name, None)
                continue
            counter = name
            if shared:
                counter = envs[shared].counter if shared in envs else shared
            elif parent:
                within[name] = parent
            envs[name] = _Declared(heading or name.capitalize(), counter)
        elif node.macroname == "declaretheorem":
            opts = _options(_arg(node, 0)) | _options(_arg(node, 2))
            name = _arg(node, 1)
            if not name:
                continue
            heading = opts.get("name") or opts.get("title") or name.capitalize()
            if opts.get("numbered", "yes") == "no":
                envs[name] = _Declared(heading, None)
                continue
            shared = opts.get("sibling") or opts.get("numberlike") or opts.get("sharenumber")
            counter = (envs[shared].counter if shared in envs else shared) if shared else name
            parent = opts.get("numberwithin") or opts.get("parent") or opts.get("within")
            if parent and not shared:
                within[name] = parent
            envs[name] = _Declared(heading, counter)
        elif node.macroname == "numberwithin":
            counter, parent = _arg(node, 1), _arg(node, 2)
            if counter and parent:
                within[counter] = parent
    for name in STANDARD_ENVIRONMENTS:  # used undeclared (a template's class may define them)
        envs.setdefault(name, _Declared(name.capitalize(), name))
    for name, decl in list(envs.items()):  # name* is the unnumbered form unless declared itself
        envs.setdefault(f"{name}*", _Declared(decl.heading, None))
    return envs, within


class _Counters:
    def __init__(self, within: dict[str, str]) -> None:
        self.value: dict[str, int] = {}
        self.within = dict(within)
        for child, parent in (("section", "chapter"), ("subsection", "section"),
                              ("subsubsection", "subsection")):
            self.within.setdefault(child, parent)
        self.appendix = False
        self.chapters = False

    def step(self, counter: str) -> None:
        self.value[counter] = self.value.get(counter, 0) + 1
        for child, parent in self.within.items():
            if parent == counter:
                self._reset(child)

    def _reset(self, counter: str) -> None:
        self.value[counter] = 0
        for child, parent in self.within.items():
            if parent == counter:
                self._reset(child)

    def text(self, counter: str) -> str:
        value = self.value.get(counter, 0)
        top = "chapter" if self.chapters else "section"
        lettered = self.appendix and counter == top and 0 < value <= 26
        own = chr(ord("A") + value - 1) if lettered else str(value)
        parent = self.within.get(counter)
        if parent is None or (parent == "chapter" and not self.chapters):
            return own
        return f"{self.text(parent)}.{own}"


# ── results ──────────────────────────────────────────────────────────────────────────────────


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def kind_of(heading: str, environment: str) -> str:
    for text in (heading.lower(), environment.lower().rstrip("*")):
        for word in re.findall(r"[a-z]+", text):
            for prefix, kind in _KIND_WORDS:
                if word == prefix or (len(prefix) > 4 and word.startswith(prefix)):
                    return kind
    return "remark"


def _body(node) -> tuple[int, int]:
    """(start, end) of an environment's body: after its optional argument, before \\end."""
    nodes = [n for n in node.nodelist if n is not None]
    if not nodes:
        return node.pos, node.pos
    return nodes[0].pos, nodes[-1].pos + nodes[-1].len


def _sentences(text: str, start: int, end: int, nodes) -> list[tuple[int, int]]:
    """Sentence spans of ``text[start:end]``: split only in character runs at the top level of
    ``nodes`` (never inside mathematics, groups or environments), and at each list item."""
    cuts = [start]
    for node in nodes:
        if node is None:
            continue
        if node.isNodeType(latexwalker.LatexCharsNode):
            for m in _SENTENCE_END.finditer(node.chars):
                word = re.search(r"[\w.]+$", node.chars[: m.start()])
                if word and word.group(0).rstrip(".") in _ABBREVIATIONS:
                    continue
                cuts.append(node.pos + m.end())
        elif node.isNodeType(latexwalker.LatexEnvironmentNode) and node.environmentname in _LISTS:
            items = [n for n in node.nodelist if n is not None and n.isNodeType(latexwalker.LatexMacroNode)
                     and n.macroname == "item"]
            cuts += [node.pos] + [n.pos for n in items] + [node.pos + node.len]
    cuts.append(end)
    spans = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        a, b = _trim(text, a, b)
        if b > a:
            spans.append((a, b))
    return spans


_LEADING = re.compile(r"(\s|\\label\{[^{}]*\}|\\item(\[[^\]]*\])?|\\begin\{(enumerate|itemize|description)\}"
                      r"(\[[^\]]*\])?)+")
_TRAILING = re.compile(r"(\s|\\end\{(enumerate|itemize|description)\}|\\label\{[^{}]*\}|%[^\n]*)+$")


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    """A span without the white space, labels and list markup at its ends (what remains is
    contiguous source text, so it is found verbatim in the paper)."""
    m = _LEADING.match(text, a, b)
    if m:
        a = m.end()
    m = _TRAILING.search(text[a:b])
    if m:
        b = a + m.start()
    return a, b


def _join_setup(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pending: int | None = None
    for a, b in spans:
        start = a if pending is None else pending
        if (_SETUP.match(text[a:b]) or text[a:b].endswith(":")) and (a, b) != spans[-1]:
            pending = start
            continue
        out.append((start, b))
        pending = None
    return out


def read_paper(path: str | Path) -> Paper:
    """Every theorem-like result of the paper at ``path`` (a .tex file or a folder), in order."""
    main = main_file(Path(path))
    root = main.parent.resolve()
    first = _Walk(main, root, _context(set()))
    envs, within = _declarations(first)
    walk = _Walk(main, root, _context(set(envs)))
    counters = _Counters(within)
    macros: dict[str, str] = {}
    results: list[dict] = []
    proofs: list[tuple[_Source, object, int]] = []  # (source, node, index of the result before it)
    title = authors = None
    section = "front matter"
    counted: dict[str, int] = {}
    reading: tuple[_Source | None, int, int] = (None, 0, 0)  # the result just read: its body is whole
    for source, node in walk.nodes():
        if reading[0] is source and reading[1] < node.pos < reading[2]:  # its own nodes
            continue
        if node.isNodeType(latexwalker.LatexMacroNode):
            name = node.macroname
            if name in _SECTIONS:
                if name == "chapter":
                    counters.chapters = True
                heading = " ".join((_arg(node, 2) or "").split())
                if _has_star(node):
                    section = heading or section
                else:
                    counters.step(name)
                    section = f"§{counters.text(name)} {heading}".strip()
            elif name == "appendix":
                counters.appendix = True
                top = "chapter" if counters.chapters else "section"
                counters.value[top] = 0
            elif name == "setcounter":
                counter, value = _arg(node, 0), _arg(node, 1)
                if counter and value and value.lstrip("-").isdigit():
                    counters.value[counter] = int(value)
            elif name in _DEFINERS:
                args = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]
                groups = [a for a in args
                          if a.latex_verbatim() != "*" and not a.latex_verbatim().startswith("[")]
                if len(groups) >= 2:
                    macros[groups[0].latex_verbatim().strip("{}").strip()] = _arg_text(groups[-1])
            elif name == "title" and title is None:
                title = _arg(node, 1)
            elif name == "author" and authors is None:
                authors = tuple(a.strip() for a in re.split(r"\\and|,", _arg(node, 1) or "") if a.strip())
            continue
        if not node.isNodeType(latexwalker.LatexEnvironmentNode):
            continue
        env = node.environmentname
        if env == "proof":
            proofs.append((source, node, len(results) - 1))
            continue
        if env not in envs:
            continue
        decl = envs[env]
        number = None
        if decl.counter is not None:
            counters.step(decl.counter)
            number = counters.text(decl.counter)
        start, end = _body(node)
        body_nodes = [n for n in node.nodelist if n is not None]
        spans = _join_setup(source.text, _sentences(source.text, start, end, body_nodes))
        labels = tuple(_arg(n, 0) for n in _all_nodes(body_nodes)
                       if n.isNodeType(latexwalker.LatexMacroNode) and n.macroname == "label")
        used = {f"\\{n.macroname}" for n in _all_nodes(body_nodes)
                if n.isNodeType(latexwalker.LatexMacroNode)}
        opt = _arg(node, 0)
        word = _slug(decl.heading) or _slug(env) or "result"
        if number is not None:
            local = f"{word}-{number.lower()}"
        elif opt and _slug(opt):
            local = f"{word}-{_slug(opt)}"
        else:
            counted[word] = counted.get(word, 0) + 1
            local = f"{word}-unnumbered-{counted[word]}"
        while local in {r["id"] for r in results}:
            local += "-2"
        results.append({
            "id": local, "kind": kind_of(decl.heading, env), "environment": env,
            "heading": decl.heading, "number": number, "title": opt, "labels": labels,
            "section": section, "file": source.rel,
            "line": source.walker.pos_to_lineno_colno(node.pos)[0],
            "statement": source.text[slice(*_trim(source.text, start, end))],
            "clauses": tuple(source.text[a:b] for a, b in spans), "_used": used,
            "proof": None})
        reading = (source, node.pos, node.pos + node.len)
    label_owner = {label: r["id"] for r in results for label in r["labels"]}
    for source, node, before in proofs:
        target = _proof_target(node, label_owner, results, before)
        if target is None or target["proof"] is not None:
            continue
        target["proof"] = _proof(source, node, label_owner, target["id"])
    out = []
    for r in results:
        r["macros"] = tuple(sorted(m for m in r.pop("_used") if m in macros))
        out.append(Result(**r))
    return Paper(main=main, root=root, title=title, authors=authors or (), results=out,
                 macros=macros, source=walk.flattened(), files=tuple(s.rel for s in walk.sources))


def _arg_text(arg) -> str:
    if arg.isNodeType(latexwalker.LatexGroupNode):
        return "".join(n.latex_verbatim() for n in arg.nodelist)
    return arg.latex_verbatim()


def _refs(nodes) -> list[tuple[object, str]]:
    out = []
    for n in _all_nodes(nodes):
        if n.isNodeType(latexwalker.LatexMacroNode) and n.macroname in _REFS:
            out += [(n, label.strip()) for label in (_arg(n, 1) or "").split(",") if label.strip()]
    return out


def _proof_target(node, label_owner: dict[str, str], results: list[dict], before: int):
    """The result a proof argues: the one its optional title cites ("Proof of Theorem~\\ref{…}"),
    else the result just before it, when no other environment of results stands between."""
    args = node.nodeargd.argnlist if node.nodeargd is not None else []
    if args and args[0] is not None:
        for _, label in _refs([args[0]]):
            if label in label_owner:
                return next(r for r in results if r["id"] == label_owner[label])
    return results[before] if before >= 0 else None


def _proof(source: _Source, node, label_owner: dict[str, str], own: str) -> Proof:
    start, end = _body(node)
    body = [n for n in node.nodelist if n is not None]
    spans = _sentences(source.text, start, end, body)
    uses: dict[str, Use] = {}
    for ref, label in _refs(body):
        target = label_owner.get(label)
        if target is None or target == own or target in uses:
            continue
        quote = next((source.text[a:b] for a, b in spans if a <= ref.pos < b), None)
        if quote is not None:
            uses[target] = Use(label, target, quote)
    return Proof(file=source.rel, line=source.walker.pos_to_lineno_colno(node.pos)[0],
                 text=source.text[slice(*_trim(source.text, start, end))],
                 steps=tuple(source.text[a:b] for a, b in spans), uses=tuple(uses.values()))
