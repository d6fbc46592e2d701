"""A results document covering every verdict, proof status and kind of evidence, for the report tests.

Hand-written (not from a run) so that the rendering tests need no torch and say exactly what they
cover. Both answers of every claim (DESIGN.md, "Evidence and verdicts"):

- ``toy/confirmed-rate``: confirmed · proof sound; a scaling law backed by a failing control and a
  limit whose control passed (it cannot discriminate);
- ``toy/flawed-proof``: confirmed · proof flawed (a true statement with a wrong proof: two false
  proof steps, the first named); a flat fit (R² undefined); an alternative reading, refuted, with
  its own step and check;
- ``toy/refuted-rate``: refuted · proof incomplete: a false statement step, an undecided proof
  step, a disagreeing fit and a corrected statement;
- ``toy/refuted-witness``: refuted · proof absent: a replayable witness, and a proof check;
- ``toy/inconclusive-fit``: inconclusive · proof sound: an undecided statement step and an
  exponential law's fit that cannot decide, a polylog law as a proof check;
- ``toy/unverifiable``: unverifiable · proof absent; ``toy/errored``: error, proof not judged;
- a summary table, and a baseline with one changed verdict, one changed proof status, one
  vanished claim and one new claim.

``hostile(results)`` puts strings that would break or inject into HTML or Typst in every text
field; ``typed(results)`` is the document as ``checks.results.load_document`` reads it (Records).
"""

from __future__ import annotations

import copy
import math
from typing import Any

from attnaudit.checks.results import Evidence, Record, Step, controls_outcome, key_figure

VERSIONS = {"attnaudit": "0.1.0", "python": "3.11.7", "sympy": "1.14.0", "torch": "2.13.0+cpu"}

# Each would do damage if spliced into HTML or Typst source unescaped.
HOSTILE = ('<script>alert("x")</script> <img src=x onerror=alert(1)> ]] #panic("boom") '
           '$x$ *bold* _u_ @ref <lab> // c /* c */ \\ " \' & &amp; {{ x }} {% if %} ` --> <!--')
HOSTILE_LATEX = (r'\text{<script>alert(1)</script> #panic("boom") ] $ // @ref &amp; } '
                 r'x < y \text{ and } \mathrm{<b>}')


STATEMENT = r"\text{For } n \ge 2,\ \|J\|_2 = O\!\left(\frac{n}{\sqrt{d}}\right)."


def _points(xs: list[float], ys_exact: list[float], wiggle: float = 0.02):
    ys = [y * (1 + wiggle * math.sin(3 * i)) for i, y in enumerate(ys_exact)]
    band = [[y * 0.97, y * 1.03] for y in ys]
    return ys, band


def _control(check: str, variant: str, failed: bool) -> dict[str, Any]:
    return {"check": check, "variant": variant, "failed": failed,
            "status": "disagrees" if failed else "agrees",
            "summary": f"{check} under '{variant}': " + ("the check fails" if failed else "still passes")}


def _scaling(name: str, variable: str, exponent: float, predicted: float, status: str, *,
             yerr: bool = False, role: str = "statement", reading: str | None = None,
             law: str = "power", flat: bool = False, controls: list | None = None) -> dict[str, Any]:
    if law == "exponential":
        xs = [float(k) for k in range(2, 18, 2)]
        abscissa = list(xs)
    elif law == "polylog":
        xs = [2.0 ** k for k in range(4, 14)]
        abscissa = [math.log(math.log(x)) for x in xs]
    else:
        xs = [2.0 ** k for k in range(4, 12)]
        abscissa = [math.log(x) for x in xs]
    exact = [0.5 * math.exp(exponent * a) for a in abscissa]
    ys, band = _points(xs, exact, wiggle=0.0 if flat else 0.02)
    lo, hi = (exponent, exponent) if flat else (exponent - 0.03, exponent + 0.03)
    return {
        "type": "scaling", "name": name, "reading": reading, "role": role,
        "quantity": "‖J‖₂ (worst case)", "variable": variable, "predicted": f"Θ({variable}^{predicted:g})",
        "family": "Gaussian keys, d = 4",
        "tolerance": "exponent ± 0.05: fit bias 0.008 on this grid (closed form) plus 4 standard errors",
        "points": {"x": xs, "y": ys, "yerr": [0.05 * y for y in ys] if yerr else None},
        "fit": {"exponent": exponent, "prefactor": 0.5, "ci": [lo, hi], "ci_level": 0.95,
                "r2": None if flat else 0.999, "band": band, "decades": 2.1, "law": law, "flat": flat},
        "predicted_exponent": predicted,
        "predicted_prefactor": ys[-1] / math.exp(predicted * abscissa[-1]),
        "order": "Θ", "exponent_tolerance": 0.05, "status": status,
        "decision": (f"interval [{lo:.3g}, {hi:.3g}] ± 0.05 "
                     + ("contains" if status == "agrees" else "excludes" if status == "disagrees"
                        else "straddles the boundary of") + f" {predicted:g}"),
        "summary": f"{name}: fitted {exponent} vs predicted {predicted}",
        "controls": controls or [],
    }


def _limit(controls: list) -> dict[str, Any]:
    xs = [10.0 ** -k for k in range(1, 8)]
    ys, band = _points(xs, [0.7 * x for x in xs], wiggle=0.0)
    return {
        "type": "limit", "name": "weight-to-one", "reading": None, "role": "statement",
        "quantity": "W_{j*}", "variable": "n", "value": "1", "point": "oo",
        "family": "exact match, other keys far", "tolerance": "rate ± 0.01: fit bias on this grid",
        "final_gap": ys[-1], "points": {"x": xs, "y": ys, "yerr": None},
        "fit": {"exponent": 1.0, "prefactor": 0.7, "ci": [0.999, 1.001], "ci_level": 0.95,
                "r2": 1.0, "band": band, "decades": 6.0, "law": "power", "flat": False},
        "predicted_exponent": 1.0, "predicted_prefactor": ys[-1] / xs[-1], "order": "Θ",
        "exponent_tolerance": 0.01,
        "status": "agrees", "decision": "interval [0.999, 1.001] ± 0.01 contains 1",
        "summary": "|W_{j*} − 1| shrinks like 1/n", "controls": controls,
    }


def _relation(name: str, violations: int, *, claim: str = "", role: str = "statement",
              reading: str | None = None, controls: list | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "type": "relation", "name": name, "reading": reading, "role": role,
        "relation": "W_far <= 1/(1+c²)", "lhs": "W_far", "rel": "<=", "rhs": "1/(1+c²)",
        "sampler": "gaussian_keys(n, d)",
        "tolerance": "float64 round-off: 64·u (u = 1.11e-16) × condition 3", "cases": 512,
        "violations": violations, "closest_relative_margin": 0.25 if violations else -0.5,
        "hypothesis": None, "witness": None, "status": "disagrees" if violations else "agrees",
        "summary": f"violated on {violations}/512 random cases" if violations else "holds on 512 cases",
        "controls": controls or [],
    }
    if violations:
        ev["witness"] = {
            "schema": "attnaudit.witness/1", "claim": claim, "check": name, "relation": ev["relation"],
            "inputs": {"keys": {"dtype": "float64", "shape": [2, 1], "data": [0.0, 1.5]},
                       "c": {"value": 1.0}},
            "lhs": 0.75, "rhs": 0.5, "tol": 1.1e-14, "margin": 0.25, "case_index": 7, "seed": 0,
            "device": "cpu", "found_by": "random",
            "file": f"witnesses/{claim.replace('/', '__')}__{name}.json",
            "replay": f"attnaudit replay witnesses/{claim.replace('/', '__')}__{name}.json",
        }
    return ev


def _step(name: str, paper: str, derived: str, status: str, paper_latex: str, derived_latex: str,
          *, role: str = "statement", reading: str | None = None) -> dict[str, Any]:
    return {"name": name, "role": role, "reading": reading, "method": "exact", "paper": paper,
            "derived": derived, "paper_latex": paper_latex, "derived_latex": derived_latex,
            "status": status, "agrees": status == "agrees", "note": ""}


def _derivation(steps: list[dict[str, Any]]) -> dict[str, Any]:
    first = next((i for i, s in enumerate(steps) if s["status"] == "disagrees"), None)
    return {"steps": steps, "first_disagreement": first, "note": ""}


def _primary(verdict: str, summary: str, why: str = "the literal statement") -> dict[str, Any]:
    return {"id": "primary", "text": "the worst case over Gaussian keys", "why": why, "primary": True,
            "verdict": verdict, "summary": summary}


def _proof(status: str | None, reason: str, first: str | None = None) -> dict[str, Any]:
    return {"status": status, "first_false_step": first, "reason": reason}


def _record(cid: str, verdict: str, **fields: Any) -> dict[str, Any]:
    summary = fields.pop("summary", verdict)
    evidence, steps = fields.pop("evidence", []), fields.pop("steps", [])
    for ev in evidence:  # decided by the engine as it writes the record
        ev["control_outcome"] = controls_outcome(Evidence.from_json(ev))
    record = {
        "id": cid, "verdict": verdict,
        "proof": fields.pop("proof", _proof("sound", "every proof item agrees")),
        "paper": "toy", "label": fields.pop("label", cid.split("/", 1)[1]),
        "section": "§1", "kind": fields.pop("kind", "asymptotic"),
        "statement": fields.pop("statement", STATEMENT),
        "reading": fields.pop("reading", "the worst case over Gaussian keys"),
        "readings": fields.pop("readings", [_primary(verdict, summary)]), "notes": "",
        "summary": summary,
        "figure": "" if verdict == "error" else key_figure(
            verdict, [Step.from_json(s) for s in steps], [Evidence.from_json(e) for e in evidence]),
        "derivation": _derivation(steps),
        "evidence": evidence, "controls": [c for ev in evidence for c in ev.get("controls", [])],
        "corrected": fields.pop("corrected", None),
        "seed": 0, "profile": "quick", "device": "cpu", "dtype": "float64",
        "spec_file": "claims/toy/spec.py", "source_hash": "0123456789abcdef", "versions": dict(VERSIONS),
    }
    record.update(fields)
    return record


EXPAND = (r"\frac{1}{\epsilon}", r"\frac{1}{\epsilon}")


def report_results() -> dict[str, Any]:
    alternative = {"id": "all-eps", "text": "the bound for every ε > 0, not only ε ≤ 1/2",
                   "why": "the abstract drops the hypothesis ε ≤ 1/2", "primary": False,
                   "verdict": "refuted", "summary": "far-bound-all-eps: violated on 40/512 random cases"}
    records = [
        _record("toy/confirmed-rate", "confirmed", label="Theorem 1 (rate)",
                summary="2 statement checks agree (1 with a failing control)",
                steps=[_step("expand", "1/epsilon", "1/epsilon", "agrees", *EXPAND, role="proof")],
                evidence=[_scaling("norm-vs-n", "n", 1.0, 1.0, "agrees", yerr=True, controls=[
                              _control("norm-vs-n", "softmax attention in place of IDA", True)]),
                          _limit([_control("weight-to-one", "a kernel without the exact-match pole",
                                           False)])]),
        _record("toy/flawed-proof", "confirmed", label="Lemma 2 (true, wrong proof)",
                proof=_proof("flawed", "step 'the derivative vanishes' is false: paper 0, derived "
                             "-2*Delta*epsilon", "the derivative vanishes"),
                readings=[_primary("confirmed", "1 statement check agrees (1 with a failing control)",
                                   "the setting of the paper's own proof (ε ≤ 1/2)"), alternative],
                summary="1 statement check agrees (1 with a failing control)",
                steps=[_step("bound holds at the optimum", "epsilon/2", "epsilon/2", "agrees",
                             r"\frac{\epsilon}{2}", r"\frac{\epsilon}{2}"),
                       _step("the derivative vanishes", "0", "-2*Delta*epsilon", "disagrees", "0",
                             r"-\frac{2 \Delta \epsilon}{\left(\Delta^{2} + 2 \epsilon\right)^{2}}",
                             role="proof"),
                       _step("hence the rate", "epsilon**2/Delta**4", "epsilon**2/Delta**6", "disagrees",
                             r"\frac{\epsilon^{2}}{\Delta^{4}}", r"\frac{\epsilon^{2}}{\Delta^{6}}",
                             role="proof"),
                       _step("bound for every epsilon", "1", "1/(1 + epsilon)", "disagrees", "1",
                             r"\frac{1}{1 + \epsilon}", reading="all-eps")],
                evidence=[_scaling("sup-vs-n", "n", 1e-17, 0.0, "agrees", flat=True, controls=[
                              _control("sup-vs-n", "predicted exponent moved to 1", True)]),
                          _relation("far-bound-all-eps", 40, claim="toy/flawed-proof",
                                    reading="all-eps")]),
        _record("toy/refuted-rate", "refuted", label="Lemma 3 (rate)",
                proof=_proof("incomplete", "undecided: bound the tail"),
                summary="statement step 'the rate' is false: paper epsilon**2/Delta**4, derived "
                        "epsilon**2/Delta**6",
                steps=[_step("expand", "1/epsilon", "1/epsilon", "agrees", *EXPAND, role="proof"),
                       _step("bound the tail", "exp(-Delta**2)", "exp(-Delta**2)", "undecided",
                             r"e^{- \Delta^{2}}", r"e^{- \Delta^{2}}", role="proof"),
                       _step("the rate", "epsilon**2/Delta**4", "epsilon**2/Delta**6", "disagrees",
                             r"\frac{\epsilon^{2}}{\Delta^{4}}", r"\frac{\epsilon^{2}}{\Delta^{6}}")],
                evidence=[_scaling("rate-vs-delta", "Δ", -6.0, -4.0, "disagrees")],
                corrected={"statement": "μ = Θ(ε²/Δ⁶), not Θ(ε²/Δ⁴)", "derived_by": "attnaudit",
                           "basis": ["rate-vs-delta"]}),
        _record("toy/refuted-witness", "refuted", label="Property 4 (far weight)", kind="inequality",
                proof=_proof("absent", "the paper states the property without an argument"),
                summary="far-weight: violated on 40/512 random cases",
                evidence=[_relation("far-weight", 40, claim="toy/refuted-witness"),
                          _relation("near-weight", 0, role="proof")]),
        _record("toy/inconclusive-fit", "inconclusive", label="Proposition 5",
                summary="step 'sign of the remainder' undecided by SymPy; slope-vs-d: the interval "
                        "straddles the tolerance boundary",
                steps=[_step("sign of the remainder", "True", "Q(x) >= 0", "undecided", r"\text{True}",
                             r"Q{\left(x \right)} \geq 0")],
                evidence=[_scaling("slope-vs-d", "d", -0.5, -0.45, "undecided", law="exponential",
                                   controls=[_control("slope-vs-d", "predicted rate moved to 0", True)]),
                          _scaling("depth-vs-n", "n", 2.0, 2.0, "agrees", law="polylog", role="proof")]),
        _record("toy/unverifiable", "unverifiable", label="Conjecture 6", kind="conjecture",
                proof=_proof("absent", "a conjecture: the paper gives no argument"),
                summary="no checkable reading: 'attention is all you need' has no quantifier"),
        _record("toy/errored", "error", label="Theorem 7", summary="ValueError: bad grid (at spec.py:12)",
                proof=_proof(None, "the spec did not load"), readings=[],
                error={"file": "claims/toy/spec.py", "reason": "ValueError: bad grid (at spec.py:12)",
                       "traceback": ["Traceback (most recent call last):\n", "ValueError: bad grid\n"]}),
    ]
    table = {
        "paper": "toy", "key": "table-1", "label": "Table 1", "section": "§3", "title": "Guarantees",
        "columns": ["Softmax", "Resolver"],
        "rows": [{"label": "Rate", "cells": [
            {"column": "Softmax", "paper": r"\Theta(\varepsilon^2/\Delta^4)", "measured": [
                {"claim": "toy/refuted-rate", "check": "rate-vs-delta", "verdict": "refuted",
                 "type": "scaling", "status": "disagrees", "figure": "μ ∝ Δ^-6 (95% CI [-6.03, -5.97])"}]},
            {"column": "Resolver", "paper": r"O(n)", "measured": [
                {"claim": "toy/confirmed-rate", "check": "norm-vs-n", "verdict": "confirmed",
                 "type": "scaling", "status": "agrees", "figure": "‖J‖₂ ∝ n^1 (95% CI [0.97, 1.03])"},
                {"claim": "toy/not-run", "check": None, "verdict": None,
                 "figure": "not run in this selection"}]},
        ]}],
    }
    papers = [{"key": "toy", "title": "A Toy Paper on Attention", "authors": ["A. Tester", "B. Prover"],
               "arxiv": "2601.00001v1", "source_file": "papers/toy.txt"}]
    return {"format": "attnaudit.results/2", "results": records, "tables": [table], "papers": papers}


# The gate's differences against report_baseline(), by claim: the kind checks.gate gives each.
GATE = {"toy/inconclusive-fit": "changed", "toy/flawed-proof": "proof", "toy/unverifiable": "new",
        "toy/vanished": "vanished", "toy/errored": "error"}


def report_baseline() -> dict[str, Any]:
    """A baseline (schema 2) with one changed verdict, one changed proof status, one claim that
    vanished and one new to it; the rest match (the errored claim is not in it: a baseline never
    holds an error)."""
    claims = {r["id"]: {"verdict": r["verdict"], "proof": r["proof"]["status"]}
              for r in report_results()["results"] if r["verdict"] != "error"}
    claims["toy/inconclusive-fit"]["verdict"] = "confirmed"
    claims["toy/flawed-proof"]["proof"] = "sound"
    claims["toy/vanished"] = {"verdict": "confirmed", "proof": "sound"}
    del claims["toy/unverifiable"]
    return {"schema": "attnaudit.baseline/2", "claims": dict(sorted(claims.items()))}


def hostile(results: dict[str, Any]) -> dict[str, Any]:
    """The same document with hostile text in every field a paper or a spec writes."""
    out = copy.deepcopy(results)
    for r in out["results"]:
        r["label"] = f"{r['label']} {HOSTILE}"
        r["statement"] = f"{r['statement']} {HOSTILE_LATEX}"
        r["reading"] = f"{r['reading']} {HOSTILE}"
        r["notes"] = HOSTILE
        r["summary"] = f"{r['summary']} {HOSTILE}"
        r["figure"] = f"{r['figure']} {HOSTILE}"
        r["proof"]["reason"] = f"{r['proof']['reason']} {HOSTILE}"
        if r["proof"]["first_false_step"]:
            r["proof"]["first_false_step"] = f"{r['proof']['first_false_step']} {HOSTILE}"
        for reading in r["readings"]:
            for key in ("text", "why", "summary"):
                reading[key] = f"{reading[key]} {HOSTILE}"
        for s in r["derivation"]["steps"]:
            s["name"] = f"{s['name']} {HOSTILE}"  # the proof's first false step keeps its link
            s["note"] = HOSTILE
        for ev in r["evidence"]:
            ev["summary"] = HOSTILE
            ev["decision"] = f"{ev.get('decision', '')} {HOSTILE}"
            ev["tolerance"] = f"{ev['tolerance']} {HOSTILE}"
            if "quantity" in ev:
                ev["quantity"] = f"q {HOSTILE}"
            for c in ev["controls"]:
                c["variant"] = f"{c['variant']} {HOSTILE}"
                c["summary"] = f"{c['summary']} {HOSTILE}"
        r["controls"] = [c for ev in r["evidence"] for c in ev["controls"]]
        if r["corrected"]:
            r["corrected"]["statement"] = HOSTILE
    for t in out["tables"]:
        t["title"] = f"{t['title']} {HOSTILE}"
        for row in t["rows"]:
            row["label"] = f"{row['label']} {HOSTILE}"
            for cell in row["cells"]:
                cell["paper"] = f"{cell['paper']} {HOSTILE_LATEX}"
    out["papers"][0]["title"] = f"{out['papers'][0]['title']} {HOSTILE}"
    return out


def typed(results: dict[str, Any]) -> dict[str, Any]:
    """The document with its records as the results layer reads them (``Record.from_json``)."""
    return results | {"results": [Record.from_json(r) for r in results["results"]]}
