"""Registry entry for RMSNorm; the reference is mpmath at 60 digits on the exact input values."""

import math

import mpmath
import torch

from attnaudit.operators import rmsnorm as R

from .core import ALL_DTYPES, ErrorInput, OpInfo, Sample, Tolerance
from .samplers import F64, gen, normal


def _ref(x, eps, weight=None):
    r = mpmath.sqrt(mpmath.fsum(v * v for v in x) / len(x) + mpmath.mpf(eps))
    g = weight if weight is not None else [1] * len(x)
    return [gi * v / r for gi, v in zip(g, x, strict=True)]


def _samples(dtype):
    """Scales 1e-3..1e3 against ε from 1e-12 to 1 (ε dominating or negligible), x = 0, a gain."""
    g = gen(7300 + ALL_DTYPES.index(dtype))
    out = []
    for scale in (1e-3, 1.0, 1e3):
        for eps in (1e-12, 1e-6, 1.0):
            x = (scale * normal(g, 3, 5)).to(dtype)
            out.append(Sample((x,), {"eps": eps}, f"|x|~{scale:g}, ε={eps:g}"))
    out.append(Sample((torch.zeros(2, 5, dtype=dtype),), {"eps": 1e-6}, "x = 0"))
    return out


def _ref_with_weight(x, weight, eps):
    return _ref(x, eps, weight)


def _weighted_samples(dtype):
    g = gen(7400 + ALL_DTYPES.index(dtype))
    return [Sample((normal(g, 3, 4).to(dtype), normal(g, 4).to(dtype)), {"eps": 1e-6}, "gain g ~ N(0,1)")]


def _errors():
    x = torch.ones(2, 3, dtype=F64)
    nan = x.clone()
    nan[0, 0] = math.nan
    return [
        ErrorInput("eps 0", lambda: R.rms_norm(x, eps=0.0), ValueError, "eps must be positive"),
        ErrorInput("eps tensor", lambda: R.rms_norm(x, eps=torch.tensor(1.0)), TypeError, "eps must be"),
        ErrorInput("NaN", lambda: R.rms_norm(nan, eps=1e-6), ValueError, "contains NaN"),
        ErrorInput("integer dtype", lambda: R.rms_norm(x.long(), eps=1e-6), TypeError, "floating dtype"),
        ErrorInput("weight dtype", lambda: R.rms_norm(x, eps=1e-6, weight=torch.ones(3, dtype=torch.float32)),
                   TypeError, "weight must have"),
    ]


TOL = Tolerance(16, "the mean of d squares, one rsqrt, one product (and the gain)")

ENTRIES = (
    OpInfo(func=R.rms_norm, ref=_ref, core_dims=(1,), samples=_samples, errors=_errors, tol=TOL,
           gradcheck=lambda: [Sample((normal(gen(7500), 3, 5),), {"eps": 1e-6}, "N(0,1), ε=1e-6")]),
    OpInfo(func=R.rms_norm, variant="weight", op=lambda x, w, eps: R.rms_norm(x, eps=eps, weight=w),
           ref=_ref_with_weight, core_dims=(1, 1), samples=_weighted_samples, tol=TOL,
           gradcheck=lambda: [Sample((normal(gen(7600), 3, 4), normal(gen(7601), 4)), {"eps": 1e-6},
                                     "gain g ~ N(0,1)")]),
)
