"""``attnaudit``: list, run, gate and replay claims (see README.md for a tour).

The root parser, the error handling and :func:`main`; each subcommand is a module of
``attnaudit.checks.commands`` (that package's docstring says how one is written).

Exit status: 0 on success; 1 when a run has error records, the gate finds differences, or a
replayed witness no longer fails; 2 on bad arguments or unreadable files (one line, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from attnaudit.checks.commands import COMMANDS, UsageError
from attnaudit.checks.commands._args import default_baseline as _baseline
from attnaudit.checks.executor import SchedulerError
from attnaudit.checks.results import ResultsError
from attnaudit.checks.terminal import LINE_WIDTH, Progress, summary_line

# Progress, summary_line and LINE_WIDTH live in checks.terminal; _baseline in checks.commands._args
__all__ = ["LINE_WIDTH", "Progress", "_baseline", "main", "summary_line"]

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line instead of usage + message
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="attnaudit", description="Computational audit of geometric-attention "
                     "theorems: every claim gets a verdict with evidence.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:  # one module per command (checks/commands/__init__.py says how)
        importlib.import_module(f"attnaudit.checks.commands.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return status
    except (UsageError, ResultsError, SchedulerError) as exc:
        print(f"attnaudit: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("attnaudit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `attnaudit list | head`: the reader has gone; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAIL
