"""Registry entries for the Euclidean operators and the three inverse-distance attentions.

References are loops in mpmath at 60 digits over the exact input values: the squared
distance of the geometry, then ``W = (D + ε)^-1 / Σ (D + ε)^-1`` and ``W @ v``.
"""

import functools
import math

import mpmath
import torch

from attnaudit.operators import attention as A
from attnaudit.operators import ida as I
from attnaudit.operators import softmax as SM
from attnaudit.operators._checks import compute_dtype, expansion_bound
from attnaudit.operators.distances import squared_distances

from .core import ALL_DTYPES, ErrorInput, OpInfo, Sample, Tolerance, poincare_distance_mp
from .samplers import (
    F64,
    ball_at_radius,
    boundary_exponents,
    cast_inside,
    gen,
    grad_qkv,
    in_ball,
    normal,
    unit,
)
from .sphere import ref_angle

PATHS = ("exact", "fast")


def _sq(x, y):
    return mpmath.fsum((a - b) ** 2 for a, b in zip(x, y, strict=True))


def _ref_weights(dist2, q, k, eps):
    eps = mpmath.mpf(eps)
    out = []
    for qi in q:
        inv = [1 / (dist2(qi, kj) + eps) for kj in k]
        total = mpmath.fsum(inv)
        out.append([w / total for w in inv])
    return out


def _ref_attention(dist2):
    def ref(q, k, v, eps, **_):
        w = _ref_weights(dist2, q, k, eps)
        return [[mpmath.fsum(wi[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))] for wi in w]

    return ref


def _ref_softmax(q, k, scale=None):
    s = mpmath.mpf(scale) if scale is not None else 1 / mpmath.sqrt(len(q[0]))
    out = []
    for qi in q:
        logits = [s * mpmath.fsum(a * b for a, b in zip(qi, kj, strict=True)) for kj in k]
        top = max(logits)
        e = [mpmath.exp(t - top) for t in logits]
        out.append([x / mpmath.fsum(e) for x in e])
    return out


# ---------------------------------------------------------------- samples
def _euclid_qk(dtype, seed, n_q=4, n_k=5, d=3):
    """Generic points, a coincident pair, a near pair (1e-6) and points far from the origin."""
    g = gen(seed + ALL_DTYPES.index(dtype))
    q, k = normal(g, n_q, d), normal(g, n_k, d)
    k[1] = q[0]
    k[2] = q[1] + 1e-6 * normal(g, d)
    return g, q, k


def _attention_samples(kind: str):
    def samples(dtype):
        tiny = torch.finfo(dtype).tiny
        out = []
        if kind == "ida":
            g, q, k = _euclid_qk(dtype, 5000, 5, 6, 3)
            v = normal(g, 6, 2)
            cases = [(q, k, "coincident and near pairs"), (q + 1e3, k + 1e3, "offset 1e3 from the origin")]
        elif kind == "hida":
            g = gen(5100 + ALL_DTYPES.index(dtype))
            ks = boundary_exponents(dtype)
            q = torch.cat([ball_at_radius(g, 2, 3, 0.5), ball_at_radius(g, 2, 3, 1 - 10.0 ** -ks[-1])])
            k = torch.cat(
                [q[:1], q[2:3], ball_at_radius(g, 2, 3, 0.9), ball_at_radius(g, 2, 3, 1 - 10.0 ** -ks[-2])]
            )
            v = normal(g, 6, 2)
            cases = [(q, k, f"coincident, radii up to 1-1e-{ks[-1]}")]
        else:
            g = gen(5200 + ALL_DTYPES.index(dtype))
            q = unit(g, 4, 3)
            small = max(1e-9, 64 * torch.finfo(dtype).eps)
            k = torch.cat(
                [q[:1], -q[1:2], math.cos(small) * q[2:3] + math.sin(small) * unit(g, 1, 3), unit(g, 3, 3)]
            )
            k[2] = k[2] / k[2].norm()
            v = normal(g, 6, 2)
            cases = [(q, k, "coincident, antipodal, near pairs"), (3.0 * q, 0.5 * k, "non-unit copies")]
        for qq, kk, label in cases:
            qd, kd = (
                (cast_inside(qq, dtype), cast_inside(kk, dtype))
                if kind == "hida"
                else (qq.to(dtype), kk.to(dtype))
            )
            if qd is None or kd is None:
                continue
            for eps in (1e-2, 1e-8, tiny):
                out.append(Sample((qd, kd, v.to(dtype)), {"eps": eps}, f"{label}, ε={eps:.3g}"))
        return out

    return samples


def _fast_model(kind: str):
    """Stated bound of the fast path, per sample: 2ρ/(1-ρ) (IDA, HIDA) or 4ρ/(1-2ρ) (SIDA)."""

    def model(dtype, sample):
        rho = expansion_bound(sample.args[0].shape[-1], compute_dtype(dtype))
        return 4 * rho / (1 - 2 * rho) if kind == "sida" else 2 * rho / (1 - rho)

    return model


def _attention_errors(fn, ball=False, sphere=False):
    q, k, v = (
        torch.full((3, 2), 0.1, dtype=F64),
        torch.full((4, 2), 0.2, dtype=F64),
        torch.zeros(4, 2, dtype=F64),
    )
    nan = q.clone()
    nan[0, 0] = math.nan
    out = [
        ErrorInput(
            "mismatched d",
            lambda: fn(q, torch.zeros(4, 3, dtype=F64), v, eps=1.0),
            ValueError,
            "mismatched last dims",
        ),
        ErrorInput(
            "mismatched n",
            lambda: fn(q, k, torch.zeros(5, 2, dtype=F64), eps=1.0),
            ValueError,
            "mismatched n",
        ),
        ErrorInput(
            "integer dtype", lambda: fn(q.long(), k.long(), v.long(), eps=1.0), TypeError, "floating dtype"
        ),
        ErrorInput("mixed dtypes", lambda: fn(q, k.float(), v, eps=1.0), TypeError, "share one dtype"),
        ErrorInput("NaN", lambda: fn(nan, k, v, eps=1.0), ValueError, "contains NaN"),
        ErrorInput("eps = 0", lambda: fn(q, k, v, eps=0.0), ValueError, "eps must be positive"),
        ErrorInput("eps NaN", lambda: fn(q, k, v, eps=math.nan), ValueError, "eps must be positive"),
        ErrorInput("eps string", lambda: fn(q, k, v, eps="1"), TypeError, "eps must be a float"),
        ErrorInput("path", lambda: fn(q, k, v, eps=1.0, path="quick"), ValueError, "path must be one of"),
        ErrorInput("block 0", lambda: fn(q, k, v, eps=1.0, block=0), ValueError, "block must be >= 1"),
        ErrorInput("chunk_size -2", lambda: fn(q, k, v, eps=1.0, chunk_size=-2), ValueError,
                   "chunk_size must be"),
        ErrorInput(
            "chunk_size float",
            lambda: fn(q, k, v, eps=1.0, chunk_size=2.0),
            TypeError,
            "chunk_size must be an int",
        ),
        ErrorInput("no keys", lambda: fn(q, k[:0], v[:0], eps=1.0), ValueError, "at least one key"),
        ErrorInput(
            "fast path under vmap",
            lambda: torch.func.vmap(lambda a: fn(a, k, v, eps=1.0, path="fast"))(q[None]),
            ValueError,
            "torch.func transforms",
        ),
    ]
    if ball:
        out.append(
            ErrorInput(
                "‖k‖ >= 1",
                lambda: fn(q, torch.full((4, 2), 0.8, dtype=F64), v, eps=1.0),
                ValueError,
                "inside the Poincaré ball",
            )
        )
        out.append(
            ErrorInput("c = -1", lambda: fn(q, k, v, eps=1.0, c=-1.0), ValueError, "c must be positive")
        )
    if sphere:
        out.append(
            ErrorInput(
                "zero key",
                lambda: fn(q, torch.zeros(4, 2, dtype=F64), v, eps=1.0),
                ValueError,
                "must be non-zero",
            )
        )
    return out


def _weights_samples(dtype):
    out = []
    for s in _attention_samples("ida")(dtype):
        out.append(Sample(s.args[:2], s.kwargs, s.label))
    return out


def _euclid_pair_samples(dtype):
    g, q, k = _euclid_qk(dtype, 5300)
    out = [
        Sample((q.to(dtype), k.to(dtype)), {}, "coincident and near pairs"),
        Sample(((q + 1e4).to(dtype), (k + 1e4).to(dtype)), {}, "offset 1e4 (no expansion: no cancellation)"),
        Sample((normal(g, 2, 1, 3, 2).to(dtype), normal(g, 3, 4, 2).to(dtype)), {}, "broadcast batch"),
    ]
    return out


def _kernel_samples(dtype):
    g = gen(5400 + ALL_DTYPES.index(dtype))
    x = normal(g, 5, 3)
    x[3] = x[0] + 1e-7 * normal(g, 3)
    big = torch.finfo(dtype).max
    return [
        Sample((x.to(dtype),), {"eps": e}, f"near pair, ε={e:g}") for e in (1e-12, 1e-3, 2.0) if 1 / e < big
    ]


def _erank_samples(dtype):
    g = gen(5500 + ALL_DTYPES.index(dtype))
    a = normal(g, 5, 5)
    return [
        Sample(((a + a.T).to(dtype),), {}, "random symmetric"),
        Sample((torch.eye(4, dtype=dtype),), {}, "identity"),
        Sample(((a @ a.T * 1e150).to(dtype) if dtype == F64 else (a @ a.T).to(dtype),), {}, "scaled Gram"),
    ]


def _softmax_samples(dtype):
    g = gen(5600 + ALL_DTYPES.index(dtype))
    q, k, v = normal(g, 4, 3), normal(g, 5, 3), normal(g, 5, 2)
    return [Sample((q.to(dtype), k.to(dtype), v.to(dtype)), {"scale": s}, f"scale={s}") for s in (None, 3.0)]


def _kernel_errors():
    x = torch.zeros(3, 2, dtype=F64)
    nan = x.clone()
    nan[1, 1] = math.nan
    return [
        ErrorInput("integer dtype", lambda: I.ida_kernel(x.long(), eps=1.0), TypeError, "floating dtype"),
        ErrorInput("1-dim", lambda: I.ida_kernel(x[0], eps=1.0), ValueError, "at least 2 dims"),
        ErrorInput("eps = -1", lambda: I.ida_kernel(x, eps=-1.0), ValueError, "eps must be positive"),
        ErrorInput("NaN", lambda: I.ida_kernel(nan, eps=1.0), ValueError, "contains NaN"),
        ErrorInput("eps NaN", lambda: I.ida_kernel(x, eps=math.nan), ValueError, "eps must be positive"),
        ErrorInput("eps inf", lambda: I.ida_kernel(x, eps=math.inf), ValueError, "eps must be positive"),
        ErrorInput("eps string", lambda: I.ida_kernel(x, eps="1e-3"), TypeError, "eps must be a float"),
        ErrorInput("eps complex tensor", lambda: I.ida_kernel(x, eps=torch.tensor([1j])), TypeError,
                   "eps tensor must be real"),
    ]


def _ref_erank(k):
    n = len(k)
    tr = mpmath.fsum(k[i][i] for i in range(n))
    return tr * tr / mpmath.fsum(k[i][j] ** 2 for i in range(n) for j in range(n))


def _errs_qk(fn, **kw):
    q, k = torch.zeros(3, 2, dtype=F64), torch.zeros(4, 2, dtype=F64)
    nan = q.clone()
    nan[0, 0] = math.nan
    return [
        ErrorInput(
            "mismatched d",
            lambda: fn(q, torch.zeros(4, 3, dtype=F64), **kw),
            ValueError,
            "mismatched last dims",
        ),
        ErrorInput("integer dtype", lambda: fn(q.long(), k.long(), **kw), TypeError, "floating dtype"),
        ErrorInput("mixed dtypes", lambda: fn(q, k.float(), **kw), TypeError, "share one dtype"),
        ErrorInput("1-dim", lambda: fn(torch.zeros(2, dtype=F64), k, **kw), ValueError, "at least 2 dims"),
        ErrorInput("NaN", lambda: fn(nan, k, **kw), ValueError, "contains NaN"),
    ]


def _grad(args: str, ball: bool = False, **kwargs):
    """Gradcheck samples: generic q, k, v (batch 2, n = 5, d = 3) with a key on a query; ``args``
    names the tensors passed ("qk", "qkv", "q"); ball: q and k inside the Poincaré ball."""

    def samples():
        q, k, v = grad_qkv(37)
        if ball:
            q, k = in_ball(q, 2.0), in_ball(k, 2.0)
        pick = {"q": q, "k": k, "v": v}
        return [Sample(tuple(pick[a] for a in args), kwargs, f"a coincident pair, {kwargs}")]

    return samples


def _grad_attention(kind: str):
    """ε = 1e-2 with a key on a query, and for IDA a per-batch ε tensor (held fixed here)."""

    def samples():
        out = _grad("qkv", ball=kind == "hida", eps=1e-2)()
        if kind == "ida":
            q, k, v = grad_qkv(38)
            out.append(Sample((q, k, v), {"eps": torch.linspace(1e-2, 1.0, 2, dtype=F64)}, "ε per batch"))
        return out

    return samples


def _grad_erank():
    q, _, _ = grad_qkv(37)
    return [Sample((I.ida_kernel(q, eps=1e-2),), {}, "IDA kernels of 5 points")]


ENTRIES = [
    OpInfo(
        func=squared_distances,
        ref=lambda x, y: [[_sq(a, b) for b in y] for a in x],
        core_dims=(2, 2),
        samples=_euclid_pair_samples,
        errors=lambda: [*_errs_qk(squared_distances),
                        ErrorInput("not a tensor", lambda: squared_distances([[0.0]], torch.zeros(5, 4)),
                                   TypeError, "must be a torch.Tensor")],
        tol=Tolerance(16, "d = 3 squared direct differences summed, then cdist's sqrt/square round trip"),
        gradcheck=_grad("qk"),
    ),
    OpInfo(
        func=SM.softmax_weights,
        ref=_ref_softmax,
        core_dims=(2, 2),
        samples=lambda dt: [Sample(s.args[:2], s.kwargs, s.label) for s in _softmax_samples(dt)],
        errors=lambda: _errs_qk(SM.softmax_weights),
        tol=Tolerance(16, "logits (d = 3), exp and a row sum of 5"),
        measure="normwise",
        reference_kind="loops",
        gradcheck=_grad("qk"),
    ),
    OpInfo(
        func=SM.softmax_attention,
        op=functools.partial(SM.softmax_attention, chunk_size=3),
        ref=lambda q, k, v, scale: [
            [mpmath.fsum(w[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))]
            for w in _ref_softmax(q, k, scale)
        ],
        core_dims=(2, 2, 2),
        samples=_softmax_samples,
        errors=lambda: [
            *_errs_qk(lambda q, k: SM.softmax_attention(q, k, k)),
            ErrorInput("mismatched n", lambda: SM.softmax_attention(
                torch.zeros(3, 4, dtype=F64), torch.zeros(5, 4, dtype=F64), torch.zeros(6, 2, dtype=F64)),
                ValueError, "mismatched n"),
            ErrorInput("chunk_size 0", lambda: SM.softmax_attention(
                torch.zeros(3, 4, dtype=F64), torch.zeros(5, 4, dtype=F64), torch.zeros(5, 2, dtype=F64),
                chunk_size=0), ValueError, "chunk_size must be >= 1"),
        ],
        tol=Tolerance(16, "softmax weights, then a convex combination"),
        measure="values",
        reference_kind="loops",
        gradcheck=_grad("qkv"),
    ),
    OpInfo(
        func=I.ida_weights,
        ref=lambda q, k, eps: _ref_weights(_sq, q, k, eps),
        core_dims=(2, 2),
        samples=_weights_samples,
        errors=lambda: [*_errs_qk(I.ida_weights, eps=1.0),
                        ErrorInput("eps = 0", lambda: I.ida_weights(torch.zeros(3, 2, dtype=F64),
                                                                    torch.zeros(4, 2, dtype=F64), eps=0.0),
                                   ValueError, "eps must be positive")],
        tol=Tolerance(32, "exact D (direct differences), c/D, a row sum of 6, a quotient"),
        measure="normwise",
        gradcheck=_grad("qk", eps=1e-2),
    ),
    OpInfo(
        func=I.ida_kernel,
        ref=lambda x, eps: [[1 / (_sq(a, b) + mpmath.mpf(eps)) for b in x] for a in x],
        core_dims=(2,),
        samples=_kernel_samples,
        errors=_kernel_errors,
        tol=Tolerance(32, "D by direct differences (d = 3, near pair at 1e-7: condition 1), one reciprocal"),
        gradcheck=_grad("q", eps=1e-2),
    ),
    OpInfo(
        func=I.effective_rank,
        ref=_ref_erank,
        core_dims=(2,),
        samples=_erank_samples,
        errors=lambda: [
            ErrorInput("not square", lambda: I.effective_rank(torch.zeros(3, 4, dtype=F64)), ValueError,
                       "must be square"),
            ErrorInput("integer", lambda: I.effective_rank(torch.zeros(3, 3, dtype=torch.long)), TypeError,
                       "floating dtype"),
        ],
        tol=Tolerance(64, "two sums of n² terms, a square and a quotient (condition ~1)"),
        gradcheck=_grad_erank,
    ),
]

_FAST_TEXT = {"ida": "2ρ/(1-ρ)", "hida": "2ρ/(1-ρ)", "sida": "4ρ/(1-2ρ)"}
_GEOMETRY = {
    "ida": (I.ida_attention, _sq, 32, {}),
    "hida": (A.hida_attention, lambda x, y: poincare_distance_mp(x, y, 1) ** 2, 64, {"ball": True}),
    "sida": (A.sida_attention, lambda x, y: ref_angle(x, y) ** 2, 64, {"sphere": True}),
}
for _path in PATHS:
    for _kind, (_func, _dist2, _ulps, _where) in _GEOMETRY.items():
        fast = _path == "fast"
        ENTRIES.append(OpInfo(
            func=_func,
            variant=f"path={_path}",
            op=functools.partial(_func, path=_path, block=4, chunk_size=3),
            ref=_ref_attention(_dist2),
            core_dims=(2, 2, 2),
            samples=_attention_samples(_kind),
            errors=functools.partial(_attention_errors, _func, **_where),
            tol=Tolerance(_ulps, "the exact path's distances, the weights and a convex combination"
                          + ("; the fast path's expansion, ρ = expansion_bound(d, dtype)" if fast else ""),
                          _fast_model(_kind) if fast else None, _FAST_TEXT[_kind] if fast else None),
            measure="values",
            # the fast path finds its recomputed pairs on the host: no meta tensors, a CUDA sync
            devices=("cpu", "cuda") if fast else ("cpu", "cuda", "meta"),
            gradcheck=_grad_attention(_kind),
        ))
