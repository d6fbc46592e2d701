"""Cost measurements of the HIDA family shared by Theorems 5.4, 5.5, 5.6 and Proposition 11.1.

FLOPs are counted by ``torch.utils.flop_counter.FlopCounterMode`` on ``meta`` tensors: the
operators' own code runs on shapes only, so counting at n = 10⁵ costs milliseconds. FP-HIDA's
gather width is the real max_i |S_i| (exhaustive count, ``operators.hida.fp_hida_set_sizes``).
The counter sees matmul-type ops only; in every operator here those carry the d_h-proportional
work (distances via inner products, weighted sums of values), and the rest is O(1) elementwise work
per query–key pair (the asinh, the reciprocal, the normalisation), i.e. proportional to the same
pair count. Wall time is not recorded: records are byte-identical for a seed.
"""

from __future__ import annotations

from attnaudit.checks.measure import count_flops, meta

D_H = 16  # d_h = d_v of the FLOP counts: the counts are exactly linear in d_h (2·pairs·(d_h + d_v))


def fp_width(ctx, n: int) -> int:
    """max_i |S_i| at w = g = ⌈log₂ n⌉, exhaustive (cached per claim run)."""
    from attnaudit.operators.hida import fp_default_width, fp_hida_set_sizes

    def run():
        w = fp_default_width(n)
        return int(fp_hida_set_sizes(n, w=w, g=min(w, n)).max())

    return ctx.cached(("fp-width", n), run)


def fp_flops(ctx, n: int, d: int = D_H) -> int:
    import torch

    from attnaudit.operators.hida import fp_hida_attention

    width = fp_width(ctx, n)
    idx, mask = meta(n, width).to(torch.int64), meta(n, width).to(torch.bool)
    return count_flops(lambda: fp_hida_attention(meta(n, d), meta(n, d), meta(n, d), eps=1e-2,
                                                 index=(idx, mask)))


def dense_flops(n: int, d: int = D_H) -> int:
    from attnaudit.operators.hida import dense_hida_gram

    return count_flops(lambda: dense_hida_gram(meta(n, d), meta(n, d), meta(n, d), eps=1e-2))


def l_flops(n: int, m: int, d: int = D_H) -> int:
    from attnaudit.operators.hida import l_hida_attention

    return count_flops(lambda: l_hida_attention(meta(n, d), meta(n, d), meta(n, d), meta(m, d),
                                                eps=1e-2))


def c_token_flops(n_seen: int, c: int, d: int = D_H) -> int:
    """FLOPs of C-HIDA's work for token n: attend over the c summaries, assign, update. The state
    (c summaries, their values and counts) has the same shapes whatever n_seen is."""
    from attnaudit.operators.hida import c_hida_attention, c_hida_step

    del n_seen  # the per-token work reads only the c-sized state

    def run():
        x = meta(1, d)
        c_hida_attention(x, meta(c, d), meta(c, d), eps=1e-2)
        c_hida_step(x[None], meta(1, c, d), meta(1, c), lr=1.0)

    return count_flops(run)
