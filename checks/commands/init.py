"""``attnaudit init PAPER.tex [--key KEY] [--claims PATH]``: a claim pack from a LaTeX paper.

Reads the paper (a .tex file, or a folder whose one main file holds ``\\documentclass``) with
``checks.latex`` and writes the pack with ``checks.paper_pack``: one stub per theorem-like result
(each runs at once and reads inconclusive), its test, the catalogue and the flattened source. It
never overwrites a file; a paper it cannot parse is an error that says where (exit 2).
"""

from __future__ import annotations

import re
from pathlib import Path

from attnaudit.checks.commands import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("init", help="write a claim pack from a LaTeX paper: one stub per result")
    p.add_argument("paper", type=Path, metavar="PAPER.tex",
                   help="the paper's main .tex file, or its source folder (e.g. an arXiv source)")
    p.add_argument("--key", default=None,
                   help="the paper key (lower-case words joined by '-'; default: from the file name)")
    p.add_argument("--claims", type=Path, default=Path("claims"),
                   help="the packs folder to write into (default: ./claims): PATH/<key>/, "
                        "PATH/tests/, PATH/papers/")
    p.set_defaults(func=run)


def default_key(paper: Path) -> str:
    stem = paper.stem if paper.suffix == ".tex" else paper.resolve().name
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-") or "paper"


def run(args) -> int:
    from attnaudit.checks.latex import LatexError, read_paper
    from attnaudit.checks.paper_pack import InitError, write_pack

    try:
        paper = read_paper(args.paper)
        written = write_pack(paper, args.key or default_key(args.paper), args.claims)
    except (LatexError, InitError) as exc:
        raise UsageError(str(exc)) from None
    for path in written:
        print(f"wrote {path}")
    print(f"{len(paper.results)} results from {args.paper}; each stub reads inconclusive until it "
          f"has checks: attnaudit run {args.key or default_key(args.paper)} --claims {args.claims}")
    return 0
