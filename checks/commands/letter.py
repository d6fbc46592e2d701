"""``attnaudit letter RESULTS.json [--paper KEY] [--out FILE] [--format md|pdf]``: a referee's
letter per paper, generated from the records alone (:mod:`reports.letter`).

Without ``--paper``, one letter for each paper of the results file, one after another. Markdown
goes to standard output unless ``--out`` names a file; a PDF needs ``--out``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from attnaudit.checks.commands import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("letter", help="write a referee's letter per paper from a results file")
    p.add_argument("results", type=Path, metavar="RESULTS.json")
    p.add_argument("--paper", metavar="KEY", help="the paper's key (default: every paper in the file)")
    p.add_argument("--out", type=Path, metavar="FILE", help="write here (default: standard output; "
                   "a PDF needs a file)")
    p.add_argument("--format", choices=("md", "pdf"), default=None,
                   help="md (Markdown) or pdf (through Typst, as the report); default: from --out's "
                        "suffix, else md")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from attnaudit.checks.results import load_document
    from attnaudit.reports.letter import (
        LetterError,
        LetterPdfError,
        build_letter,
        markdown,
        paper_keys,
        write_pdf,
    )

    fmt = args.format or ("pdf" if args.out is not None and args.out.suffix.lower() == ".pdf" else "md")
    if fmt == "pdf" and args.out is None:
        raise UsageError("--format pdf needs --out FILE")
    results = load_document(args.results)
    keys = [args.paper] if args.paper else paper_keys(results)
    if not keys:
        raise UsageError(f"{args.results} holds no records")
    try:
        letters = [build_letter(results, key, source=str(args.results)) for key in keys]
        if fmt == "pdf":
            write_pdf(letters, args.out)
        elif args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(markdown(letters), encoding="utf-8")
        else:
            sys.stdout.write(markdown(letters))
    except LetterPdfError as exc:  # not the reader's input: a failed outcome (exit 1)
        print(f"attnaudit: error: {exc}", file=sys.stderr)
        return 1
    except LetterError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write {args.out}: {exc.strerror}") from None
    if args.out is not None:
        print(f"wrote {args.out} ({len(letters)} letter{'s' * (len(letters) != 1)})", file=sys.stderr)
    return 0
