"""``attnaudit``: list, run, gate and replay claims (see README.md for a tour).

Exit status: 0 on success; 1 when a run has error records, the gate finds differences, or a
replayed witness no longer fails; 2 on bad arguments or unreadable files (one line, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from attnaudit.checks.commands import COMMANDS, UsageError
from attnaudit.checks.executor import SchedulerError
from attnaudit.checks.gate import DEFAULT_BASELINE
from attnaudit.checks.results import ResultsError
from attnaudit.checks.scaffold import KINDS as SCAFFOLD_KINDS
from attnaudit.checks.terminal import LINE_WIDTH, Progress, execute, print_table, summary_line

__all__ = ["LINE_WIDTH", "Progress", "main", "summary_line"]  # Progress and summary_line moved to terminal

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2




class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line instead of usage + message
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="attnaudit", description="Computational audit of geometric-attention "
                     "theorems: every claim gets a verdict with evidence.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    builtin_help = "with --claims folders: load the built-in claims and installed packs beside them"
    claims_help = ("a pack folder (a path holding a '/', or a folder here that is no importable "
                   "package), laid out like claims/<paper>/ or a folder of such folders: its claims "
                   "alone, unless --with-builtin; or the name of a package laid out like claims/ "
                   "that replaces the built-in claims and installed packs; repeatable")

    p = sub.add_parser("list", help="every discovered claim: id, paper, label, kind")
    p.add_argument("--json", action="store_true", help="print one JSON array")
    p.add_argument("--claims", action="append", default=[], help=claims_help)
    p.add_argument("--with-builtin", action="store_true", help=builtin_help)

    p = sub.add_parser("run", help="run claims and print verdicts")
    p.add_argument("ids", nargs="*", metavar="ID_OR_PREFIX", help="claim ids or id prefixes")
    p.add_argument("--profile", choices=("quick", "full"), default="quick")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--seed", type=_seed, default=0, help="run seed (default 0)")
    p.add_argument("--json", action="store_true", help="stdout holds exactly one JSON array")
    p.add_argument("--out", type=Path,
                   help="write results.json (records and summary tables), timings.json and witnesses/ here")
    p.add_argument("--claims", action="append", default=[], help=claims_help)
    p.add_argument("--with-builtin", action="store_true", help=builtin_help)
    _engine_args(p)
    p.add_argument("--resume", action="store_true",
                   help="with --out: keep the journaled record of every claim whose source hash, "
                        "seed, profile, device and versions match, and run the rest")

    p = sub.add_parser("stability", help="run claims under several seeds and report what flips")
    p.add_argument("ids", nargs="*", metavar="ID_OR_PREFIX", help="claim ids or id prefixes")
    p.add_argument("--seeds", type=_positive, default=20, metavar="K",
                   help="run seeds 0 … K-1 (default 20)")
    p.add_argument("--profile", choices=("quick", "full"), default="quick")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--out", type=Path, help="write the stability file (JSON) here, and journal "
                   "each run beside it in OUT.runs/")
    p.add_argument("--resume", action="store_true",
                   help="with --out: keep the journaled runs that still match, run the rest")
    p.add_argument("--json", action="store_true", help="stdout holds exactly one JSON document")
    p.add_argument("--claims", action="append", default=[], help=claims_help)
    p.add_argument("--with-builtin", action="store_true", help=builtin_help)
    _engine_args(p)

    p = sub.add_parser("gate", help="compare a run's verdicts with the baseline")
    p.add_argument("results", type=Path, metavar="RESULTS.json")
    p.add_argument("--baseline", type=Path, default=None,
                   help="gate (or --accept) every record of the run against this file (default: a "
                        "pack's claims against the pack's own baseline.json, recorded in the results "
                        "file, the rest against the built-in claims/baseline.json)")
    p.add_argument("--accept", action="store_true", help="rewrite the baseline from this run")

    p = sub.add_parser("report", help="render the HTML site, PDF and JUnit XML from a results file")
    p.add_argument("results", type=Path, metavar="RESULTS.json")
    p.add_argument("--out", type=Path, help="output folder (default: 'report' beside RESULTS.json)")
    p.add_argument("--baseline", type=Path, default=None,
                   help="gate the verdicts against this baseline in the report and junit.xml "
                        "(default: claims/baseline.json when it exists)")
    p.add_argument("--no-pdf", action="store_true", help="skip the PDF (Typst)")
    p.add_argument("--stability", type=Path, default=None, metavar="STABILITY.json",
                   help="add a stability column from an 'attnaudit stability --out' file")

    p = sub.add_parser("replay", help="re-run a witness and print both sides of the relation")
    p.add_argument("witness", type=Path, metavar="WITNESS.json",
                   help="a witness file, or a results.json (replays every witness in it)")
    p.add_argument("--claims", action="append", default=[], help=claims_help)
    p.add_argument("--with-builtin", action="store_true", help=builtin_help)

    p = sub.add_parser("new", help="write a claim module and its test from a template")
    p.add_argument("paper", metavar="PAPER-KEY")
    p.add_argument("claim", metavar="CLAIM-ID", help="the claim's name within the paper, e.g. lemma-3.1")
    p.add_argument("--kind", required=True, choices=SCAFFOLD_KINDS)
    p.add_argument("--claims", type=Path, default=None,
                   help="folder of packs to write into (default: the built-in claims/)")
    p.add_argument("--tests", type=Path, default=None,
                   help="folder for the test file (default: tests/claims, or PATH/tests with --claims)")
    for name in COMMANDS:  # one module per command (checks/commands/__init__.py says how)
        importlib.import_module(f"attnaudit.checks.commands.{name}").add_parser(sub)
    return parser


def _engine_args(p: argparse.ArgumentParser) -> None:
    engine = p.add_mutually_exclusive_group()
    engine.add_argument("--jobs", "-j", type=_jobs, default=1, metavar="N",
                        help="claim processes at a time on this machine (default 1; 0: one per "
                             "CPU core)")
    engine.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the claims on the Dask cluster whose scheduler is at ADDRESS "
                             "(e.g. tcp://10.0.0.5:8786); its workers need the project installed")


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"jobs must be a non-negative integer, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"jobs must be a non-negative integer, not {text!r}")
    import os

    return value or os.cpu_count() or 1


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, not {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        if getattr(args, "func", None) is not None:
            return args.func(args)
        return {"list": cmd_list, "run": cmd_run, "gate": cmd_gate, "report": cmd_report,
                "replay": cmd_replay, "new": cmd_new, "stability": cmd_stability}[
            args.command](args)
    except (UsageError, ResultsError, SchedulerError) as exc:
        print(f"attnaudit: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("attnaudit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `attnaudit list | head`: the reader has gone; say nothing more
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAIL


def _discover(values: list[str], with_builtin: bool = True):
    """``--claims`` values: folders (a path, holding a '/') are packs, loaded alone unless
    ``with_builtin``; at most one package name replaces the built-in ``claims``."""
    return _discover_where(values, with_builtin)[0]


def _discover_where(values: list[str], with_builtin: bool = True):
    """(catalogue, package, folders): what a worker process needs to discover the same claims."""
    from attnaudit.checks.discovery import discover_claims

    try:
        return discover_claims(values, with_builtin=with_builtin)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _select(cat, ids: list[str], package: str):
    """The claims and load errors ``ids`` select; an unknown id is a usage error naming the
    nearest ids."""
    from attnaudit.checks.discovery import NO_BUILTIN

    try:
        return cat.select(ids)
    except KeyError as exc:
        hint = " (built-in claims load beside --claims folders only with --with-builtin)"
        raise UsageError(exc.args[0] + (hint if package == NO_BUILTIN else "")) from None


def cmd_list(args) -> int:
    cat = _discover(args.claims, args.with_builtin)
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


def _resolve_device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda requested but torch sees no CUDA device")
    return name


def cmd_run(args) -> int:
    from attnaudit.checks import results as journal
    from attnaudit.checks.executor import plan
    from attnaudit.checks.runner import load_error_record, versions
    from attnaudit.checks.witnesses import attach_witness_files

    if args.resume and args.out is None:
        raise UsageError("--resume needs --out DIR: the run to resume")
    cat, package, folders = _discover_where(args.claims, args.with_builtin)
    claims, errors = _select(cat, args.ids, package)
    device = _resolve_device(args.device)
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


def cmd_stability(args) -> int:
    from attnaudit.checks import results as journal
    from attnaudit.checks.executor import plan
    from attnaudit.checks.results import dumps, write_atomic
    from attnaudit.checks.runner import load_error_record, versions
    from attnaudit.checks.stability import format_stability, summarize

    cat, package, folders = _discover_where(args.claims, args.with_builtin)
    claims, errors = _select(cat, args.ids, package)
    device = _resolve_device(args.device)
    seeds = list(range(args.seeds))
    t0 = time.perf_counter()
    jobs = plan(claims, seeds=seeds, profile=args.profile, device=device, files=cat.files,
                package=package, folders=folders)
    runs: dict[str, dict[int, dict[str, Any]]] = {}
    for e in errors:
        runs[e.id] = {s: load_error_record(e, seed=s, profile=args.profile, device=device)
                      for s in seeds}
    runs_dir = None if args.out is None else args.out.with_name(args.out.name + ".runs")
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


def _baseline() -> Path:
    """The built-in claims' baseline, found from the installed package (not the working
    directory: ``gate`` from results/ must find it too); DEFAULT_BASELINE if that is absent."""
    import attnaudit.claims

    found = Path(next(iter(attnaudit.claims.__path__))) / "baseline.json"
    return found if found.exists() else DEFAULT_BASELINE


def cmd_gate(args) -> int:
    from attnaudit.checks.gate import accept_all, format_diff, gate
    from attnaudit.checks.results import load_document

    document = load_document(args.results)
    if args.accept:
        for line in accept_all(document, _baseline(), args.baseline, args.results):
            print(line)
        return EXIT_OK
    failed = False
    for group, diffs in gate(document, _baseline(), args.baseline, args.results):
        print(format_diff(diffs, group.baseline, len(group.records)))
        failed = failed or bool(diffs)
    return EXIT_FAIL if failed else EXIT_OK


def cmd_report(args) -> int:
    from attnaudit.reports.pdf import PdfError
    from attnaudit.reports.render import render_report

    baseline = args.baseline
    if baseline is None and _baseline().exists():
        baseline = _baseline()
    out = args.out if args.out is not None else args.results.parent / "report"
    try:
        report = render_report(args.results, out, baseline=baseline, pdf=not args.no_pdf,
                               stability=args.stability)
    except PdfError as exc:
        print(f"attnaudit: error: {exc} (the HTML site and junit.xml are written)", file=sys.stderr)
        return EXIT_FAIL
    paths, seconds = report["paths"], report["seconds"]
    gate = report["document"]["gate"]
    print(f"wrote {out / 'index.html'} ({len(paths['html']) - 1} claim pages)"
          + (f", {paths['pdf']}" if "pdf" in paths else "") + f", {paths['junit']} "
          f"in {seconds['total']:.1f}s; gate "
          + ("not evaluated (no baseline)" if gate is None else
             "passes" if gate["passes"] else f"fails ({len(gate['differences'])} differences)"))
    return EXIT_OK


def cmd_new(args) -> int:
    from attnaudit.checks.scaffold import ScaffoldError, write_claim

    try:
        written = write_claim(args.paper, args.claim, args.kind, claims=args.claims, tests=args.tests)
    except ScaffoldError as exc:
        raise UsageError(str(exc)) from None
    for path in written:
        print(f"wrote {path}")
    return EXIT_OK


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
    cat = _discover(values, builtin)
    still_failing = [replay(w, cat) for w in witnesses]
    return EXIT_OK if all(still_failing) else EXIT_FAIL
