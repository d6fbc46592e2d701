"""Costs of the metric-attention operators on meta tensors (no data, no memory).

FLOPs from ``torch.utils.flop_counter.FlopCounterMode``: the counter counts matrix products (mm,
bmm, addmm, baddbmm, einsum lowered to them) and attention kernels only. Every contraction of the
operators here is an einsum or a linear layer, so the count covers them; elementwise work (sums of
a few terms per pair, GELU) and the r × r Cholesky factorisation and solves are not counted: each
is stated where it matters.

Peak extra memory by explicit allocation accounting (CPU, any device): a ``TorchDispatchMode`` sees
every tensor an op returns; a storage is counted (its ``nbytes``) when first returned and released
when the last tensor seen on it is garbage-collected, so the running total is the memory held by
tensors the call allocated, and its maximum the peak extra memory. Inputs' storages are registered
first and never counted (views of them are free). Run on meta tensors, it measures sizes without
allocating them, so L × L intermediates of any L can be accounted. (On CUDA,
``torch.cuda.max_memory_allocated`` measures the same thing from the caching allocator; this
accounting needs no device.)
"""

from __future__ import annotations

import functools
import weakref

import torch

from attnaudit import operators
from attnaudit.checks import tolerances
from attnaudit.checks.fitting import closed_form_bias
from attnaudit.checks.measure import count_flops, meta


def per_point(fn):
    """A scaling law's measure: ``fn`` at each (integer) point of the grid."""
    return lambda ctx, grid: [fn(int(x)) for x in grid]


def closed_form_tol(grid, fn, exponent: float, source: str, **kw):
    """The fit bias of the closed form ``fn`` on ``grid``, computed when the check first runs."""
    return tolerances.FitBias(lambda: closed_form_bias(grid, [fn(x) for x in grid], exponent), source, **kw)


@functools.cache
def score_flops(n: int, d: int, r: int, part: str = "metric") -> int:
    """FLOPs of one score matrix for n queries and n keys: ``"metric"`` (the Eq. 16 decomposed
    metric scores), ``"euclid"`` (the Euclidean part: ‖q‖², ‖k‖², qᵀk), ``"correction"`` (their
    difference: what the metric adds), ``"standard"`` (standard attention QKᵀ and PV, d_v = d),
    ``"per-token"`` (the per-token precomputation U_iᵀq_i, U_jᵀk_j and their norms, per token)."""
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


def peak_bytes(fn, *inputs) -> int:
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    external = {t.untyped_storage()._cdata for t in inputs}
    live: dict[int, list[int]] = {}  # storage -> [nbytes, tensors seen on it]
    held = [0, 0]  # current, peak

    def release(key):
        entry = live.get(key)
        if entry is not None:
            entry[1] -= 1
            if entry[1] == 0:
                held[0] -= entry[0]
                del live[key]

    class LiveBytes(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in tree_flatten(out)[0]:
                if not isinstance(t, torch.Tensor) or (key := t.untyped_storage()._cdata) in external:
                    continue
                if key not in live:
                    live[key] = [t.untyped_storage().nbytes(), 0]
                    held[0] += live[key][0]
                    held[1] = max(held[1], held[0])
                live[key][1] += 1
                weakref.finalize(t, release, key)
            return out

    with LiveBytes():
        result = fn()
    del result
    return held[1]


@functools.cache
def attention_peak(n: int, d: int, r: int, form: str, block: int = 64, n_keys: int | None = None) -> int:
    """Peak extra bytes of one metric-attention call, n queries and ``n_keys`` (default n) keys,
    float64 on meta tensors: ``form`` = ``"fused"`` (metric_bias_attention) or ``"direct"``
    (metric_attention_direct)."""
    nk = n if n_keys is None else n_keys
    q, k, v, uq, uk = meta(n, d), meta(nk, d), meta(nk, d), meta(n, d, r), meta(nk, d, r)
    if form == "fused":
        return peak_bytes(lambda: operators.metric_bias_attention(q, k, v, uq=uq, uk=uk, block=block),
                          q, k, v, uq, uk)
    return peak_bytes(lambda: operators.metric_attention_direct(q, k, v, uq=uq, uk=uk), q, k, v, uq, uk)
