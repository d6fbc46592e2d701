"""Point sets and kernels on the Poincaré ball and the sphere for GeoResolver §4–§5.

Squared geodesic distances come from the geometry layer (``operators.poincare_sqdist``,
``operators.sphere_sqdist``, ``operators.squared_distances``): exact zeros on the diagonal,
double-double conformal factors near the boundary. Samplers are batched and seeded from ``ctx``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from attnaudit import operators
from attnaudit.checks import sampling

GEOMETRIES = ("euclidean", "hyperbolic", "spherical")


def sqdist(geometry: str):
    """The pairwise squared distance ``(…, n, d), (…, m, d) → (…, n, m)`` of a geometry."""
    return {"euclidean": operators.squared_distances, "hyperbolic": operators.poincare_sqdist,
            "spherical": operators.sphere_sqdist}[geometry]


def ball_points(ctx, gen, batch: int, count: int, dim: int, rho=0.9):
    """``count`` points of the Poincaré ball per set: x = ρ·tanh(‖z‖)z/‖z‖ (the paper's radial
    0.9·tanh map with ρ in place of 0.9), z ~ N(0, σ²I), σ log-uniform in [0.05, 20] per set, so
    that sets range from clustered at the origin to spread against the sphere of radius ρ."""
    sigma = sampling.log_uniform(ctx, gen, batch, 1, 1, low=0.05, high=20.0)
    z = sampling.gaussian(ctx, gen, batch, count, dim) * sigma
    rho = rho if torch.is_tensor(rho) else torch.full((batch,), float(rho), dtype=z.dtype, device=z.device)
    return rho[:, None, None] * operators.poincare_expmap0(z)


def sphere_points(ctx, gen, batch: int, count: int, dim: int):
    """``count`` points of S^dim per set: a random centre and normalised Gaussian offsets of spread
    σ log-uniform in [0.05, 20] (clustered caps to the whole sphere)."""
    sigma = sampling.log_uniform(ctx, gen, batch, 1, 1, low=0.05, high=20.0)
    centre = sampling.unit_vectors(ctx, gen, batch, 1, dim + 1)
    x = centre + sigma * sampling.gaussian(ctx, gen, batch, count, dim + 1)
    return operators.sphere_normalize(x)


def points(geometry: str, ctx, gen, batch: int, count: int, dim: int):
    if geometry == "spherical":
        return sphere_points(ctx, gen, batch, count, dim)
    if geometry == "hyperbolic":
        return ball_points(ctx, gen, batch, count, dim)
    return sampling.gaussian(ctx, gen, batch, count, dim)


def min_offdiagonal(d2: torch.Tensor) -> torch.Tensor:
    """Smallest off-diagonal entry of ``(…, n, n)``."""
    eye = torch.eye(d2.shape[-1], dtype=torch.bool, device=d2.device)
    return d2.masked_fill(eye, math.inf).amin(dim=(-1, -2))


def kernel(d2: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    """K_ij = (d_ij² + ε)⁻¹ with ε per set ``(…)``."""
    return 1.0 / (d2 + eps[..., None, None])


def effective_rank(d2: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    return operators.effective_rank(kernel(d2, eps))


def point_set_strategy(ctx, geometry: str, c_high: float):
    """Hypothesis strategy for the adversarial rank searches: 2–5 points in d = 1…3 (coordinates
    ≤ 0.5; on the sphere, lifted by a last coordinate 1 and normalised), pairwise ≥ 1e-3 apart,
    with c log-uniform in [1e-6, c_high]; one set per example, as ``{"x": (1, n, d), "c": (1,)}``."""
    from hypothesis import strategies as st

    def place(x):
        if geometry == "spherical":
            x = np.concatenate([x, np.ones((len(x), 1))], axis=1)
            return x / np.linalg.norm(x, axis=1, keepdims=True)
        return x

    def separated(x):
        dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
        return dist[~np.eye(len(x), dtype=bool)].min() >= 1e-3

    points = sampling.point_sets(n=(2, 5), d=(1, 3), bound=0.5).map(place).filter(separated)
    return st.tuples(points, sampling.log_uniform_floats(1e-6, c_high)).map(
        lambda pc: {"x": ctx.tensor(pc[0])[None], "c": ctx.tensor([pc[1]])})
