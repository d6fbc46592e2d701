r"""Sample generators for the registry, named for what they produce.

Boundary samplers build points directly (a direction times a chosen radius) and check
membership with exact arithmetic (mpmath), never through the operator under test.
Every generator takes a seed; the same seed gives the same samples.
"""

import math

import mpmath
import torch

F64 = torch.float64


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def normal(g: torch.Generator, *shape: int) -> torch.Tensor:
    """Standard normal float64 entries."""
    return torch.randn(*shape, generator=g, dtype=F64)


def unit(g: torch.Generator, *shape: int) -> torch.Tensor:
    """Uniform directions on the unit sphere (last dim), float64."""
    x = normal(g, *shape)
    return x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)


def tangent(g: torch.Generator, x: torch.Tensor) -> torch.Tensor:
    """Unit vectors orthogonal to each (non-zero) row of x."""
    w = normal(g, *x.shape)
    xh = x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    w = w - (w * xh).sum(-1, keepdim=True) * xh
    return w / torch.linalg.vector_norm(w, dim=-1, keepdim=True)


def boundary_exponents(dtype: torch.dtype, k_max: int = 8) -> list[int]:
    """k such that 1 - 10^-k is resolved by ``dtype``: 1..min(k_max, floor(-log10 eps))."""
    return list(range(1, min(k_max, math.floor(-math.log10(torch.finfo(dtype).eps))) + 1))


def inside_ball(x: torch.Tensor, c: float = 1.0) -> bool:
    """Exact test ``c·‖x‖² < 1`` for every row of x's values (mpmath, 60 digits)."""
    with mpmath.workdps(60):
        for row in x.detach().to(F64).reshape(-1, x.shape[-1]).tolist():
            if mpmath.mpf(c) * mpmath.fsum(mpmath.mpf(v) ** 2 for v in row) >= 1:
                return False
    return True


def cast_inside(x: torch.Tensor, dtype: torch.dtype, c: float = 1.0) -> torch.Tensor | None:
    """``x`` rounded to ``dtype`` if every point is still inside the ball, else None."""
    y = x.to(dtype)
    return y if inside_ball(y, c) else None


def ball_at_radius(g: torch.Generator, n: int, d: int, radius: float) -> torch.Tensor:
    """n points of norm ``radius`` (float64, before rounding to the sample dtype)."""
    return unit(g, n, d) * radius


def near(g: torch.Generator, x: torch.Tensor, h: float) -> torch.Tensor:
    """Points at Euclidean distance ~h from x, moved inward (0.6h) and sideways (0.8h)."""
    xh = x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    return x + h * (0.8 * tangent(g, x) - 0.6 * xh)


def at_angle(g: torch.Generator, x: torch.Tensor, theta: float) -> torch.Tensor:
    """Unit vectors at angle θ from the unit rows of x."""
    return math.cos(theta) * x + math.sin(theta) * tangent(g, x)


def grad_qkv(seed: int, n: int = 5, d: int = 3) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Gradcheck inputs (float64, batch 2, n tokens of d dims): q, k and v standard normal, with the
    last key exactly on the first query (the derivatives must stay exact at coincident points)."""
    g = gen(seed)
    q, k, v = normal(g, 2, n, d), normal(g, 2, n, d), normal(g, 2, n, d)
    return q, torch.cat([k[:, :-1], q[:, :1]], dim=1), v


def in_ball(x: torch.Tensor, c: float = 1.0) -> torch.Tensor:
    """Points of the ball of curvature -c at radius < 0.9/√c (tanh of the norm): a finite-difference
    step of 1e-6 stays inside the ball."""
    n = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    return torch.tanh(n) * x / n * (0.9 / math.sqrt(c))
