"""``attnaudit gate``: compare a run's verdicts and proof statuses with the baseline."""

from __future__ import annotations

from pathlib import Path

from attnaudit.checks.commands import _args

EXIT_OK, EXIT_FAIL = 0, 1


def add_parser(sub) -> None:
    p = sub.add_parser("gate", help="compare a run's verdicts with the baseline")
    p.add_argument("results", type=Path, metavar="RESULTS.json")
    p.add_argument("--baseline", type=Path, default=None,
                   help="gate (or --accept) every record of the run against this file (default: a "
                        "pack's claims against the pack's own baseline.json, recorded in the results "
                        "file, the rest against the installed claims' baseline.json)")
    p.add_argument("--accept", action="store_true", help="rewrite the baseline from this run")
    p.set_defaults(func=cmd_gate)


def cmd_gate(args) -> int:
    from attnaudit.checks.gate import accept_all, format_diff, gate
    from attnaudit.checks.results import load_document

    document = load_document(args.results)
    if args.accept:
        for line in accept_all(document, _args.default_baseline(), args.baseline, args.results):
            print(line)
        return EXIT_OK
    failed = False
    for group, diffs in gate(document, _args.default_baseline(), args.baseline, args.results):
        print(format_diff(diffs, group.baseline, len(group.records)))
        failed = failed or bool(diffs)
    return EXIT_FAIL if failed else EXIT_OK
