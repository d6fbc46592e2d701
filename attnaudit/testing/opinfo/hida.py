"""Registry entries for the sub-quadratic HIDA family and HCC (``operators.hida``, ``operators.hcc``).

References are loops in mpmath at 60 digits on the exact inputs: Definition 5.2's index sets by
Python sets (FP-HIDA), Definition 5.3's two weightings and sums (L-HIDA), the Nyström kernel with an
mpmath matrix inverse, the IDA over summaries (C-HIDA), the §6 quantiser with mpmath rounding (HCC).

Error model of the Gram-form distances (module docstring of ``operators.hida``): ‖x − y‖² from
‖x‖² + ‖y‖² − 2⟨x, y⟩ has absolute error ≲ 4u(‖x‖² + ‖y‖²); δ = ‖x − y‖²/(α_xα_y) and
d² = 4 asinh²√δ (slope ≤ 4 in δ) carry it to an absolute error in d² below
16u·max (‖x‖² + ‖y‖²)/(α_xα_y), and the weights (d² + ε)⁻¹/Σ to a relative error of twice that over ε.
"""

import math

import mpmath
import torch

from attnaudit.operators import hcc as H
from attnaudit.operators import hida as HD

from .core import ErrorInput, OpInfo, Sample, Tolerance, poincare_distance_mp
from .samplers import F64, gen, normal, unit

DTYPES = (torch.float64, torch.float32)


def _gram_model(*names_idx):
    """The Gram-form term 2·16u·max(‖x‖²+‖y‖²)/(α_xα_y)/ε over the sample's point sets."""

    def model(dtype, sample):
        pts = [sample.args[i].detach().to(F64) for i in names_idx]
        sq = [p.square().sum(-1).reshape(-1) for p in pts]
        worst = max(float((a.max() + b.max()) / ((1 - a.max()) * (1 - b.max()))) for a in sq for b in sq)
        return 32 * torch.finfo(dtype).eps * worst / sample.kwargs["eps"]

    return model


def _gram_tol(*names_idx) -> Tolerance:
    return Tolerance(64, "Gram-form distances, relative to the output", _gram_model(*names_idx),
                     "32·eps·max(‖x‖²+‖y‖²)/(α_xα_y)/ε")


def _weights(q, keys, eps):
    eps = mpmath.mpf(eps)
    out = []
    for qi in q:
        inv = [1 / (poincare_distance_mp(qi, kj, 1) ** 2 + eps) for kj in keys]
        total = mpmath.fsum(inv)
        out.append([w / total for w in inv])
    return out


def _combine(w, v):
    return [[mpmath.fsum(wi[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))] for wi in w]


# ---------------------------------------------------------------- FP-HIDA
def _ref_fp(q, k, v, eps, w, g, **_):
    sets = HD.definition_sets(len(k), w, g)
    out = []
    for i, qi in enumerate(q):
        idx = sorted(sets[i])
        wi = _weights([qi], [k[j] for j in idx], eps)[0]
        out.append(_combine([wi], [v[j] for j in idx])[0])
    return out


def _ball(g, *shape, rmax=0.9):
    x = unit(g, *shape)
    return x * (rmax * torch.rand(*shape[:-1], 1, generator=g, dtype=F64))


def _fp_samples(dtype):
    g = gen(6100 + DTYPES.index(dtype))
    out = []
    for n, w, gg in ((5, 1, 2), (9, 2, 3), (13, 0, 1)):
        q, k, v = _ball(g, n, 3), _ball(g, n, 3), normal(g, n, 2)
        k[2] = q[2]  # a coincident pair
        for eps in (1e-2, 1e-4):
            out.append(Sample((q.to(dtype), k.to(dtype), v.to(dtype)), {"eps": eps, "w": w, "g": gg},
                              f"n={n} w={w} g={gg}, coincident pair, ε={eps:g}"))
    q, k, v = _ball(g, 2, 6, 2), _ball(g, 2, 6, 2), normal(g, 2, 6, 2)
    out.append(Sample((q.to(dtype), k.to(dtype), v.to(dtype)), {"eps": 1e-2, "w": 1, "g": 2}, "batch of 2"))
    return out


def _ball_errors(fn, extra=()):
    q, k, v = (torch.full((3, 2), 0.1, dtype=F64), torch.full((3, 2), 0.2, dtype=F64),
               torch.zeros(3, 2, dtype=F64))
    nan = q.clone()
    nan[0, 0] = math.nan
    return [
        ErrorInput("mismatched d", lambda: fn(q, torch.zeros(3, 3, dtype=F64), v, eps=1.0), ValueError,
                   "mismatched last dims"),
        ErrorInput("integer dtype", lambda: fn(q.long(), k.long(), v.long(), eps=1.0), TypeError,
                   "floating dtype"),
        ErrorInput("mixed dtypes", lambda: fn(q, k.float(), v, eps=1.0), TypeError, "share one dtype"),
        ErrorInput("NaN", lambda: fn(nan, k, v, eps=1.0), ValueError, "contains NaN"),
        ErrorInput("eps = 0", lambda: fn(q, k, v, eps=0.0), ValueError, "eps must be positive"),
        ErrorInput("‖k‖ >= 1", lambda: fn(q, torch.full((3, 2), 0.8, dtype=F64), v, eps=1.0), ValueError,
                   "inside the Poincaré ball"),
        ErrorInput("c = -1", lambda: fn(q, k, v, eps=1.0, c=-1.0), ValueError, "c must be positive"),
        *extra,
    ]


def _fp_errors():
    q, v = torch.full((3, 2), 0.1, dtype=F64), torch.zeros(3, 2, dtype=F64)
    fp = HD.fp_hida_attention
    return _ball_errors(fp, (
        ErrorInput("n_q ≠ n_k", lambda: fp(q[:2], q, v, eps=1.0), ValueError, "index sets are per position"),
        ErrorInput("g > n", lambda: fp(q, q, v, eps=1.0, w=1, g=4), ValueError, r"g must lie in \[1, n\]"),
        ErrorInput("w < 0", lambda: fp(q, q, v, eps=1.0, w=-1, g=1), ValueError, "w must be >= 0"),
        ErrorInput("w float", lambda: fp(q, q, v, eps=1.0, w=1.5, g=1), TypeError, "w must be an int"),
    ))


# ---------------------------------------------------------------- L-HIDA and Nyström
def _ref_l(normalise):
    def ref(q, k, v, a, eps, **_):
        w_ka = _weights(k, a, eps)  # (n, m): each key over the anchors
        m = len(a)
        summaries = [[mpmath.fsum(w_ka[i][kk] * v[i][c] for i in range(len(k))) for c in range(len(v[0]))]
                     for kk in range(m)]
        if normalise:
            mass = [mpmath.fsum(w_ka[i][kk] for i in range(len(k))) for kk in range(m)]
            summaries = [[s / mass[kk] for s in summaries[kk]] for kk in range(m)]
        return _combine(_weights(q, a, eps), summaries)

    return ref


def _ref_nystrom(q, k, v, a, eps, **_):
    eps = mpmath.mpf(eps)
    kern = lambda xs, ys: mpmath.matrix([[1 / (poincare_distance_mp(x, y, 1) ** 2 + eps) for y in ys]  # noqa: E731
                                         for x in xs])
    left = kern(q, a) * mpmath.inverse(kern(a, a))
    right = kern(a, k)
    full = left * right
    out = []
    for i in range(len(q)):
        den = mpmath.fsum(full[i, j] for j in range(len(k)))
        out.append([mpmath.fsum(full[i, j] * v[j][c] for j in range(len(k))) / den for c in range(len(v[0]))])
    return out


def _anchor_samples(dtype):
    g = gen(6200 + DTYPES.index(dtype))
    out = []
    for n_q, n, m in ((3, 5, 2), (4, 7, 3)):
        q, k, v = _ball(g, n_q, 3), _ball(g, n, 3), normal(g, n, 2)
        a = k[:m].clone() + 0.05 * normal(g, m, 3)
        for eps in (1e-1, 1e-3):
            out.append(Sample((q.to(dtype), k.to(dtype), v.to(dtype), a.to(dtype)), {"eps": eps},
                              f"n_q={n_q} n={n} m={m}, ε={eps:g}"))
    return out


def _anchor_errors(fn):
    a = torch.full((2, 2), 0.05, dtype=F64)
    wrapped = lambda q, k, v, **kw: fn(q, k, v, a.to(q.dtype) if q.dtype.is_floating_point else a, **kw)  # noqa: E731
    q, v = torch.full((3, 2), 0.1, dtype=F64), torch.zeros(3, 2, dtype=F64)
    return _ball_errors(wrapped, (
        ErrorInput("anchors of the wrong d", lambda: fn(q, q, v, torch.zeros(2, 3, dtype=F64), eps=1.0),
                   ValueError, "anchors must be"),
    ))


# ---------------------------------------------------------------- C-HIDA and Dense (Gram)
def _ref_dense(q, k, v, eps, **_):
    return _combine(_weights(q, k, eps), v)


def _dense_samples(dtype):
    g = gen(6300 + DTYPES.index(dtype))
    q, k, v = _ball(g, 4, 3), _ball(g, 5, 3), normal(g, 5, 2)
    k[1] = q[0]
    return [Sample((q.to(dtype), k.to(dtype), v.to(dtype)), {"eps": eps}, f"coincident pair, ε={eps:g}")
            for eps in (1e-2, 1e-4)]


# ---------------------------------------------------------------- HCC
def _ref_hcc(k, b, b_r, **_):
    r = mpmath.sqrt(mpmath.fsum(x * x for x in k))
    u = [x / r for x in k] if r > 0 else [mpmath.mpf(1)] + [mpmath.mpf(0)] * (len(k) - 1)
    top = 2**b - 1
    u_hat = [mpmath.nint((x + 1) / 2 * top) / top * 2 - 1 for x in u]
    r_hat = min(mpmath.nint(r * 2**b_r), 2**b_r - 1) / mpmath.mpf(2**b_r)
    return [r_hat * x for x in u_hat]


def _hcc_samples(dtype):
    g = gen(6400 + DTYPES.index(dtype))
    out = []
    for d, b, b_r in ((4, 4, 6), (32, 4, 6), (16, 2, 8), (8, 8, 2)):
        k = unit(g, 6, d) * torch.rand(6, 1, generator=g, dtype=F64) * 0.999
        k[0] = 0  # the zero key: u = e_1
        out.append(Sample((k.to(dtype),), {"b": b, "b_r": b_r}, f"d_h={d} b={b} b_r={b_r}, zero key"))
    return out


def _hcc_errors():
    k = torch.full((2, 3), 0.1, dtype=F64)
    return [
        ErrorInput("outside the ball", lambda: H.hcc_roundtrip(torch.ones(2, 3, dtype=F64), b=4, b_r=6),
                   ValueError, "open unit ball"),
        ErrorInput("b = 0", lambda: H.hcc_roundtrip(k, b=0, b_r=6), ValueError, "bit width b must lie"),
        ErrorInput("b_r float", lambda: H.hcc_roundtrip(k, b=4, b_r=6.0), TypeError, "b_r must be an int"),
        ErrorInput("integer keys", lambda: H.hcc_roundtrip(k.long(), b=4, b_r=6), TypeError,
                   "floating dtype"),
        ErrorInput("NaN", lambda: H.hcc_roundtrip(k * math.nan, b=4, b_r=6), ValueError, "contains NaN"),
    ]


ENTRIES = (
    OpInfo(func=HD.fp_hida_attention, ref=_ref_fp, core_dims=(2, 2, 2), samples=_fp_samples,
           errors=_fp_errors, dtypes=DTYPES, tol=_gram_tol(0, 1), measure="values", reference_kind="loops",
           devices=("cpu", "cuda")),  # Definition 5.2's index sets are built on the host from n, w, g
    OpInfo(func=HD.l_hida_attention, variant="summaries=sums", ref=_ref_l(False), core_dims=(2, 2, 2, 2),
           samples=_anchor_samples, errors=lambda: _anchor_errors(HD.l_hida_attention), dtypes=DTYPES,
           tol=_gram_tol(0, 1, 3), measure="normwise", reference_kind="loops"),
    OpInfo(func=HD.l_hida_attention, variant="summaries=means",
           op=lambda q, k, v, a, eps: HD.l_hida_attention(q, k, v, a, eps=eps, normalise=True),
           ref=_ref_l(True), core_dims=(2, 2, 2, 2), samples=_anchor_samples,
           errors=lambda: _anchor_errors(lambda *x, **kw: HD.l_hida_attention(*x, normalise=True, **kw)),
           dtypes=DTYPES, tol=_gram_tol(0, 1, 3), measure="values", reference_kind="loops"),
    OpInfo(func=HD.nystrom_hida_attention, ref=_ref_nystrom, core_dims=(2, 2, 2, 2), samples=_anchor_samples,
           dtypes=(torch.float64,),
           tol=Tolerance(1e6, "the m×m pseudo-inverse amplifies round-off by cond(K_mm) (≤ 1e4 on these "
                              "samples)"), measure="normwise", reference_kind="loops"),
    OpInfo(func=HD.dense_hida_gram, ref=_ref_dense, core_dims=(2, 2, 2), samples=_dense_samples,
           errors=lambda: _ball_errors(HD.dense_hida_gram), dtypes=DTYPES, tol=_gram_tol(0, 1),
           measure="values", reference_kind="loops"),
    OpInfo(func=HD.c_hida_attention, ref=_ref_dense, core_dims=(2, 2, 2), samples=_dense_samples,
           errors=lambda: _ball_errors(HD.c_hida_attention), dtypes=DTYPES, tol=_gram_tol(0, 1),
           measure="values", reference_kind="loops"),
    OpInfo(func=H.hcc_roundtrip, ref=_ref_hcc, core_dims=(1,), samples=_hcc_samples, errors=_hcc_errors,
           dtypes=DTYPES,
           tol=Tolerance(8, "one division, one rounding to the grid, one product per coordinate"),
           measure="normwise", reference_kind="loops"),
)
