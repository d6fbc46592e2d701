"""``attnaudit mutate [IDS] [--claims PATH]``: the mutation test over claims (a pack's, or the
built-in ones): every check with its prediction moved must flip, and every statement check's
verdict must hold with its tolerance times 10 (``checks.mutation``, which the built-in suite's
tests/test_mutations.py runs too). Each claim runs once, in this process, seed 0, quick profile.

Exit status: 0 when every check passes both mutations, 1 when one does not (or a claim errors).
"""

from __future__ import annotations

import sys

from attnaudit.checks.commands import _args


def add_parser(sub) -> None:
    p = sub.add_parser("mutate", help="show that every check can fail: its prediction moved flips it")
    p.add_argument("ids", nargs="*", metavar="ID_OR_PREFIX", help="claim ids or id prefixes")
    _args.add_claims(p)
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.set_defaults(func=run)


def run(args) -> int:
    from attnaudit.checks.context import Context
    from attnaudit.checks.mutation import mutate_claim
    from attnaudit.checks.runner import run_claim

    cat, package, _ = _args.discover_where(args.claims, args.with_builtin)
    claims, errors = _args.select(cat, args.ids, package)
    failed = 0
    for e in errors:
        print(f"{e.id}  ERROR {e.file}: {e.reason}")
        failed += 1
    counts = {True: 0, False: 0, None: 0}
    for claim in sorted(claims, key=lambda c: c.id):
        ctx = Context(claim.id, seed=0, profile="quick", device=args.device, dtype_name=claim.dtype)
        record, _ = run_claim(claim, seed=0, profile="quick", device=args.device, context=ctx)
        if record["verdict"] == "error":
            print(f"{claim.id}  ERROR {record['summary']}")
            failed += 1
            continue
        if not claim.checks:
            print(f"{claim.id}  no checks: nothing to mutate ({record['verdict']})")
            continue
        for outcome in mutate_claim(claim, record, ctx):
            counts[outcome.passed] += 1
            mark = {True: "flips" if outcome.mutation == "prediction" else "holds",
                    False: "FAILS", None: "n/a"}[outcome.passed]
            print(f"{claim.id} [{outcome.check}] {outcome.mutation}: {mark}  {outcome.detail}")
        sys.stdout.flush()
    print(f"mutate: {counts[True]} passed, {counts[False]} failed, {counts[None]} not applicable"
          + (f", {failed} claims errored" if failed else ""))
    return 1 if counts[False] or failed else 0
