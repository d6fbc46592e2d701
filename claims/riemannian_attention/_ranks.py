"""Token and metric families for the score-rank specs (theorem-3.2, corollary-3.3); ranks by
:func:`checks.measure.numerical_rank`."""

from __future__ import annotations

import torch

from attnaudit.checks.sampling import gaussian


def family(ctx, gen, kind: str, batch: int, n: int, d: int, r: int = 2):
    """Tokens q, k ∈ R^d and per-token factors U_t ∈ R^{d×r}: ``full`` (independent Gaussian: span
    Sym(d) once n ≥ d(d+1)/2), ``two`` (each token one of two Gaussian factors: span 2) or
    ``homogeneous`` (one factor for all: span 1). Returns (q, k, u, span dimension)."""
    q, k = gaussian(ctx, gen, batch, n, d), gaussian(ctx, gen, batch, n, d)
    if kind == "full":
        return q, k, gaussian(ctx, gen, batch, n, d, r), min(n, d * (d + 1) // 2)
    if kind == "two":
        pair = gaussian(ctx, gen, batch, 2, d, r)
        pick = torch.randint(0, 2, (batch, n), generator=gen)
        pick[:, 0], pick[:, 1] = 0, 1
        return q, k, pair[torch.arange(batch)[:, None], pick], 2
    return q, k, gaussian(ctx, gen, batch, 1, d, r).expand(batch, n, d, r).clone(), 1
