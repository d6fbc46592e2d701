"""Seeded, batched samplers (one tensor call draws thousands of instances) and Hypothesis
strategies for adversarial search. Each is named for what it produces.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from attnaudit.checks.context import Context

if TYPE_CHECKING:  # pragma: no cover - typing only; torch loads when a sampler first runs
    import torch


def gaussian(ctx: Context, gen: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    """i.i.d. N(0, scale²) entries of the given shape."""
    import torch

    return scale * torch.randn(*shape, generator=gen, dtype=ctx.dtype, device=ctx.device)


def log_uniform(ctx: Context, gen: torch.Generator, *shape: int, low: float, high: float
                ) -> torch.Tensor:
    """Values whose logarithm is uniform on [log low, log high]: every decade equally often."""
    if not 0 < low < high:
        raise ValueError(f"log_uniform needs 0 < low < high, got {low}, {high}")
    import torch

    u = torch.rand(*shape, generator=gen, dtype=ctx.dtype, device=ctx.device)
    return torch.exp(math.log(low) + u * (math.log(high) - math.log(low)))


def unit_vectors(ctx: Context, gen: torch.Generator, *shape: int) -> torch.Tensor:
    """Uniform directions on the sphere S^{d−1}; the last entry of ``shape`` is d."""
    import torch

    v = gaussian(ctx, gen, *shape)
    return v / torch.linalg.vector_norm(v, dim=-1, keepdim=True)


def min_pairwise_squared_distance(x: torch.Tensor) -> torch.Tensor:
    """Smallest off-diagonal ‖x_i − x_j‖² of each point set ``(..., n, d)`` → ``(...)``.

    Memory O(n²) per set (exact differences, no ``(n, n, d)`` intermediate).
    """
    import torch

    from attnaudit import operators

    d2 = operators.squared_distances(x, x)
    eye = torch.eye(x.shape[-2], dtype=torch.bool, device=x.device)
    return d2.masked_fill(eye, math.inf).amin(dim=(-1, -2))


def min_pairwise_distance(x: torch.Tensor) -> torch.Tensor:
    """Smallest off-diagonal distance of each point set ``(..., n, d)`` → ``(...)``."""
    return min_pairwise_squared_distance(x).sqrt()


# ── Hypothesis strategies (numpy arrays; a spec converts them into its case dict) ──


def point_sets(*, n: tuple[int, int], d: tuple[int, int], bound: float = 10.0):
    """Arrays of shape (n, d) with finite coordinates in [−bound, bound] (floats shrink toward 0)."""
    import numpy as np
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    coords = st.floats(-bound, bound, allow_nan=False, allow_infinity=False, width=64)
    return st.tuples(st.integers(*n), st.integers(*d)).flatmap(
        lambda nd: arrays(np.float64, nd, elements=coords)
    )


def log_uniform_floats(low: float, high: float):
    """Floats ``10**e`` in [low, high], ``e`` a Hypothesis float in [log10 low, log10 high]: every
    decade is reached (Hypothesis draws are not uniform; they favour the ends and simple values).

    Shrinking acts on ``e`` like on any Hypothesis float: to 1.0 whenever 1 lies in [low, high];
    otherwise to the power of ten of smallest exponent in range (1e-3 for [1e-8, 1e-3], not ``low``),
    or to a short fraction of the exponent when no power of ten lies in range (tests/test_sampling.py).
    """
    from hypothesis import strategies as st

    lo, hi = math.log10(low), math.log10(high)
    # 10**log10(b) need not round back to b (0.3 → 0.29999999999999993): clamp to the stated range
    return st.floats(lo, hi, allow_nan=False).map(lambda e: min(max(10.0**e, low), high))
