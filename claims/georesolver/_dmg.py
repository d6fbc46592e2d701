"""Shared measurements for the DMG claims (lemma-9.1, section-9.2, proposition-11.3): the detector
under a Gaussian null, the pool on a stationary cluster stream with its regret in hindsight, and
Lloyd quantisers. Each returns one replicate's mean (the engine draws R replicates, each with its own
``ctx.replicate(r)`` generators, and makes the error bars: ``replicates=`` on the checks)."""

from __future__ import annotations

import math

import numpy as np
import torch

from attnaudit import operators

T_MAX = 100_000  # the lemma's horizon: T from 1e2 to 1e5 (three decades)


def detector_counts(ctx, tag: str, params: dict, grid) -> np.ndarray:
    """Mean over this replicate's runs of S_T, the surprises up to T, under the null
    ℓ_t ~ N(0, 1) i.i.d., for the DMG detector with ``params``; one run of length max(grid) gives the
    whole curve (the detector is causal, so S_T does not depend on the horizon)."""

    def compute():
        runs = ctx.pick(quick=8, full=32)
        gen = ctx.generator(f"detector:{tag}")
        t_max = int(max(grid))
        losses = torch.randn(runs, t_max, generator=gen, dtype=ctx.dtype, device=ctx.device)
        s = operators.dmg_detector(losses, **params).cumsum(-1, dtype=ctx.dtype)
        idx = torch.as_tensor(np.asarray(grid, dtype=np.int64) - 1, device=s.device)
        return s[:, idx].mean(0).cpu().numpy()

    return ctx.cached(("detector", tag, tuple(sorted(params.items())), tuple(grid)), compute)


# ── the pool on a stationary stream (section-9.2) ──

CENTRES = ((10.0, 10.0), (10.0, -10.0), (-10.0, 10.0), (-10.0, -10.0))  # four clusters, 20σ apart
NOISE = 1.0  # per-coordinate standard deviation


def pool_regret(ctx, params: dict, steps: dict, grid) -> dict[str, dict[str, np.ndarray]]:
    """Run the pool on x_t = c_{k_t} + N(0, σ²I), k_t uniform over ``CENTRES``, from the generating
    centres (k_max = 4), once per step rule in ``steps`` (tag → η, a constant or "running-mean"), all
    rules batched in one call. For each tag: mean/se over runs of the regret
    R_T = Σ_{t≤T} ℓ_t − Σ_{t≤T} ‖x_t − x̄_{k_t,T}‖² (comparator: the per-cluster means in hindsight, the
    best fixed 4 centroids for the generating partition) and of the surprise count S_T, at each T of
    ``grid`` (means over this replicate's runs), and the mean number of merges."""

    def compute():
        per = ctx.pick(quick=4, full=16)
        runs = per * len(steps)
        t_max = int(max(grid))
        gen = ctx.generator("pool")
        centres = torch.tensor(CENTRES, dtype=ctx.dtype, device=ctx.device)
        k = centres.shape[0]
        eta = torch.tensor([math.nan if v == "running-mean" else float(v) for v in steps.values()],
                           dtype=ctx.dtype, device=ctx.device).repeat_interleave(per)
        labels = torch.randint(k, (runs, t_max), generator=gen, device=ctx.device)
        noise = NOISE * torch.randn(runs, t_max, 2, generator=gen, dtype=ctx.dtype, device=ctx.device)
        x = centres[labels] + noise
        out = operators.dmg_pool(x, centres.expand(runs, k, 2).clone(), k_max=k, eta=eta, **params)
        onehot = torch.nn.functional.one_hot(labels, k).to(ctx.dtype)  # (R, T, K)
        n_k = onehot.cumsum(1)
        sum_k = (onehot[..., None] * noise[:, :, None, :]).cumsum(1)  # Σ y over cluster k
        # Σ‖x − x̄_k‖² = Σ‖y‖² − n_k‖ȳ_k‖² (y = x − c_k: no cancellation against ‖c_k‖²)
        between = (sum_k.square().sum(-1) / n_k.clamp_min(1)).sum(-1)
        regret = (out["losses"] - noise.square().sum(-1)).cumsum(1) + between
        surprises = out["surprises"].cumsum(1, dtype=ctx.dtype)
        idx = torch.as_tensor(np.asarray(grid, dtype=np.int64) - 1, device=regret.device)
        res = {}
        for i, tag in enumerate(steps):
            rows = slice(i * per, (i + 1) * per)
            res[tag] = {"merges": float(out["merges"][rows].to(ctx.dtype).mean())}
            for name, series in (("regret", regret), ("surprises", surprises)):
                res[tag][name] = series[rows][:, idx].mean(0).cpu().numpy()
        return res

    return ctx.cached(("pool", tuple(sorted(params.items())), tuple(steps.items()), tuple(grid)), compute)


def running_mean_regret(grid, clusters: int = len(CENTRES), dim: int = 2, noise: float = NOISE):
    """E[R_T] for MacQueen's running mean started at the generating centres (one prior observation)
    with T/K points per cluster: K·dσ²·(1 + Σ_{m<T/K} m/(m+1)²) — the excess of the (m+1)-th point
    over the centre is dσ²·m/(m+1)², the comparator's n_k‖ȳ_k‖² adds dσ²."""
    out = []
    for t in np.asarray(grid, dtype=float):
        m = np.arange(int(round(t / clusters)), dtype=float)
        out.append(clusters * dim * noise**2 * (1.0 + np.sum(m / (m + 1) ** 2)))
    return np.asarray(out)


# ── quantisers (proposition-11.3) ──

RADIUS = 0.5  # data uniform in the Euclidean ball of radius 0.5 inside the Poincaré ball (c = 1)


def uniform_ball(n: int, d: int, gen, ctx, radius: float = RADIUS) -> torch.Tensor:
    """n points uniform in the d-ball of ``radius`` (direction Gaussian, radius r·U^{1/d})."""
    g = torch.randn(n, d, generator=gen, dtype=ctx.dtype, device=ctx.device)
    u = torch.rand(n, 1, generator=gen, dtype=ctx.dtype, device=ctx.device)
    return radius * g / g.norm(dim=-1, keepdim=True) * u ** (1.0 / d)


def lloyd_distortion(ctx, d: int, grid, *, geometry: str = "hyperbolic") -> np.ndarray:
    """Held-out distortion E min_e d(x, c_e)² of a K-point Lloyd quantiser (k-means, 8 iterations
    from K random training points, 8·K training points) of the uniform ball, for each K in grid;
    d_H² in the Poincaré ball (c = 1) or ‖·‖². The mean over this replicate's test points (each
    replicate draws its own training and test sets)."""

    def compute():
        gen = ctx.generator(f"lloyd:{d}")
        n_test = ctx.pick(quick=3000, full=20000)
        means = []
        test = uniform_ball(n_test, d, gen, ctx)
        for k in np.asarray(grid, dtype=int):
            train = uniform_ball(max(8 * int(k), 256), d, gen, ctx)
            c = train[torch.randperm(train.shape[0], generator=gen, device=ctx.device)[:k]]
            for _ in range(8):
                j = torch.cdist(train, c).argmin(-1)
                sums = torch.zeros_like(c).index_add_(0, j, train)
                n = torch.zeros(c.shape[0], dtype=ctx.dtype, device=ctx.device).index_add_(
                    0, j, torch.ones_like(train[:, 0]))
                c = torch.where(n[:, None] > 0, sums / n.clamp_min(1)[:, None], c)
            if geometry == "hyperbolic":
                err = operators.poincare_sqdist(test, c).min(-1).values
            else:
                err = torch.cdist(test, c).square().min(-1).values
            means.append(float(err.mean()))
        return np.asarray(means)

    return ctx.cached(("lloyd", d, geometry, tuple(grid)), compute)
