"""Token families shared by the LaplacianFormer specs.

Segment-mean landmarks summarise runs of consecutive tokens, which is only informative when
neighbouring tokens are correlated (image patches, text): the suite draws tokens as a stationary
Gaussian AR(1) sequence, x_t = ρx_{t−1} + √(1−ρ²)z_t, z_t ~ N(0, I_d), ρ = RHO. Independent
tokens would make every segment mean ≈ 0 and every Nyström core ≈ the all-ones matrix.
"""

import math

import torch

RHO = 0.9
FAMILY = f"tokens a stationary Gaussian AR(1) sequence (ρ = {RHO:g}, unit variance per coordinate)"
RESOLUTION_LENGTH = 1 / 16  # correlation length as a fraction of the sequence (resolution family)
RESOLUTION_FAMILY = (f"tokens an Ornstein–Uhlenbeck sequence whose correlation length is a fixed "
                     f"fraction {RESOLUTION_LENGTH:g} of the sequence (ρ = exp(−1/(ℓn))): one image "
                     f"seen at finer patch resolution as n grows")


def bandwidth(d: int) -> float:
    """σ = √(2d): the typical distance between two independent tokens, E‖x − y‖² = 2d."""
    return math.sqrt(2 * d)


def _powers(rho, lag):
    return torch.where(lag >= 0, rho ** lag.clamp(min=0), torch.zeros((), dtype=lag.dtype, device=lag.device))


def ar1_tokens(ctx, gen, *shape: int):
    """``(*batch, n, d)`` AR(1) tokens along the n axis (float64 on the context's device)."""
    *batch, n, d = shape
    z = torch.randn(*batch, n, d, generator=gen, dtype=ctx.dtype, device=ctx.device)
    # x_t = Σ_s ρ^{t−s} c_s z_s with c_0 = 1, c_s = √(1−ρ²): one lower-triangular product, no loop.
    t = torch.arange(n, device=ctx.device)
    coef = _powers(RHO, (t[:, None] - t[None, :]).to(ctx.dtype))
    return coef * torch.where(t[None, :] == 0, 1.0, math.sqrt(1 - RHO**2)).to(ctx.dtype) @ z


def ou_tokens(ctx, gen, batch: int, n: int, d: int, rho: float | None = None, chunk: int = 64):
    """``(batch, n, d)`` stationary AR(1) tokens x_t = ρx_{t−1} + √(1−ρ²)z_t (by default the resolution
    family's ρ), by a chunked scan (within a chunk the closed form Σ ρ^{t−s}; chunk states carried by a
    short loop), so that ρ^{−chunk} never overflows."""
    rho = math.exp(-1 / (RESOLUTION_LENGTH * n)) if rho is None else rho
    z = torch.randn(batch, n, d, generator=gen, dtype=ctx.dtype, device=ctx.device)
    c = math.sqrt(1 - rho**2)
    size = min(chunk, n)
    if n % size:
        raise ValueError(f"n={n} must be a multiple of the chunk {size}")
    t = torch.arange(size, device=ctx.device, dtype=ctx.dtype)
    local = _powers(rho, t[:, None] - t[None, :]) @ (c * z.reshape(batch, n // size, size, d))  # zero start
    decay = (rho ** (t + 1))[:, None]
    state = z[:, 0] * (1 - c) / rho  # so that the first token is exactly z_0 (unit variance)
    out = []
    for j in range(n // size):
        out.append(local[:, j] + decay * state[:, None, :])
        state = out[-1][:, -1]
    return torch.cat(out, dim=1)
