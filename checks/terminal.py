"""What ``attnaudit run`` and ``attnaudit stability`` show on a terminal: live progress on stderr,
one summary entry per claim that never cuts its reason, and a closing "Findings" block.

A summary entry is ``id  verdict  proof  figure`` on one line when that fits the terminal's width;
otherwise the figure (the key figure, or for an error or inconclusive claim the reason) goes on
its own indented lines, wrapped only between words, so a relation or a number is never cut.
"""

from __future__ import annotations

import re
import shutil
import sys
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

LINE_WIDTH = 100  # the width when stdout is no terminal (a pipe, a file, a CI log)
INDENT = "    "
_SEVERITY = {"refuted": 0, "error": 1, "inconclusive": 2, "confirmed": 3}


def columns(stream=None) -> int:
    """The terminal's width when ``stream`` is one, else LINE_WIDTH."""
    stream = sys.stdout if stream is None else stream
    try:
        if stream.isatty():
            return max(shutil.get_terminal_size((LINE_WIDTH, 24)).columns, 40)
    except (AttributeError, ValueError, OSError):
        pass
    return LINE_WIDTH


def worst_clause(record: dict[str, Any]) -> dict[str, Any] | None:
    """The clause that decides the verdict when the statement has several (the first of the
    worst verdict), else None."""
    clauses = [c for c in record.get("clauses") or [] if isinstance(c, dict)]
    if len(clauses) < 2:
        return None
    return min(clauses, key=lambda c: _SEVERITY.get(c.get("verdict"), 4))


def reason(record: dict[str, Any]) -> str:
    """The words that say why: the key figure, the reason for an error or an inconclusive
    verdict, and for a statement of several clauses the clause that decides it."""
    text = record.get("figure") or record.get("summary", "")
    if record.get("verdict") in ("error", "inconclusive"):  # what failed, or what would decide it
        text = record.get("summary", "") or text
    clause = worst_clause(record)
    if clause is not None and clause.get("verdict") != "confirmed":
        text = f"clause {clause.get('id')} {clause.get('verdict')}: {clause.get('summary') or text}"
    return " ".join(str(text).split())


def summary_line(record: dict[str, Any], width: int, line_width: int = LINE_WIDTH) -> str:
    """``id  verdict  proof  figure``; when longer than ``line_width``, the figure is wrapped
    (between words) on indented lines below. The text is never cut."""
    proof = (record.get("proof") or {}).get("status") or "-"
    head = f"{record['id']:<{width}}  {record['verdict']:<12} {proof:<10}"
    text = reason(record)
    line = f"{head} {text}".rstrip()
    if len(line) <= line_width:
        return line
    body = textwrap.wrap(text, width=max(line_width - len(INDENT), 20), break_long_words=False,
                         break_on_hyphens=False)
    return "\n".join([head.rstrip(), *(INDENT + part for part in body)])


def findings(records: list[dict[str, Any]], line_width: int = LINE_WIDTH) -> list[str]:
    """Each refuted clause with its reason, then each error with its cause."""
    refuted, errors, claims = [], [], 0
    for r in records:
        if r["verdict"] == "error":
            errors.append(f"error    {r['id']}: {' '.join(str(r.get('summary', '')).split())}")
        elif r["verdict"] == "refuted":
            claims += 1
            clauses = [c for c in r.get("clauses") or [] if c.get("verdict") == "refuted"]
            if len(r.get("clauses") or []) > 1 and clauses:
                refuted += [f"refuted  {r['id']} clause {c.get('id')}: "
                            f"{' '.join(str(c.get('summary', '')).split())}" for c in clauses]
            else:
                refuted.append(f"refuted  {r['id']}: {reason(r)}")
    if not refuted and not errors:
        return []
    clauses = f" ({len(refuted)} refuted clauses)" if len(refuted) != claims else ""
    lines = [f"Findings: {_count(claims, 'refuted claim')}{clauses}, {_count(len(errors), 'error')}"]
    for entry in refuted + errors:
        lines += textwrap.wrap(entry, width=line_width, initial_indent="  ",
                               subsequent_indent="  " + INDENT, break_long_words=False,
                               break_on_hyphens=False)
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def print_table(records: list[dict[str, Any]], timings: dict[str, float], total: float,
                stream=None) -> None:
    stream = sys.stdout if stream is None else stream
    line_width = columns(stream)
    width = max((len(r["id"]) for r in records), default=2)
    for r in records:
        print(summary_line(r, width, line_width), file=stream)
    counts = Counter(r["verdict"] for r in records)
    proofs = Counter((r.get("proof") or {}).get("status") or "-" for r in records)
    print(", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + "; proofs: "
          + ", ".join(f"{v} {k}" for k, v in sorted(proofs.items())) + f"  ({total:.1f}s)",
          file=stream)
    block = findings(records, line_width)
    if block:
        print("\n" + "\n".join(block), file=stream)


class Progress:
    """Progress on stderr. On a terminal: one line per finished claim and, under them, a live
    status line naming the claims running now (readable with any number of workers); otherwise
    one plain line per finished claim. ``[k/n]`` counts finished claims."""

    def __init__(self, total: int = 0, stream=None):
        self.stream = sys.stderr if stream is None else stream  # the current stderr, not import-time's
        self.live = self.stream.isatty()
        self.total = total
        self.finished = 0
        self._running: dict[str, float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, label: str) -> None:
        with self._lock:
            self._running[label] = time.perf_counter()
            if self.live and self._thread is None:
                self._thread = threading.Thread(target=self._tick, daemon=True)
                self._thread.start()

    def _status(self) -> str:
        now = time.perf_counter()
        running = sorted(self._running.items(), key=lambda kv: kv[1])
        text = (f"[{self.finished}/{self.total}] running {len(running)}: "
                + ", ".join(f"{label} {now - t0:.1f}s" for label, t0 in running))
        width = columns(self.stream) - 1  # a status line that wraps cannot be erased with \r
        return text if len(text) <= width else text[: width - 1] + "…"

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
            with self._lock:
                if self._running:
                    self.stream.write(f"\r\033[K{self._status()}")
                    self.stream.flush()

    def done(self, label: str, record: dict[str, Any], seconds: float, cpu: float | None = None
             ) -> None:
        with self._lock:
            self._running.pop(label, None)
            self.finished += 1
            prefix = "\r\033[K" if self.live else ""
            proof = (record.get("proof") or {}).get("status") or "-"
            cpu_text = "" if cpu is None else f", {cpu:.1f}s CPU"
            self.stream.write(f"{prefix}[{self.finished}/{self.total}] {label}  {record['verdict']} "
                              f"· proof {proof}  ({seconds:.1f}s{cpu_text})\n")
            if self.live and self._running:
                self.stream.write(self._status())
            self.stream.flush()

    def note(self, text: str) -> None:
        """A line of its own between the finished claims' lines."""
        with self._lock:
            prefix = "\r\033[K" if self.live else ""
            self.stream.write(f"{prefix}{text}\n")
            if self.live and self._running:
                self.stream.write(self._status())
            self.stream.flush()

    def close(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        if self.live:
            self.stream.write("\r\033[K")
            self.stream.flush()


# A claim process killed at its CPU or wall-clock limit (checks.executor) says so in its summary.
TIME_LIMIT = re.compile(r"\bran past\b.*\btime limit\b")


def timed_out(record: dict[str, Any]) -> bool:
    """An error record of a claim killed at its time limit (on a busy machine, usually load)."""
    return record.get("verdict") == "error" and bool(TIME_LIMIT.search(str(record.get("summary", ""))))


def execute(jobs: list, args, label: Callable[[Any], str],
            on_record: Callable[[Any, dict[str, Any], float, float], None]) -> None:
    """Run ``jobs`` on the engine the arguments name (``--jobs`` processes here, or a Dask
    ``--scheduler``) with live progress; ``on_record(job, record, seconds, cpu)`` for each as it
    completes (it journals the record before the progress line is printed). Serves both
    ``attnaudit run`` and ``attnaudit stability``.

    A claim killed at its time limit is run once more, alone, after every other job has finished
    (the load that slowed it is then gone); the record that counts is the second one, with
    ``retry`` holding the first attempt's summary and seconds."""
    from attnaudit.checks.executor import run_dask, run_local
    from attnaudit.checks.results import Record, freeze

    def engine(batch: list, n: int) -> Iterable:
        return (run_dask(batch, args.scheduler) if args.scheduler else
                run_local(batch, n, on_start=lambda job: progress.start(label(job))))

    progress = Progress(len(jobs))
    again: list[tuple[Any, dict[str, Any], float]] = []
    try:
        for job, record, seconds, cpu in engine(jobs, args.jobs):
            if timed_out(record):
                again.append((job, record, seconds))
                progress.note(f"{label(job)} ran past its time limit: it runs again alone at the end")
                continue
            on_record(job, record, seconds, cpu)
            progress.done(label(job), record, seconds, cpu)
        for first_job, first, first_seconds in again:
            for job, record, seconds, cpu in engine([first_job], 1):
                record = replace(Record.from_json(record), retry=freeze(
                    {"first_attempt": first["summary"], "seconds": round(first_seconds, 3)})).to_json()
                on_record(job, record, seconds, cpu)
                progress.done(f"{label(job)} (second attempt)", record, seconds, cpu)
    finally:
        progress.close()
