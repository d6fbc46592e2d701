"""Point sets and kernels on the Poincaré ball and the sphere for GeoResolver §4–§5, and what Lemma 5.1
and Theorem 5.2 share: the matched-weight gap of exact retrieval and the effective-rank relations. Squared
geodesic distances come from the geometry layer (``operators.poincare_sqdist``, ``operators.sphere_sqdist``,
``operators.squared_distances``): exact zeros on the diagonal, double-double conformal factors near the
boundary. Samplers are batched and seeded from ``ctx``."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import grids, sampling, tolerances
from attnaudit.checks.fitting import closed_form_bias

T_GRID = grids.fixed([10.0 ** -e for e in range(4, 15)])  # t = ε/d_min² of the retrieval limits
RANK_SHAPES = ((2, 2), (3, 2), (8, 3), (32, 8))
RANK_TOL = tolerances.Roundoff(condition="n² (tr K² is a sum of n² squares)", scale="eff-rank(K)")


def le(lhs, rhs):
    """``lhs ≤ rhs`` as the sign of one factored fraction, which SymPy can decide."""
    return sp.GreaterThan(sp.factor(sp.together(rhs - lhs)), 0, evaluate=False)


def sqdist(geometry: str):
    return {"euclidean": operators.squared_distances, "hyperbolic": operators.poincare_sqdist,
            "spherical": operators.sphere_sqdist}[geometry]


def radii(ctx, gen, batch, high):
    """ρ = 1 − 10^{−s}, s uniform in [0.3, high]."""
    s = 0.3 + (high - 0.3) * torch.rand(batch, generator=gen, dtype=ctx.dtype, device=ctx.device)
    return -torch.expm1(-s * math.log(10.0))


def ball_points(ctx, gen, batch: int, count: int, dim: int, rho=0.9):
    """``count`` points of the Poincaré ball per set: x = ρ·tanh(‖z‖)z/‖z‖ (the paper's radial
    0.9·tanh map with ρ in place of 0.9), z ~ N(0, σ²I), σ log-uniform in [0.05, 20] per set, so
    that sets range from clustered at the origin to spread against the sphere of radius ρ."""
    sigma = sampling.log_uniform(ctx, gen, batch, 1, 1, low=0.05, high=20.0)
    z = sampling.gaussian(ctx, gen, batch, count, dim) * sigma
    rho = rho if torch.is_tensor(rho) else torch.full((batch,), float(rho), dtype=z.dtype, device=z.device)
    return rho[:, None, None] * operators.poincare_expmap0(z)


def points(geometry: str, ctx, gen, batch: int, count: int, dim: int):
    """Gaussian points of R^dim, ``ball_points``, or points of S^dim: a random centre and normalised
    Gaussian offsets of spread σ log-uniform in [0.05, 20] (clustered caps to the whole sphere)."""
    if geometry == "hyperbolic":
        return ball_points(ctx, gen, batch, count, dim)
    if geometry == "euclidean":
        return sampling.gaussian(ctx, gen, batch, count, dim)
    sigma = sampling.log_uniform(ctx, gen, batch, 1, 1, low=0.05, high=20.0)
    centre = sampling.unit_vectors(ctx, gen, batch, 1, dim + 1)
    return operators.sphere_normalize(centre + sigma * sampling.gaussian(ctx, gen, batch, count, dim + 1))


def min_offdiagonal(d2: torch.Tensor) -> torch.Tensor:
    eye = torch.eye(d2.shape[-1], dtype=torch.bool, device=d2.device)
    return d2.masked_fill(eye, math.inf).amin(dim=(-1, -2))


def kernel(d2: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    return 1.0 / (d2 + eps[..., None, None])


def matched(y, gen, geometry):
    """A random target j* per set y ``(B, n, d)``: the query x = y_{j*}, the one-hot mask of j* and
    d(x, y)² ``(B, n)``."""
    batch, count = y.shape[:2]
    j = torch.randint(count, (batch,), generator=gen, device=y.device)
    x = y[torch.arange(batch, device=y.device), j][:, None, :]
    return x, y, torch.nn.functional.one_hot(j, count).bool(), sqdist(geometry)(x, y)[:, 0, :]


def retrieval_gap(tag, geometry, shapes, batch, draw, weights):
    """gap(ctx, grid): the worst case over ``batch`` (quick, full) sets per shape, drawn once per run by
    ``draw(ctx, gen, sets, n, d)`` with a random target, of 1 − W_{j*} = Σ_{j≠j*} W_j at ε = t·d_min²
    (d_min from the query x = y_{j*}) per t in grid; ``weights(x, y, ε)`` gives the query's row
    ``(T, B, n)``."""

    def gap(ctx, grid):
        tt = ctx.tensor(grid)
        sets = ctx.pick(quick=batch[0], full=batch[1])
        worst = torch.zeros_like(tt)

        def instances(n, d):
            gen = ctx.generator(f"{tag}:{n}x{d}")
            return matched(draw(ctx, gen, sets, n, d), gen, geometry)

        for n, d in shapes:
            x, y, star, d2 = ctx.cached((tag, n, d), lambda n=n, d=d: instances(n, d))
            e = tt[:, None] * d2.masked_fill(star, math.inf).amin(dim=-1)[None, :]  # (T, batch)
            w = weights(x, y, e)
            worst = torch.maximum(worst, w.masked_fill(star, 0.0).sum(dim=-1).amax(dim=-1))
        return worst

    return gap


def worst_rate_tol(count, source):
    """The fitted rate's bias on T_GRID of the closed-form worst case, n − 1 = ``count`` − 1 points at
    d_min from x_i: gap (n − 1)t/(1 + nt) (t = ε/d_min²), against the asymptotic rate 1."""
    grid = T_GRID.quick
    return tolerances.FitBias(lambda: closed_form_bias(grid, (count - 1) * grid / (1 + count * grid), 1.0),
                              source)


def rank_gap(geometry, bound, power=1.0):
    """eff-rank of K = (d² + ε)^{−power} at ε = c·d_min²/(n−1) against the bound: "small" 1 + nε²/d_min⁴,
    "general" n(1 − c)², "lower" the suite's n/(1 + ε²(n−1)/(d_min²+ε)²)."""

    def evaluate(case):
        x, frac = case["x"], case["c"]
        count = x.shape[-2]
        d2 = sqdist(geometry)(x, x)
        dmin2 = min_offdiagonal(d2)
        e = frac * dmin2 / (count - 1)
        value = operators.effective_rank(kernel(d2, e) ** power)
        rhs = {"small": lambda: 1 + count * e.square() / dmin2.square(),
               "general": lambda: count * (1 - frac) ** 2,
               "lower": lambda: count / (1 + e.square() * (count - 1) / (dmin2 + e).square())}[bound]()
        return value, rhs, RANK_TOL(count**2 * value.abs())

    return evaluate


def rank_sampler(geometry, c_high):
    def sample(ctx, gen):
        batch = ctx.pick(quick=200, full=2000)
        for count, dim in RANK_SHAPES:
            yield {"x": points(geometry, ctx, gen, batch, count, dim),
                   "c": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=c_high)}

    return sample


def rank_strategy(geometry: str, c_high: float):
    """Hypothesis strategy for the adversarial rank searches: 2–5 points in d = 1…3 (coordinates
    ≤ 0.5; on the sphere, lifted by a last coordinate 1 and normalised), pairwise ≥ 1e-3 apart,
    with c log-uniform in [1e-6, c_high]; one set per example, as ``{"x": (1, n, d), "c": (1,)}``."""

    def strategy(ctx):
        from hypothesis import strategies as st

        def place(x):
            if geometry == "spherical":
                x = np.concatenate([x, np.ones((len(x), 1))], axis=1)
                return x / np.linalg.norm(x, axis=1, keepdims=True)
            return x

        def separated(x):
            dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
            return dist[~np.eye(len(x), dtype=bool)].min() >= 1e-3

        sets = sampling.point_sets(n=(2, 5), d=(1, 3), bound=0.5).map(place).filter(separated)
        return st.tuples(sets, sampling.log_uniform_floats(1e-6, c_high)).map(
            lambda pc: {"x": ctx.tensor(pc[0])[None], "c": ctx.tensor([pc[1]])})

    return strategy
