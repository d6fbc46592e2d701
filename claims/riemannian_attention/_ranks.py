"""Token and metric families for the score-rank specs (theorem-3.2, corollary-3.3); ranks by
:func:`checks.measure.numerical_rank`."""

from __future__ import annotations

import torch


def family(ctx, gen, kind: str, batch: int, n: int, d: int, r: int = 2):
    """Tokens q, k ∈ R^d and per-token factors U_t ∈ R^{d×r}: ``full`` (independent Gaussian: span
    Sym(d) once n ≥ d(d+1)/2), ``two`` (each token one of two Gaussian factors: span 2) or
    ``homogeneous`` (one factor for all: span 1). Returns (q, k, u, span dimension)."""
    from attnaudit.checks import sampling

    q, k = sampling.gaussian(ctx, gen, batch, n, d), sampling.gaussian(ctx, gen, batch, n, d)
    if kind == "full":
        u = sampling.gaussian(ctx, gen, batch, n, d, r)
        span = min(n, d * (d + 1) // 2)
    elif kind == "two":
        pair = sampling.gaussian(ctx, gen, batch, 2, d, r)
        pick = torch.randint(0, 2, (batch, n), generator=gen)
        pick[:, 0], pick[:, 1] = 0, 1
        u = pair[torch.arange(batch)[:, None], pick]
        span = 2
    else:
        u = sampling.gaussian(ctx, gen, batch, 1, d, r).expand(batch, n, d, r).clone()
        span = 1
    return q, k, u, span
