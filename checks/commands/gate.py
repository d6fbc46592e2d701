"""``attnaudit gate``: compare a run's verdicts and proof statuses with the baseline."""

from __future__ import annotations

from pathlib import Path

from attnaudit.checks.commands import _args

EXIT_OK, EXIT_FAIL = 0, 1


def add_parser(sub) -> None:
    p = sub.add_parser("gate", help="compare a run's verdicts with the baseline")
    p.add_argument("results", type=Path, metavar="RESULTS.json")
    p.add_argument("--baseline", type=Path, default=None,
                   help="baseline of the built-in claims (default: the installed claims' "
                        "baseline.json; a pack's claims are gated against the pack's own "
                        "baseline.json, recorded in the results file)")
    p.add_argument("--accept", action="store_true", help="rewrite the baseline from this run")
    p.set_defaults(func=cmd_gate)


def cmd_gate(args) -> int:
    from attnaudit.checks.gate import accept, compare, format_diff, load_baseline, split_by_baseline
    from attnaudit.checks.results import load_document

    document = load_document(args.results)
    groups = split_by_baseline(document["results"], document["papers"],
                               args.baseline or _args.default_baseline())
    if args.accept:
        for path, records, _ in groups:
            print(accept(records, path))
        return EXIT_OK
    failed = False
    for path, records, is_pack in groups:
        baseline = load_baseline(path) if path.exists() or not is_pack else {}
        diffs = compare(records, baseline)
        print(format_diff(diffs, path, len(records)))
        failed = failed or bool(diffs)
    return EXIT_FAIL if failed else EXIT_OK
