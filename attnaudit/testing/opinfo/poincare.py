"""Registry entries for the Poincaré ball (references: textbook formulas in mpmath at 60 digits)."""

import math

import mpmath
import torch

from attnaudit.operators import poincare as P

from .core import ALL_DTYPES, ErrorInput, OpInfo, Sample, Tolerance, poincare_distance_mp
from .samplers import (
    F64,
    ball_at_radius,
    boundary_exponents,
    cast_inside,
    gen,
    grad_qkv,
    in_ball,
    near,
    normal,
    unit,
)

D = 5


# ---------------------------------------------------------------- mpmath references
def _dot(a, b):
    return mpmath.fsum(x * y for x, y in zip(a, b, strict=True))


def _ref_mobius(x, y, c):
    c = mpmath.mpf(c)
    xy, xx, yy = _dot(x, y), _dot(x, x), _dot(y, y)
    den = 1 + 2 * c * xy + c * c * xx * yy
    return [((1 + 2 * c * xy + c * yy) * a + (1 - c * xx) * b) / den for a, b in zip(x, y, strict=True)]


def _ref_expmap0(v, c):
    sc, n = mpmath.sqrt(c), mpmath.sqrt(_dot(v, v))
    return [a if n == 0 else mpmath.tanh(sc * n) * a / (sc * n) for a in v]


def _ref_logmap0(y, c):
    sc, n = mpmath.sqrt(c), mpmath.sqrt(_dot(y, y))
    return [a if n == 0 else mpmath.atanh(sc * n) * a / (sc * n) for a in y]


def _ref_expmap(x, v, c):
    sc, n = mpmath.sqrt(c), mpmath.sqrt(_dot(v, v))
    lam = 2 / (1 - c * _dot(x, x))
    w = [a if n == 0 else mpmath.tanh(sc * lam * n / 2) * a / (sc * n) for a in v]
    return _ref_mobius(x, w, c)


def _ref_logmap(x, y, c):
    sc = mpmath.sqrt(c)
    u = _ref_mobius([-a for a in x], y, c)
    n = mpmath.sqrt(_dot(u, u))
    lam = 2 / (1 - c * _dot(x, x))
    return [a if n == 0 else 2 / (sc * lam) * mpmath.atanh(sc * n) * a / n for a in u]


def _ref_karcher(xs, c, **_):
    """Riemannian gradient descent in mpmath to a step below 1e-40 (independent code)."""
    w = mpmath.mpf(1) / len(xs)
    mu = _ref_expmap0(
        [mpmath.fsum(w * p[i] for p in (_ref_logmap0(x, c) for x in xs)) for i in range(len(xs[0]))], c
    )
    for _ in range(2000):
        logs = [_ref_logmap(mu, x, c) for x in xs]
        step = [w * mpmath.fsum(lg[i] for lg in logs) for i in range(len(mu))]
        dists = [poincare_distance_mp(mu, x, c) for x in xs]
        lcurv = mpmath.fsum(w * (t * mpmath.coth(t) if t else 1) for t in (mpmath.sqrt(c) * d for d in dists))
        if mpmath.sqrt(_dot(step, step)) < mpmath.mpf(10) ** -40:
            return mu
        mu = _ref_expmap(mu, [2 / (1 + lcurv) * s for s in step], c)
    raise RuntimeError("mpmath Karcher reference did not converge")


# ---------------------------------------------------------------- samples
def _pair_samples(dtype: torch.dtype) -> list[Sample]:
    """Boundary pairs ‖x‖ = 1 - 10^-k (k <= 8), short (‖x - y‖ down to 1e-13) and long,
    coincident, antipodal, the origin, other curvatures and a broadcast batch."""
    g = gen(1000 + ALL_DTYPES.index(dtype))
    eps = torch.finfo(dtype).eps
    out = []

    def add(x, y, label, c=1.0):
        xs, ys = cast_inside(x, dtype, c), cast_inside(y, dtype, c)
        if xs is not None and ys is not None:
            out.append(Sample((xs, ys), {"c": c}, label))

    for k in [0.1, *boundary_exponents(dtype)]:
        r = 0.9 if k == 0.1 else 1 - 10.0**-k
        name = "r=0.9" if k == 0.1 else f"r=1-1e-{k}"
        x = ball_at_radius(g, 3, D, r)
        for h in (1e-13, 1e-8, 1e-3):
            if h > 8 * eps:
                add(x, near(g, x, h), f"{name}/short-{h:.0e}")
        add(x, ball_at_radius(g, 3, D, r), f"{name}/long")
        add(x, ball_at_radius(g, 3, D, 0.5), f"{name}/long-to-0.5")
        add(x, -x, f"{name}/antipodal")
        add(x, x.clone(), f"{name}/coincident")
    add(torch.zeros(2, D, dtype=F64), ball_at_radius(g, 2, D, 0.3), "origin")
    for c in (0.5, 2.0):
        x = ball_at_radius(g, 3, D, (1 - 1e-6) / math.sqrt(c))
        add(x, near(g, x, 1e-4 / math.sqrt(c)), f"c={c}/short", c)
        add(x, ball_at_radius(g, 3, D, 0.7 / math.sqrt(c)), f"c={c}/long", c)
    x = ball_at_radius(g, 3, D, 0.99)
    add(x, ball_at_radius(g, 1, D, 0.5)[0], "broadcast (3,d) with (d,)")
    return out


def _pairwise_samples(dtype: torch.dtype) -> list[Sample]:
    """Point sets mixing radii up to the boundary, with a coincident, an antipodal and a
    near pair across the two sets."""
    g = gen(2000 + ALL_DTYPES.index(dtype))
    ks = boundary_exponents(dtype)
    out = []
    for c in (1.0, 2.0):
        radii = [0.0, 0.5, *(1 - 10.0**-k for k in ks[-3:])]
        x = torch.cat([ball_at_radius(g, 1, 4, r / math.sqrt(c)) for r in radii])
        y = torch.cat(
            [
                x[:1],
                -x[1:2],
                near(g, x[2:3], 1e-6 / math.sqrt(c)),
                ball_at_radius(g, 2, 4, 0.8 / math.sqrt(c)),
            ]
        )
        xs, ys = cast_inside(x, dtype, c), cast_inside(y, dtype, c)
        if xs is not None and ys is not None:
            out.append(Sample((xs, ys), {"c": c}, f"mixed radii up to 1-1e-{ks[-1]}, c={c}"))
    xb = torch.stack([ball_at_radius(g, 3, 3, 0.6), ball_at_radius(g, 3, 3, 0.95)])
    out.append(
        Sample((xb.to(dtype), ball_at_radius(g, 2, 3, 0.9).to(dtype)), {"c": 1.0}, "batch (2,3,3) with (2,3)")
    )
    return out


def _mobius_samples(dtype):
    return [s for s in _pair_samples(dtype) if "short-1e-13" not in s.label]


def _points(dtype, seed):
    g = gen(seed + ALL_DTYPES.index(dtype))
    out = []
    for k in [0.1, *boundary_exponents(dtype)]:
        r = 0.9 if k == 0.1 else 1 - 10.0**-k
        x = cast_inside(ball_at_radius(g, 3, D, r), dtype)
        if x is not None:
            out.append(Sample((x,), {"c": 1.0}, "r=0.9" if k == 0.1 else f"r=1-1e-{k}"))
    out.append(Sample((torch.zeros(2, D, dtype=dtype),), {"c": 1.0}, "origin"))
    x = cast_inside(ball_at_radius(g, 3, D, (1 - 1e-3) / math.sqrt(2.0)), dtype, 2.0)
    if x is not None:
        out.append(Sample((x,), {"c": 2.0}, "c=2 r=(1-1e-3)/√2"))
    return out


def _tangents(dtype, seed):
    g = gen(seed + ALL_DTYPES.index(dtype))
    out = [
        Sample((unit(g, 3, D).mul(s).to(dtype),), {"c": 1.0}, f"‖v‖={s:g}")
        for s in (1e-9, 1e-3, 0.5, 3.0, 8.0)
    ]
    out.append(Sample((torch.zeros(2, D, dtype=dtype),), {"c": 1.0}, "v=0"))
    out.append(Sample((unit(g, 3, D).to(dtype),), {"c": 0.5}, "c=0.5 ‖v‖=1"))
    return out


def _expmap_samples(dtype):
    out = []
    for s in _points(dtype, 3000):
        g = gen(3100 + len(out))
        x = s.args[0].to(F64)
        alpha = 1 - s.kwargs["c"] * (x * x).sum(-1, keepdim=True)
        for length in (1e-6, 0.5, 3.0):  # Riemannian length λ_x‖v‖ of the step
            v = (unit(g, *x.shape) * (length * alpha / 2)).to(dtype)
            out.append(Sample((s.args[0], v), s.kwargs, f"{s.label}/λ‖v‖={length:g}"))
    return out


def _logmap_samples(dtype):
    return [s for s in _mobius_samples(dtype)]


def _project_samples(dtype):
    g = gen(3300 + ALL_DTYPES.index(dtype))
    return [
        Sample((unit(g, 3, D).mul(r).to(dtype),), {"c": c, "margin": 1e-3}, f"‖x‖={r:g} c={c}")
        for r in (0.2, 0.9995, 1.5, 40.0)
        for c in (1.0, 4.0)
    ]


def _tanh_samples(dtype):
    g = gen(3400 + ALL_DTYPES.index(dtype))
    return [
        Sample((normal(g, 4, D).mul(s).to(dtype),), {"c": c, "scale": 0.9}, f"z~N(0,{s:g}²) c={c}")
        for s in (1e-4, 1.0, 5.0)
        for c in (1.0, 2.0)
    ]


def _karcher_samples(dtype):
    g = gen(3500 + ALL_DTYPES.index(dtype))
    out = []
    for n, r, label in (
        (5, 0.5, "interior"),
        (4, 0.99, "r=0.99"),
        (4, 1 - 1e-4, "r=1-1e-4"),
        (1, 0.9, "single point"),
    ):
        x = cast_inside(ball_at_radius(g, n, 3, r), dtype)
        if x is not None:
            out.append(Sample((x,), {"c": 1.0}, label))
    x = cast_inside(ball_at_radius(g, 4, 3, 0.6 / math.sqrt(2.0)), dtype, 2.0)
    out.append(Sample((x,), {"c": 2.0}, "c=2"))
    return out


# ---------------------------------------------------------------- error inputs
def _pair_errors(fn, min_dim=1):
    z = torch.zeros(*([2] * (min_dim - 1)), 3, dtype=F64)
    out_pt = z.clone()
    out_pt[..., 0] = 1.0
    nan = z.clone()
    nan[..., 1] = math.nan
    return [
        ErrorInput(
            "mismatched d",
            lambda: fn(z, torch.zeros(*z.shape[:-1], 4, dtype=F64), c=1.0),
            ValueError,
            "mismatched last dims",
        ),
        ErrorInput("integer dtype", lambda: fn(z.long(), z.long(), c=1.0), TypeError, "floating dtype"),
        ErrorInput("mixed dtypes", lambda: fn(z, z.float(), c=1.0), TypeError, "share one dtype"),
        ErrorInput(
            "float8 dtype",
            lambda: fn(z.to(torch.float8_e4m3fn), z.to(torch.float8_e4m3fn), c=1.0),
            TypeError,
            "must have dtype in",
        ),
        ErrorInput("‖x‖ = 1", lambda: fn(out_pt, z, c=1.0), ValueError, "inside the Poincaré ball"),
        ErrorInput("‖y‖ > 1/√c", lambda: fn(z, 0.8 * out_pt, c=2.0), ValueError, "inside the Poincaré ball"),
        ErrorInput("NaN", lambda: fn(z, nan, c=1.0), ValueError, "contains NaN"),
        ErrorInput("c = 0", lambda: fn(z, z, c=0.0), ValueError, "c must be positive"),
        ErrorInput("c a string", lambda: fn(z, z, c="1"), TypeError, "c must be a positive float"),
        ErrorInput(
            "not a tensor", lambda: fn([0.0, 0.0, 0.0], z, c=1.0), TypeError, "must be a torch.Tensor"
        ),
    ]


def _point_errors(fn, tangent_input=False):
    z = torch.zeros(2, 3, dtype=F64)
    nan = z.clone()
    nan[0, 0] = math.nan
    out = [
        ErrorInput("integer dtype", lambda: fn(z.long(), c=1.0), TypeError, "floating dtype"),
        ErrorInput("NaN", lambda: fn(nan, c=1.0), ValueError, "contains NaN"),
        ErrorInput("c < 0", lambda: fn(z, c=-1.0), ValueError, "c must be positive"),
        ErrorInput("0-dim", lambda: fn(torch.tensor(0.0, dtype=F64), c=1.0), ValueError, "at least 1 dims"),
    ]
    if not tangent_input:
        out.append(
            ErrorInput(
                "‖x‖ > 1",
                lambda: fn(torch.full((2, 3), 0.7, dtype=F64), c=1.0),
                ValueError,
                "inside the Poincaré ball",
            )
        )
    return out


def _karcher_errors():
    x = torch.zeros(3, 2, dtype=F64)
    return [
        ErrorInput(
            "1-dim points",
            lambda: P.poincare_karcher_mean(torch.zeros(3, dtype=F64)),
            ValueError,
            "at least 2 dims",
        ),
        ErrorInput(
            "‖x‖ > 1",
            lambda: P.poincare_karcher_mean(torch.full((3, 2), 0.8, dtype=F64)),
            ValueError,
            "inside the Poincaré ball",
        ),
        ErrorInput(
            "weights length",
            lambda: P.poincare_karcher_mean(x, weights=torch.ones(2, dtype=F64)),
            ValueError,
            "weights must have n=3",
        ),
        ErrorInput(
            "negative weight",
            lambda: P.poincare_karcher_mean(x, weights=torch.tensor([1.0, -1.0, 1.0], dtype=F64)),
            ValueError,
            "non-negative",
        ),
        ErrorInput("max_iter 0", lambda: P.poincare_karcher_mean(x, max_iter=0), ValueError, "max_iter"),
        ErrorInput(
            "empty set", lambda: P.poincare_karcher_mean(torch.zeros(0, 2, dtype=F64)), ValueError, "n >= 1"
        ),
    ]


# ---------------------------------------------------------------- naive peers (for the table)
def naive_arcosh(x: torch.Tensor, y: torch.Tensor, c: float = 1.0) -> torch.Tensor:
    """The textbook formula in working precision: arcosh(1 + 2c‖x-y‖²/((1-c‖x‖²)(1-c‖y‖²)))/√c."""
    num = 2 * c * ((x - y) ** 2).sum(-1)
    den = (1 - c * (x * x).sum(-1)) * (1 - c * (y * y).sum(-1))
    return torch.acosh(1 + num / den) / math.sqrt(c)


def geoopt_dist(x: torch.Tensor, y: torch.Tensor, c: float = 1.0) -> torch.Tensor:
    """geoopt's ``PoincareBall(c).dist`` (the peer; geoopt is a test dependency)."""
    import geoopt

    return geoopt.PoincareBall(c=c).dist(x, y)


# ---------------------------------------------------------------- the entries
def _pairwise(fn):
    return lambda xs, ys, c: [[fn(x, y, c) for y in ys] for x in xs]


def _grad_pair(c: float = 1.0, tangent_second: bool = False):
    """Gradcheck samples: two point sets inside the ball (the second a tangent vector when asked)."""

    def samples():
        q, k, _ = grad_qkv(37)
        return [Sample((in_ball(q, 2.0), k if tangent_second else in_ball(k, 2.0)), {"c": c},
                       "radius < 0.9/√2, a coincident pair")]

    return samples


def _grad_point(tangent: bool = False):
    def samples():
        q, _, _ = grad_qkv(37)
        return [Sample((q if tangent else in_ball(q, 2.0),), {"c": 1.0}, "radius < 0.9/√2")]

    return samples


ENTRIES = [
    OpInfo(
        func=P.poincare_distance,
        ref=poincare_distance_mp,
        core_dims=(1, 1),
        samples=_pair_samples,
        errors=lambda: _pair_errors(P.poincare_distance),
        tol=Tolerance(8, "double-double ‖x-y‖², 1-c‖·‖² (≈u² error), then ~6 roundings of condition ≤ 1"),
        gradcheck=_grad_pair(),
        peers={"geoopt": geoopt_dist, "naive arcosh": naive_arcosh},
    ),
    OpInfo(
        func=P.poincare_sqdist,
        ref=_pairwise(lambda x, y, c: poincare_distance_mp(x, y, c) ** 2),
        core_dims=(2, 2),
        samples=_pairwise_samples,
        errors=lambda: _pair_errors(P.poincare_sqdist, min_dim=2),
        tol=Tolerance(32, "‖x-y‖² by direct differences ((d+2)u for d <= 5), α in double-double, "
                          "then ~8 roundings of condition ≤ 2"),
        gradcheck=_grad_pair(c=2.0),
    ),
    OpInfo(
        func=P.poincare_distance_matrix,
        ref=_pairwise(poincare_distance_mp),
        core_dims=(2, 2),
        samples=_pairwise_samples,
        errors=lambda: _pair_errors(P.poincare_distance_matrix, min_dim=2),
        tol=Tolerance(32, "as poincare_sqdist, condition ≤ 1"),
    ),
    OpInfo(
        func=P.mobius_add,
        ref=_ref_mobius,
        core_dims=(1, 1),
        samples=_mobius_samples,
        errors=lambda: _pair_errors(P.mobius_add),
        tol=Tolerance(16, "the denominator-stable form adds only non-negative terms"),
        measure="normwise",
        gradcheck=_grad_pair(),
    ),
    OpInfo(
        func=P.poincare_expmap0,
        ref=_ref_expmap0,
        core_dims=(1,),
        samples=lambda dt: _tangents(dt, 3600),
        errors=lambda: _point_errors(P.poincare_expmap0, True),
        tol=Tolerance(8, "tanh(t)/t and one product"),
        measure="normwise",
        gradcheck=_grad_point(tangent=True),
    ),
    OpInfo(
        func=P.poincare_logmap0,
        ref=_ref_logmap0,
        core_dims=(1,),
        samples=lambda dt: _points(dt, 3700),
        errors=lambda: _point_errors(P.poincare_logmap0),
        tol=Tolerance(16, "artanh via asinh(√(c‖y‖²/α)), α in double-double"),
        measure="normwise",
        gradcheck=_grad_point(),
    ),
    OpInfo(
        func=P.poincare_expmap,
        ref=_ref_expmap,
        core_dims=(1, 1),
        samples=_expmap_samples,
        errors=lambda: [e for e in _pair_errors(P.poincare_expmap) if e.label != "‖y‖ > 1/√c"],
        tol=Tolerance(32, "exp_0 then Möbius addition"),
        measure="normwise",
        gradcheck=_grad_pair(tangent_second=True),
    ),
    OpInfo(
        func=P.poincare_logmap,
        ref=_ref_logmap,
        core_dims=(1, 1),
        samples=_logmap_samples,
        errors=lambda: _pair_errors(P.poincare_logmap),
        tol=Tolerance(32, "Möbius addition, then the δ and α_u identities"),
        measure="normwise",
        gradcheck=_grad_pair(),
    ),
    OpInfo(
        func=P.poincare_project,
        ref=lambda x, c, margin: (lambda n, r: [a * min(1, r / n) if n else a for a in x])(
            mpmath.sqrt(_dot(x, x)), (1 - mpmath.mpf(margin)) / mpmath.sqrt(c)
        ),
        core_dims=(1,),
        samples=_project_samples,
        errors=lambda: _point_errors(P.poincare_project, True),
        tol=Tolerance(4, "a norm, a quotient and a product"),
        measure="normwise",
    ),
    OpInfo(
        func=P.poincare_tanh_map,
        ref=lambda z, c, scale: [scale * a for a in _ref_expmap0(z, c)],
        core_dims=(1,),
        samples=_tanh_samples,
        errors=lambda: _point_errors(P.poincare_tanh_map, True),
        tol=Tolerance(8, "exp_0 and one product"),
        measure="normwise",
    ),
    OpInfo(
        func=P.poincare_conformal_factor,
        ref=lambda x, c: 2 / (1 - c * _dot(x, x)),
        core_dims=(1,),
        samples=lambda dt: _points(dt, 3800),
        errors=lambda: _point_errors(P.poincare_conformal_factor),
        tol=Tolerance(4, "α in double-double, one quotient"),
    ),
    OpInfo(
        func=P.poincare_karcher_mean,
        ref=_ref_karcher,
        core_dims=(2,),
        samples=_karcher_samples,
        errors=_karcher_errors,
        dtypes=(torch.float64, torch.float32),
        tol=Tolerance(256, "stopping rule 64·eps·(1+radius) on ½‖grad F‖, Hessian eigenvalues ≥ 1, "
                           "plus rounding of the log/exp maps"),
        measure="geodesic",
        devices=("cpu", "cuda"),  # the iteration stops on a host-side test of the gradient's norm
    ),
]
