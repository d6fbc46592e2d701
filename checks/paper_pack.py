"""``attnaudit init``: a claim pack written from a LaTeX paper (read by ``checks.latex``).

For the paper key ``KEY`` it writes, under the packs folder ``PATH``:

- ``KEY/__init__.py`` (``PAPER``, its source the flattened LaTeX below);
- ``KEY/catalogue.toml``: one entry per result, with its id, kind, number, ``\\label`` aliases,
  where it stands (file, line, section, environment), its clauses verbatim, the paper's macros it
  uses, its proof's steps and the results that proof cites (``uses``);
- one stub module per result: the statement and clauses quoted, the proof's steps quoted, the
  cited results as ``Use`` edges, and no check yet, so that it runs at once and reads
  ``inconclusive``, its summary naming each clause nothing decides;
- ``tests/test_KEY_<result>.py`` per stub (it loads only this paper's pack);
- ``papers/KEY.tex``: the paper with every ``\\input`` spliced in, where every quote stands.

It never overwrites a file: when any of them exists it writes none and says which.
"""

from __future__ import annotations

import re
from pathlib import Path

import tomli_w

from attnaudit.checks.latex import Paper, Result
from attnaudit.checks.scaffold import PACK_TEST_TEMPLATE

# The Claim kind a stub starts with, from the result's kind (the author sets the real one).
_CLAIM_KIND = {"conjecture": "conjecture", "definition": "definition-consistency"}

STUB_TEMPLATE = '''\
r"""{display} of {key}{title_note}: {file}, line {line} ({section}).

Written by 'attnaudit init' from the paper's LaTeX. It runs at once and reads inconclusive: no
step or check decides its clauses yet, and the summary names each one. Write the reading, the
derivation and the checks (docs/writing-a-claim.md), then state the verdict you expect in its test.
"""

from attnaudit import Claim, Clause{imports}

# The statement as the paper writes it (LaTeX; the paper's macros kept{macro_note}).
STATEMENT = {statement}

# The statement clause by clause, verbatim; the primary reading is their conjunction.
CLAUSES = (
{clauses}
)
{proof_block}{uses_block}
CLAIMS = (Claim(
    id="{cid}", label={display!r}, section={section_field!r},
    statement=STATEMENT, clauses=CLAUSES,{proof_field}{uses_field}
    reading="TODO: the precise proposition tested, with its hypotheses and quantifiers",
    kind="{claim_kind}",  # TODO: identity, inequality, asymptotic, limit, construction, complexity, ...
    no_derivation="no derivation written yet (a stub of 'attnaudit init')",
    # TODO: derivation=..., checks=(Relation(..., clause="clause-1", controls=(...)),): see the guide
    checks=(),
),)
'''

TEST_HEADER = """{cid}: written by 'attnaudit init' ({display}, {file}, line {line}).

It pins what the stub reads today; once the claim has checks, state the verdict you expect (the
mutation test below, also 'attnaudit mutate {cid} --claims PACK', then shows each check can fail).
Run with pytest (an environment with only attnaudit needs pip install 'attnaudit[test]'). Only this
paper's pack loads."""
# init writes the paper's source beside the pack: its absence is a broken pack, not a skip
NO_SOURCE_FAILS = '''    if text is None:
        pytest.fail(f"the paper's source is not at {PACK / 'papers'}/")'''


PAPER_TEMPLATE = '''\
"""{key}: {title}.

Written by 'attnaudit init' from {main}; catalogue.toml lists every result it found. The source
text (the LaTeX with every \\\\input spliced in) is papers/{key}.tex beside this pack: each clause,
proof step and use is quoted from it.
"""

from attnaudit import Paper

PAPER = Paper(key="{key}", title={title!r}, authors={authors!r}, arxiv=None,
              source_file="papers/{key}.tex")
'''


class InitError(Exception):
    """A pack that cannot be written (a bad key, an existing file); the message is one line."""


def _mod(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "_", name)


def _literal(text: str) -> str:
    """A Python literal for LaTeX text: a raw triple-quoted string where it can be one (the
    source reads as written), else repr."""
    if '"""' in text or text.endswith("\\") or text.endswith('"') or "\r" in text:
        return repr(text)
    return f'r"""{text}"""'


def planned(paper: Paper, key: str, root: Path) -> dict[Path, str]:
    """Every file ``init`` writes, with its text (nothing is written here)."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", key):
        raise InitError(f"paper key {key!r} must be lower-case words joined by '-' (--key KEY)")
    if not paper.results:
        raise InitError(f"{paper.main}: no theorem-like environment found")
    import attnaudit.claims

    if any(Path(root).resolve() == Path(p).resolve() for p in attnaudit.claims.__path__):
        raise InitError(f"{root} is the built-in claims package; give a folder for the pack (--claims PATH)")
    paper_mod = _mod(key)
    folder = root / paper_mod
    files: dict[Path, str] = {}
    title = " ".join((paper.title or paper.main.stem).split())
    files[folder / "__init__.py"] = PAPER_TEMPLATE.format(
        key=key, title=title, authors=tuple(paper.authors) or ("TODO: the authors",),
        main=paper.main.name)
    files[root / "papers" / f"{key}.tex"] = paper.source
    ids = {r.id: f"{key}/{r.id}" for r in paper.results}
    modules: dict[str, str] = {}
    for r in paper.results:
        if not r.clauses:
            raise InitError(f"{r.file}:{r.line}: {r.display} has an empty statement: nothing to quote")
        module = _mod(r.id)
        if module in modules:
            raise InitError(f"results {modules[module]} and {r.id} would share the module {module}.py")
        modules[module] = r.id
        files[folder / f"{module}.py"] = _stub(r, key, ids)
        files[root / "tests" / f"test_{paper_mod}_{module}.py"] = PACK_TEST_TEMPLATE.format(
            cid=ids[r.id], paper_mod=paper_mod, func=f"{paper_mod}_{module}", no_source=NO_SOURCE_FAILS,
            header=TEST_HEADER.format(cid=ids[r.id], display=r.display, file=r.file, line=r.line))
    files[folder / "catalogue.toml"] = catalogue_toml(paper, key)
    return files


def write_pack(paper: Paper, key: str, root: Path) -> list[Path]:
    """Write the pack of ``paper`` under ``root``; the paths written. Nothing is written when
    any of them exists."""
    files = planned(paper, key, Path(root))
    existing = [p for p in files if p.exists()]
    if existing:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        raise InitError(f"{existing[0]} exists{more}; 'attnaudit init' never overwrites a file")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)


def _stub(r: Result, key: str, ids: dict[str, str]) -> str:
    clauses = "\n".join(f'    Clause("clause-{i}", {_literal(q)}),' for i, q in enumerate(r.clauses, 1))
    imports, proof_block, uses_block, uses_field = "", "", "", ""
    if r.proof is not None and r.proof.steps:
        imports += ", ProofStep"
        steps = "\n".join(f'    ProofStep("step-{i}", {_literal(q)}),'
                           for i, q in enumerate(r.proof.steps, 1))
        proof_block = (f"\n# The paper's argument ({r.proof.file}, line {r.proof.line}), step by step "
                       f"in source order.\nPROOF = (\n{steps}\n)\n")
        proof_field = "proof_steps=PROOF,"
    else:
        proof_field = 'proof_absent="no proof environment follows it in the source",'
    uses = [u for u in (r.proof.uses if r.proof else ()) if u.target in ids]
    if uses:
        imports += ", Use"
        lines = "\n".join(f'    Use("{ids[u.target]}", {_literal(u.quote)}),  # \\label{{{u.label}}}'
                          for u in uses)
        uses_block = ("\n# The results the proof cites, with the sentence that cites each.\n"
                      f"USES = (\n{lines}\n)\n")
        uses_field = "uses=USES,"
    fields = "\n    ".join(f for f in (proof_field, uses_field) if f)
    return STUB_TEMPLATE.format(
        display=r.display, key=key, title_note=f" ({r.title})" if r.title else "", file=r.file,
        line=r.line, section=r.section.replace('"', "'"), section_field=r.section, imports=imports,
        macro_note=f": {', '.join(r.macros)}" if r.macros else "", statement=_literal(r.statement),
        clauses=clauses, proof_block=proof_block, uses_block=uses_block, cid=ids[r.id],
        proof_field="\n    " + fields, uses_field="", claim_kind=_CLAIM_KIND.get(r.kind, "identity"))


def catalogue_toml(paper: Paper, key: str) -> str:
    """The pack's catalogue: the paper, its macros, and one ``[[claim]]`` per result."""
    claims = []
    ids = {r.id: f"{key}/{r.id}" for r in paper.results}
    for r in paper.results:
        entry = {"id": ids[r.id], "kind": r.kind, "label": r.display, "environment": r.environment,
                 "where": f"{r.file}:{r.line}, {r.section}, environment {r.environment}",
                 "file": r.file, "line": r.line, "section": r.section}
        if r.number is not None:
            entry["number"] = r.number
        if r.title:
            entry["title"] = r.title
        if r.labels:
            entry["aliases"] = list(r.labels)
        entry["module"] = f"{_mod(r.id)}.py"
        if r.macros:
            entry["macros"] = list(r.macros)
        entry["clauses"] = [{"id": f"clause-{i}", "quote": q} for i, q in enumerate(r.clauses, 1)]
        if r.proof is not None:
            entry["proof"] = {"file": r.proof.file, "line": r.proof.line,
                              "steps": [{"id": f"step-{i}", "quote": q}
                                        for i, q in enumerate(r.proof.steps, 1)]}
            entry["uses"] = [{"claim": ids[u.target], "label": u.label, "quote": u.quote}
                             for u in r.proof.uses if u.target in ids]
        claims.append(entry)
    document = {"paper": {"key": key, "title": " ".join((paper.title or paper.main.stem).split()),
                          "authors": list(paper.authors), "main": paper.main.name,
                          "files": list(paper.files), "source": f"papers/{key}.tex"},
                "macros": dict(sorted(paper.macros.items())), "claim": claims}
    head = (f"# Written by 'attnaudit init' from {paper.main.name}: every theorem-like result of the "
            "paper,\n# numbered as the paper numbers it. Each entry is one claim module of this pack.\n\n")
    return head + tomli_w.dumps(document, multiline_strings=True)
