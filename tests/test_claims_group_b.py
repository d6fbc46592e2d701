"""GeoResolver §2.2–§2.3 claims (Property 2, Lemma 2.1, Theorem 2.2 IDA, Proposition 2.3 bound):
each real claim is run end to end, and a deliberately false variant of each check is refuted,
with a replayable witness (relations) or an interval excluding the prediction (laws, limits).
"""

from __future__ import annotations

import dataclasses
import functools
import json

import pytest
from claimtest import assert_interval_excludes, assert_witnessed, evidence, run

from claims.georesolver import lemma_2_1, property_2_2_2, proposition_2_3, theorem_2_2

CLAIM_MODULES = {
    "georesolver/property-2.2.2": property_2_2_2,
    "georesolver/lemma-2.1": lemma_2_1,
    "georesolver/theorem-2.2/ida": theorem_2_2,
    "georesolver/proposition-2.3/bound": proposition_2_3,
}


def claim_of(module):
    """The group-B claim of ``module`` (the module may also hold other parts of its theorem)."""
    cid = next(cid for cid, mod in CLAIM_MODULES.items() if mod is module)
    return next(c for c in module.CLAIMS if c.id == cid)


def mutated(claim, **replacements):
    """The claim with some checks replaced: ``name=new_check``; the others are dropped."""
    return dataclasses.replace(claim, checks=tuple(replacements.values()))


@pytest.fixture(scope="module")
def real_records():
    return {cid: run(claim_of(mod)) for cid, mod in CLAIM_MODULES.items()}


@pytest.mark.parametrize("cid", list(CLAIM_MODULES))
def test_real_claim_is_confirmed_with_every_step_and_check_agreeing(real_records, cid):
    record = real_records[cid]
    assert record["id"] == cid
    assert record["verdict"] == "confirmed", record["summary"]
    assert record["derivation"]["first_disagreement"] is None
    assert all(e["status"] == "agrees" for e in record["evidence"])


def test_property_2_2_2_false_identity_eps_over_lambda_is_refuted():
    claim = claim_of(property_2_2_2)
    rel = claim.check("weights-scale-to-eps")
    wrong = mutated(claim, rel=dataclasses.replace(
        rel, evaluate=functools.partial(property_2_2_2.scaled_weights_gap, eps_power=1)))
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert_witnessed(record, "weights-scale-to-eps", wrong)


def test_lemma_2_1_wrong_limit_value_wrong_rate_and_too_strong_bound_are_refuted():
    claim = claim_of(lemma_2_1)
    limit = claim.check("matched-weight-to-one")
    rel = claim.check("other-weights-bound")
    wrong = mutated(
        claim,
        value=dataclasses.replace(limit, name="wrong-value", value="0.9",
                                  gap=functools.partial(lemma_2_1.other_weights_gap,
                                                        limit_value=0.9)),
        rate=dataclasses.replace(limit, name="wrong-rate", rate=2.0),
        bound=dataclasses.replace(rel, evaluate=functools.partial(lemma_2_1.bound_ratio,
                                                                  bound_scale=0.5)),
    )
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert_interval_excludes(record, "wrong-value", 1.0)  # the gap stalls at 0.1: rate ≈ 0
    assert_interval_excludes(record, "wrong-rate", 2.0)
    assert_witnessed(record, "other-weights-bound", wrong)


def test_theorem_2_2_wrong_exponents_and_wrong_closed_form_are_refuted():
    claim = claim_of(theorem_2_2)
    wrong = mutated(
        claim,
        n=dataclasses.replace(claim.check("eps-star-vs-n"), exponent=-2.0),
        r=dataclasses.replace(claim.check("eps-star-vs-r"), exponent=1.0),
        delta=dataclasses.replace(claim.check("eps-star-vs-delta"), exponent=2.0),
        w11=dataclasses.replace(claim.check("w11-closed-form"),
                                evaluate=functools.partial(theorem_2_2.w11_gap, sq_dist=1.0)),
    )
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert_interval_excludes(record, "eps-star-vs-n", -2.0)
    assert_interval_excludes(record, "eps-star-vs-r", 1.0)
    assert_interval_excludes(record, "eps-star-vs-delta", 2.0)
    assert_witnessed(record, "w11-closed-form", wrong)
    assert record["corrected"] is not None


def test_proposition_2_3_too_strong_bound_is_refuted_on_equidistant_keys():
    claim = claim_of(proposition_2_3)
    rel = claim.check("separation-bound")
    wrong = mutated(claim, rel=dataclasses.replace(
        rel, evaluate=functools.partial(proposition_2_3.bound_sides, r2_factor=4.0)))
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert_witnessed(record, "separation-bound", wrong)


def test_proposition_2_3_bound_is_tight_on_the_sampled_family(real_records):
    # Regular simplices attain the bound: the closest approach is within the round-off tolerance.
    ev = evidence(real_records["georesolver/proposition-2.3/bound"], "separation-bound")
    assert -1e-11 < ev["closest_relative_margin"] <= 0


def test_same_seed_gives_identical_records(real_records):
    again = run(claim_of(theorem_2_2))
    first = real_records["georesolver/theorem-2.2/ida"]
    assert json.dumps(again, sort_keys=True) == json.dumps(first, sort_keys=True)
