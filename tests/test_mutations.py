"""Every check of every claim can fail: its prediction is mutated by the engine (checks.mutation)
and the check's outcome flips. A statement check that agreed then refutes its reading; a proof
check that agreed then makes the proof flawed. A check that disagreed agrees once moved to what its
own measurement supports, so a refutation comes from the numbers and not from the comparator.

One test per check, collected from discovery: the count equals the number of checks in the
catalogue run. Each claim runs once (the session's record, shared with its own tests), each check once more.
"""

from __future__ import annotations

import claimtest
import pytest

from attnaudit.checks.discovery import discover
from attnaudit.checks.mutation import KNOWN_TOLERANCE_SENSITIVE, prediction_flip, tolerance_hold

CATALOGUE = discover(entry_points=False)  # the built-in claims (installed packs aside)
CASES = [pytest.param(claim, check, id=f"{claim.id}::{check.name}")
         for claim in CATALOGUE.claims for check in claim.checks]
STATEMENT_CASES = [pytest.param(claim, check, id=f"{claim.id}::{check.name}")
                   for claim in CATALOGUE.claims for check in claim.checks
                   if check.role == "statement"]


# Refutations that a tenfold tolerance would turn, listed with why (checks.mutation, which
# 'attnaudit mutate' reads too) and reported as xfailed. Each is an alternative reading.
TOLERANCE_SENSITIVE = KNOWN_TOLERANCE_SENSITIVE


def _record(claim) -> dict:
    return claimtest.run(claim)  # the session's one record of the claim, shared with its own tests


def test_every_catalogue_check_is_collected():
    assert not CATALOGUE.errors, [(e.id, e.reason) for e in CATALOGUE.errors]
    assert len(CASES) == sum(len(c.checks) for c in CATALOGUE.claims) > 0


@pytest.mark.parametrize(("claim", "check"), CASES)
def test_mutated_prediction_flips_the_check(claim, check):
    """checks.mutation.prediction_flip, which 'attnaudit mutate' runs over a pack: the check with
    its prediction moved flips; an agreeing statement check then refutes its reading, an agreeing
    proof check makes the proof flawed (the suite's derivation and vacuity items decide neither:
    their own flip is the test)."""
    outcome = prediction_flip(claim, check, _record(claim), claimtest.context_of(claim))
    assert outcome.passed, outcome.detail


@pytest.mark.parametrize(("claim", "check"), STATEMENT_CASES)
def test_a_tenfold_tolerance_leaves_the_verdict_unchanged(claim, check):
    """A verdict is the measurement's, not its tolerance's: with one statement check's tolerance
    times 10 (a relation's evaluated tolerance, a fit's exponent tolerance) the verdict of the
    reading it decides stays the same (issue 22: "requires the verdict to hold"). A check whose own
    status turns is named in the failure only when the verdict turns with it. The original evidence
    is the record's (each claim runs once for both mutation tests)."""
    known = TOLERANCE_SENSITIVE.get(f"{claim.id}::{check.name}")
    if known:
        pytest.xfail(known)  # listed and reported as xfailed, not compared
    outcome = tolerance_hold(claim, check, _record(claim), claimtest.context_of(claim))
    if outcome.passed is None:
        pytest.skip(outcome.detail)
    assert outcome.passed, outcome.detail
