"""Registry entries for metric attention (:mod:`operators.metric_attention`); references in mpmath
at 60 digits, written from the definitions (materialised metrics, explicit inverses, softmax sums),
independent of the operators' decomposed and streamed code paths."""

import math

import mpmath
import torch

from attnaudit.operators import metric_attention as MA

from .core import ErrorInput, OpInfo, Sample, Tolerance
from .samplers import F64, gen, normal

DTYPES = (torch.float64, torch.float32)


def _dot(a, b):
    return mpmath.fsum(x * y for x, y in zip(a, b, strict=True))


def _metric(u):
    d, r = len(u), len(u[0])
    return [[(1 if a == b else 0) + mpmath.fsum(u[a][j] * u[b][j] for j in range(r)) for b in range(d)]
            for a in range(d)]


def _ref_scores(q, k, uq, uk, tau=1.0):
    gq, gk = [_metric(u) for u in uq], [_metric(u) for u in uk]
    out = []
    for i, qi in enumerate(q):
        row = []
        for j, kj in enumerate(k):
            delta = [a - b for a, b in zip(qi, kj, strict=True)]
            n = len(delta)
            quad = mpmath.fsum(delta[a] * (gq[i][a][b] + gk[j][a][b]) * delta[b]
                               for a in range(n) for b in range(n)) / 2
            row.append(-quad / mpmath.mpf(tau))
        out.append(row)
    return out


def _ref_attention(q, k, v, uq, uk, tau=1.0, block=None):  # noqa: ARG001 - block is a code path
    s = _ref_scores(q, k, uq, uk, tau)
    out = []
    for row in s:
        m = max(row)
        w = [mpmath.exp(x - m) for x in row]
        z = mpmath.fsum(w)
        out.append([mpmath.fsum(wj * vj[c] for wj, vj in zip(w, v, strict=True)) / z
                    for c in range(len(v[0]))])
    return out


def _ref_inverse(u):
    return mpmath.matrix(_metric(u)) ** -1


def _ref_inverse_list(u):
    inv = _ref_inverse(u)
    return [[inv[a, b] for b in range(inv.cols)] for a in range(inv.rows)]


def _ref_metricnet(x, w1, b1, w2, b2, r):
    h = [mpmath.fsum(w * xi for w, xi in zip(row, x, strict=True)) + b for row, b in zip(w1, b1, strict=True)]
    h = [a * (1 + mpmath.erf(a / mpmath.sqrt(2))) / 2 for a in h]
    o = [mpmath.fsum(w * hi for w, hi in zip(row, h, strict=True)) + b for row, b in zip(w2, b2, strict=True)]
    d = len(x)
    return [[o[a * r + j] for j in range(r)] for a in range(d)]


def _score_samples(dtype, seed, with_v=False):
    g = gen(seed + DTYPES.index(dtype))
    out = []
    for nq, nk, d, r, tau in ((3, 4, 3, 2, 1.0), (2, 5, 4, 1, 0.5)):
        q, k = normal(g, nq, d), normal(g, nk, d)
        k[1] = q[0]  # a coincident pair
        uq, uk = 0.7 * normal(g, nq, d, r), 0.7 * normal(g, nk, d, r)
        args = (q, k, normal(g, nk, 2), uq, uk) if with_v else (q, k, uq, uk)
        label = f"n=({nq},{nk}) d={d} r={r} τ={tau}"
        out.append(Sample(tuple(t.to(dtype) for t in args), {"tau": tau}, label))
    return out


def _score_errors(fn, with_v=False):
    q, k, u = torch.zeros(3, 2, dtype=F64), torch.zeros(4, 2, dtype=F64), torch.zeros(3, 2, 1, dtype=F64)
    uk = torch.zeros(4, 2, 1, dtype=F64)
    v = torch.zeros(4, 2, dtype=F64)
    nan = u.clone()
    nan[0, 0, 0] = math.nan

    def call(q_=q, k_=k, uq=u, uk_=uk, **kw):
        if with_v:
            return fn(q_, k_, v, uq=uq, uk=uk_, **kw)
        return fn(q_, k_, uq=uq, uk=uk_, **kw)

    return [
        ErrorInput("factor per token", lambda: call(uq=uk), ValueError, "one per token"),
        ErrorInput("mismatched d", lambda: call(k_=torch.zeros(4, 3, dtype=F64)), ValueError,
                   "mismatched last dims"),
        ErrorInput("mixed dtypes", lambda: call(uq=u.float()), TypeError, "share one dtype"),
        ErrorInput("NaN factor", lambda: call(uq=nan), ValueError, "contains NaN"),
        ErrorInput("tau <= 0", lambda: call(tau=0.0), ValueError, "tau must be a positive"),
    ]


def _inverse_samples(dtype):
    g = gen(4700 + DTYPES.index(dtype))
    return [Sample(((s * normal(g, 2, 4, 2)).to(dtype),), {}, f"d=4 r=2 scale {s:g}")
            for s in (0.1, 1.0, 5.0)]


def _metricnet_samples(dtype):
    g = gen(4800 + DTYPES.index(dtype))
    d, r = 3, 2
    args = (normal(g, 2, d), normal(g, d, d) / 2, normal(g, d), normal(g, d * r, d) / 2, normal(g, d * r))
    return [Sample(tuple(t.to(dtype) for t in args), {"r": r}, "d=3 m=1 r=2, 2 tokens")]


def _metricnet_errors():
    x, w1, b1 = torch.zeros(2, 3, dtype=F64), torch.zeros(3, 3, dtype=F64), torch.zeros(3, dtype=F64)
    w2, b2 = torch.zeros(6, 3, dtype=F64), torch.zeros(6, dtype=F64)
    return [
        ErrorInput("wrong r", lambda: MA.metricnet(x, w1, b1, w2, b2, r=3), ValueError, "MetricNet weights"),
        ErrorInput("mixed dtypes", lambda: MA.metricnet(x.float(), w1, b1, w2, b2, r=2), TypeError,
                   "share one dtype"),
    ]


_DECOMP_TOL = Tolerance(
    512, "Eq. (16) expands squares, so the error is u times the expanded terms (‖q‖² + ‖k‖²)(1 + ‖U‖²) "
         "over d + r of them, against scores of the same order (no sample near a cancellation but the "
         "exact coincident pair, whose score is small but not the max)")


ENTRIES = [
    OpInfo(
        func=MA.metric_scores,
        variant="path=decomposed",
        op=lambda q, k, uq, uk, tau: MA.metric_scores(q, k, uq=uq, uk=uk, tau=tau),
        ref=_ref_scores,
        core_dims=(2, 2, 3, 3),
        samples=lambda dt: _score_samples(dt, 4600),
        errors=lambda: _score_errors(MA.metric_scores),
        dtypes=DTYPES,
        tol=_DECOMP_TOL,
        measure="normwise",
        gradcheck=lambda: _score_samples(torch.float64, 4600),
    ),
    OpInfo(
        func=MA.metric_scores,
        variant="path=direct",
        op=lambda q, k, uq, uk, tau: MA.metric_scores(q, k, uq=uq, uk=uk, tau=tau, path="direct"),
        ref=_ref_scores,
        core_dims=(2, 2, 3, 3),
        samples=lambda dt: _score_samples(dt, 4610),
        errors=lambda: _score_errors(MA.metric_scores),
        dtypes=DTYPES,
        gradcheck=lambda: _score_samples(torch.float64, 4610),
        tol=Tolerance(64, "quadratic forms over d² terms of materialised metrics (d <= 4), exact 0 at the "
                          "coincident pair"),
    ),
    OpInfo(
        func=MA.metric_bias_attention,
        op=lambda q, k, v, uq, uk, tau: MA.metric_bias_attention(q, k, v, uq=uq, uk=uk, tau=tau, block=2),
        ref=_ref_attention,
        core_dims=(2, 2, 2, 3, 3),
        samples=lambda dt: _score_samples(dt, 4620, with_v=True),
        errors=lambda: _score_errors(MA.metric_bias_attention, with_v=True),
        dtypes=DTYPES,
        gradcheck=lambda: _score_samples(torch.float64, 4620, with_v=True),
        tol=Tolerance(1024, "softmax of Eq. (16) logits (expanded squares, error u·(‖q‖² + ‖k‖²)(1 + ‖U‖²)/τ "
                            "≤ ~50u here) streamed over blocks of 2 keys"),
        measure="values",
    ),
    OpInfo(
        func=MA.metric_attention_direct,
        op=lambda q, k, v, uq, uk, tau: MA.metric_attention_direct(q, k, v, uq=uq, uk=uk, tau=tau),
        ref=_ref_attention,
        core_dims=(2, 2, 2, 3, 3),
        samples=lambda dt: _score_samples(dt, 4630, with_v=True),
        errors=lambda: _score_errors(MA.metric_attention_direct, with_v=True),
        dtypes=DTYPES,
        gradcheck=lambda: _score_samples(torch.float64, 4630, with_v=True),
        tol=Tolerance(256, "softmax of direct metric scores of size ≤ ~20 (error u·max|s| in each exponent) "
                           "and an n-term weighted sum"),
        measure="values",
    ),
    OpInfo(
        func=MA.woodbury_inverse,
        ref=_ref_inverse_list,
        core_dims=(2,),
        samples=_inverse_samples,
        gradcheck=lambda: _inverse_samples(torch.float64),
        errors=lambda: [ErrorInput("integer factor", lambda: MA.woodbury_inverse(
            torch.zeros(3, 1, dtype=torch.long)), TypeError, "floating dtype")],
        dtypes=DTYPES,
        tol=Tolerance(64, "an r × r Cholesky solve of condition ≤ 1 + ‖U‖₂² (≤ ~100 here) and d-term "
                          "products"),
        measure="normwise",
    ),
    OpInfo(
        func=MA.metricnet,
        ref=_ref_metricnet,
        core_dims=(1, 2, 1, 2, 1),
        samples=_metricnet_samples,
        errors=_metricnet_errors,
        dtypes=DTYPES,
        gradcheck=lambda: _metricnet_samples(torch.float64),
        tol=Tolerance(64, "two d·m-term linear layers and GELU (erf) on O(1) values"),
        measure="normwise",
    ),
]
