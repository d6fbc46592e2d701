"""Run claims one by one, each under its time limit, and turn what happens into result records.

A claim that raises, or runs past its limit, becomes an ``error`` record with the reason; the
others still run. Records hold no timing (timings travel beside them), so one seed on one device
with one set of versions gives byte-identical records.
"""

from __future__ import annotations

import math
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from attnaudit.checks.context import Context, one_thread
from attnaudit.checks.discovery import LoadError, source_hash
from attnaudit.checks.executor import WALL_FACTOR, load_error_record, versions
from attnaudit.checks.executor import time_limit_s as executor_limit
from attnaudit.checks.laws import check_limit, check_scaling
from attnaudit.checks.model import PREDICTION_FIELDS, Claim, Limit, Relation, ScalingLaw
from attnaudit.checks.relations import check_relation
from attnaudit.checks.results import (
    ClauseResult,
    Control,
    Derivation,
    Evidence,
    Proof,
    ReadingResult,
    Record,
    Step,
    Use,
    controls_outcome,
    freeze,
    key_figure,
)
from attnaudit.checks.verdict import confirmation_kind, corrected_statement, decide


class ClaimTimeout(BaseException):
    """Raised by the alarm; a BaseException so Hypothesis and spec code do not swallow it."""


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """A limit of this process's CPU time (``ITIMER_PROF``: user and system time of all its
    threads), as the executor enforces it, so that load never turns into an error, with the
    executor's wall-time backstop (WALL_FACTOR times the limit) for a claim that hangs without
    using CPU. Only in the main thread (elsewhere none can be enforced: say so upstream). None: no
    limit."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _cpu(signum, frame):  # noqa: ARG001
        raise ClaimTimeout(f"ran past its time limit of {seconds:g} s of CPU time")

    def _wall(signum, frame):  # noqa: ARG001
        raise ClaimTimeout(f"ran past {WALL_FACTOR} times its time limit of {seconds:g} s in wall "
                           "time without using that much CPU")

    previous = signal.signal(signal.SIGPROF, _cpu), signal.signal(signal.SIGALRM, _wall)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, WALL_FACTOR * seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])


def _finite(value: Any) -> Any:
    """JSON has no inf/NaN: keep them readable as strings instead of failing the write."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _described(claim: Claim) -> dict[str, Any]:
    """The record's fields that the spec states (the same whatever happens when it runs)."""
    return {"label": claim.label, "section": claim.section, "kind": claim.kind.value,
            "statement": claim.statement, "reading": claim.reading, "notes": claim.notes,
            "uses": tuple(Use(claim=u.claim, quote=u.quote) for u in claim.uses)}


def run_claim(claim: Claim, *, seed: int, profile: str, device: str,
              spec_file: str = "", alarm: bool = True, context: Context | None = None
              ) -> tuple[dict[str, Any], float]:
    """Run one claim; returns (record as JSON, seconds). Never raises for a defect of the claim.

    ``context``: run in this (fresh) context, whose memo the caller keeps (the tests re-decide
    mutated checks on the run's own draws). ``alarm``: enforce the time limit here (in CPU time, as
    the executor does); a claim process of
    :mod:`checks.executor` passes False, its supervisor enforcing the limit from outside."""
    ctx = context or Context(claim.id, seed=seed, profile=profile, device=device, dtype_name=claim.dtype)
    if claim.threads == 1:
        one_thread()  # the engine owns threads: specs never set them
    fields: dict[str, Any] = _described(claim)  # and what is decided, as it is decided
    start = time.perf_counter()
    record = None
    try:
        with time_limit(executor_limit(claim, profile) if alarm else None):
            steps = [_step_json(s, claim) for s in claim.derivation()] if claim.derivation else []
            evidence = [run_check_with_controls(check, ctx) for check in claim.checks]
            for item in steps + evidence:
                if item["role"] == "proof" and item.get("step") is None:
                    item["role"] = "derivation"  # checks no quoted step: the suite's own argument
        first = next((i for i, s in enumerate(steps) if s["status"] == "disagrees"), None)
        typed_steps = tuple(Step.from_json(s) for s in steps)
        typed_evidence = tuple(Evidence.from_json(e) for e in evidence)
        fields["derivation"] = Derivation(steps=typed_steps, first_disagreement=first,
                                          note=claim.no_derivation or "")
        fields["evidence"] = typed_evidence
        decision = decide(claim, steps, evidence)
        verdict, summary = decision["verdict"], decision["summary"]
        fields["proof"] = Proof.from_decision(decision["proof"])
        fields["readings"] = tuple(ReadingResult(**r) for r in decision["readings"])
        fields["clauses"] = tuple(ClauseResult(**c) for c in decision["clauses"])
        fields["confirmation"] = confirmation_kind(claim, verdict)
        fields["identity"] = claim.identity
        corrected = corrected_statement(claim, verdict, evidence)
        fields["corrected"] = None if corrected is None else freeze(corrected)
        fields["figure"] = key_figure(verdict.value, typed_steps, typed_evidence)
        if ctx.attached:
            fields["attached"] = freeze(ctx.attached)
    except ClaimTimeout as exc:
        record = Record.error(claim.id, claim.paper, str(exc), file=spec_file, **fields)
    except Exception as exc:  # noqa: BLE001 - the check itself failed: an error record
        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
        record = Record.error(claim.id, claim.paper, f"{type(exc).__name__}: {exc} (at {where})",
                              file=spec_file, traceback=traceback.format_exception(exc)[-6:], **fields)
    seconds = time.perf_counter() - start
    provenance = _provenance(claim, ctx, spec_file)
    if record is None:
        record = Record(id=claim.id, verdict=verdict.value, paper=claim.paper, summary=summary,
                        **fields, **provenance)
    else:
        record = replace(record, **provenance)
    return _finite(record.to_json()), seconds


def _step_json(step, claim: Claim) -> dict[str, Any]:
    data = step.to_json()
    known = {None, *(r.id for r in claim.alternatives)}
    if data["reading"] not in known:
        raise ValueError(f"step {data['name']!r} names unknown reading {data['reading']!r}")
    clauses, steps = {c.id for c in claim.clauses}, {s.id for s in claim.proof_steps}
    if data["clause"] is not None and data["clause"] not in clauses:
        raise ValueError(f"step {data['name']!r} names unknown clause {data['clause']!r}")
    if data["step"] is not None and data["step"] not in steps:
        raise ValueError(f"step {data['name']!r} names unknown proof step {data['step']!r}")
    if (len(claim.clauses) > 1 and data["reading"] is None and data["role"] in ("statement", "vacuity")
            and data["clause"] is None):
        raise ValueError(f"step {data['name']!r} must name the clause it decides (clause=...)")
    return data


def run_check(check, ctx: Context) -> dict[str, Any]:
    """The evidence of one check (no controls), tagged with its role and reading."""
    if isinstance(check, Relation):
        ev = check_relation(check, ctx)
    elif isinstance(check, ScalingLaw):
        ev = check_scaling(check, ctx)
    elif isinstance(check, Limit):
        ev = check_limit(check, ctx)
    else:
        raise TypeError(f"unknown check type {type(check).__name__}")
    return ev | {"role": check.role, "reading": check.reading, "clause": check.clause,
                 "step": check.step}


def run_check_with_controls(check, ctx: Context) -> dict[str, Any]:
    """A check's evidence and, when it agrees, each negative control's outcome.

    A control is the same check with the spec's named changes; it runs on the same seeded family
    (the generators are keyed by the check's name), and it must disagree. Controls of a check that
    does not agree are not run: such a check confirms nothing.
    """
    ev = run_check(check, ctx)
    ev["controls"] = []
    if ev["status"] != "agrees":
        ev["control_outcome"] = controls_outcome(Evidence.from_json(ev))
        return ev
    for c in check.controls:
        changes = dict(c.changes)
        if (getattr(check, "predicted", "") and "predicted" not in changes
                and set(changes) & PREDICTION_FIELDS):
            changes["predicted"] = ""  # a moved prediction reads as generated, not as the check's own text
        variant = replace(check, controls=(), **changes)
        if isinstance(variant, Relation) and variant.strategy is not None:
            # A control needs a failure, not a shrunk witness: search adversarially only when the
            # random family does not already fail (shrinking a control's witness is wasted time).
            cev = run_check(replace(variant, strategy=None), ctx)
            if cev["status"] != "disagrees":
                cev = run_check(variant, ctx)
        else:
            cev = run_check(variant, ctx)
        ev["controls"].append(Control(check=check.name, variant=c.variant, contrast=c.contrast,
                                      hypothesis=c.hypothesis, counts=c.counts,
                                      failed=cev["status"] == "disagrees", status=cev["status"],
                                      summary=cev["summary"]).to_json())
    # Decided once, here: the report shows this field and never re-derives it.
    ev["control_outcome"] = controls_outcome(Evidence.from_json(ev))
    return ev


def _provenance(claim: Claim, ctx: Context, spec_file: str) -> dict[str, Any]:
    return {"seed": ctx.seed, "profile": ctx.profile, "device": ctx.device, "dtype": claim.dtype,
            "spec_file": spec_file, "source_hash": source_hash(claim), "versions": freeze(versions())}


def run_all(claims: list[Claim], errors: list[LoadError], *, seed: int, profile: str, device: str,
            files: dict[str, str] | None = None,
            on_start: Callable[[int, int, str], None] | None = None,
            on_done: Callable[[int, int, dict[str, Any], float], None] | None = None,
            ) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Run every claim in id order; load errors become error records in the same list."""
    files = files or {}
    jobs: list[tuple[str, Any]] = sorted(
        [(c.id, c) for c in claims] + [(e.id, e) for e in errors], key=lambda j: j[0])
    records, timings = [], {}
    for i, (cid, job) in enumerate(jobs, start=1):
        if on_start:
            on_start(i, len(jobs), cid)
        if isinstance(job, LoadError):
            record, seconds = load_error_record(job, seed=seed, profile=profile, device=device), 0.0
        else:
            record, seconds = run_claim(job, seed=seed, profile=profile, device=device,
                                        spec_file=files.get(cid, ""))
        records.append(record)
        timings[cid] = round(seconds, 3)
        if on_done:
            on_done(i, len(jobs), record, seconds)
    return records, timings
