"""Registry entries for the sphere (references in mpmath at 60 digits) and the per-token metrics."""

import math

import mpmath
import torch

from attnaudit.operators import metric as M
from attnaudit.operators import sphere as S

from .core import ALL_DTYPES, ErrorInput, OpInfo, Sample, Tolerance
from .samplers import F64, at_angle, gen, grad_qkv, normal, unit

D = 5
ANGLES = (1e-13, 1e-9, 1e-4, 1.0, math.pi / 2, math.pi - 1e-4, math.pi - 1e-9, math.pi - 1e-13)


def _dot(a, b):
    return mpmath.fsum(x * y for x, y in zip(a, b, strict=True))


def ref_angle(x, y):
    """The angle between x and y: 2·atan2(‖x̂ - ŷ‖, ‖x̂ + ŷ‖) at 60 digits (any formula is
    exact enough there; this one is well conditioned everywhere)."""
    nx, ny = mpmath.sqrt(_dot(x, x)), mpmath.sqrt(_dot(y, y))
    u, v = [a / nx for a in x], [b / ny for b in y]
    minus = mpmath.sqrt(mpmath.fsum((a - b) ** 2 for a, b in zip(u, v, strict=True)))
    plus = mpmath.sqrt(mpmath.fsum((a + b) ** 2 for a, b in zip(u, v, strict=True)))
    return 2 * mpmath.atan2(minus, plus)


def _angle_samples(dtype: torch.dtype) -> list[Sample]:
    """Unit pairs at angles from 1e-13 to π - 1e-13 (those the dtype resolves), coincident,
    antipodal, non-unit scalings and a broadcast batch."""
    g = gen(4000 + ALL_DTYPES.index(dtype))
    eps = torch.finfo(dtype).eps
    out = []
    for theta in ANGLES:
        gap = min(theta, math.pi - theta)
        if gap > 8 * eps:
            x = unit(g, 3, D)
            label = f"θ=π-{math.pi - theta:.0e}" if theta > 3 else f"θ={theta:.4g}"
            out.append(Sample((x.to(dtype), at_angle(g, x, theta).to(dtype)), {}, label))
    x = unit(g, 3, D)
    out.append(Sample((x.to(dtype), x.to(dtype)), {}, "coincident"))
    out.append(Sample((x.to(dtype), (-x).to(dtype)), {}, "antipodal"))
    out.append(Sample(((3.0 * x).to(dtype), (0.25 * at_angle(g, x, 1e-3)).to(dtype)), {}, "non-unit θ=1e-3"))
    out.append(Sample((normal(g, 3, D).to(dtype), normal(g, D).to(dtype)), {}, "broadcast (3,d) with (d,)"))
    return out


def _pairwise_samples(dtype: torch.dtype) -> list[Sample]:
    g = gen(4100 + ALL_DTYPES.index(dtype))
    eps = torch.finfo(dtype).eps
    x = unit(g, 4, 4)
    small = max(1e-9, 64 * eps)
    y = torch.cat(
        [x[:1], -x[1:2], at_angle(g, x[2:3], small), at_angle(g, x[3:4], math.pi - small), unit(g, 2, 4)]
    )
    out = [Sample((x.to(dtype), y.to(dtype)), {}, f"coincident, antipodal, θ={small:.0e}, π-{small:.0e}")]
    y2 = torch.cat([x[:1], -x[1:2], at_angle(g, x[2:4], 0.5), unit(g, 2, 4)])
    out.append(
        Sample(((2.0 * x).to(dtype), (0.25 * y2).to(dtype)), {}, "non-unit: parallel, antiparallel, θ=0.5")
    )
    out.append(
        Sample((normal(g, 2, 3, 3).to(dtype), normal(g, 2, 3).to(dtype)), {}, "batch (2,3,3) with (2,3)")
    )
    return out


def _vector_samples(dtype, seed):
    g = gen(seed + ALL_DTYPES.index(dtype))
    return [Sample((normal(g, 3, D).mul(s).to(dtype),), {}, f"N(0,{s:g}²)") for s in (1e-3, 1.0, 1e3)]


def _stereo_samples(dtype):
    g = gen(4300 + ALL_DTYPES.index(dtype))
    out = [
        Sample((unit(g, 3, D).mul(r).to(dtype),), {}, f"‖z‖={r:g}")
        for r in (0.0, 1e-4, 0.5, 1 - 1e-6, 1.0, 30.0)
    ]
    return out


def _stereo_inverse_samples(dtype):
    g = gen(4400 + ALL_DTYPES.index(dtype))
    out = []
    for last, label in (
        (1.0, "north pole"),
        (0.5, "northern"),
        (0.0, "equator"),
        (-0.9, "southern"),
        (-1 + 1e-6, "near south pole"),
    ):
        head = unit(g, 3, D) * math.sqrt(max(0.0, 1 - last * last))
        s = torch.cat([head, torch.full((3, 1), last, dtype=F64)], dim=-1)
        if last == 1.0:
            s = torch.cat([torch.zeros(3, D, dtype=F64), torch.ones(3, 1, dtype=F64)], dim=-1)
        out.append(Sample((s.to(dtype),), {}, label))
    return out


def _ref_stereo(z):
    n2 = _dot(z, z)
    return [2 * a / (1 + n2) for a in z] + [(1 - n2) / (1 + n2)]


def _ref_stereo_inverse(s):
    n = mpmath.sqrt(_dot(s, s))
    s = [a / n for a in s]
    return [a / (1 + s[-1]) for a in s[:-1]]


def _vector_errors(fn, pair: bool, min_dim: int = 1):
    z = torch.ones(*([2] * (min_dim - 1)), 3, dtype=F64)
    zero = torch.zeros_like(z)
    nan = z.clone()
    nan[..., 0] = math.nan
    call = (lambda a, b=None: fn(a, z if b is None else b)) if pair else (lambda a, b=None: fn(a))
    out = [
        ErrorInput("integer dtype", lambda: call(z.long(), z.long()), TypeError, "floating dtype"),
        ErrorInput("NaN", lambda: call(nan), ValueError, "contains NaN"),
        ErrorInput(
            "float8 dtype",
            lambda: call(z.to(torch.float8_e5m2), z.to(torch.float8_e5m2)),
            TypeError,
            "must have dtype in",
        ),
        ErrorInput("zero vector", lambda: call(zero), ValueError, "must be non-zero"),
    ]
    if pair:
        out += [
            ErrorInput(
                "mismatched d",
                lambda: fn(z, torch.ones(*z.shape[:-1], 4, dtype=F64)),
                ValueError,
                "mismatched last dims",
            ),
            ErrorInput("mixed dtypes", lambda: fn(z, z.float()), TypeError, "share one dtype"),
        ]
    return out


def _metric_samples(dtype, direct: bool):
    g = gen(4500 + ALL_DTYPES.index(dtype) + 50 * direct)
    out = []
    for d, r, label in ((4, 2, "d=4 r=2"), (3, 1, "d=3 r=1")):
        q, k = normal(g, 3, d), normal(g, 4, d)
        k[1] = q[0]  # a coincident pair: exactly 0
        k[2] = q[1] + 1e-7 * normal(g, d)
        uq, uk = normal(g, 3, d, r), normal(g, 4, d, r)
        if direct:
            uq, uk = M.metric_from_factors(uq), M.metric_from_factors(uk)
        out.append(Sample(tuple(t.to(dtype) for t in (q, k, uq, uk)), {}, label))
    return out


def _ref_metric(q, k, uq, uk, direct: bool):
    def quad(delta, f):
        if direct:
            return mpmath.fsum(
                delta[a] * f[a][b] * delta[b] for a in range(len(delta)) for b in range(len(delta))
            )
        proj = [mpmath.fsum(delta[a] * f[a][j] for a in range(len(delta))) for j in range(len(f[0]))]
        return _dot(delta, delta) + _dot(proj, proj)

    out = []
    for i, qi in enumerate(q):
        row = []
        for j, kj in enumerate(k):
            delta = [a - b for a, b in zip(qi, kj, strict=True)]
            row.append((quad(delta, uq[i]) + quad(delta, uk[j])) / 2)
        out.append(row)
    return out


def _metric_errors(fn, key):
    q, k = torch.zeros(3, 2, dtype=F64), torch.zeros(4, 2, dtype=F64)
    good_q = torch.zeros(3, 2, 2 if key == "g" else 1, dtype=F64)
    good_k = torch.zeros(4, 2, 2 if key == "g" else 1, dtype=F64)
    nan = good_q.clone()
    nan[0, 0, 0] = math.nan

    def call(q_=q, k_=k, a=good_q, b=good_k):
        return fn(q_, k_, **{f"{key}q": a, f"{key}k": b})

    return [
        ErrorInput("factor per token", lambda: call(a=good_k), ValueError, "one per token"),
        ErrorInput(
            "mismatched d", lambda: call(k_=torch.zeros(4, 3, dtype=F64)), ValueError, "mismatched last dims"
        ),
        ErrorInput("mixed dtypes", lambda: call(a=good_q.float()), TypeError, "share one dtype"),
        ErrorInput("NaN factor", lambda: call(a=nan), ValueError, "contains NaN"),
        ErrorInput("integer points", lambda: call(q_=q.long()), TypeError, "floating dtype"),
    ]


def _grad(*, metric: bool = False, single: bool = False):
    """Gradcheck samples: generic q, k (and v) with a coincident pair; for the metrics, rank-1
    factors from q and v."""

    def samples():
        q, k, v = grad_qkv(37)
        if metric:
            return [Sample((q, k, q[..., None], v[..., None]), {}, "rank-1 factors, a coincident pair")]
        return [Sample((q,) if single else (q, k), {}, "generic, a coincident pair")]

    return samples


ENTRIES = [
    OpInfo(
        func=S.sphere_distance,
        ref=ref_angle,
        core_dims=(1, 1),
        samples=_angle_samples,
        errors=lambda: _vector_errors(S.sphere_distance, True),
        tol=Tolerance(8, "‖x∓y‖², norms and (a-b)² in double-double, then sqrt and atan2 (condition ≤ 1)"),
        gradcheck=_grad(),
    ),
    OpInfo(
        func=S.sphere_sqdist,
        ref=lambda xs, ys: [[ref_angle(x, y) ** 2 for y in ys] for x in xs],
        core_dims=(2, 2),
        samples=_pairwise_samples,
        errors=lambda: _vector_errors(S.sphere_sqdist, True, 2),
        tol=Tolerance(32, "‖x∓y‖² by direct differences ((d+2)u for d <= 5), correctly rounded norms, "
                          "atan2 and a square (condition ≤ 2)"),
        gradcheck=_grad(),
    ),
    OpInfo(
        func=S.sphere_normalize,
        ref=lambda x: [a / mpmath.sqrt(_dot(x, x)) for a in x],
        core_dims=(1,),
        samples=lambda dt: _vector_samples(dt, 4200),
        errors=lambda: _vector_errors(S.sphere_normalize, False),
        tol=Tolerance(2, "a correctly rounded norm and one quotient"),
        measure="normwise",
    ),
    OpInfo(
        func=S.sphere_stereographic,
        ref=_ref_stereo,
        core_dims=(1,),
        samples=_stereo_samples,
        errors=lambda: _vector_errors(S.sphere_stereographic, False)[:3],
        tol=Tolerance(8, "1 - ‖z‖² in double-double, a few quotients"),
        measure="normwise",
        gradcheck=_grad(single=True),
    ),
    OpInfo(
        func=S.sphere_stereographic_inverse,
        ref=_ref_stereo_inverse,
        core_dims=(1,),
        samples=_stereo_inverse_samples,
        errors=lambda: _vector_errors(S.sphere_stereographic_inverse, False),
        tol=Tolerance(8, "normalisation, then the branch that forms no 1 + s_{d+1} near -1"),
        measure="normwise",
    ),
    OpInfo(
        func=M.metric_sqdist,
        op=lambda q, k, uq, uk: M.metric_sqdist(q, k, uq=uq, uk=uk),
        ref=lambda q, k, uq, uk: _ref_metric(q, k, uq, uk, False),
        core_dims=(2, 2, 3, 3),
        samples=lambda dt: _metric_samples(dt, False),
        errors=lambda: _metric_errors(M.metric_sqdist, "u"),
        tol=Tolerance(32, "sums of d + r squares of direct differences and projections (d + r <= 6)"),
        gradcheck=_grad(metric=True),
    ),
    OpInfo(
        func=M.metric_sqdist_direct,
        op=lambda q, k, gq, gk: M.metric_sqdist_direct(q, k, gq=gq, gk=gk),
        ref=lambda q, k, gq, gk: _ref_metric(q, k, gq, gk, True),
        core_dims=(2, 2, 3, 3),
        samples=lambda dt: _metric_samples(dt, True),
        errors=lambda: _metric_errors(M.metric_sqdist_direct, "g"),
        tol=Tolerance(64, "quadratic forms over d² terms of an SPD metric (d <= 4), input metrics rounded"),
    ),
]
