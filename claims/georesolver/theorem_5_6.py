"""GeoResolver §5.6, Definition 5.4 and Theorem 5.6 (C-HIDA convergence): Definition 5.4's online hyperbolic
k-means (``operators.hida.c_hida_online``: nearest summary, step η/|I_k| towards the key in ball coordinates,
projection onto the ball), batched over independent runs."""

from __future__ import annotations

import numpy as np
import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import Claim, Clause, ProofStep, ScalingLaw, Use, control, grids, symbolic, tolerances
from attnaudit.checks.fitting import closed_form_bias
from attnaudit.claims.georesolver import _hida_cost as CO

STATEMENT = (
    r"\sum_{t=1}^T\min_k d_{\mathbb H}(k_t,s_k^{(t)})^2\le O(\Delta_{\mathbb H}^2\cdot c\cdot\log T)+"
    r"O(T\cdot\varepsilon_{\text{opt}}).\ \text{Per-token attention cost is } \Theta(1)."
)

CLAUSES = (
    Clause("regret", "The online hyperbolic k-means update has (clogT)O(c T) regret: "
                     "∑t=1Tminkdℍ(t,k(t))2≤(Δℍ2⋅c⋅logT)+(T⋅εopt)."),
    Clause("per-token", "Per-token attention cost is Θ(1) (1)."),
)
PROOF = (
    ProofStep("cat0", "The Poincaré ball with hyperbolic metric is a CAT(0) space, so the Karcher mean (the "
                      "minimizer of the sum of squared distances) exists uniquely."),
    ProofStep("oco", "The standard regret bound for online convex optimization applies"),
    ProofStep("cost", "The per-token attention cost is Θ(1) (1) because only c=Θ(1)c= (1) summaries are "
                      "used."),
)
READING = ("On streams of i.i.d. tokens from c well-separated hyperbolic clusters, Definition 5.4's online "
           "update (η = 1, summaries initialised at the first c tokens) has regret Σ_t f_t(s^(t)) − min_s "
           "Σ_t f_t(s) = O(Δ² c log T) (f_t(s) = min_k d(k_t, s_k)²), the proof's display with an exact "
           "comparator (ε_opt = 0); and each token costs Θ(1) work, independent of n.")
READING_WHY = ("ε_opt is not defined in the text; the proof's own display is a regret O(log T) against "
               "the best fixed summaries, which the catalogue names; the definition gives no "
               "initialisation, and the first c tokens are the standard online choice")

C, D, RADIUS, SPREAD = 3, 2, 0.6, 0.2
R = 6  # replicates of the regret laws (each its own streams)
GRID_T = grids.per_profile(quick=[4, 16, 64, 256, 1024, 4096],
                           full=[4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384])
# O(log T) on log-log axes: an exact a·log T + b regret fits a power exponent above 0; the worst case
# with |b| ≤ a is b = −a, whose law a(ln T − 1) fits an exponent of 0.42 on the grid (the tolerance).
LOG_BIAS = tolerances.FitBias(
    lambda: closed_form_bias(GRID_T.quick, np.log(GRID_T.quick) - 1, 0.0),
    "the exact law a(ln T − 1) (a log T regret with an additive constant −a) on T = 4 … 4096, fitted as a "
    "power of T", margin=1.0)
# The regret's increments per unit ln T remove any additive constant exactly: a·ln T + b gives a.
EXACT_LOG = tolerances.FitBias(0.0, "the exact law a·ln T + b, whose (R_T − R_T′)/ln(T/T′) is the constant "
                                    "a on any grid (fitted exponent 0 exactly)")


def derivation():
    dd = sp.Symbol("D", positive=True)
    # f(s1, s2) = min(d(x, s1)², d(x, s2)²) with x = 0, points on one geodesic at distances 0 and D:
    # f(a) = f(b) = 0 at a = (0, D), b = (D, 0); at the geodesic midpoint (D/2, D/2), f = D²/4.
    return [
        symbolic.holds("f_t(s) = min_k d(k_t, s_k)² is convex in s (midpoint test along a geodesic: "
                       "f(mid) ≤ (f(a) + f(b))/2)", sp.LessThan((dd / 2) ** 2, (0 + 0) / 2),
                       role="proof", step="oco",
                       note="a minimum of convex functions is not convex: the online-convex-optimisation "
                            "regret bound the proof invokes does not apply"),
    ]


def _runs(ctx):
    """Online losses for both initialisations (first c tokens; one token per cluster), batched in one
    loop, and the offline comparator per prefix T of the grid."""
    grid = [int(t) for t in GRID_T(ctx)]
    runs, gen = ctx.pick(quick=4, full=16), ctx.generator("stream")
    dirs = torch.randn(runs, C, D, generator=gen, dtype=ctx.dtype)
    centres = dirs / torch.linalg.vector_norm(dirs, dim=-1, keepdim=True) * RADIUS
    labels = torch.randint(C, (runs, grid[-1]), generator=gen)
    mu = torch.gather(centres, 1, labels[..., None].expand(-1, -1, D))
    lam = 2 / (1 - mu.square().sum(-1, keepdim=True))  # tangent noise of Riemannian length ~ SPREAD·√D
    noise = torch.randn(runs, grid[-1], D, generator=gen, dtype=ctx.dtype) * SPREAD / lam
    keys = operators.poincare_expmap(mu, noise)
    first_of = torch.stack([(labels == k).to(torch.int8).argmax(-1) for k in range(C)], dim=1)
    seeded = torch.gather(keys, 1, first_of[..., None].expand(-1, -1, D))
    init = torch.cat([keys[:, :C], seeded])
    losses, final = operators.hida.c_hida_online(torch.cat([keys, keys]), init, lr=1.0)
    online = {"first": losses[:runs], "seeded": losses[runs:]}
    best = []
    for t in grid:
        x = keys[:, :t]

        def means(assign, x=x):
            w = torch.nn.functional.one_hot(assign, C).transpose(1, 2).to(x.dtype)  # (runs, C, t)
            w = torch.where(w.sum(-1, keepdim=True) > 0, w, 1.0)  # an empty cluster: any point set
            return operators.poincare_karcher_mean(x[:, None].expand(-1, C, -1, -1), weights=w, tol=1e-7,
                                                   max_iter=60)

        def score(s, x=x):
            return operators.poincare_sqdist(x, s).min(-1).values.sum(-1)

        lloyd = means(operators.poincare_sqdist(x, means(labels[:, :t])).argmin(-1))
        best.append(torch.stack([score(lloyd), score(final[:runs]), score(final[runs:])]).min(0).values)
    return online, torch.stack(best, 1)  # (runs, G)


def measure_regret(which: str):
    def run(ctx, grid):
        online, best = ctx.cached("runs", lambda: _runs(ctx))
        return np.stack([(online[which][:, : int(t)].sum(-1) - best[:, i]).numpy()
                         for i, t in enumerate(grid)], axis=1).mean(0)

    return run


def measure_regret_rate(ctx, grid):
    """(R_T − R_T′)/ln(T/T′) between successive prefixes T′ < T of the grid (R_1 = 0 before the first:
    a single token is its own summary): the regret's growth per unit of ln T. For a·ln T + b it is a at
    every T, whatever b."""
    before = np.concatenate([[1.0], np.asarray(grid, dtype=float)[:-1]])
    return (np.diff(np.concatenate([[0.0], measure_regret("first")(ctx, grid)]))
            / np.log(np.asarray(grid, dtype=float) / before))


def info_seeded(ctx, grid):
    mean = measure_regret("seeded")(ctx, grid)
    return {"columns": {"regret, one token per cluster to start": mean},
            "series": [{"label": "regret, one token per cluster to start", "x": list(grid), "y": mean}]}


FAMILY = (f"c = {C} clusters in the Poincaré disc (d_h = {D}), centres at radius {RADIUS}, wrapped-normal "
          f"spread {SPREAD}, i.i.d. tokens; η = 1; T = 4 … 4096 (full "
          f"16384); per replicate the mean over 4 (full 16) runs, {R} replicates; regret against the best "
          "fixed summaries per prefix T, computed offline as the best of the "
          "clusters' Karcher means refined by one Lloyd step and the runs' own final summaries, each scored "
          "by Σ_t min_k d(k_t, s_k)² (an upper bound on the optimum: the regret is if anything "
          "underestimated)")

CLAIMS = (Claim(
    id="georesolver/theorem-5.6", label="Theorem 5.6 (C-HIDA Convergence)", section="§5.6",
    statement=STATEMENT, kind="asymptotic", derivation=derivation, clauses=CLAUSES, proof_steps=PROOF,
    uses=(Use("georesolver/section-4/karcher-mean",
              "The Poincaré ball with hyperbolic metric is a CAT(0) space, so the Karcher mean (the "
              "minimizer of the sum of squared distances) exists uniquely."),),
    reading=READING, reading_why=READING_WHY,
    checks=(
        ScalingLaw(name="regret-rate-vs-t", quantity="(R_T − R_T′)/ln(T/T′) (first-c-tokens initialisation)",
                   variable="T", exponent=0.0, order="O", grid=GRID_T, measure=measure_regret_rate,
                   family=FAMILY + "; increments between successive prefixes of the grid",
                   tolerance=EXACT_LOG, replicates=R, clause="regret",
                   predicted="O(log T): the regret's growth per unit ln T stays bounded (exponent ≤ 0)",
                   controls=(control("a regret growing like √T predicted (rate ~ T^0.5)", exponent=0.5),)),
        ScalingLaw(name="regret-vs-t", quantity="regret R_T (first-c-tokens initialisation)", variable="T",
                   exponent=0.0, order="O", grid=GRID_T, measure=measure_regret("first"), family=FAMILY,
                   tolerance=LOG_BIAS, info=info_seeded, replicates=R, role="derivation",
                   predicted="O(log T): a power exponent of T at most that of a(ln T − 1) on the grid"),
        ScalingLaw(name="per-token-flops-vs-n", quantity="FLOPs for token n / d_h (attend, assign, update)",
                   variable="n", exponent=0.0, order="Θ", grid=CO.TOKEN_GRID_16K,
                   measure=CO.flops_per_dh(lambda ctx, n: CO.c_token_flops(ctx, n, C)),
                   family=(f"c = {C} summaries, d_h = d_v = 16, FlopCounterMode on the operator's real state "
                           "after n tokens of one stream (keys uniform in the ball, radius ≤ 0.8), "
                           "n = 16 … 16384"),
                   tolerance=CO.COUNT, predicted="Θ(1) per token", clause="per-token",
                   controls=(control("a per-token cost growing like √n predicted", exponent=0.5),
                             CO.CAUSAL_DENSE)),
    ),
    time_limit_s=120.0,
    notes=("Started at one token per cluster instead, the regret on the same streams grows like a·ln T + b "
           "(measured ≈ 0.32 ln T − 0.3, in the record's informational column), consistent with O(log T); "
           "that reading is not decided (an additive constant bends a three-decade fit by as much as the "
           "distinction between log T and T^0.4). The update moves a summary by a Euclidean step in ball "
           "coordinates (the running coordinate mean), not along the geodesic: its fixed point is the "
           "cluster's coordinate mean, not its Karcher mean, which the comparator uses."),
),)
