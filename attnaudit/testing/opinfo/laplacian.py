"""Registry entries for LaplacianFormer's kernels, the Nyström approximation and Newton–Schulz.

References are mpmath at 60 digits on the exact input values: distances and exponentials entry
by entry, segment means, and ``mpmath.inverse`` for the Nyström core (the limit
the Newton–Schulz iteration converges to), independent of the operators' torch code paths.
"""

import math

import mpmath
import torch

from attnaudit.operators import laplacian as L
from attnaudit.operators._checks import compute_dtype

from .core import ALL_DTYPES, ErrorInput, OpInfo, Sample, Tolerance
from .samplers import F64, gen, normal

SIGMAS = (0.5, 3.0)
NS_ITERATIONS = 40  # ‖E₀‖ ≤ 1 − 1/(mκ²): 40 squarings reach round-off for mκ² up to ~1e10


def _dist(a, b):
    return mpmath.sqrt(mpmath.fsum((x - y) ** 2 for x, y in zip(a, b, strict=True)))


def _ref_kernel(kind):
    def ref(q, k, sigma):
        s = mpmath.mpf(sigma)
        if kind == "laplacian":
            return [[mpmath.exp(-_dist(a, b) / s) for b in k] for a in q]
        return [[mpmath.exp(-_dist(a, b) ** 2 / (2 * s * s)) for b in k] for a in q]

    return ref


def _means(x, m):
    size = len(x) // m
    return [[mpmath.fsum(x[i][c] for i in range(l * size, (l + 1) * size)) / size
             for c in range(len(x[0]))] for l in range(m)]


def _ref_nystrom(q, k, sigma, landmarks, iterations=None):
    kern = _ref_kernel("laplacian")
    qt, kt = _means(q, landmarks), _means(k, landmarks)
    left, core, right = (mpmath.matrix(kern(a, b, sigma)) for a, b in ((q, kt), (qt, kt), (qt, k)))
    out = left * (mpmath.inverse(core) * right)
    return [[out[i, j] for j in range(out.cols)] for i in range(out.rows)]


def _ref_inverse(a, iterations):
    inv = mpmath.inverse(mpmath.matrix(a))
    return [[inv[i, j] for j in range(inv.cols)] for i in range(inv.rows)]


# ---------------------------------------------------------------- samples
def _kernel_samples(dtype):
    """Generic pairs, a coincident pair (K = 1 exactly), a near pair (1e-6), far pairs (r/σ ≈ 30)."""
    g = gen(7000 + ALL_DTYPES.index(dtype))
    q, k = normal(g, 4, 3), normal(g, 5, 3)
    k[1] = q[0]
    k[2] = q[1] + 1e-6 * normal(g, 3)
    out = [Sample((q.to(dtype), k.to(dtype)), {"sigma": s}, f"coincident and near pairs, σ={s:g}")
           for s in SIGMAS]
    out.append(Sample(((5 * q).to(dtype), k.to(dtype)), {"sigma": 0.5}, "far pairs, σ=0.5"))
    out.append(Sample((normal(g, 2, 3, 3).to(dtype), normal(g, 2, 4, 3).to(dtype)), {"sigma": 1.0},
                      "batch (2,3,3) with (2,4,3)"))
    return out


def _kernel_tolerance(kind):
    """The exponent's argument a = r/σ (or r²/2σ²) carries a relative error of a few u of the
    compute dtype, which exp turns into an absolute error of the same size times a."""

    def model(dtype, sample):
        q, k = (t.to(F64) for t in sample.args)
        r = torch.cdist(q, k)
        s = sample.kwargs["sigma"]
        arg = r / s if kind == "laplacian" else r.square() / (2 * s * s)
        return 8 * torch.finfo(compute_dtype(dtype)).eps * float(arg.max())

    return Tolerance(8, "rounding of the output, and the relative error of r/σ or r²/2σ² in the compute "
                        "dtype propagated through exp", model, "8·eps(compute dtype)·max argument of exp")


def _nystrom_samples(dtype):
    g = gen(7100 + ALL_DTYPES.index(dtype))
    out = []
    for n, m, s in ((8, 2, 2.0), (8, 4, 1.0), (6, 6, 3.0)):
        q, k = normal(g, n, 3), normal(g, n, 3)
        out.append(Sample((q.to(dtype), k.to(dtype)), {"sigma": s, "landmarks": m},
                          f"n={n} m={m} σ={s:g}" + (" (m = n: exact)" if m == n else "")))
    q, k = normal(g, 8, 3), normal(g, 8, 3)
    out.append(Sample((q.to(dtype), k.to(dtype)), {"sigma": 2.0, "landmarks": 4, "iterations": NS_ITERATIONS},
                      f"n=8 m=4 σ=2, Newton–Schulz core ({NS_ITERATIONS} steps)"))
    return out


def _core_condition(sample):
    q, k = (t.to(F64) for t in sample.args)
    m, s = sample.kwargs["landmarks"], sample.kwargs["sigma"]
    core = L.laplacian_kernel(L.segment_means(q, m), L.segment_means(k, m), sigma=s)
    return float(torch.linalg.cond(core))


NYSTROM_TOL = Tolerance(
    0, "backward-stable solve of the m×m core, κ its 2-norm condition number, and the factors' rounding",
    lambda dtype, sample: 64 * torch.finfo(dtype).eps * sample.kwargs["landmarks"] * _core_condition(sample),
    "64·eps·m·κ(core)")


def _spd_samples(dtype):
    """Nyström cores (Laplacian kernels of segment means: symmetric positive definite) and a
    non-symmetric matrix, condition numbers from ~2 to ~1e3."""
    g = gen(7200 + ALL_DTYPES.index(dtype))
    out = []
    for m, s in ((4, 0.5), (6, 2.0), (5, 20.0)):
        x = normal(g, m, 3)
        out.append(Sample((L.laplacian_kernel(x, x, sigma=s).to(dtype),), {"iterations": NS_ITERATIONS},
                          f"Laplacian Gram m={m} σ={s:g}"))
    a = torch.eye(4, dtype=F64) * 3 + normal(g, 4, 4)
    out.append(Sample((a.to(dtype),), {"iterations": NS_ITERATIONS}, "non-symmetric 3I + N(0,1)"))
    return out


def _cond_model(dtype, sample):
    a = sample.args[0].to(F64)
    return 64 * torch.finfo(dtype).eps * a.shape[-1] * float(torch.linalg.cond(a))


NS_TOL = Tolerance(0, "the iteration's fixed point is A⁻¹ to round-off of the products, amplified by κ",
                   _cond_model, "64·eps·m·κ(A)")


# ---------------------------------------------------------------- errors
def _kernel_errors(fn):
    q, k = torch.zeros(3, 2, dtype=F64), torch.ones(4, 2, dtype=F64)
    nan = q.clone()
    nan[0, 0] = math.nan
    return [
        ErrorInput("sigma 0", lambda: fn(q, k, sigma=0.0), ValueError, "sigma must be positive"),
        ErrorInput("sigma not a float", lambda: fn(q, k, sigma="1"), TypeError, "sigma must be"),
        ErrorInput("mismatched d", lambda: fn(q, torch.ones(4, 3, dtype=F64), sigma=1.0), ValueError,
                   "mismatched last dims"),
        ErrorInput("NaN", lambda: fn(nan, k, sigma=1.0), ValueError, "contains NaN"),
        ErrorInput("integer dtype", lambda: fn(q.long(), k.long(), sigma=1.0), TypeError, "floating dtype"),
        ErrorInput("mixed dtypes", lambda: fn(q, k.float(), sigma=1.0), TypeError, "share one dtype"),
    ]


def _nystrom_errors():
    q = torch.zeros(6, 2, dtype=F64)
    return [*_kernel_errors(lambda a, b, sigma: L.nystrom_kernel(a, b, sigma=sigma, landmarks=2)),
            ErrorInput("landmarks not dividing n", lambda: L.nystrom_kernel(q, q, sigma=1.0, landmarks=4),
                       ValueError, "landmarks must divide n"),
            ErrorInput("landmarks 0", lambda: L.nystrom_kernel(q, q, sigma=1.0, landmarks=0),
                       ValueError, "landmarks must be >= 1")]


def _ns_errors():
    a = torch.eye(3, dtype=F64)
    nan = a.clone()
    nan[0, 1] = math.nan
    return [
        ErrorInput("not square", lambda: L.newton_schulz_inverse(torch.ones(3, 4, dtype=F64), iterations=3),
                   ValueError, "must be square"),
        ErrorInput("NaN", lambda: L.newton_schulz_inverse(nan, iterations=3), ValueError, "contains NaN"),
        ErrorInput("iterations 0", lambda: L.newton_schulz_inverse(a, iterations=0), ValueError,
                   "iterations must be >= 1"),
        ErrorInput("integer dtype", lambda: L.newton_schulz_inverse(a.long(), iterations=3), TypeError,
                   "floating dtype"),
    ]


def _segment_samples(dtype):
    g = gen(7500 + ALL_DTYPES.index(dtype))
    return [Sample((normal(g, 12, 3).to(dtype),), {"landmarks": m}, f"n=12 m={m}") for m in (1, 3, 12)] + [
        Sample((normal(g, 2, 8, 2).to(dtype),), {"landmarks": 4}, "batch (2,8,2) m=4")]


def _segment_errors():
    x = torch.zeros(6, 2, dtype=F64)
    nan = x.clone()
    nan[0, 0] = math.nan
    return [
        ErrorInput("landmarks not dividing n", lambda: L.segment_means(x, 4), ValueError, "must divide n"),
        ErrorInput("NaN", lambda: L.segment_means(nan, 2), ValueError, "contains NaN"),
        ErrorInput("integer dtype", lambda: L.segment_means(x.long(), 2), TypeError, "floating dtype"),
    ]


def _grad_pair():
    g = gen(7600)
    return [Sample((normal(g, 2, 4, 3), normal(g, 2, 5, 3)), {"sigma": 1.5}, "generic pairs, σ=1.5")]


ENTRIES = (
    OpInfo(func=L.segment_means, ref=lambda x, landmarks: _means(x, landmarks), core_dims=(2,),
           samples=_segment_samples, errors=_segment_errors,
           tol=Tolerance(16, "a sum of n/m terms in the dtype, one division")),
    OpInfo(func=L.laplacian_kernel, ref=_ref_kernel("laplacian"), core_dims=(2, 2), samples=_kernel_samples,
           errors=lambda: _kernel_errors(L.laplacian_kernel), tol=_kernel_tolerance("laplacian"),
           gradcheck=_grad_pair),
    OpInfo(func=L.gaussian_kernel, ref=_ref_kernel("gaussian"), core_dims=(2, 2), samples=_kernel_samples,
           errors=lambda: _kernel_errors(L.gaussian_kernel), tol=_kernel_tolerance("gaussian"),
           gradcheck=_grad_pair),
    OpInfo(func=L.nystrom_kernel, ref=_ref_nystrom, core_dims=(2, 2), samples=_nystrom_samples,
           errors=_nystrom_errors, dtypes=(torch.float64, torch.float32), tol=NYSTROM_TOL,
           measure="normwise"),
    OpInfo(func=L.newton_schulz_inverse, ref=_ref_inverse, core_dims=(2,), samples=_spd_samples,
           errors=_ns_errors, dtypes=(torch.float64, torch.float32), tol=NS_TOL, measure="normwise"),
)
