"""A results document covering every verdict and every kind of evidence, for the report tests.

Hand-written (not from a run) so that the rendering tests need no torch and say exactly what they
cover: confirmed (scaling + limit), refuted (false step, witness, excluding interval, corrected
statement), inconclusive, unverifiable and error, a summary table, and a vanished baseline claim.
``hostile(text)`` puts strings that would break or inject into HTML or Typst in every text field.
"""

from __future__ import annotations

import copy
import math
from typing import Any

VERSIONS = {"attnaudit": "0.1.0", "python": "3.11.7", "sympy": "1.14.0", "torch": "2.13.0+cpu"}

# Each would do damage if spliced into HTML or Typst source unescaped.
HOSTILE = ('<script>alert("x")</script> <img src=x onerror=alert(1)> ]] #panic("boom") '
           '$x$ *bold* _u_ @ref <lab> // c /* c */ \\ " \' & &amp; {{ x }} {% if %} ` --> <!--')
HOSTILE_LATEX = (r'\text{<script>alert(1)</script> #panic("boom") ] $ // @ref &amp; } '
                 r'x < y \text{ and } \mathrm{<b>}')


STATEMENT = r"\text{For } n \ge 2,\ \|J\|_2 = O\!\left(\frac{n}{\sqrt{d}}\right)."


def _points(xs: list[float], exponent: float, prefactor: float, wiggle: float = 0.02):
    ys = [prefactor * x ** exponent * (1 + wiggle * math.sin(3 * i)) for i, x in enumerate(xs)]
    band = [[y * 0.97, y * 1.03] for y in ys]
    return ys, band


def _scaling(name: str, variable: str, exponent: float, predicted: float, status: str,
             *, yerr: bool = False) -> dict[str, Any]:
    xs = [2.0 ** k for k in range(4, 12)]
    ys, band = _points(xs, exponent, 0.5)
    lo, hi = exponent - 0.03, exponent + 0.03
    return {
        "type": "scaling", "name": name, "reading": f"{name}: along {variable}",
        "quantity": "‖J‖₂ (worst case)", "variable": variable, "predicted": f"Θ({variable}^{predicted:g})",
        "family": "Gaussian keys, d = 4", "tolerance": "exponent ± 0.05 (finite-size bias < 0.01)",
        "points": {"x": xs, "y": ys, "yerr": [0.05 * y for y in ys] if yerr else None},
        "fit": {"exponent": exponent, "prefactor": 0.5, "ci": [lo, hi], "ci_level": 0.95,
                "r2": 0.999, "band": band, "decades": 2.1},
        "predicted_exponent": predicted, "predicted_prefactor": ys[-1] / xs[-1] ** predicted,
        "order": "Θ", "exponent_tolerance": 0.05, "status": status,
        "decision": (f"interval [{lo:.3g}, {hi:.3g}] ± 0.05 "
                     + ("contains" if status == "agrees" else "excludes" if status == "disagrees"
                        else "straddles the boundary of") + f" {predicted:g}"),
        "summary": f"{name}: fitted {exponent} vs predicted {predicted}",
    }


def _limit() -> dict[str, Any]:
    xs = [10.0 ** -k for k in range(1, 8)]
    ys, band = _points(xs, 1.0, 0.7, wiggle=0.0)
    return {
        "type": "limit", "name": "weight-to-one", "reading": None, "quantity": "W_{j*}",
        "variable": "n", "value": "1", "point": "oo", "family": "exact match, other keys far",
        "tolerance": "rate ± 0.01", "final_gap": ys[-1],
        "points": {"x": xs, "y": ys, "yerr": None},
        "fit": {"exponent": 1.0, "prefactor": 0.7, "ci": [0.999, 1.001], "ci_level": 0.95,
                "r2": 1.0, "band": band, "decades": 6.0},
        "predicted_exponent": 1.0, "predicted_prefactor": ys[-1] / xs[-1], "order": "Θ",
        "exponent_tolerance": 0.01,
        "status": "agrees", "decision": "interval [0.999, 1.001] ± 0.01 contains 1",
        "summary": "|W_{j*} − 1| shrinks like 1/n",
    }


def _relation(name: str, violations: int, *, claim: str = "") -> dict[str, Any]:
    ev: dict[str, Any] = {
        "type": "relation", "name": name, "reading": "all key sets", "relation": "W_far <= 1/(1+c²)",
        "lhs": "W_far", "rel": "<=", "rhs": "1/(1+c²)", "sampler": "gaussian_keys(n, d)",
        "tolerance": "64u (round-off of a sum of n positive terms)", "cases": 512,
        "violations": violations, "closest_relative_margin": 0.25 if violations else -0.5,
        "hypothesis": None, "witness": None, "status": "disagrees" if violations else "agrees",
        "summary": f"violated on {violations}/512 random cases" if violations else "holds on 512 cases",
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


def _step(name: str, paper: str, derived: str, agrees: bool, paper_latex: str, derived_latex: str):
    return {"name": name, "method": "exact", "paper": paper, "derived": derived,
            "paper_latex": paper_latex, "derived_latex": derived_latex, "agrees": agrees, "note": ""}


def _record(cid: str, verdict: str, **fields: Any) -> dict[str, Any]:
    record = {
        "id": cid, "verdict": verdict, "paper": "toy", "label": fields.pop("label", cid.split("/", 1)[1]),
        "section": "§1", "kind": fields.pop("kind", "asymptotic"),
        "statement": fields.pop("statement", STATEMENT),
        "reading": fields.pop("reading", "the worst case over Gaussian keys"), "notes": "",
        "summary": fields.pop("summary", verdict),
        "derivation": fields.pop("derivation", {"steps": [], "first_disagreement": None, "note": ""}),
        "evidence": fields.pop("evidence", []), "corrected": fields.pop("corrected", None),
        "seed": 0, "profile": "quick", "device": "cpu", "dtype": "float64",
        "spec_file": "claims/toy/spec.py", "source_hash": "0123456789abcdef", "versions": dict(VERSIONS),
    }
    record.update(fields)
    return record


def report_results() -> dict[str, Any]:
    steps = [
        _step("expand", "1/epsilon", "1/epsilon", True, r"\frac{1}{\epsilon}", r"\frac{1}{\epsilon}"),
        _step("the derivative vanishes", "0", "-2*Delta*epsilon", False, "0",
              r"-\frac{2 \Delta \epsilon}{\left(\Delta^{2} + 2 \epsilon\right)^{2}}"),
        _step("hence the rate", "epsilon**2/Delta**4", "epsilon**2/Delta**6", False,
              r"\frac{\epsilon^{2}}{\Delta^{4}}", r"\frac{\epsilon^{2}}{\Delta^{6}}"),
    ]
    records = [
        _record("toy/confirmed-rate", "confirmed", summary="1 derivation step and 2 checks agree",
                label="Theorem 1 (rate)",
                derivation={"steps": steps[:1], "first_disagreement": None, "note": ""},
                evidence=[_scaling("norm-vs-n", "n", 1.0, 1.0, "agrees", yerr=True), _limit()]),
        _record("toy/refuted-proof", "refuted", label="Lemma 2 (proof)",
                summary="proof step 'the derivative vanishes' is false: paper 0, derived -2*Delta*epsilon",
                derivation={"steps": steps, "first_disagreement": 1, "note": ""},
                evidence=[_scaling("rate-vs-delta", "Δ", -6.0, -4.0, "disagrees")],
                corrected={"statement": "μ = Θ(ε²/Δ⁶), not Θ(ε²/Δ⁴)", "derived_by": "attnaudit",
                           "basis": ["rate-vs-delta"]}),
        _record("toy/refuted-witness", "refuted", label="Property 3 (far weight)", kind="inequality",
                summary="far-weight: violated on 40/512 random cases",
                evidence=[_relation("far-weight", 40, claim="toy/refuted-witness"),
                          _relation("near-weight", 0)]),
        _record("toy/inconclusive-fit", "inconclusive", label="Proposition 4",
                summary="slope-vs-d: the interval straddles the tolerance boundary",
                evidence=[_scaling("slope-vs-d", "d", 0.5, 0.45, "undecided")]),
        _record("toy/unverifiable", "unverifiable", label="Conjecture 5", kind="conjecture",
                summary="no checkable reading: 'attention is all you need' has no quantifier"),
        _record("toy/errored", "error", label="Theorem 6", summary="ValueError: bad grid (at spec.py:12)",
                error={"file": "claims/toy/spec.py", "reason": "ValueError: bad grid (at spec.py:12)",
                       "traceback": ["Traceback (most recent call last):\n", "ValueError: bad grid\n"]}),
    ]
    table = {
        "paper": "toy", "key": "table-1", "label": "Table 1", "section": "§3", "title": "Guarantees",
        "columns": ["Softmax", "Resolver"],
        "rows": [{"label": "Rate", "cells": [
            {"column": "Softmax", "paper": r"\Theta(\varepsilon^2/\Delta^4)", "measured": [
                {"claim": "toy/refuted-proof", "check": "rate-vs-delta", "verdict": "refuted",
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
    return {"format": "attnaudit.results/1", "results": records, "tables": [table], "papers": papers}


# Baseline for the fixture: one changed verdict, one claim that vanished, the rest matching.
def report_baseline() -> dict[str, Any]:
    verdicts = {r["id"]: r["verdict"] for r in report_results()["results"] if r["verdict"] != "error"}
    verdicts["toy/inconclusive-fit"] = "confirmed"
    verdicts["toy/vanished"] = "confirmed"
    return {"schema": "attnaudit.baseline/1", "verdicts": verdicts}


def hostile(results: dict[str, Any]) -> dict[str, Any]:
    """The same document with hostile text in every field a paper or a spec writes."""
    out = copy.deepcopy(results)
    for r in out["results"]:
        r["label"] = f"{r['label']} {HOSTILE}"
        r["statement"] = f"{r['statement']} {HOSTILE_LATEX}"
        r["reading"] = f"{r['reading']} {HOSTILE}"
        r["notes"] = HOSTILE
        r["summary"] = f"{r['summary']} {HOSTILE}"
        for s in r["derivation"]["steps"]:
            s["name"] = f"{s['name']} {HOSTILE}"
            s["note"] = HOSTILE
        for ev in r["evidence"]:
            ev["reading"] = HOSTILE
            ev["summary"] = HOSTILE
            ev["decision"] = f"{ev.get('decision', '')} {HOSTILE}"
            if "quantity" in ev:
                ev["quantity"] = f"q {HOSTILE}"
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
