"""Registry entries for multi-head attention with explicit parameters (plain, biased, RoPE, GQA), the
RoPE rotation, the per-head weights and the connection walks.

References are loops in mpmath at ``DPS`` digits over the exact input values, written from the
formulas (per head: q = xW_Q + b_Q, k = xW_K + b_K rotated by RoPE, softmax of q·k/√d_h, values
xW_V + b_V, output through W_O), independent of the operators' einsum/matmul paths.
"""

import math

import mpmath
import torch

from attnaudit.operators import connection as C
from attnaudit.operators import mha as M

from .core import ErrorInput, OpInfo, Sample, Tolerance
from .samplers import F64, gen, normal

DTYPES = (torch.float64, torch.float32)


def _rope_mp(vec, pos, base):
    d_h = len(vec)
    out = list(vec)
    for k in range(d_h // 2):
        ang = pos * mpmath.power(mpmath.mpf(base), -mpmath.mpf(2 * k) / d_h)
        a, b = vec[2 * k], vec[2 * k + 1]
        out[2 * k], out[2 * k + 1] = (
            a * mpmath.cos(ang) - b * mpmath.sin(ang),
            a * mpmath.sin(ang) + b * mpmath.cos(ang),
        )
    return out


def _proj(x, w, b):
    return [
        [
            mpmath.fsum(xi[a] * w[a][e] for a in range(len(xi))) + (b[e] if b is not None else 0)
            for e in range(len(w[0]))
        ]
        for xi in x
    ]


def _ref_weights(x, wq, wk, bq=None, bk=None, rope=None):
    h, h_kv = len(wq), len(wk)
    out = []
    for head in range(h):
        g = head // (h // h_kv)
        q = _proj(x, wq[head], bq[head] if bq is not None else None)
        k = _proj(x, wk[g], bk[g] if bk is not None else None)
        if rope is not None:
            q = [_rope_mp(v, i, rope) for i, v in enumerate(q)]
            k = [_rope_mp(v, i, rope) for i, v in enumerate(k)]
        s = 1 / mpmath.sqrt(len(q[0]))
        rows = []
        for qi in q:
            logits = [s * mpmath.fsum(a * b for a, b in zip(qi, kj, strict=True)) for kj in k]
            top = max(logits)
            e = [mpmath.exp(t - top) for t in logits]
            rows.append([v / mpmath.fsum(e) for v in e])
        out.append(rows)
    return out


def _ref_mha(x, wq, wk, wv, wo, bq=None, bk=None, bv=None, bo=None, rope=None):
    h, h_kv, n, d_out = len(wq), len(wk), len(x), len(wo[0][0])
    weights = _ref_weights(x, wq, wk, bq, bk, rope)
    out = [[mpmath.mpf(0)] * d_out for _ in range(n)]
    for head in range(h):
        g = head // (h // h_kv)
        v = _proj(x, wv[g], bv[g] if bv is not None else None)
        for i in range(n):
            o = [mpmath.fsum(weights[head][i][j] * v[j][e] for j in range(n)) for e in range(len(v[0]))]
            for f in range(d_out):
                out[i][f] += mpmath.fsum(o[e] * wo[head][e][f] for e in range(len(o)))
    if bo is not None:
        out = [[out[i][f] + bo[f] for f in range(d_out)] for i in range(n)]
    return out


def _params(dtype, seed, h, h_kv, d_h, n=4, batch=2):
    """Gaussian x (batch, n, d) and weights N(0, 1/d), d = H·d_h (logits O(1))."""
    g = gen(seed)
    d = h * d_h
    x = normal(g, batch, n, d)
    ws = (normal(g, h, d, d_h), normal(g, h_kv, d, d_h), normal(g, h_kv, d, d_h), normal(g, h, d_h, d))
    return g, x.to(dtype), tuple((w / math.sqrt(d)).to(dtype) for w in ws)


def _mha_samples(variant):
    def samples(dtype):
        out = []
        for seed, (h, h_kv, d_h) in enumerate(
            ((1, 1, 2), (2, 2, 2), (4, 2, 2) if variant == "gqa" else (3, 3, 2))
        ):
            if variant == "gqa" and h_kv == h:
                h_kv = 1
            g, x, ws = _params(dtype, 7000 + seed, h, h_kv, d_h)
            kwargs = {"rope": 10000.0} if variant == "rope" else {}
            args = (x, *ws)
            if variant == "bias":
                d = h * d_h
                args = (*args, *(normal(g, *s).to(dtype) for s in ((h, d_h), (h_kv, d_h), (h_kv, d_h), (d,))))
            out.append(Sample(args, kwargs, f"H={h}, H_kv={h_kv}, d_h={d_h}"))
            big = Sample((3.0 * x, *args[1:]), kwargs, f"H={h}, inputs ×3 (logits ~10)")
            out.append(big)
        return out

    return samples


def _mha_errors():
    x = torch.zeros(2, 3, 4, dtype=F64)
    w = torch.zeros(2, 4, 2, dtype=F64)
    wo = torch.zeros(2, 2, 4, dtype=F64)
    nan = x.clone()
    nan[0, 0, 0] = math.nan
    return [
        ErrorInput("wq not 3-dim", lambda: M.mha_attention(x, w[0], w, w, wo), ValueError, "at least 3 dims"),
        ErrorInput(
            "model dim mismatch",
            lambda: M.mha_attention(x[..., :3], w, w, w, wo),
            ValueError,
            "model dimension",
        ),
        ErrorInput(
            "head size mismatch",
            lambda: M.mha_attention(x, w, w[..., :1], w, wo),
            ValueError,
            "mismatched head sizes",
        ),
        ErrorInput(
            "H not a multiple of H_kv",
            lambda: M.mha_attention(
                x, torch.zeros(3, 4, 2, dtype=F64), w, w, torch.zeros(3, 2, 4, dtype=F64)
            ),
            ValueError,
            "multiple",
        ),
        ErrorInput("wo shape", lambda: M.mha_attention(x, w, w, w, wo[:, :1]), ValueError, "wo must be"),
        ErrorInput(
            "bias shape",
            lambda: M.mha_attention(x, w, w, w, wo, bk=torch.zeros(3, dtype=F64)),
            ValueError,
            "bk must have shape",
        ),
        ErrorInput(
            "integer dtype", lambda: M.mha_attention(x.long(), w, w, w, wo), TypeError, "floating dtype"
        ),
        ErrorInput(
            "mixed dtypes", lambda: M.mha_attention(x.float(), w, w, w, wo), TypeError, "share one dtype"
        ),
        ErrorInput(
            "odd head size with RoPE",
            lambda: M.mha_attention(x, w[..., :1], w[..., :1], w, wo, rope=10000.0),
            ValueError,
            "even head size",
        ),
        ErrorInput("NaN", lambda: M.mha_attention(nan, w, w, w, wo), ValueError, "contains NaN"),
    ]


def _rope_samples(dtype):
    g = gen(7100)
    x = normal(g, 2, 5, 6)
    return [
        Sample((x.to(dtype),), {"base": 10000.0}, "n=5, d_h=6"),
        Sample(((10 * x).to(dtype),), {"base": 100.0}, "base 100, ×10"),
    ]


def _rope_errors():
    return [
        ErrorInput(
            "odd d_h", lambda: M.rope_rotate(torch.zeros(3, 5, dtype=F64)), ValueError, "even head size"
        ),
        ErrorInput(
            "base ≤ 1", lambda: M.rope_rotate(torch.zeros(3, 4, dtype=F64), base=1.0), ValueError, "base"
        ),
        ErrorInput(
            "integer dtype",
            lambda: M.rope_rotate(torch.zeros(3, 4, dtype=torch.long)),
            TypeError,
            "floating dtype",
        ),
    ]


def _walk_samples(per_edge):
    def samples(dtype):
        out = []
        for seed, (n, d_in, d_out) in enumerate(((3, 2, 2), (5, 3, 2))):
            g = gen(7200 + seed)
            x = normal(g, 2, n, d_in)
            walk = torch.rand(2, n, n, generator=g, dtype=F64)
            t = normal(g, 2, n, n, d_out, d_in) if per_edge else normal(g, d_out, d_in)
            out.append(Sample((x.to(dtype), walk.to(dtype), t.to(dtype)), {}, f"n={n}, d={d_in}→{d_out}"))
        return out

    return samples


def _ref_walk(per_edge):
    def ref(x, walk, t):
        n, d_out = len(walk), len(t[0][0]) if per_edge else len(t)
        out = []
        for i in range(n):
            row = []
            for a in range(d_out):
                row.append(
                    mpmath.fsum(
                        walk[i][j] * (t[i][j] if per_edge else t)[a][b] * x[j][b]
                        for j in range(len(x))
                        for b in range(len(x[0]))
                    )
                )
            out.append(row)
        return out

    return ref


def _walk_errors():
    x, walk, t = torch.zeros(3, 2, dtype=F64), torch.zeros(3, 3, dtype=F64), torch.zeros(2, 2, dtype=F64)
    nan = x.clone()
    nan[0, 0] = math.nan
    return [
        ErrorInput("walk columns ≠ n", lambda: C.connection_walk(x, walk[:, :2], t), ValueError, "columns"),
        ErrorInput("transport d_in", lambda: C.connection_walk(x, walk, t[:, :1]), ValueError, "d_in"),
        ErrorInput(
            "per-edge shape",
            lambda: C.connection_walk(x, walk, t, per_edge=True),
            ValueError,
            "per-edge transport",
        ),
        ErrorInput(
            "mixed dtypes", lambda: C.connection_walk(x.float(), walk, t), TypeError, "share one dtype"
        ),
        ErrorInput("NaN", lambda: C.connection_walk(nan, walk, t), ValueError, "contains NaN"),
    ]


MHA_TOL = Tolerance(
    32,
    "d-term projections (d ≤ 6), logits up to ~10 whose absolute error becomes a relative error of "
    "the softmax weights (the max-subtracted exp), n-term value sums and H·d_h-term output sums; "
    "measured ≤ 3·eps on these samples",
)
WALK_TOL = Tolerance(8, "one einsum of n·d products (n·d ≤ 15)")


def _mha(variant: str | None, samples: str, **fields) -> OpInfo:
    """An entry on MHA's samples (plain, bias, rope, gqa): mha_attention unless ``fields`` say otherwise."""
    common = {"func": M.mha_attention, "ref": _ref_mha, "core_dims": (2, 3, 3, 3, 3), "errors": _mha_errors,
              "dtypes": DTYPES, "tol": MHA_TOL, "measure": "normwise", "reference_kind": "loops"}
    return OpInfo(**(common | fields), variant=variant, samples=_mha_samples(samples))


ENTRIES = [
    _mha(None, "plain"),
    _mha("bias", "bias",
         op=lambda x, wq, wk, wv, wo, bq, bk, bv, bo: M.mha_attention(x, wq, wk, wv, wo, bq=bq, bk=bk, bv=bv,
                                                                      bo=bo),
         ref=lambda x, wq, wk, wv, wo, bq, bk, bv, bo: _ref_mha(x, wq, wk, wv, wo, bq, bk, bv, bo),
         core_dims=(2, 3, 3, 3, 3, 2, 2, 2, 1)),
    _mha("rope", "rope"),
    _mha("gqa", "gqa"),
    _mha(None, "rope", func=M.mha_weights,
         op=lambda x, wq, wk, wv, wo, **kw: M.mha_weights(x, wq, wk, **kw),
         ref=lambda x, wq, wk, wv, wo, **kw: _ref_weights(x, wq, wk, **kw)),
    _mha(None, "gqa", func=C.mha_connection,
         op=lambda x, wq, wk, wv, wo, **kw: C.connection_walk(
             x, *C.mha_connection(x, wq, wk, wv, wo, **kw)[:2]),
         tol=Tolerance(64, "MHA's error model, then the gates' H-term normalisation and the walk's n·d-term "
                           "sum")),
    OpInfo(func=M.rope_rotate, ref=lambda x, base: [_rope_mp(v, i, base) for i, v in enumerate(x)],
           core_dims=(2,), samples=_rope_samples, errors=_rope_errors, dtypes=DTYPES,
           tol=Tolerance(8, "cos/sin of angles ≤ 4 (float64 angles, then cast), two products and a sum"),
           measure="normwise", reference_kind="loops"),
    OpInfo(func=C.connection_walk, variant="constant", ref=_ref_walk(False), core_dims=(2, 2, 2),
           samples=_walk_samples(False), errors=_walk_errors, dtypes=DTYPES, tol=WALK_TOL,
           measure="normwise", reference_kind="loops"),
    OpInfo(func=C.connection_walk, variant="edge",
           op=lambda x, w, t: C.connection_walk(x, w, t, per_edge=True),
           ref=_ref_walk(True), core_dims=(2, 2, 4), samples=_walk_samples(True), errors=_walk_errors,
           dtypes=DTYPES, tol=WALK_TOL, measure="normwise", reference_kind="loops"),
]
