"""Every check of every claim can fail: its prediction is mutated by the engine (checks.mutation)
and the check's outcome flips. A statement check that agreed then refutes its reading; a proof
check that agreed then makes the proof flawed. A check that disagreed agrees once moved to what its
own measurement supports, so a refutation comes from the numbers and not from the comparator.

One test per check, collected from discovery: the count equals the number of checks in the
catalogue run. Slow (each claim runs once, each check once more): marked ``slow``.
"""

from __future__ import annotations

import claimtest
import pytest

from attnaudit.checks import tolerances
from attnaudit.checks.discovery import discover
from attnaudit.checks.mutation import TOLERANCE_FACTOR, mutate, scale_tolerance
from attnaudit.checks.runner import run_check
from attnaudit.checks.verdict import decide, proof_status, reading_verdict

CATALOGUE = discover(entry_points=False)  # the built-in claims (installed packs aside)
CASES = [pytest.param(claim, check, id=f"{claim.id}::{check.name}")
         for claim in CATALOGUE.claims for check in claim.checks]
STATEMENT_CASES = [pytest.param(claim, check, id=f"{claim.id}::{check.name}")
                   for claim in CATALOGUE.claims for check in claim.checks
                   if check.role == "statement"]


# Refutations that a tenfold tolerance would turn, listed with why and reported as xfailed. Each is
# an alternative reading, never a headline.
TOLERANCE_SENSITIVE = {
    "georesolver/proposition-11.3::online-k-means-regret-increment":
        "the online-k-means alternative's O(T⁰) refutation (T^0.82) clears its closed-form fit bias "
        "(±0.436, 2 × 0.218 on this grid) by 0.36 only; tenfold, the bias swamps it",
}


def _record(claim) -> dict:
    return claimtest.run(claim)  # the session's one record of the claim, shared with its own tests


def test_every_catalogue_check_is_collected():
    assert not CATALOGUE.errors, [(e.id, e.reason) for e in CATALOGUE.errors]
    assert len(CASES) == sum(len(c.checks) for c in CATALOGUE.claims) > 0


@pytest.mark.slow
@pytest.mark.parametrize(("claim", "check"), CASES)
def test_mutated_prediction_flips_the_check(claim, check):
    record = _record(claim)
    original = next(e for e in record["evidence"] if e["name"] == check.name)
    ctx = claimtest.context_of(claim)
    # An undecided check (a drifting fit, a straddled bound) must still be able to fail: moved as if it
    # agreed, past every interval it measured, it disagrees.
    undecided = original["status"] == "undecided"
    basis = original | {"status": "agrees"} if undecided else original
    mutant, change = mutate(check, basis, ctx)
    mutated = run_check(mutant, ctx) | {"controls": []}
    expected = "disagrees" if basis["status"] == "agrees" else "agrees"
    assert mutated["status"] == expected, f"{change}: {mutated['summary']}"
    if original["status"] != "agrees":
        return
    evidence = [mutated if e["name"] == check.name else e for e in record["evidence"]]
    steps = record["derivation"]["steps"]
    if check.role == "statement":
        verdict, _ = reading_verdict(steps, evidence, check.reading)
        assert verdict.value == "refuted", change
    elif check.role == "proof" and check.step is not None:
        assert proof_status(claim, steps, evidence)["status"] == "flawed", change
    # the suite's derivation and vacuity items decide neither: their own flip above is the test


@pytest.mark.slow
@pytest.mark.parametrize(("claim", "check"), STATEMENT_CASES)
def test_a_tenfold_tolerance_leaves_the_verdict_unchanged(claim, check):
    """A verdict is the measurement's, not its tolerance's: with one statement check's tolerance
    times 10 (a relation's evaluated tolerance, a fit's exponent tolerance) the verdict of the
    reading it decides stays the same (issue 22: "requires the verdict to hold"). A check whose own
    status turns is named in the failure only when the verdict turns with it. The original evidence
    is the record's (each claim runs once for both mutation tests)."""
    record = _record(claim)
    original = next(e for e in record["evidence"] if e["name"] == check.name)
    ctx = claimtest.context_of(claim)
    known = TOLERANCE_SENSITIVE.get(f"{claim.id}::{check.name}")
    if known:
        pytest.xfail(known)  # listed and reported as xfailed, not compared
    if getattr(check.tolerance, "value", None) == 0 or isinstance(check.tolerance, tolerances.Exact):
        pytest.skip("an exact comparison: ten times no tolerance is none")
    monotone = getattr(check, "order", "Θ") in ("Θ", "O", "Ω")  # "unbounded" subtracts its tolerance
    if (original["status"] == "agrees" and monotone
            and not isinstance(check.tolerance, tolerances.Systematic)):
        # A wider tolerance only widens what agrees (a relation's violations and a fit's excluded
        # exponents can only shrink; drift, judged with the tolerance, only lessens), and only a
        # hand-set Systematic one can turn an agreement undecided: nothing to rerun.
        pytest.skip("an agreement under a stated tolerance stays one under a wider tolerance")
    mutant, change = scale_tolerance(check, TOLERANCE_FACTOR)
    try:
        mutated = run_check(mutant, ctx)
    except ValueError as exc:
        if "as wide as the bound" not in str(exc):
            raise
        # Tenfold, the tolerance would reach the bound itself: the engine refuses to compare (a load
        # error), so no verdict can be turned by it; the check's own tolerance is below the bound.
        pytest.skip(f"{change}: the tenfold tolerance reaches the bound ({exc})")
    if mutated["status"] == original["status"]:
        return
    evidence = [mutated | {"controls": original.get("controls", []),
                           "control_outcome": original.get("control_outcome")}
                if e["name"] == check.name else e for e in record["evidence"]]
    steps = record["derivation"]["steps"]
    if check.reading is None:
        before, after = record["verdict"], decide(claim, steps, evidence)["verdict"].value
    else:
        before = next(r["verdict"] for r in record["readings"] if r["id"] == check.reading)
        after = reading_verdict(steps, evidence, check.reading)[0].value
    assert after == before, f"{change}: {mutated['summary']}"
