"""``attnaudit new``: write a claim module and its test from the scaffold's template."""

from __future__ import annotations

from pathlib import Path

from attnaudit.checks.commands import UsageError
from attnaudit.checks.scaffold import _REL, KINDS

EXIT_OK = 0


def add_parser(sub) -> None:
    p = sub.add_parser("new", help="write a claim module and its test from a template")
    p.add_argument("paper", metavar="PAPER-KEY")
    p.add_argument("claim", metavar="CLAIM-ID", help="the claim's name within the paper, e.g. lemma-3.1")
    p.add_argument("--kind", required=True, choices=KINDS, help=kind_help())
    p.add_argument("--claims", type=Path, default=None,
                   help="folder of packs to write into (default: claims/ in the working directory)")
    p.add_argument("--tests", type=Path, default=None,
                   help="folder for the test file (default: tests/claims/<paper>/, or PATH/tests with "
                        "--claims)")
    p.set_defaults(func=cmd_new)


def kind_help() -> str:
    """What ``--kind`` decides, read from the scaffold's own table so the help cannot drift."""
    shapes = {"==": "Relation", "<=": "Relation", "": "ScalingLaw", "lim": "Limit"}
    by_check: dict[str, list[str]] = {}
    for kind in KINDS:
        by_check.setdefault(shapes[_REL[kind][0]], []).append(kind)
    return ("what sort of proposition the claim is; the stub's first check is "
            + "; ".join(f"a {check} for {', '.join(kinds)}" for check, kinds in by_check.items()))


def cmd_new(args) -> int:
    from attnaudit.checks.scaffold import ScaffoldError, write_claim

    try:
        written = write_claim(args.paper, args.claim, args.kind, claims=args.claims, tests=args.tests)
    except ScaffoldError as exc:
        raise UsageError(str(exc)) from None
    for path in written:
        print(f"wrote {path}")
    return EXIT_OK
