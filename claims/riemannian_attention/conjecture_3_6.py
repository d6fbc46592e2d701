"""Riemannian attention, Conjecture 3.6: the critical metric strength is Ū²_crit = Θ(τ/L)."""

from __future__ import annotations

import math

from checks import Claim, Kind, Reading, Relation, control, tolerances

STATEMENT = (r"\text{Conjecture: } \bar U^2_{\mathrm{crit}} = \Theta(\tau/L),"
             r"\quad \bar U^2 = \max_t \|U_t\|_F^2.")

TAU, DEPTH, LEVEL = 2.0, 10, 20.0
LENGTHS = (8, 16, 32, 64, 128)
STRENGTHS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)  # Ū², absolute: spans τ/L·{0.5 … 512}
DELAY = 1.0  # the transition: heterogeneous metrics delay the collapse by one layer
N_BOOT = 400
TOL = tolerances.MonteCarlo("the log-log slope of the located transition Ū²_*(L) against L, "
                            f"percentile bootstrap over the stacks ({N_BOOT} resamples, seeded)")


def _crossing(y, level=LEVEL):
    """Fractional depth at which −log ρ_l first reaches ``level``, per stack (censored at DEPTH)."""
    import torch

    ly = torch.log(y.clamp_min(1e-6))
    t = math.log(level)
    above = ly >= t
    first = torch.where(above.any(-1), above.int().argmax(-1), torch.full_like(above[:, 0], DEPTH,
                                                                               dtype=torch.long))
    k = first.clamp(1, DEPTH)
    a, b = ly.gather(-1, (k - 1)[:, None])[:, 0], ly.gather(-1, k[:, None])[:, 0]
    frac = (k - 1).to(y.dtype) + ((t - a) / (b - a)).clamp(0.0, 1.0)
    return torch.where(above.any(-1), frac, torch.full_like(frac, float(DEPTH)))


def delays(ctx):
    """(len(LENGTHS), len(STRENGTHS), B) collapse delays (in layers) against the metric-free stack."""
    import torch

    from claims.riemannian_attention._stacks import stack_y

    batch = ctx.pick(quick=6, full=24)

    def run():
        out = []
        for n in LENGTHS:
            base = _crossing(stack_y(ctx, f"L{n}", batch=batch, n=n, depth=DEPTH, tau=TAU))
            out.append(torch.stack([_crossing(stack_y(ctx, f"L{n}", batch=batch, n=n, depth=DEPTH,
                                                      strength=s, tau=TAU)) - base for s in STRENGTHS]))
        return torch.stack(out)

    return ctx.cached("delays", run)


def transitions(mean_delay):
    """log Ū²_*(L): where the mean delay first reaches DELAY, interpolated in log Ū² (NaN if never)."""
    import numpy as np

    logs = np.log(np.asarray(STRENGTHS))
    out = []
    for row in mean_delay:
        hit = np.nonzero(row >= DELAY)[0]
        if len(hit) == 0 or hit[0] == 0:
            out.append(np.nan)
            continue
        j = hit[0]
        out.append(logs[j - 1] + (DELAY - row[j - 1]) / (row[j] - row[j - 1]) * (logs[j] - logs[j - 1]))
    return np.asarray(out)


def slope_and_interval(d):
    """Least-squares slope of log Ū²_* against log L, and its 95% bootstrap half-width."""
    import numpy as np

    d = np.asarray(d, dtype=float)
    logl = np.log(np.asarray(LENGTHS, dtype=float))
    slope = np.polyfit(logl, transitions(d.mean(-1)), 1)[0]
    rng = np.random.default_rng(20260815)  # fixed: the replayed witness gets the same interval
    boots = []
    for _ in range(N_BOOT):
        idx = rng.integers(0, d.shape[-1], d.shape[-1])
        tr = transitions(d[..., idx].mean(-1))
        if np.all(np.isfinite(tr)):
            boots.append(np.polyfit(logl, tr, 1)[0])
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return float(slope), float(max(slope - lo, hi - slope))


def evaluate(case):
    import torch

    slope, half = slope_and_interval(case["delays"][0].numpy())
    one = torch.ones(1, dtype=torch.float64)
    return one * slope, -one, one * half


def evaluate_flat(case):
    lhs, _, tol = evaluate(case)
    return lhs, 0.0 * lhs, tol


def sample(ctx, gen):  # noqa: ARG001 - the stacks are seeded by their own tags
    yield {"delays": delays(ctx)[None]}


CLAIMS = (Claim(
    id="riemannian-attention/conjecture-3.6", label="Conjecture 3.6 (critical metric strength)",
    section="§3.3", statement=STATEMENT, kind=Kind.CONJECTURE,
    no_derivation="a conjecture: the record is an evidence run (evidence, not proof); the τ/L scale "
                  "comes from Proposition 3.5's Frobenius bound (checked there)",
    proof_absent="stated as a conjecture; the review says Θ(τ/L) is read off Proposition 3.5's bound",
    reading=(
        "Evidence run on the stacks of conjecture-3.4 (pure metric attention, d = 4, τ = 2, random "
        "Haar weights, per-position metrics of strength Ū² = E‖U_t‖_F²): the critical strength is "
        "where heterogeneous metrics begin to change the depth-wise collapse, located as the Ū² at "
        "which they delay the entry into the collapsed regime (−log ρ_l ≥ 20) by one layer, "
        f"interpolated on the grid Ū² ∈ {{{', '.join(f'{s:g}' for s in STRENGTHS)}}}, for "
        f"L ∈ {{{', '.join(map(str, LENGTHS))}}}. Θ(τ/L) read over this range: Ū²_*(L) ∝ 1/L, "
        "i.e. the log-log slope of Ū²_* against L is −1."
    ),
    reading_why="the review's 'sweep metric strength around τ/L for several L; locate the transition "
                "in depth-wise effective rank'; Θ is asymptotic, so only a local slope over the "
                "reachable L can be measured",
    notes=(
        "Evidence, not proof: finite L (8…128, 1.2 decades) cannot settle an asymptotic Θ; the "
        "record gives the local slope with its bootstrap interval. Prop. 3.5's transferred bound "
        "|Δσ_k| ≤ (L/τ)·Ū²·max‖Δ_ij‖² makes Ū² ≲ τ/L sufficient for a small perturbation of the "
        "attention spectrum (checked in proposition-3.5), which does not make τ/L the point where "
        "the depth-wise behaviour changes. Located transitions (quick profile, seed 0; 95% bootstrap "
        "intervals over the stacks) Ū²_*(L): L = 8: 1.40 [0.90, 3.58]; 16: 2.09 [1.52, 2.97]; "
        "32: 1.36 [1.12, 1.71]; 64: 1.50 [1.19, 2.06]; 128: 1.82 [1.48, 2.18], while τ/L runs from "
        "0.25 to 0.016: the transition sits at Ū² ≈ 1.4–2 (metric term comparable to the Euclidean "
        "‖Δ‖²) for every L; fitted slope 0.03 ± 0.25."
    ),
    alternatives=(Reading(
        "independent-of-l",
        "The transition strength Ū²_* does not depend on L over L = 8…128 (log-log slope 0).",
        "what the evidence run suggests instead: the metric enters the scores relative to the "
        "Euclidean term ‖Δ‖²/τ, with no factor L"),),
    checks=(Relation(
        name="transition-slope-zero", lhs="slope of log Ū²_*(L) against log L", rel="==", rhs="0",
        evaluate=evaluate_flat, sample=sample, tolerance=TOL, reading="independent-of-l",
        sampler=f"{len(LENGTHS)} sequence lengths × {len(STRENGTHS)} strengths × B random stacks "
                f"(6 quick, 24 full), depth {DEPTH}",
        controls=(control("the conjectured slope −1 in place of 0", evaluate=evaluate),)),
        Relation(
        name="transition-slope-in-l", lhs="slope of log Ū²_*(L) against log L", rel="==", rhs="−1",
        evaluate=evaluate, sample=sample, tolerance=TOL,
        sampler=f"{len(LENGTHS)} sequence lengths × {len(STRENGTHS)} strengths × B random stacks "
                f"(6 quick, 24 full), depth {DEPTH}"),),
),)
