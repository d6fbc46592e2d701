"""``attnaudit replay``: re-run a witness (or every witness of a results file) and print both
sides of the relation it violated."""

from __future__ import annotations

from pathlib import Path

from attnaudit.checks.commands import _args

EXIT_OK, EXIT_FAIL = 0, 1


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="re-run a witness and print both sides of the relation")
    p.add_argument("witness", type=Path, metavar="WITNESS.json",
                   help="a witness file, or a results.json (replays every witness in it)")
    _args.add_claims(p)
    p.set_defaults(func=cmd_replay)


def cmd_replay(args) -> int:
    from attnaudit.checks.witnesses import load_witnesses, replay

    witnesses = load_witnesses(args.witness)
    if not witnesses:
        print(f"{args.witness}: no witnesses to replay")
        return EXIT_OK
    from attnaudit.checks.witnesses import claims_of

    # a pack's witness names the --claims folder it needs: it replays from any directory
    values = args.claims or claims_of(witnesses)
    builtin = args.with_builtin or not values or any(not w.get("claims") for w in witnesses)
    cat = _args.discover(values, builtin)
    still_failing = [replay(w, cat) for w in witnesses]
    return EXIT_OK if all(still_failing) else EXIT_FAIL
