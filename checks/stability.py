"""Stability across seeds: each claim run under K seeds, and what agrees and what flips.

A claim is *stable* when every seed gives the same verdict and the same proof status and no
check (nor any negative control) changes its status. The spread of every fitted exponent
(scaling laws and limits) is reported beside, so a fit that drifts is seen before it flips.
A flipping claim is a defect of its spec: its sample size, grid or tolerance model must be fixed,
or the flip itself made the evidence (``inconclusive``).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from attnaudit.checks.results import STABILITY_FORMAT, cell, load_stability  # noqa: F401 - defined once there


def _agreement(values: list[Any]) -> tuple[Any, float, dict[str, int]]:
    counts = Counter(values)
    modal, n = max(counts.items(), key=lambda kv: (kv[1], str(kv[0])))
    return modal, n / len(values), {str(k): v for k, v in sorted(counts.items(), key=lambda kv: str(kv[0]))}


def _check_key(ev: dict[str, Any]) -> str:
    return ev.get("name", "?") + (f" [{ev['reading']}]" if ev.get("reading") else "")


def summarize_claim(cid: str, by_seed: dict[int, dict[str, Any]]) -> dict[str, Any]:
    seeds = sorted(by_seed)
    records = [by_seed[s] for s in seeds]
    verdict, v_agree, verdicts = _agreement([r["verdict"] for r in records])
    proof, p_agree, proofs = _agreement([(r.get("proof") or {}).get("status") for r in records])
    statuses: dict[str, dict[int, str]] = {}
    exponents: dict[str, list[float]] = {}
    for seed, r in zip(seeds, records, strict=True):
        for ev in r.get("evidence", []):
            key = _check_key(ev)
            statuses.setdefault(key, {})[seed] = ev.get("status", "?")
            for c in ev.get("controls", []):
                ckey = f"{key} / control: {c.get('variant', '?')}"
                statuses.setdefault(ckey, {})[seed] = "failed" if c.get("failed") else "passed (blind)"
            fit = ev.get("fit")
            if isinstance(fit, dict) and isinstance(fit.get("exponent"), (int, float)):
                exponents.setdefault(key, []).append(float(fit["exponent"]))
    flips = []
    for key, per_seed in statuses.items():
        if len(set(per_seed.values())) > 1 or len(per_seed) != len(seeds):
            groups: dict[str, list[int]] = {}
            for seed in seeds:
                groups.setdefault(per_seed.get(seed, "not run"), []).append(seed)
            flips.append({"check": key, "seeds": dict(sorted(groups.items()))})
    spreads = []
    for key, values in exponents.items():
        mean = sum(values) / len(values)
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / max(len(values) - 1, 1))
        spreads.append({"check": key, "n": len(values), "min": min(values), "max": max(values),
                        "mean": mean, "sd": sd})
    stable = v_agree == 1.0 and p_agree == 1.0 and not flips and verdict != "error"
    return {"id": cid, "seeds": len(seeds), "verdict": verdict, "verdict_agreement": v_agree,
            "verdicts": verdicts, "proof": proof, "proof_agreement": p_agree, "proofs": proofs,
            "exponents": spreads, "flips": flips, "stable": stable}


def summarize(runs: dict[str, dict[int, dict[str, Any]]], *, seeds: list[int], profile: str,
              device: str, seconds: float, engine: str) -> dict[str, Any]:
    claims = [summarize_claim(cid, runs[cid]) for cid in sorted(runs)]
    n = len(claims)
    return {"format": STABILITY_FORMAT, "seeds": list(seeds), "profile": profile, "device": device,
            "engine": engine, "seconds": round(seconds, 1),
            "summary": {"claims": n, "stable": sum(c["stable"] for c in claims),
                        "verdict_agreement": sum(c["verdict_agreement"] == 1 for c in claims) / max(n, 1),
                        "proof_agreement": sum(c["proof_agreement"] == 1 for c in claims) / max(n, 1)},
            "claims": claims}


def format_stability(document: dict[str, Any]) -> str:
    claims = document["claims"]
    width = max((len(c["id"]) for c in claims), default=2)
    lines = []
    for c in claims:
        spread = "; ".join(f"{e['check']} exponent {e['min']:.4g}…{e['max']:.4g} (sd {e['sd']:.2g})"
                           for e in c["exponents"])
        lines.append(f"{c['id']:<{width}}  {c['verdict']:<12} {c['proof'] or '-':<10} {cell(c)}"
                     + (f"  [{spread}]" if spread else ""))
        for f in c["flips"]:
            lines.append(f"{'':<{width}}    flips: {f['check']}: "
                         + "; ".join(f"{k} on seeds {v}" for k, v in f["seeds"].items()))
    s = document["summary"]
    lines.append(f"{s['stable']}/{s['claims']} claims stable over {len(document['seeds'])} seeds; "
                 f"verdict agreement {100 * s['verdict_agreement']:.0f} %, proof agreement "
                 f"{100 * s['proof_agreement']:.0f} % ({document['engine']}, {document['seconds']:.0f} s)")
    return "\n".join(lines)
