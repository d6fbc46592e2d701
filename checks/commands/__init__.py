"""The CLI's subcommands, one module each.

A command module defines ``add_parser(sub)``, which adds its subparser to ``sub`` (the result of
``add_subparsers``) and sets ``func`` on it with ``p.set_defaults(func=run)``; ``run(args) -> int``
returns the exit status (0 ok, 1 a failed outcome, 2 bad input: raise
``attnaudit.checks.commands.UsageError`` for a one-line message). ``checks.cli`` registers every
module named in ``COMMANDS``, in that order.
"""

from __future__ import annotations

COMMANDS: tuple[str, ...] = (
    "list",
    "run",
    "stability",
    "gate",
    "report",
    "replay",
    "new",
    "letter",
    "init",
    "mutate",
)


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""
