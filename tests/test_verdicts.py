"""The verdict model of DESIGN.md ("Evidence and verdicts"), pinned down.

Two halves: the decision rules on plain records (``checks.verdict``: statement vs proof, readings,
negative controls), then end-to-end runs of tiny in-memory claims (a relation, a scaling law, a
limit) showing that each kind of check confirms a true statement only through a failing control,
refutes a wrong prediction, and sits exactly on its stated tolerance: a violation at 2× the
tolerance refutes, one at 0.5× does not.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy as sp
import torch

from attnaudit.checks import Claim, Kind, Limit, Reading, Relation, ScalingLaw, control, symbolic, tolerances
from attnaudit.checks.model import Control, ProofStep, Verdict
from attnaudit.checks.relations import margins
from attnaudit.checks.results import Evidence
from attnaudit.checks.results import controls_outcome as controls_outcome_of
from attnaudit.checks.runner import run_check_with_controls, run_claim
from attnaudit.checks.verdict import (
    corrected_statement,
    decide,
    proof_status,
    reading_verdict,
)

n = sp.Symbol("n", positive=True)
x = sp.Symbol("x", real=True)

# ── the decision rules on plain records ──────────────────────────────────────────────────────


def step(name, status, role="statement", reading=None, **tags):
    return {"name": name, "status": status, "role": role, "reading": reading,
            "paper": f"paper-{name}", "derived": f"derived-{name}"} | tags


def ev(name, status, role="statement", reading=None, controls=(True,), **extra):
    """A check's evidence; ``controls`` lists whether each control failed."""
    return {"name": name, "status": status, "role": role, "reading": reading,
            "summary": f"summary-{name}", "type": "relation",
            "controls": [{"check": name, "variant": f"v{i}", "failed": f}
                         for i, f in enumerate(controls)]} | extra


def controls_outcome(ev):  # the results layer reads typed evidence
    return controls_outcome_of(Evidence.from_json(ev))


def claim(**changes):
    base = dict(id="toy/rules", label="Rule", section="§0", statement="s", reading="r",
                kind=Kind.IDENTITY, no_derivation="records built by hand",
                checks=(ASYMPTOTIC_LAW,))
    return Claim(**(base | changes))


def test_controls_outcome_distinguishes_discriminating_blind_and_uncontrolled():
    assert controls_outcome(ev("a", "agrees", controls=(False, True))) == "discriminates"
    assert controls_outcome(ev("a", "agrees", controls=(False, False))) == "blind"
    assert controls_outcome(ev("a", "agrees", controls=())) == "uncontrolled"
    assert controls_outcome({"name": "a"}) == "uncontrolled"


def test_confirmed_needs_an_agreeing_statement_check_whose_control_fails():
    verdict, why = reading_verdict([step("s", "agrees")], [ev("c", "agrees")], None)
    assert verdict is Verdict.CONFIRMED
    assert why == "1 statement check agrees (1 with a failing control) and 1 statement step"
    verdict, why = reading_verdict([], [ev("c", "agrees"), ev("d", "agrees")], None)
    assert (verdict, why) == (Verdict.CONFIRMED, "2 statement checks agree (2 with a failing control)")


def test_a_blind_check_alone_is_inconclusive_and_is_set_aside_beside_a_discriminating_one():
    verdict, why = reading_verdict([], [ev("blind", "agrees", controls=(False,))], None)
    assert verdict is Verdict.INCONCLUSIVE
    assert "blind" in why and "cannot discriminate" in why
    verdict, why = reading_verdict([], [ev("bare", "agrees", controls=())], None)
    assert verdict is Verdict.INCONCLUSIVE and "no agreeing check has a negative control" in why
    verdict, why = reading_verdict([], [ev("good", "agrees"), ev("blind", "agrees", controls=(False,))],
                                   None)
    assert verdict is Verdict.CONFIRMED
    assert "(1 with a failing control)" in why and why.endswith("set aside as blind (their controls "
                                                                "passed): blind")


def test_only_statement_items_of_the_reading_decide_it():
    proof_false = [step("p", "disagrees", role="proof")]
    assert reading_verdict(proof_false, [ev("c", "agrees")], None)[0] is Verdict.CONFIRMED
    assert reading_verdict([], [ev("c", "agrees"), ev("p", "disagrees", role="proof")],
                           None)[0] is Verdict.CONFIRMED
    other = [ev("alt", "disagrees", reading="alt")]
    assert reading_verdict([], [ev("c", "agrees"), *other], None)[0] is Verdict.CONFIRMED
    assert reading_verdict([], [ev("c", "agrees"), *other], "alt")[0] is Verdict.REFUTED


def test_refuted_by_a_false_statement_step_or_a_disagreeing_statement_check():
    verdict, why = reading_verdict([step("s", "disagrees"), step("t", "disagrees")],
                                   [ev("c", "agrees")], None)
    assert verdict is Verdict.REFUTED
    assert why == "statement step 's' is false: paper paper-s, derived derived-s"
    verdict, why = reading_verdict([step("u", "undecided")], [ev("c", "disagrees"), ev("d", "disagrees")],
                                   None)
    assert (verdict, why) == (Verdict.REFUTED, "c: summary-c; d: summary-d")
    verdict, why = reading_verdict([step("s", "disagrees")], [ev("c", "disagrees")], None)
    assert why == "statement step 's' is false: paper paper-s, derived derived-s; c: summary-c"


def test_undecided_is_never_false_it_is_inconclusive():
    verdict, why = reading_verdict([step("u", "undecided")], [ev("c", "agrees")], None)
    assert (verdict, why) == (Verdict.INCONCLUSIVE, "step 'u' undecided by SymPy")
    verdict, why = reading_verdict([], [ev("c", "undecided", decision="widen it"), ev("d", "agrees")],
                                   None)
    assert (verdict, why) == (Verdict.INCONCLUSIVE, "c: widen it")
    verdict, why = reading_verdict([], [ev("c", "undecided")], None)
    assert why == "c: summary-c"


def test_without_a_statement_check_nothing_is_confirmed():
    verdict, why = reading_verdict([step("s", "agrees"), step("t", "agrees")], [], None)
    assert verdict is Verdict.INCONCLUSIVE and why.startswith("2 statement step(s) agree")
    verdict, why = reading_verdict([step("p", "agrees", role="proof")],
                                   [ev("q", "agrees", role="proof")], None)
    assert (verdict, why) == (Verdict.INCONCLUSIVE, "no statement step or check tests it yet")


def test_summaries_name_every_item_they_rest_on():
    verdict, why = reading_verdict([step("u", "undecided"), step("v", "undecided")], [], None)
    assert why == "step 'u' undecided by SymPy; step 'v' undecided by SymPy"
    verdict, why = reading_verdict([step("s", "agrees")], [], None)
    assert why == ("1 statement step(s) agree but no numerical check with a negative control tests "
                   "the statement")
    verdict, why = reading_verdict([], [ev("a", "agrees", controls=(False,)),
                                        ev("b", "agrees", controls=(False,))], None)
    assert why == "the controls of a, b passed too, so these checks cannot discriminate"
    verdict, why = reading_verdict([], [ev("a", "agrees", controls=())], None)
    assert why == "no agreeing check has a negative control that fails"
    verdict, why = reading_verdict([step("s", "agrees"), step("t", "agrees")],
                                   [ev("c", "agrees"), ev("a", "agrees", controls=(False,)),
                                    ev("b", "agrees", controls=(False,))], None)
    assert why == ("3 statement checks agree (1 with a failing control) and 2 statement steps; "
                   "set aside as blind (their controls passed): a, b")


def test_an_alternative_reading_is_decided_by_its_own_steps():
    steps = [step("primary-step", "agrees"), step("alt-step", "disagrees", reading="alt")]
    evidence = [ev("c", "agrees"), ev("d", "agrees", reading="alt")]
    assert reading_verdict(steps, evidence, None)[0] is Verdict.CONFIRMED
    verdict, why = reading_verdict(steps, evidence, "alt")
    assert verdict is Verdict.REFUTED and "alt-step" in why


def test_proof_status_flawed_names_the_first_false_step_in_the_papers_order():
    c = claim(proof_steps=(ProofStep("one", "first we show"), ProofStep("two", "then it follows"),
                           ProofStep("three", "hence")))
    # the items are listed out of the paper's order: the paper's first false step is "two"
    steps = [step("late", "disagrees", role="proof", step="three"),
             step("fine", "agrees", role="proof", step="one"),
             step("early", "disagrees", role="proof", step="two"), step("stmt", "disagrees")]
    proof = proof_status(c, steps, [])
    assert (proof["status"], proof["first_false_step"]) == ("flawed", "two")
    assert proof["reason"].startswith("step 'two' (\u201cthen it follows\u201d) is false: step 'early'")
    assert [(q["id"], q["status"], q["items"]) for q in proof["steps"]] == [
        ("one", "agrees", ["fine"]), ("two", "disagrees", ["early"]), ("three", "disagrees", ["late"])]
    proof = proof_status(c, [], [ev("a", "agrees", role="proof", step="one"),
                                 ev("b", "disagrees", role="proof", step="three")])
    assert (proof["status"], proof["first_false_step"]) == ("flawed", "three")
    assert proof["reason"].endswith("check 'b': summary-b")


def test_proof_status_incomplete_sound_and_absent():
    c = claim(proof_steps=(ProofStep("u", "we bound"), ProofStep("a", "so")))
    proof = proof_status(c, [step("u1", "undecided", role="proof", step="u"),
                             step("a1", "agrees", role="proof", step="a")], [ev("s", "undecided")])
    assert (proof["status"], proof["reason"]) == ("incomplete", "undecided or unchecked: u")
    proof = proof_status(c, [step("a1", "agrees", role="proof", step="a")], [])
    assert (proof["status"], proof["reason"]) == ("incomplete", "undecided or unchecked: u")
    proof = proof_status(claim(), [step("s", "agrees")], [ev("c", "agrees")])
    assert (proof["status"], proof["reason"]) == ("incomplete", "no step of the paper's argument is "
                                                  "quoted and checked")
    both = [step("u1", "agrees", role="proof", step="u"), step("a1", "agrees", role="proof", step="a")]
    proof = proof_status(c, both, [ev("b", "agrees", role="derivation")])
    assert proof["status"] == "sound" and proof["reason"].startswith("2 quoted steps of the paper's")
    assert "the suite's own derivation (1 item)" in proof["reason"]
    gap = proof_status(claim(proof_steps=c.proof_steps, proof_gap="the case d > 2 is not argued"),
                       both, [])
    assert gap["status"] == "incomplete" and "d > 2 is not argued" in gap["reason"]
    absent = proof_status(claim(proof_absent="stated in the abstract"),
                          [step("a", "disagrees", role="proof")], [])
    assert (absent["status"], absent["reason"]) == ("absent", "stated in the abstract")


def test_proof_items_without_quotes_cannot_make_a_proof_sound():
    """The suite's own reconstruction (proof items that check no quoted step) is the suite's
    derivation: however many of them agree, the paper's argument is not thereby sound."""
    derivation = [step("mine", "agrees", role="derivation"), ev("also-mine", "agrees", role="derivation")]
    proof = proof_status(claim(), derivation[:1], derivation[1:])
    assert proof["status"] == "incomplete" and "suite's own derivation (2 items)" in proof["reason"]
    record = run(dataclasses.replace(LIMIT, derivation=lambda: [
        symbolic.exact("a step of my own", n + n, 2 * n, role="proof")]))
    assert record["derivation"]["steps"][0]["role"] == "derivation"
    assert record["proof"]["status"] == "incomplete"


def test_decide_gives_one_primary_reading_and_a_verdict_per_alternative():
    c = claim(reading_why="the proof's setting", proof_steps=(ProofStep("p", "since"),),
              alternatives=(Reading("strong", "a stronger reading", "the text admits it"),
                            Reading("weak", "a weaker reading", "ditto")))
    evidence = [ev("c", "agrees"), ev("s", "disagrees", reading="strong"),
                ev("w", "agrees", reading="weak", controls=(False,))]
    out = decide(c, [step("p1", "disagrees", role="proof", step="p")], evidence)
    assert out["verdict"] is Verdict.CONFIRMED and out["proof"]["status"] == "flawed"
    assert out["summary"] == out["readings"][0]["summary"]
    assert [(r["id"], r["primary"], r["verdict"]) for r in out["readings"]] == [
        ("primary", True, "confirmed"), ("strong", False, "refuted"), ("weak", False, "inconclusive")]
    assert out["readings"][0]["text"] == "r" and out["readings"][0]["why"] == "the proof's setting"
    assert out["readings"][1]["text"] == "a stronger reading"
    assert out["readings"][1]["why"] == "the text admits it"
    assert [(k["id"], k["quote"], k["verdict"]) for k in out["clauses"]] == [
        ("statement", None, "confirmed")]


def test_decide_on_an_unverifiable_claim():
    c = claim(unverifiable="no operator is defined", checks=(), no_derivation=None,
              alternatives=(Reading("alt", "t", "w"),))
    out = decide(c, [], [])
    assert out["verdict"] is Verdict.UNVERIFIABLE and out["summary"] == "no operator is defined"
    assert out["proof"]["status"] == "incomplete" and set(out) == {"verdict", "summary", "proof",
                                                                   "readings", "clauses"}
    assert [r["verdict"] for r in out["readings"]] == ["unverifiable", "unverifiable"]
    assert out["readings"][1]["summary"] == "no operator is defined"


def _fit_ev(name, status, exponent, ci, law="power", reading=None):
    return ev(name, status, reading=reading, type="scaling", quantity="S", variable="n",
              family="exact", predicted="Θ(n^-2)", exponent_tolerance=0.01,
              fit={"exponent": exponent, "ci": list(ci), "law": law})


def test_corrected_statement_from_the_refuting_fit_and_only_when_refuted():
    c = claim()
    evidence = [_fit_ev("law", "disagrees", -0.998, (-1.001, -0.995)),
                _fit_ev("fine", "agrees", -1.0, (-1.0, -1.0)),
                _fit_ev("exp", "disagrees", 0.5, (0.4, 0.6), law="exponential"),
                _fit_ev("alt", "disagrees", 3.0, (2.9, 3.1), reading="alt"),
                ev("rel", "disagrees")]
    out = corrected_statement(c, Verdict.REFUTED, evidence)
    assert out == {"statement": "S = Θ(n^-1) on exact, not Θ(n^-2) (fitted -0.998, "
                                "95% CI [-1.001, -0.995])",
                   "derived_by": "attnaudit", "basis": ["law", "exp", "rel"]}
    assert corrected_statement(c, Verdict.CONFIRMED, evidence) is None
    assert corrected_statement(c, Verdict.REFUTED, [ev("rel", "disagrees")]) is None
    two = [ev("rel", "disagrees"), _fit_ev("a", "disagrees", -0.998, (-1.001, -0.995)),
           _fit_ev("b", "disagrees", 0.5, (0.49, 0.51))]
    assert corrected_statement(c, Verdict.REFUTED, two)["statement"] == (
        "S = Θ(n^-1) on exact, not Θ(n^-2) (fitted -0.998, 95% CI [-1.001, -0.995]); "
        "S = Θ(n^1/2) on exact, not Θ(n^-2) (fitted 0.5, 95% CI [0.49, 0.51])")
    own = claim(correction=lambda evidence: f"own text from {len(evidence)} checks")
    assert corrected_statement(own, Verdict.REFUTED, evidence)["statement"] == "own text from 5 checks"
    silent = claim(correction=lambda evidence: None)
    assert corrected_statement(silent, Verdict.REFUTED, evidence)["statement"].startswith("S = Θ(n^-1)")
    assert corrected_statement(silent, Verdict.REFUTED, evidence)["derived_by"] == "attnaudit"


def test_a_specs_own_correction_is_labelled_its_authors():
    """A pack author's correction= is the author's; a built-in spec's is the suite's own."""
    evidence = [ev("rel", "disagrees")]
    own = claim(correction=lambda evidence: "the author's text")
    labelled = corrected_statement(own, Verdict.REFUTED, evidence)["derived_by"]
    assert labelled == "the spec's author (correction=)"
    builtin = dataclasses.replace(own, source_module="attnaudit.claims.toy.rules")
    assert corrected_statement(builtin, Verdict.REFUTED, evidence)["derived_by"] == "attnaudit"


# ── end to end: in-memory claims through the runner ──────────────────────────────────────────

ROUNDOFF = tolerances.Roundoff("1: a mean and a square root of positive numbers", scale="(a+b)/2")


def _am_gm(case):
    a, b = case["a"], case["b"]
    return (a + b) / 2, torch.sqrt(a * b), ROUNDOFF((a + b) / 2, a.dtype)


def _quadratic_mean(case):  # (a+b)/2 <= sqrt((a²+b²)/2): the control of "(a+b)/2 >= ·"
    a, b = case["a"], case["b"]
    return (a + b) / 2, torch.sqrt((a * a + b * b) / 2), ROUNDOFF((a + b) / 2, a.dtype)


def _positive_pairs(ctx, gen):
    yield {"a": torch.rand(400, generator=gen, dtype=ctx.dtype) * 10,
           "b": torch.rand(400, generator=gen, dtype=ctx.dtype) * 10}


def _pair_strategy(ctx):
    from hypothesis import strategies as st

    pos = st.floats(1e-3, 1e3)
    return st.tuples(pos, pos).map(lambda ab: {"a": ctx.tensor([ab[0]]), "b": ctx.tensor([ab[1]])})


AM_GM = Relation(name="am-gm", lhs="(a+b)/2", rel=">=", rhs="√(ab)", evaluate=_am_gm,
                 sample=_positive_pairs, strategy=_pair_strategy, max_examples=30,
                 tolerance=ROUNDOFF, sampler="uniform a, b in (0, 10)",
                 controls=(control("quadratic mean in place of the geometric", evaluate=_quadratic_mean),))

INEQUALITY = Claim(
    id="toy/am-gm", label="AM–GM", section="§0", statement=r"\frac{a+b}{2} \ge \sqrt{ab}",
    reading="for all a, b > 0", kind=Kind.INEQUALITY,
    no_derivation="textbook inequality; the test is of the relation machinery", checks=(AM_GM,))


def _harmonic(ctx, grid):
    # Exact 1/n measured through a batched tensor sum of n equal terms n⁻².
    return np.array([torch.full((int(m),), 1.0 / m**2, dtype=torch.float64).sum().item()
                     for m in grid])


FIT = tolerances.FitBias(0.01, "round-off in a sum of n equal terms")
ASYMPTOTIC_LAW = ScalingLaw(name="law", quantity="S(n)", variable="n", exponent=-1.0, order="Θ",
                            grid=lambda ctx: np.logspace(1, 4, 7), measure=_harmonic,
                            family="exact sums", tolerance=FIT,
                            controls=(control("exponent moved to -2", exponent=-2.0),))
ASYMPTOTIC = Claim(
    id="toy/harmonic", label="Toy law", section="§0", statement=r"\sum_{i=1}^n n^{-2} = \Theta(n^{-1})",
    reading="as n → ∞", kind=Kind.ASYMPTOTIC,
    derivation=lambda: [symbolic.leading_order("order", n * n**-2, n, n**-1, role="statement")],
    checks=(ASYMPTOTIC_LAW,))


def _euler_gap(ctx, grid):
    return np.abs((1 + 1 / grid) ** grid - np.e)


EULER = Limit(name="limit", quantity="(1+1/n)^n", variable="n", value="e", point="oo",
              rate=1.0, grid=lambda ctx: np.logspace(1, 4, 7), gap=_euler_gap, family="integers n",
              tolerance=tolerances.FitBias(0.025, "the gap e/(2n) + O(n⁻²) over the grid"),
              controls=(control("limit value 2.7", gap=lambda ctx, g: np.abs((1 + 1 / g) ** g - 2.7)),))
LIMIT = Claim(
    id="toy/euler", label="Toy limit", section="§0", statement=r"(1+1/n)^n \to e",
    reading="as n → ∞", kind=Kind.LIMIT,
    derivation=lambda: [symbolic.limit("limit", (1 + 1 / n) ** n, n, sp.oo, sp.E, role="statement")],
    checks=(EULER,))


def run(claim):
    record, _ = run_claim(claim, seed=0, profile="quick", device="cpu")
    assert record["verdict"] != "error", record.get("error")
    return record


def test_true_inequality_confirmed_through_its_failing_control_and_reversed_one_refuted():
    record = run(INEQUALITY)
    assert record["verdict"] == "confirmed" and record["proof"]["status"] == "incomplete"
    assert record["controls"] == [{"check": "am-gm", "variant": AM_GM.controls[0].variant,
                                   "contrast": None, "hypothesis": None, "counts": True,
                                   "failed": True, "status": "disagrees",
                                   "summary": record["evidence"][0]["controls"][0]["summary"]}]
    wrong = dataclasses.replace(INEQUALITY, checks=(dataclasses.replace(AM_GM, rel="<="),))
    record = run(wrong)
    assert record["verdict"] == "refuted" and record["controls"] == []
    witness = record["evidence"][0]["witness"]
    assert witness["found_by"] == "hypothesis" and witness["shrunk"]
    assert witness["lhs"] > witness["rhs"] + witness["tol"]


def test_controls_run_only_for_an_agreeing_check():
    from attnaudit.checks.context import Context

    ctx = Context("toy/am-gm", seed=0)
    wrong = dataclasses.replace(AM_GM, rel="<=", strategy=None)
    assert run_check_with_controls(wrong, ctx)["controls"] == []
    ev_ = run_check_with_controls(dataclasses.replace(AM_GM, strategy=None), ctx)
    assert [c["failed"] for c in ev_["controls"]] == [True]


def test_a_control_that_moves_the_prediction_does_not_quote_the_checks_own_text():
    from attnaudit.checks.context import Context

    law = dataclasses.replace(ASYMPTOTIC_LAW, predicted="Θ(1/n): the harmonic tail")
    ev_ = run_check_with_controls(law, Context("toy/harmonic", seed=0))
    assert "the harmonic tail" in ev_["summary"]
    [moved] = ev_["controls"]
    assert moved["failed"] and "the harmonic tail" not in moved["summary"]
    assert "-2" in moved["summary"]


def test_a_check_whose_control_passes_is_blind_and_alone_gives_inconclusive():
    blind = dataclasses.replace(AM_GM, controls=(control("the same bound on smaller numbers",
                                                         sampler="uniform a, b in (0, 1)"),))
    record = run(dataclasses.replace(INEQUALITY, checks=(blind,)))
    assert record["verdict"] == "inconclusive"
    assert "cannot discriminate" in record["summary"]
    assert [(c["check"], c["failed"]) for c in record["controls"]] == [("am-gm", False)]


def test_a_control_must_name_a_change():
    with pytest.raises(ValueError, match="changes nothing"):
        control("nothing")
    with pytest.raises(ValueError, match="names its variant"):
        Control(" ", {"rel": "<="})
    with pytest.raises(ValueError, match="may not rename"):
        control("renamed", name="other")
    with pytest.raises(TypeError, match="controls must be checks.Control"):
        dataclasses.replace(AM_GM, controls=("a string",))


def test_true_identity_confirmed_and_wrong_identity_refuted():
    def same(c):
        return c["a"] * c["b"], c["b"] * c["a"], torch.zeros_like(c["a"])

    def different(c):
        return c["a"] + c["b"], c["a"] * c["b"], torch.zeros_like(c["a"])

    identity = dataclasses.replace(INEQUALITY, id="toy/identity", kind=Kind.IDENTITY, checks=(
        dataclasses.replace(AM_GM, rel="==", evaluate=same,
                            controls=(control("a sum", evaluate=different),)),))
    assert run(identity)["verdict"] == "confirmed"
    wrong = dataclasses.replace(identity, checks=(
        dataclasses.replace(identity.checks[0], evaluate=different),))
    record = run(wrong)
    assert record["verdict"] == "refuted" and record["evidence"][0]["witness"] is not None


def test_asymptotic_order_confirmed_and_wrong_exponent_refuted_by_the_interval():
    record = run(ASYMPTOTIC)
    assert record["verdict"] == "confirmed", record["summary"]
    assert record["controls"][0]["failed"]
    wrong = dataclasses.replace(ASYMPTOTIC, checks=(dataclasses.replace(ASYMPTOTIC_LAW, exponent=-2.0),))
    record = run(wrong)
    assert record["verdict"] == "refuted"
    ev_ = record["evidence"][0]
    lo, hi = ev_["fit"]["ci"]
    assert not (lo - ev_["exponent_tolerance"] <= -2.0 <= hi + ev_["exponent_tolerance"])
    assert "Θ(n^-1)" in record["corrected"]["statement"]
    assert record["corrected"]["derived_by"] == "attnaudit"


def test_bounds_in_O_and_Omega_are_decided_in_the_right_direction():
    for order, exponent, verdict in (("O", 0.0, "agrees"), ("O", -2.0, "disagrees"),
                                     ("Ω", -2.0, "agrees"), ("Ω", 0.0, "disagrees")):
        claim_ = dataclasses.replace(ASYMPTOTIC, derivation=None, no_derivation="x", checks=(
            dataclasses.replace(ASYMPTOTIC_LAW, order=order, exponent=exponent, controls=()),))
        assert run(claim_)["evidence"][0]["status"] == verdict, (order, exponent)


def test_limit_confirmed_and_wrong_limit_value_refuted():
    record = run(LIMIT)
    assert record["verdict"] == "confirmed", record["summary"]
    wrong = dataclasses.replace(LIMIT, checks=(dataclasses.replace(
        EULER, value="2.7", gap=lambda ctx, g: np.abs((1 + 1 / g) ** g - 2.7)),))
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert record["evidence"][0]["fit"]["ci"][1] < 0.5  # the gap stops shrinking


def test_a_false_statement_step_refutes_and_is_reported_first():
    wrong = dataclasses.replace(LIMIT, derivation=lambda: [
        symbolic.exact("true step", n + n, 2 * n, role="statement"),
        symbolic.limit("wrong limit", (1 + 1 / n) ** n, n, sp.oo, sp.Integer(3), role="statement"),
        symbolic.exact("another false step", n, n + 1, role="statement"),
    ])
    record = run(wrong)
    assert record["verdict"] == "refuted"
    assert record["derivation"]["first_disagreement"] == 1
    assert "wrong limit" in record["summary"]
    assert record["figure"] == "step 'wrong limit' is false"


def test_a_false_proof_step_makes_the_proof_flawed_and_never_refutes():
    flawed = dataclasses.replace(LIMIT, proof_steps=(
        ProofStep("doubling", "n + n = 2n"), ProofStep("reversal", "n ≥ n + 1"),
        ProofStep("later", "n = n + 2")), derivation=lambda: [
        symbolic.exact("true step", n + n, 2 * n, role="proof", step="doubling"),
        symbolic.exact("reversed inequality", n, n + 1, role="proof", step="reversal"),
        symbolic.exact("later false step", n, n + 2, role="proof", step="later"),
    ])
    record = run(flawed)
    assert (record["verdict"], record["proof"]["status"]) == ("confirmed", "flawed")
    assert record["proof"]["first_false_step"] == "reversal"
    assert record["derivation"]["first_disagreement"] == 1


def test_an_undecidable_sympy_relation_is_inconclusive_as_statement_and_incomplete_as_proof():
    undecidable = sp.exp(x) >= 1 + x  # true, but SymPy cannot decide it
    as_statement = dataclasses.replace(LIMIT, derivation=lambda: [
        symbolic.holds("tangent line", undecidable, role="statement")])
    record = run(as_statement)
    assert record["derivation"]["steps"][0]["status"] == "undecided"
    assert record["verdict"] == "inconclusive", record["summary"]
    assert "undecided" in record["summary"]
    as_proof = dataclasses.replace(LIMIT, proof_steps=(ProofStep("tangent", "e^x ≥ 1 + x"),),
                                   derivation=lambda: [
        symbolic.holds("tangent line", undecidable, role="proof", step="tangent")])
    record = run(as_proof)
    assert (record["proof"]["status"], record["proof"]["reason"]) == (
        "incomplete", "undecided or unchecked: tangent")
    assert record["verdict"] == "confirmed"


def test_alternative_readings_get_their_own_verdict_and_never_change_the_headline():
    reversed_ = dataclasses.replace(AM_GM, name="reversed", rel="<=", reading="reversed")
    claim_ = dataclasses.replace(INEQUALITY, checks=(AM_GM, reversed_), alternatives=(
        Reading("reversed", "(a+b)/2 <= √(ab)", "a misprint would read so"),))
    record = run(claim_)
    assert record["verdict"] == "confirmed"
    readings = {r["id"]: r for r in record["readings"]}
    assert [r["primary"] for r in record["readings"]] == [True, False]
    assert readings["primary"]["verdict"] == "confirmed"
    assert readings["reversed"]["verdict"] == "refuted"
    with pytest.raises(ValueError, match="unknown reading"):
        dataclasses.replace(INEQUALITY, checks=(reversed_,))


def test_too_few_decades_is_an_error_of_the_spec_not_a_verdict():
    short = dataclasses.replace(ASYMPTOTIC, checks=(dataclasses.replace(
        ASYMPTOTIC_LAW, grid=lambda ctx: np.logspace(1, 3, 9)),))
    record, _ = run_claim(short, seed=0, profile="quick", device="cpu")
    assert record["verdict"] == "error"
    assert "at least 3 are required" in record["summary"]
    assert record["proof"]["status"] is None


def test_noisy_measurement_that_cannot_decide_is_inconclusive():
    def noisy(ctx, grid):
        rng = ctx.numpy_rng("noise")
        return grid**-1.0 * np.exp(rng.normal(0, 1.0, len(grid)))

    claim_ = dataclasses.replace(ASYMPTOTIC, checks=(dataclasses.replace(
        ASYMPTOTIC_LAW, measure=noisy, grid=lambda ctx: np.logspace(1, 4, 5), replicates=4),))
    record = run(claim_)
    assert record["verdict"] == "inconclusive"
    assert "widen the grid" in record["summary"]


@pytest.mark.parametrize("bad", [
    dict(id="no-slash"), dict(kind="lemma"), dict(statement=" "),
    dict(derivation=None, no_derivation=None),
    dict(checks=()),
    dict(alternatives=(Reading("a", "t", "w"), Reading("a", "u", "w"))),
    dict(time_limit_s=0),
])
def test_claims_are_validated_when_built(bad):
    with pytest.raises(ValueError):
        dataclasses.replace(ASYMPTOTIC, **bad)


@pytest.mark.parametrize("bad, match", [
    (dict(role="lemma"), "role must be one of"),
    (dict(order="o"), "order must be"),
    (dict(law="cubic"), "law must be one of"),
    (dict(tolerance="prose"), "checks.tolerances object"),
    (dict(family=" "), "name the instance family"),
])
def test_checks_are_validated_when_built(bad, match):
    with pytest.raises((ValueError, TypeError), match=match):
        dataclasses.replace(ASYMPTOTIC_LAW, **bad)


def test_readings_are_validated():
    with pytest.raises(ValueError, match="reserved"):
        Reading("primary", "t", "w")
    with pytest.raises(ValueError, match="one-line reason"):
        Reading("alt", "t", " ")


# ── boundaries: a violation at 2× the tolerance refutes, one at 0.5× does not ───────────────

TOL = 1e-3  # absolute tolerance of the boundary relations (bounds of size 1)


def _offset_relation(rel: str, k: float) -> Relation:
    """``lhs REL rhs`` with lhs placed ``k`` tolerances on the violating side of the bound."""
    side = {"<=": 1.0, ">=": -1.0, "==": 1.0}[rel]

    def evaluate(case):
        rhs = case["r"]
        return rhs + side * k * TOL, rhs, torch.full_like(rhs, TOL)

    def sample(ctx, gen):
        yield {"r": 1 + torch.rand(64, generator=gen, dtype=ctx.dtype)}

    return Relation(name="boundary", lhs="l", rel=rel, rhs="r", evaluate=evaluate, sample=sample,
                    tolerance=tolerances.Roundoff("1: the boundary test's fixed absolute tolerance"),
                    sampler="r uniform in (1, 2)")


@pytest.mark.parametrize("rel", ["==", "<=", ">="])
@pytest.mark.parametrize("k, status", [(2.0, "disagrees"), (0.5, "agrees"), (-0.5, "agrees")])
def test_relation_tolerance_boundary(rel, k, status):
    from attnaudit.checks.context import Context
    from attnaudit.checks.relations import check_relation

    if rel != "==" and k < 0:
        status = "agrees"  # slack on the satisfying side
    ev_ = check_relation(_offset_relation(rel, k), Context("toy/boundary", seed=0))
    assert ev_["status"] == status, ev_["summary"]
    assert ev_["violations"] == (64 if status == "disagrees" else 0)


@pytest.mark.parametrize("rel", ["==", "<=", ">="])
def test_relation_violation_on_the_other_side_of_an_identity(rel):
    from attnaudit.checks.context import Context
    from attnaudit.checks.relations import check_relation

    ev_ = check_relation(_offset_relation(rel, -2.0), Context("toy/boundary", seed=0))
    assert ev_["status"] == ("disagrees" if rel == "==" else "agrees")


def test_margins_are_the_violation_beyond_the_tolerance():
    lhs, rhs, tol = (torch.tensor([1.0, 3.0, 2.0]), torch.tensor([2.0, 2.0, 2.0]),
                     torch.tensor([0.25, 0.25, 0.25]))
    assert margins("<=", lhs, rhs, tol).tolist() == [-1.25, 0.75, -0.25]
    assert margins(">=", lhs, rhs, tol).tolist() == [0.75, -1.25, -0.25]
    assert margins("==", lhs, rhs, tol).tolist() == [0.75, 0.75, -0.25]


def _power_law(exponent: float, order: str, true_exponent: float = -1.0) -> ScalingLaw:
    return ScalingLaw(name="boundary", quantity="y", variable="x", exponent=exponent, order=order,
                      grid=lambda ctx: np.logspace(0, 3, 8),
                      measure=lambda ctx, g: 3.0 * g**true_exponent, family="exact power",
                      tolerance=tolerances.FitBias(0.05, "a stated bias of 0.05"))


@pytest.mark.parametrize("order, side", [("Θ", 1.0), ("Θ", -1.0), ("O", -1.0), ("Ω", 1.0)])
@pytest.mark.parametrize("k, status", [(2.0, "disagrees"), (0.5, "agrees")])
def test_exponent_tolerance_boundary(order, side, k, status):
    """The measured exponent is exactly -1; the prediction sits k tolerances on the wrong side."""
    from attnaudit.checks.context import Context
    from attnaudit.checks.laws import check_scaling

    ev_ = check_scaling(_power_law(-1.0 + side * k * 0.1, order), Context("toy/boundary", seed=0))
    assert ev_["status"] == status, ev_["decision"]


def _rate_limit(rate: float, point: str = "oo") -> Limit:
    def gap(ctx, grid):
        dist = 1 / grid if point == "oo" else np.abs(grid - float(point))
        return 2.0 * dist**1.5

    grid = (lambda ctx: np.logspace(1, 4, 8)) if point == "oo" else (lambda ctx: 1 + np.logspace(-4, -1, 8))
    return Limit(name="boundary", quantity="q", variable="x", value="0", point=point, rate=rate,
                 grid=grid, gap=gap, family="exact gap",
                 tolerance=tolerances.FitBias(0.05, "a stated bias of 0.05"))


@pytest.mark.parametrize("point", ["oo", "1"])
@pytest.mark.parametrize("k, status", [(2.0, "disagrees"), (-2.0, "disagrees"), (0.5, "agrees"),
                                       (-0.5, "agrees")])
def test_limit_rate_tolerance_boundary(point, k, status):
    from attnaudit.checks.context import Context
    from attnaudit.checks.laws import check_limit

    ev_ = check_limit(_rate_limit(1.5 + k * 0.1, point), Context("toy/boundary", seed=0))
    assert ev_["status"] == status, ev_["decision"]
    assert ev_["fit"]["exponent"] == pytest.approx(1.5, abs=1e-9)


def test_the_tolerance_times_ten_mutant_would_pass_a_violation_the_boundary_test_refutes(monkeypatch):
    """Issue 17: `<=` tolerating 10× its stated tolerance (`lhs - rhs - 10 * tol`) passed the old
    suite. Here it is applied and shown to let the 2× violation through, which
    test_relation_tolerance_boundary[2.0-disagrees-<=] requires to refute."""
    import attnaudit.checks.relations as relations
    from attnaudit.checks.context import Context

    real = relations.margins
    assert relations.check_relation(_offset_relation("<=", 2.0),
                                    Context("toy/boundary", seed=0))["status"] == "disagrees"

    def lenient(rel, lhs, rhs, tol):
        return lhs - rhs - 10 * tol if rel == "<=" else real(rel, lhs, rhs, tol)

    monkeypatch.setattr(relations, "margins", lenient)
    assert relations.check_relation(_offset_relation("<=", 2.0),
                                    Context("toy/boundary", seed=0))["status"] == "agrees"
