"""``attnaudit stability``: run claims under several seeds and report which verdicts flip."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from attnaudit.checks.commands import UsageError, _args
from attnaudit.checks.terminal import execute

EXIT_OK, EXIT_FAIL = 0, 1


def add_parser(sub) -> None:
    p = sub.add_parser("stability", help="run claims under several seeds and report what flips")
    p.add_argument("ids", nargs="*", metavar="ID_OR_PREFIX", help="claim ids or id prefixes")
    p.add_argument("--seeds", type=_args.positive, default=20, metavar="K",
                   help="run seeds 0 … K-1 (default 20)")
    p.add_argument("--profile", choices=("quick", "full"), default="quick")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--out", type=Path, help="write the stability file (JSON) here, and journal "
                   "each run beside it in OUT.runs/")
    p.add_argument("--resume", action="store_true",
                   help="with --out: keep the journaled runs that still match, run the rest")
    p.add_argument("--json", action="store_true", help="stdout holds exactly one JSON document")
    _args.add_claims(p)
    _args.engine_args(p)
    p.set_defaults(func=cmd_stability)


def cmd_stability(args) -> int:
    from attnaudit.checks import results as journal
    from attnaudit.checks.executor import load_error_record, plan, start_forkserver, versions
    from attnaudit.checks.results import JOURNAL_DIR, dumps, write_atomic
    from attnaudit.checks.stability import format_stability, summarize

    if args.resume and args.out is None:
        raise UsageError("--resume needs --out FILE: the stability run to resume")
    runs_dir = None if args.out is None else args.out.with_name(args.out.name + ".runs")
    if args.out is not None:  # before any claim runs, so that no work is lost
        _args.writable_file(args.out, "--out")
        _args.writable_folder(runs_dir / JOURNAL_DIR, "--out")
    if not args.scheduler:
        start_forkserver()
    cat, package, folders = _args.discover_where(args.claims, args.with_builtin)
    claims, errors = _args.select(cat, args.ids, package)
    device = _args.resolve_device(args.device)
    seeds = list(range(args.seeds))
    t0 = time.perf_counter()
    jobs = plan(claims, seeds=seeds, profile=args.profile, device=device, files=cat.files,
                package=package, folders=folders)
    runs: dict[str, dict[int, dict[str, Any]]] = {}
    for e in errors:
        runs[e.id] = {s: load_error_record(e, seed=s, profile=args.profile, device=device)
                      for s in seeds}
    pending = jobs
    if runs_dir is not None and args.resume:
        journal.journal_sweep(runs_dir)
        now = {"profile": args.profile, "device": device, "versions": versions()}
        pending = []
        for job in jobs:
            kept = journal.journal_read(runs_dir, job.claim_id, now | {
                "seed": job.seed, "source_hash": job.meta["source_hash"]}, per_seed=True)
            if kept is None:
                pending.append(job)
            else:
                runs.setdefault(job.claim_id, {})[job.seed] = kept[0]
        print(f"resuming {runs_dir}: {len(jobs) - len(pending)} runs kept, {len(pending)} to run",
              file=sys.stderr)
    elif runs_dir is not None:
        journal.journal_clear(runs_dir)
    def keep(job, record, seconds, cpu):
        if runs_dir is not None:
            journal.journal_write(runs_dir, record, seconds, per_seed=True)
        runs.setdefault(job.claim_id, {})[job.seed] = record

    execute(pending, args, lambda job: f"{job.claim_id} seed {job.seed}", keep)
    document = summarize(runs, seeds=seeds, profile=args.profile, device=device,
                         seconds=time.perf_counter() - t0,
                         engine=f"dask {args.scheduler}" if args.scheduler else f"{args.jobs} jobs")
    if args.out is not None:
        write_atomic(args.out, dumps(document))
        print(f"wrote {args.out}", file=sys.stderr)
    if args.json:
        print(json.dumps(document, ensure_ascii=False))
    else:
        print(format_stability(document))
    return EXIT_OK if document["summary"]["stable"] == document["summary"]["claims"] else EXIT_FAIL
