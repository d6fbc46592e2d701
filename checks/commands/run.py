"""``attnaudit run``: run claims, print verdicts, and with ``--out`` write results.json,
timings.json, witnesses/ and the journal that ``--resume`` reads."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from attnaudit.checks.commands import UsageError, _args
from attnaudit.checks.terminal import execute, print_table

EXIT_OK, EXIT_FAIL = 0, 1


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run claims and print verdicts")
    p.add_argument("ids", nargs="*", metavar="ID_OR_PREFIX", help="claim ids or id prefixes")
    p.add_argument("--profile", choices=("quick", "full"), default="quick")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--seed", type=_args.seed, default=0, help="run seed (default 0)")
    p.add_argument("--json", action="store_true", help="stdout holds exactly one JSON array")
    p.add_argument("--out", type=Path,
                   help="write results.json (records and summary tables), timings.json, witnesses/ and "
                        "the journal/ of finished claims (read by --resume) here")
    _args.add_claims(p)
    _args.engine_args(p)
    p.add_argument("--resume", action="store_true",
                   help="with --out: keep the journaled record of every claim whose source hash, "
                        "seed, profile, device and versions match, and run the rest")
    p.set_defaults(func=cmd_run)


def check_out(out: Path | None) -> None:
    """Every folder ``run --out`` writes into, checked before any claim runs."""
    from attnaudit.checks.results import JOURNAL_DIR
    from attnaudit.checks.witnesses import WITNESS_DIR

    if out is not None:
        for folder in (out, out / JOURNAL_DIR, out / WITNESS_DIR):
            _args.writable_folder(folder, "--out")


def cmd_run(args) -> int:
    from attnaudit.checks import results as journal
    from attnaudit.checks.executor import load_error_record, plan, start_forkserver, versions
    from attnaudit.checks.graph import annotate as annotate_graph
    from attnaudit.checks.witnesses import attach_witness_files

    if args.resume and args.out is None:
        raise UsageError("--resume needs --out DIR: the run to resume")
    check_out(args.out)
    if not args.scheduler:
        start_forkserver()
    cat, package, folders = _args.discover_where(args.claims, args.with_builtin)
    claims, errors = _args.select(cat, args.ids, package)
    device = _args.resolve_device(args.device)
    t0 = time.perf_counter()
    jobs = plan(claims, seeds=[args.seed], profile=args.profile, device=device, files=cat.files,
                package=package, folders=folders)
    records: dict[str, dict[str, Any]] = {}
    timings: dict[str, float] = {}
    for e in errors:
        records[e.id] = load_error_record(e, seed=args.seed, profile=args.profile, device=device)
        timings[e.id] = 0.0
    cpu_times: dict[str, float] = {}
    pending = jobs
    if args.out is not None and args.resume:
        journal.journal_sweep(args.out)
        now = {"seed": args.seed, "profile": args.profile, "device": device, "versions": versions()}
        pending = []
        for job in jobs:
            kept = journal.journal_read(args.out, job.claim_id,
                                        now | {"source_hash": job.meta["source_hash"]})
            if kept is None:
                pending.append(job)
            else:
                records[job.claim_id], timings[job.claim_id] = kept
        print(f"resuming {args.out}: {len(jobs) - len(pending)} claims kept from its journal, "
              f"{len(pending)} to run", file=sys.stderr)
    elif args.out is not None:
        journal.journal_clear(args.out)
    def keep(job, record, seconds, cpu):
        if args.out is not None:
            journal.journal_write(args.out, record, seconds)
        records[job.claim_id], timings[job.claim_id] = record, round(seconds, 3)
        cpu_times[job.claim_id] = round(cpu, 3)

    execute(pending, args, lambda job: job.claim_id, keep)
    ordered = [records[cid] for cid in sorted(records)]  # catalogue order, whatever finished first
    attach_witness_files(ordered, cat.folders)
    annotate_graph(ordered)  # uses, used_by, rests_on: once every record of the run exists
    total = time.perf_counter() - t0
    if args.out is not None:
        from attnaudit.checks.results import write_results
        from attnaudit.checks.tables import fill_tables
        from attnaudit.checks.witnesses import write_witness_files

        write_witness_files(ordered, args.out)
        from attnaudit.checks.discovery import paper_entries

        papers = paper_entries(cat, {r["paper"] for r in ordered}, args.ids)
        path = write_results(args.out, ordered, timings, fill_tables(cat.tables, ordered), papers)
        print(f"wrote {path} ({len(ordered)} records) in {total:.1f}s", file=sys.stderr)
    if args.json:
        print(json.dumps([r | {"seconds": timings[r["id"]]}
                          | ({"cpu_seconds": cpu_times[r["id"]]} if r["id"] in cpu_times else {})
                          for r in ordered], ensure_ascii=False))
    else:
        print_table(ordered, timings, total)
    return EXIT_FAIL if any(r["verdict"] == "error" for r in ordered) else EXIT_OK
