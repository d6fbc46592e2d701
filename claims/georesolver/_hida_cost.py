"""Cost measurements of the HIDA family shared by Theorems 5.4, 5.5, 5.6 and Proposition 11.1.

FLOPs are counted by ``torch.utils.flop_counter.FlopCounterMode`` on ``meta`` tensors: the
operators' own code runs on shapes only, so counting at n = 10⁵ costs milliseconds. FP-HIDA's
gather width is the real max_i |S_i| (exhaustive count, ``operators.hida.fp_hida_set_sizes``).
The counter sees matmul-type ops only; in every operator here those carry the d_h-proportional
work (distances via inner products, weighted sums of values), and the rest is O(1) elementwise work
per query–key pair (the asinh, the reciprocal, the normalisation), i.e. proportional to the same
pair count. C-HIDA's per-token count is taken on the operator's real state after n tokens of a
stream (``c_token_flops``), so a state that grew with the stream would show in it; causal
Dense-HIDA (token n attends over all n keys seen) is its contrast. Wall time is not recorded:
records are byte-identical for a seed.
"""

from __future__ import annotations

import functools

import numpy as np
import torch

from attnaudit import operators
from attnaudit.checks import control, grids, tolerances
from attnaudit.checks.measure import count_flops, meta

# The token counts of the sweeps: n = 16 … 65536 (×4; full ×2), then 10⁵; and n = 16 … 16384.
TOKEN_GRID = grids.per_profile(quick=np.append(grids.geometric(16, 4, 7), 100000),
                               full=np.append(grids.geometric(16, 2, 13), 100000))
TOKEN_GRID_16K = grids.per_profile(quick=grids.geometric(16, 4, 6), full=grids.geometric(16, 2, 11))
D_H = 16  # d_h = d_v of the FLOP counts: the counts are exactly linear in d_h (2·pairs·(d_h + d_v))
COUNT = tolerances.Exact("exact integer FLOP counts; only the log-log fit's round-off (1e-9)", value=1e-9)


def flops_per_dh(cost, *by):
    """A ScalingLaw measure: the FLOPs ``cost(ctx, n)`` / d_h at each n of the grid, divided in turn by
    each ``by(n)`` (``float``: per token; ``math.log2``: per log₂ n)."""
    def run(ctx, grid):
        values = []
        for n in map(int, grid):
            value = cost(ctx, n) / D_H
            for f in by:
                value /= f(n)
            values.append(value)
        return np.array(values)

    return run


@functools.lru_cache(maxsize=64)
def size_stats(n: int, w: int, g: int) -> tuple[int, int]:
    """(max_i |S_i|, Σ_i |S_i|) of Definition 5.2's sets, exhaustive over i (a pure function of (n, w, g))."""
    sizes = operators.hida.fp_hida_set_sizes(n, w=w, g=g)
    return int(sizes.max()), int(sizes.sum())


def log_width(n: int) -> tuple[int, int]:
    """(w, g) at w = g = ⌈log₂ n⌉ (g at most n)."""
    w = operators.hida.fp_default_width(n)
    return w, min(w, n)


def fp_width(n: int) -> int:
    """max_i |S_i| at w = g = ⌈log₂ n⌉, exhaustive."""
    return size_stats(n, *log_width(n))[0]


def fp_flops(ctx, n: int) -> int:
    """FLOPs of FP-HIDA's gather over index sets of the real width max_i |S_i| per row."""
    idx, mask = meta(n, fp_width(n)).to(torch.int64), meta(n, fp_width(n)).to(torch.bool)
    return count_flops(lambda: operators.hida.fp_hida_attention(meta(n, D_H), meta(n, D_H), meta(n, D_H),
                                                                eps=1e-2, index=(idx, mask)))


def dense_flops(ctx, n: int) -> int:
    return count_flops(lambda: operators.hida.dense_hida_gram(meta(n, D_H), meta(n, D_H), meta(n, D_H),
                                                              eps=1e-2))


def l_flops(ctx, n: int, m: int) -> int:
    return count_flops(lambda: operators.hida.l_hida_attention(meta(n, D_H), meta(n, D_H), meta(n, D_H),
                                                               meta(m, D_H), eps=1e-2))


def _c_states(ctx, c: int, marks: tuple[int, ...]) -> dict[int, tuple]:
    """C-HIDA's state (summaries, counts) after n tokens for each n of ``marks``: one stream of keys
    (uniform directions, radius ≤ 0.8 in the ball) through the operator's own online step
    (``c_hida_step``), summaries started at the first c tokens. Cached per claim run."""
    def run():
        gen = ctx.generator(f"c-stream:{c}:{D_H}")
        total = max(marks) + 1
        x = torch.randn(1, total, D_H, generator=gen, dtype=torch.float64)
        keys = x / torch.linalg.vector_norm(x, dim=-1, keepdim=True) * 0.8 * torch.rand(
            1, total, 1, generator=gen, dtype=torch.float64) ** (1 / D_H)
        s, counts = keys[:, :c].clone(), torch.zeros(1, c, dtype=torch.float64)
        states, wanted = {}, set(marks)
        for t in range(c, total):
            if t in wanted:
                states[t] = (s, counts, keys[:, t : t + 1])
            _, s, counts = operators.hida.c_hida_step(keys[:, t : t + 1], s, counts, lr=1.0)
        return states

    return ctx.cached(("c-states", c, D_H, tuple(marks)), run)


def c_token_flops(ctx, n_seen: int, c: int, marks: tuple[int, ...] | None = None) -> int:
    """FLOPs of C-HIDA's work for the token after ``n_seen`` tokens, counted on the operator's real
    state at that point of a stream (``_c_states``, marked at ``marks``, by default the n of
    TOKEN_GRID_16K): attend over the current summaries, assign, update. Nothing here fixes the
    state's size: an operator whose state grew with the stream would show its growth in this count."""
    marks = tuple(int(m) for m in TOKEN_GRID_16K(ctx)) if marks is None else marks
    s, counts, x = _c_states(ctx, c, marks)[n_seen]
    values = torch.ones(s.shape[1], D_H, dtype=s.dtype)

    def run():
        operators.hida.c_hida_attention(x[0], s[0], values, eps=1e-2)
        operators.hida.c_hida_step(x, s, counts, lr=1.0)

    return count_flops(run)


def causal_dense_token_flops(ctx, n_seen: int) -> int:
    """FLOPs of causal Dense-HIDA's work for the token after ``n_seen`` tokens: one query attends
    over every key seen so far (the contrasted streaming operator)."""
    return count_flops(lambda: operators.hida.dense_hida_gram(meta(1, D_H), meta(n_seen + 1, D_H),
                                                              meta(n_seen + 1, D_H), eps=1e-2))


# The operator control of a per-token C-HIDA count (Theorem 5.6, Proposition 11.1).
CAUSAL_DENSE = control("causal Dense-HIDA (token n attends over the n keys seen) in its place",
                       contrast="operator", measure=flops_per_dh(causal_dense_token_flops))
