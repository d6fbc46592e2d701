"""``attnaudit list``: every discovered claim with its paper, label and kind."""

from __future__ import annotations

import json

from attnaudit.checks.commands import _args

EXIT_OK, EXIT_FAIL = 0, 1


def add_parser(sub) -> None:
    p = sub.add_parser("list", help="every discovered claim: id, paper, label, kind")
    p.add_argument("--json", action="store_true", help="print one JSON array")
    _args.add_claims(p)
    p.set_defaults(func=cmd_list)


def cmd_list(args) -> int:
    cat = _args.discover(args.claims, args.with_builtin)
    rows = [{"id": c.id, "paper": c.paper, "label": c.label, "kind": c.kind.value}
            for c in sorted(cat.claims, key=lambda c: c.id)]
    rows += [{"id": e.id, "paper": e.paper, "label": "", "kind": "error", "error": e.reason}
             for e in cat.errors]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return EXIT_OK
    width = max((len(r["id"]) for r in rows), default=2)
    for r in rows:
        tail = f"ERROR {r['error']}" if "error" in r else f"{r['label']}  [{r['kind']}]"
        print(f"{r['id']:<{width}}  {tail}")
    print(f"{len(cat.claims)} claims from {len(cat.papers)} paper{'s' * (len(cat.papers) != 1)}"
          + (f", {len(cat.errors)} load errors" if cat.errors else ""))
    return EXIT_FAIL if cat.errors else EXIT_OK
