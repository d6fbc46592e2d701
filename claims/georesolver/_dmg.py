"""Shared setting and measurements of the DMG claims (lemma-9.1, section-9.2, proposition-11.3): the
detector under a Gaussian null, the pool on a stationary cluster stream with its regret in hindsight,
and Lloyd quantisers. Each measurement returns one replicate's mean (the engine draws the replicates,
each with its own ``ctx.replicate(r)`` generators: ``replicates=`` on the checks)."""

from __future__ import annotations

import math

import numpy as np
import torch

from attnaudit import operators
from attnaudit.checks import grids, tolerances
from attnaudit.checks.fitting import closed_form_bias

T_GRID = grids.log_integer_grid(1e2, 1e5, quick=7, full=13)  # the lemma's horizons (three decades)

def detector_counts(ctx, tag: str, params: dict, grid) -> np.ndarray:
    """Mean over this replicate's runs of S_T, the surprises up to T, under the null
    ℓ_t ~ N(0, 1) i.i.d., for the DMG detector with ``params``; one run of length max(grid) gives the
    whole curve (the detector is causal, so S_T does not depend on the horizon)."""

    def compute():
        gen = ctx.generator(f"detector:{tag}")
        losses = torch.randn(ctx.pick(quick=8, full=32), int(max(grid)), generator=gen, dtype=ctx.dtype,
                             device=ctx.device)
        s = operators.dmg_detector(losses, **params).cumsum(-1, dtype=ctx.dtype)
        idx = torch.as_tensor(np.asarray(grid, dtype=np.int64) - 1, device=s.device)
        return s[:, idx].mean(0).cpu().numpy()

    return ctx.cached(("detector", tag, tuple(sorted(params.items())), tuple(grid)), compute)


# ── the pool on a stationary stream (section-9.2, proposition-11.3 part 1) ──

CENTRES = ((10.0, 10.0), (10.0, -10.0), (-10.0, 10.0), (-10.0, -10.0))  # four clusters, 20σ apart
NOISE = 1.0  # per-coordinate standard deviation
POOL = {"window": 8, "tau_base": 3.5, "kappa": 0.25, "gamma": 1.0}  # ℓ has mean dσ² = 2 < τ_base
ETA = 0.1  # Definition 5.4's constant step (the paper gives no value)
STEPS = {"constant": ETA, "running": "running-mean"}
RATIO = 10  # the regret gained over [T/10, T]
SETTING = ("x_t = c_k + N(0, I₂), k uniform over four centres (±10, ±10), pool started at the centres "
           f"with k_max = 4; detector μ_t-trigger, τ_base = {POOL['tau_base']:g}, κ = {POOL['kappa']:g}, "
           f"γ = {POOL['gamma']:g}, W = {POOL['window']}")
COMPARATOR = ("regret R_T = Σ_{t≤T} ℓ_t − Σ_{t≤T} ‖x_t − x̄_{k_t,T}‖², ℓ_t = min_e ‖x_t − c_e‖² before the "
              "update; comparator: the best fixed four centroids in hindsight for the generating "
              "partition (the cluster means), optimal up to points nearer another cluster (probability "
              "~1e-23 at 20σ separation)")
LOG_GRID = grids.log_integer_grid(10, 1e4, quick=7, full=13)  # section-9.2's horizons
# The increments' grid: T = RATIO × whole numbers log-spaced over [1, 1000].
INCR_GRID = grids.per_profile(quick=RATIO * grids.log_spaced_integers(1, 1000, 7),
                              full=RATIO * grids.log_spaced_integers(1, 1000, 13))


def pool_regret(ctx, params: dict, steps: dict, grid) -> dict[str, np.ndarray]:
    """Run the pool on x_t = c_{k_t} + N(0, σ²I), k_t uniform over ``CENTRES``, from the generating
    centres (k_max = 4), once per step rule in ``steps`` (tag → η, a constant or "running-mean"), all
    rules batched in one call. For each tag: the mean over this replicate's runs of the regret
    R_T = Σ_{t≤T} ℓ_t − Σ_{t≤T} ‖x_t − x̄_{k_t,T}‖² (comparator: the per-cluster means in hindsight, the
    best fixed 4 centroids for the generating partition) at each T of ``grid``."""

    def compute():
        per = ctx.pick(quick=4, full=16)
        runs, t_max, gen = per * len(steps), int(max(grid)), ctx.generator("pool")
        centres = torch.tensor(CENTRES, dtype=ctx.dtype, device=ctx.device)
        k = centres.shape[0]
        eta = torch.tensor([math.nan if v == "running-mean" else float(v) for v in steps.values()],
                           dtype=ctx.dtype, device=ctx.device).repeat_interleave(per)
        labels = torch.randint(k, (runs, t_max), generator=gen, device=ctx.device)
        noise = NOISE * torch.randn(runs, t_max, 2, generator=gen, dtype=ctx.dtype, device=ctx.device)
        x = centres[labels] + noise
        out = operators.dmg_pool(x, centres.expand(runs, k, 2).clone(), k_max=k, eta=eta, **params)
        onehot = torch.nn.functional.one_hot(labels, k).to(ctx.dtype)  # (R, T, K)
        sum_k = (onehot[..., None] * noise[:, :, None, :]).cumsum(1)  # Σ y over cluster k
        # Σ‖x − x̄_k‖² = Σ‖y‖² − n_k‖ȳ_k‖² (y = x − c_k: no cancellation against ‖c_k‖²)
        between = (sum_k.square().sum(-1) / onehot.cumsum(1).clamp_min(1)).sum(-1)
        regret = (out["losses"] - noise.square().sum(-1)).cumsum(1) + between
        idx = torch.as_tensor(np.asarray(grid, dtype=np.int64) - 1, device=regret.device)
        return {tag: regret[i * per:(i + 1) * per][:, idx].mean(0).cpu().numpy()
                for i, tag in enumerate(steps)}

    return ctx.cached(("pool", tuple(sorted(params.items())), tuple(steps.items()), tuple(grid)), compute)


def regret_increment(ctx, params: dict, steps: dict, tag: str, grid, full) -> np.ndarray:
    """E[R_T − R_{T/RATIO}] at each T of ``grid``, both ends from the same runs (``full`` holds both)."""
    r = pool_regret(ctx, params, steps, full)[tag]
    return r[np.searchsorted(full, grid)] - r[np.searchsorted(full, np.asarray(grid) / RATIO)]


def running_mean_regret(grid, clusters: int = len(CENTRES), dim: int = 2, noise: float = NOISE):
    """E[R_T] for MacQueen's running mean started at the generating centres (one prior observation)
    with T/K points per cluster: K·dσ²·(1 + Σ_{m<T/K} m/(m+1)²) — the excess of the (m+1)-th point
    over the centre is dσ²·m/(m+1)², the comparator's n_k‖ȳ_k‖² adds dσ²."""
    ms = (np.arange(int(round(t / clusters)), dtype=float) for t in np.asarray(grid, dtype=float))
    return np.asarray([clusters * dim * noise**2 * (1.0 + np.sum(m / (m + 1) ** 2)) for m in ms])


INCREMENT_TOL = tolerances.FitBias(
    lambda: closed_form_bias(INCR_GRID.full, running_mean_regret(INCR_GRID.full)
                             - running_mean_regret(INCR_GRID.full / RATIO), 0.0),
    "E[R_T − R_{T/10}] of the running mean (closed form K·dσ²·Σ_{T/40 ≤ m < T/4} m/(m+1)²) on the full grid",
    margin=2.0)


# ── quantisers (proposition-11.3) ──

RADIUS = 0.5  # data uniform in the Euclidean ball of radius 0.5 inside the Poincaré ball (c = 1)


def uniform_ball(n: int, d: int, gen, ctx, radius: float = RADIUS) -> torch.Tensor:
    """n points uniform in the d-ball of ``radius`` (direction Gaussian, radius r·U^{1/d})."""
    g = torch.randn(n, d, generator=gen, dtype=ctx.dtype, device=ctx.device)
    u = torch.rand(n, 1, generator=gen, dtype=ctx.dtype, device=ctx.device)
    return radius * g / g.norm(dim=-1, keepdim=True) * u ** (1.0 / d)


def lloyd_distortion(ctx, d: int, grid) -> np.ndarray:
    """Held-out distortion E min_e d_H(x, c_e)² (Poincaré ball, c = 1) of a K-point Lloyd quantiser
    (k-means, 8 iterations from K random training points, 8·K training points) of the uniform ball,
    for each K in grid: the mean over this replicate's test points (each replicate draws its own
    training and test sets)."""

    def compute():
        gen = ctx.generator(f"lloyd:{d}")
        means, test = [], uniform_ball(ctx.pick(quick=3000, full=20000), d, gen, ctx)
        for k in np.asarray(grid, dtype=int):
            train = uniform_ball(max(8 * int(k), 256), d, gen, ctx)
            c = train[torch.randperm(train.shape[0], generator=gen, device=ctx.device)[:k]]
            for _ in range(8):
                j = torch.cdist(train, c).argmin(-1)
                sums = torch.zeros_like(c).index_add_(0, j, train)
                n = torch.zeros(c.shape[0], dtype=ctx.dtype, device=ctx.device).index_add_(
                    0, j, torch.ones_like(train[:, 0]))
                c = torch.where(n[:, None] > 0, sums / n.clamp_min(1)[:, None], c)
            means.append(float(operators.poincare_sqdist(test, c).min(-1).values.mean()))
        return np.asarray(means)

    return ctx.cached(("lloyd", d, tuple(grid)), compute)
