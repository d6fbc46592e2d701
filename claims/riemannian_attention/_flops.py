"""FLOP counts of the metric-attention operators on meta tensors (no data, no memory), from
``torch.utils.flop_counter.FlopCounterMode``.

The counter counts matrix products (mm, bmm, addmm, baddbmm, einsum lowered to them) and
attention kernels only. Every contraction of the operators here is an einsum or a linear layer,
so the count covers them; elementwise work (sums of a few terms per pair, GELU) and the r × r
Cholesky factorisation and solves are not counted: each is stated where it matters.
"""

from __future__ import annotations

import functools
import math

import torch

from attnaudit.checks.measure import count_flops, meta


def log_grid(lo: int, hi: int, n: int) -> tuple[int, ...]:
    """``n`` integers log-spaced from lo to hi (distinct, sorted)."""
    vals = sorted({int(round(math.exp(math.log(lo) + i * (math.log(hi) - math.log(lo)) / (n - 1))))
                   for i in range(n)})
    return tuple(vals)


@functools.cache
def score_flops(n: int, d: int, r: int, part: str = "metric") -> int:
    """FLOPs of one score matrix for n queries and n keys: ``"metric"`` (the Eq. 16 decomposed
    metric scores), ``"euclid"`` (the Euclidean part: ‖q‖², ‖k‖², qᵀk), ``"correction"`` (their
    difference: what the metric adds), ``"standard"`` (standard attention QKᵀ and PV, d_v = d),
    ``"per-token"`` (the per-token precomputation U_iᵀq_i, U_jᵀk_j and their norms, per token)."""
    from attnaudit import operators

    q, k, u = meta(n, d), meta(n, d), meta(n, d, r)
    if part == "metric":
        return count_flops(lambda: operators.metric_scores(q, k, uq=u, uk=u))
    if part == "euclid":
        return count_flops(lambda: operators.metric_scores(q, k, uq=meta(n, d, 0), uk=meta(n, d, 0)))
    if part == "correction":
        return score_flops(n, d, r, "metric") - score_flops(n, d, r, "euclid")
    if part == "standard":
        v = meta(n, d)
        return count_flops(lambda: torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v)
    if part == "per-token":
        def per_token():
            a = torch.einsum("...idr,...id->...ir", u, q)
            torch.einsum("...ir,...ir->...i", a, a)

        return count_flops(per_token) // n
    raise ValueError(part)
