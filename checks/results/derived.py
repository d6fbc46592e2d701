"""What readers derive from records, defined once: a check's figure, a claim's key figure, the
outcome of a check's negative controls, the stability column and the abstract's contributions.

The engine calls these while it writes a record (so the record stores the same text) and the
report calls them on records read back; neither keeps a copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from attnaudit.checks.model import COUNTING_CONTRASTS
from attnaudit.checks.results.files import read_json
from attnaudit.checks.results.record import Control, Evidence, Record, ResultsError, Step

# A fitted exponent of an exactly flat law comes out at round-off level (1e-16, 7e-20): below this it
# is printed as 0, so that a figure does not suggest a tiny but real power.
ROUNDOFF_EXPONENT = 1e-12


def _num(value: float, digits: int = 3) -> str:
    return "0" if abs(value) < ROUNDOFF_EXPONENT else f"{value:.{digits}g}"


# An interval is printed with as many significant digits as show its two ends apart, up to this
# many; narrower than that it is one value, marked exact to that many digits (a deterministic
# fit's interval is exact to round-off, and [-0.5, -0.5] would read as a bug).
MAX_DIGITS = 7


def interval(lo: float, hi: float) -> str:
    """``[lo, hi]`` to the precision that shows its width, or ``v (exact to 7 digits)`` when even
    that shows none."""
    for digits in range(3, MAX_DIGITS + 1):
        a, b = _num(lo, digits), _num(hi, digits)
        if a != b:
            return f"[{a}, {b}]"
    return f"{a} (exact to {MAX_DIGITS} digits)"


def _law(law: str, var: str, exponent: str) -> str:
    return {"exponential": f"exp({exponent}·{var})", "polylog": f"(log {var})^{exponent}"}.get(
        law, f"{var}^{exponent}")


def predicted(ev: Evidence) -> str:
    """The prediction a fitted exponent is compared with, in the fit's own form (``Θ(n^-2)``,
    ``O((log T)^1)``, ``Ω(exp(1.1·l))``); '' when the check has none."""
    order, exponent = ev.get("order"), ev.get("predicted_exponent")
    if order is None or exponent is None:
        return ""
    law = (ev.fit or {}).get("law", "power")
    if order == "subpolynomial":
        return f"{ev['variable']}^o(1)"
    if order == "unbounded":
        return "unbounded"
    if ev.type == "limit":
        return f"{order}(|{ev['variable']} − {ev['point']}|^{_num(exponent)})"
    return f"{order}({_law(law, ev['variable'], _num(exponent))})"


def figure(ev: Evidence) -> str:
    """One line for a check: a fit as exponent, interval and the prediction it is compared with;
    a relation as its counts."""
    if ev.type in ("scaling", "limit") and ev.fit is not None:
        fit = ev.fit
        exponent, ci = _num(fit["exponent"]), f"95% CI {interval(*fit['ci'])}"
        versus = predicted(ev)
        tail = f" vs predicted {versus}" if versus else ""
        if ev.type == "limit":
            return f"gap ∝ |{ev['variable']} − {ev['point']}|^{exponent} ({ci}){tail}"
        law = _law(fit.get("law", "power"), ev["variable"], exponent)
        return f"{ev['quantity']} ∝ {law} ({ci}){tail}"
    if ev.type == "relation":
        if ev.get("violations"):
            return f"{ev['relation']}: violated on {ev['violations']} of {ev['cases']} cases"
        return f"{ev['relation']}: holds on {ev['cases']} cases"
    return ev.summary


def key_figure(verdict: str, steps: Sequence[Step], evidence: Sequence[Evidence]) -> str:
    """The one figure that carries a claim's verdict, for the terminal line and the claims table.

    Refuted: the first false statement step, else the first disagreeing statement check of the
    primary reading. Otherwise: the first primary statement check backed by a failing control,
    else the first undecided one, else the first check.
    """
    primary = [e for e in evidence if e.reading is None and e.role == "statement"]
    if verdict == "refuted":
        step = next((s for s in steps if s.reading is None and s.role == "statement"
                     and s.status == "disagrees"), None)
        if step is not None:
            return f"step '{step.name}' is false"
        chosen = next((e for e in primary if e.status == "disagrees"), None)
    else:
        chosen = (next((e for e in primary if any(c.failed for c in e.controls)), None)
                  or next((e for e in primary if e.status == "undecided"), None)
                  or next(iter(primary or evidence), None))
    return "" if chosen is None else figure(chosen)


def _counting(c: Control) -> bool:
    """A control whose contrast keeps the statement's setting (or is not yet declared)."""
    return c.contrast in (None, *COUNTING_CONTRASTS)


def controls_outcome(ev: Evidence) -> str:
    """``discriminates`` (a counting control failed), ``blind`` (every counting control passed),
    ``setting-only`` (its only controls change the setting, which shows nothing about the
    statement) or ``uncontrolled``.

    A measurement flat across its grid is discriminated only by a control that changes the operator
    or a hypothesis: moving the prediction away from a constant fails for any constant, including
    a measure that ignores its variable."""
    counting = [c for c in ev.controls if _counting(c)]
    if (ev.fit or {}).get("flat"):
        counting = [c for c in counting if c.contrast != "prediction"]
    if any(c.failed for c in counting):
        return "discriminates"
    if counting:
        return "blind"
    return "setting-only" if ev.controls else "uncontrolled"


# ----------------------------------------------------------------------------- stability

STABILITY_FORMAT = "attnaudit.stability/1"


def load_stability(path) -> dict[str, Any]:
    """A stability file, or a one-line ResultsError."""
    data = read_json(path, "stability file")
    if not isinstance(data, dict) or data.get("format") != STABILITY_FORMAT or not isinstance(
            data.get("claims"), list):
        raise ResultsError(f"stability file {path} is not an {STABILITY_FORMAT} document")
    return data


def cell(entry: Mapping[str, Any]) -> str:
    """The report's stability column: 'stable (20 seeds)', or what flips."""
    if entry["stable"]:
        return f"stable ({entry['seeds']} seeds)"
    parts = []
    if entry["verdict_agreement"] < 1:
        parts.append("verdict " + ", ".join(f"{k} {v}" for k, v in entry["verdicts"].items()))
    if entry["proof_agreement"] < 1:
        parts.append("proof " + ", ".join(f"{k} {v}" for k, v in entry["proofs"].items()))
    if entry["flips"]:
        parts.append(f"{len(entry['flips'])} check status{'es' * (len(entry['flips']) != 1)} flip")
    if entry["verdict"] == "error" and not parts:
        parts.append("error on every seed")
    return f"UNSTABLE over {entry['seeds']} seeds: " + "; ".join(parts)


# ----------------------------------------------------------------------------- the paper's graph

# A used result in one of these states leaves the argument that uses it resting on it.
NOT_ESTABLISHED = ("refuted", "unverifiable")

# How a contribution of the abstract reads from the clauses of the claims that carry it.
READINGS = ("survived", "partly", "refuted", "undecided", "not run")


def dependants(records: Iterable[Record], claim_id: str) -> list[str]:
    """The ids of the records whose ``rests_on`` names ``claim_id`` (directly or through others)."""
    return sorted(r.id for r in records if any(f.claim == claim_id for f in r.rests_on))


def contribution_reading(contribution: Mapping[str, Any], by_id: Mapping[str, Record]) -> dict[str, Any]:
    """How a promise of the abstract reads from the clauses of the claims that carry it:

    - ``survived``: every clause of every carrying claim is confirmed;
    - ``refuted``: some clause is refuted and none is confirmed;
    - ``partly``: some clauses are refuted and some confirmed;
    - ``undecided``: none is refuted but not all are confirmed (inconclusive, unverifiable, error);
    - ``not run``: none of its claims is in this run.

    Returns ``{reading, clauses: {verdict: count}, carriers: [{id, verdict}], missing: [ids]}``."""
    present = [by_id[c] for c in contribution["claims"] if c in by_id]
    missing = [c for c in contribution["claims"] if c not in by_id]
    counts: dict[str, int] = {}
    for r in present:
        verdicts = [cl.verdict for cl in r.clauses] or [r.verdict]  # an error record has none
        for v in verdicts:
            counts[v] = counts.get(v, 0) + 1
    refuted, confirmed, total = counts.get("refuted", 0), counts.get("confirmed", 0), sum(counts.values())
    if not present:
        reading = "not run"
    elif refuted and confirmed:
        reading = "partly"
    elif refuted:
        reading = "refuted"
    elif confirmed == total:
        reading = "survived"
    else:
        reading = "undecided"
    return {"reading": reading, "clauses": dict(sorted(counts.items())),
            "carriers": [{"id": r.id, "verdict": r.verdict} for r in present], "missing": missing}


def contributions(papers: Iterable[Mapping[str, Any]], records: Iterable[Record]
                  ) -> dict[str, list[dict[str, Any]]]:
    """Paper key → its contributions (quote, claims) each with :func:`contribution_reading`."""
    by_id = {r.id: r for r in records}
    return {p["key"]: [dict(c) | contribution_reading(c, by_id) for c in p.get("contributions") or []]
            for p in papers}
