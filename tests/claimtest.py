"""Helpers shared by the claim tests: run a claim, alter its checks, assert on its evidence."""

from __future__ import annotations

import dataclasses

from attnaudit.checks import Claim
from attnaudit.checks.context import Context
from attnaudit.checks.model import PREDICTION_FIELDS
from attnaudit.checks.relations import replay_witness
from attnaudit.checks.runner import run_claim

# One record per claim for the whole test session: the claim tests and the mutation test share it,
# so each built-in claim runs once (a claim equal to a stored one, field by field, is the same
# claim; the catalogue's copies differ only in source_module, which takes no part in equality).
# Keyed by id, each id holding every variant run so far: an altered copy (``only``,
# ``dataclasses.replace``) is kept beside the catalogue's claim, never in its place, so a module
# fixture set up again after another module's tests still finds the original's record.
_STORE: dict[str, list[tuple[Claim, dict, Context]]] = {}


def run(claim: Claim) -> dict:
    """The claim's record (seed 0, quick profile, CPU); fails if the run ended in an error.

    Records are shared across the session; an altered claim (``only``, ``dataclasses.replace``)
    is not equal to the stored one and runs afresh."""
    stored = _stored(claim)
    if stored is not None:
        return stored[1]
    ctx = Context(claim.id, seed=0, profile="quick", device="cpu", dtype_name=claim.dtype)
    record, _ = run_claim(claim, seed=0, profile="quick", device="cpu", context=ctx)
    assert record["verdict"] != "error", record.get("error")
    _STORE.setdefault(claim.id, []).append((claim, record, ctx))
    return record


def _stored(claim: Claim) -> tuple[Claim, dict, Context] | None:
    return next((entry for entry in _STORE.get(claim.id, ()) if entry[0] == claim), None)


def context_of(claim: Claim) -> Context:
    """The context the session's record of ``claim`` ran in: its memo holds the run's draws, so a
    mutated check re-decides on the same measurements (the engine keys them by measure and grid)."""
    run(claim)
    return _stored(claim)[2]


def only(claim: Claim, *checks) -> Claim:
    """The claim reduced to the given (possibly altered) checks, without its derivation."""
    return dataclasses.replace(claim, checks=tuple(checks), derivation=None,
                               no_derivation="altered variant: tests the check machinery")


# What a test may change and still decide on the original's draws: the prediction, and what only
# labels or gates it (which reading it serves, its controls, its table of extra measurements).
_DECIDING_FIELDS = PREDICTION_FIELDS | {"reading", "controls", "info", "predicted"}


def run_predicting(original: Claim, *checks) -> dict:
    """The record of ``original`` reduced to ``checks`` (``only``), each one of ``original``'s
    checks with its prediction changed, decided on the draws of the session's record of
    ``original``: a measurement is memoised by the spec's own key, so the changed prediction meets
    the measured values it was tested against, without measuring them again. Raises if a check
    changes anything but its prediction (another measure or sampler must be measured afresh)."""
    for check in checks:
        before = original.check(check.name)
        changed = {f.name for f in dataclasses.fields(check)
                   if getattr(check, f.name) is not getattr(before, f.name)
                   and getattr(check, f.name) != getattr(before, f.name)}
        if not changed <= _DECIDING_FIELDS:
            raise ValueError(f"{check.name}: {sorted(changed - _DECIDING_FIELDS)} changed: run(only(...))")
    draws = dataclasses.replace(context_of(original), attached={})  # the same memo, a record of its own
    variant = only(original, *checks)
    record, _ = run_claim(variant, seed=0, profile="quick", device="cpu", context=draws)
    assert record["verdict"] != "error", record.get("error")
    return record


def evidence(record: dict, name: str) -> dict:
    """The record's evidence for the check called ``name``."""
    return next(e for e in record["evidence"] if e["name"] == name)


def scaled_rhs(evaluate, factor: float):
    """An evaluator whose right-hand side is off by a relative ``factor − 1``."""

    def altered(case):
        lhs, rhs, tol = evaluate(case)
        return lhs, rhs * factor, tol

    return altered


def first_false_step(record: dict) -> dict:
    """The first derivation step that disagrees."""
    steps = record["derivation"]["steps"]
    return steps[record["derivation"]["first_disagreement"]]


def assert_refuted_with_witness(record: dict, name: str) -> dict:
    """The claim is refuted and check ``name`` disagrees with a witness; returns the witness."""
    assert record["verdict"] == "refuted"
    ev = evidence(record, name)
    assert ev["status"] == "disagrees" and ev["witness"] is not None
    return ev["witness"]


def assert_witnessed(record: dict, name: str, claim: Claim) -> dict:
    """Check ``name`` disagrees with a witness that replays on ``claim``'s check; returns it."""
    ev = evidence(record, name)
    assert ev["status"] == "disagrees", ev["summary"]
    witness = ev["witness"]
    assert witness is not None and witness["margin"] > 0
    # The witness replays: re-evaluating it with the (false) check still violates the relation.
    assert replay_witness(claim.check(name), witness)["margin"] > 0
    return witness


def _excludes(ev: dict, predicted: float) -> bool:
    """The fitted interval, widened by the tolerance, lies wholly on the wrong side of ``predicted``."""
    lo, hi = ev["fit"]["ci"]
    tol = ev["exponent_tolerance"]
    if ev["order"] == "O":
        return lo - tol > predicted
    if ev["order"] == "Ω":
        return hi + tol < predicted
    return not (lo - tol <= predicted <= hi + tol)


def assert_excluded(ev: dict) -> None:
    """The fit disagrees and its interval excludes the predicted exponent (order-aware)."""
    assert ev["status"] == "disagrees", ev["decision"]
    assert _excludes(ev, ev["predicted_exponent"])


def assert_interval_excludes(record: dict, name: str, predicted: float) -> dict:
    """Check ``name``'s fit disagrees and excludes ``predicted`` (order-aware); returns the fit."""
    ev = evidence(record, name)
    assert ev["status"] == "disagrees", ev["decision"]
    assert _excludes(ev, predicted)
    return ev["fit"]
