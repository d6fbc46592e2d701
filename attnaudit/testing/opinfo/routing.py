"""Registry entries for HyperGate (§7), the learnable sphere map (§8.2) and GSR routing (§10).

References are mpmath at 60 digits on the exact inputs: the gate and its closed-form Jacobian
σ(z_k)δ_kl + σ(z_k)(1−σ(z_k))x_k W_kl (the operator takes it by torch.func instead), the MLP
map, and the SIDA weights with Top-K selection in mpmath.
"""

import math

import mpmath
import torch

from attnaudit.operators import routing as R
from attnaudit.operators.hypergate import hypergate, hypergate_jacobian

from .core import ALL_DTYPES, ErrorInput, OpInfo, Sample, Tolerance
from .samplers import F64, gen, grad_qkv, normal, unit
from .sphere import ref_angle


def _sigmoid(z):
    return 1 / (1 + mpmath.exp(-z))


def _ref_gate(x, w):
    z = [mpmath.fsum(a * b for a, b in zip(row, x, strict=True)) for row in w]
    return [_sigmoid(zk) * xk for zk, xk in zip(z, x, strict=True)]


def _ref_jacobian(x, w):
    z = [mpmath.fsum(a * b for a, b in zip(row, x, strict=True)) for row in w]
    out = []
    for k, zk in enumerate(z):
        s = _sigmoid(zk)
        out.append([(s if k == m else 0) + s * (1 - s) * x[k] * w[k][m] for m in range(len(x))])
    return out


def _gate_samples(seed):
    def samples(dtype):
        g = gen(seed + ALL_DTYPES.index(dtype))
        out = [Sample((normal(g, 3, 4).mul(s).to(dtype), normal(g, 4, 4).to(dtype)), {}, f"‖x‖~{s:g}")
               for s in (1e-3, 1.0, 8.0)]
        out.append(Sample((normal(g, 2, 3, 3).to(dtype), normal(g, 3, 3, 3).mul(3).to(dtype)), {},
                          "batched W (2,3,·) with (3,·,·)"))
        z = torch.tensor([[-1.2784645427610738, 0.0]], dtype=F64)  # σ(z)(1 + z(1 − σ(z))) = 0
        out.append(Sample((z.to(dtype), torch.eye(2, dtype=F64).to(dtype)), {}, "singular Jacobian"))
        return out

    return samples


def _gate_errors(fn):
    x, w = torch.ones(2, 3, dtype=F64), torch.eye(3, dtype=F64)
    nan = x.clone()
    nan[0, 0] = math.nan
    return [
        ErrorInput("w_g not (d, d)", lambda: fn(x, torch.ones(3, 4, dtype=F64)), ValueError, "must be"),
        ErrorInput("mixed dtypes", lambda: fn(x, w.float()), TypeError, "share one dtype"),
        ErrorInput("NaN", lambda: fn(nan, w), ValueError, "contains NaN"),
        ErrorInput("integer dtype", lambda: fn(x.long(), w.long()), TypeError, "floating dtype"),
    ]


def _mlp_params(g, d_in, h, d_out):
    return normal(g, h, d_in), normal(g, h), normal(g, d_out, h), normal(g, d_out)


def _mlp_samples(dtype):
    g = gen(6200 + ALL_DTYPES.index(dtype))
    out = []
    for scale in (1e-4, 1.0, 1e4):
        params = _mlp_params(g, 3, 5, 4)
        out.append(Sample(tuple(t.to(dtype) for t in (normal(g, 4, 3).mul(scale), *params)), {},
                          f"‖c‖~{scale:g}"))
    return out


def _ref_mlp(c, w1, b1, w2, b2):
    hid = [mpmath.tanh(mpmath.fsum(a * b for a, b in zip(row, c, strict=True)) + bb)
           for row, bb in zip(w1, b1, strict=True)]
    m = [mpmath.fsum(a * b for a, b in zip(row, hid, strict=True)) + bb
         for row, bb in zip(w2, b2, strict=True)]
    n = mpmath.sqrt(mpmath.fsum(a * a for a in m))
    return [a / n for a in m]


def _mlp_errors():
    g = gen(6300)
    c, (w1, b1, w2, b2) = normal(g, 2, 3), _mlp_params(g, 3, 5, 4)
    zero = (torch.zeros(5, 3, dtype=F64), torch.zeros(5, dtype=F64), w2, torch.zeros(4, dtype=F64))
    return [
        ErrorInput("mismatched w1", lambda: R.sphere_mlp_map(c, w1[:, :2], b1, w2, b2), ValueError,
                   "mismatched MLP shapes"),
        ErrorInput("zero MLP output", lambda: R.sphere_mlp_map(c, *zero), ValueError, "must be non-zero"),
        ErrorInput("mixed dtypes", lambda: R.sphere_mlp_map(c.float(), w1, b1, w2, b2), TypeError,
                   "share one dtype"),
    ]


def _ref_weights(q, c, eps):
    eps = mpmath.mpf(eps)
    out = []
    for qi in q:
        inv = [1 / (ref_angle(qi, ce) ** 2 + eps) for ce in c]
        total = mpmath.fsum(inv)
        out.append([w / total for w in inv])
    return out


def _ref_gsr(q, c, v, eps, k):
    out = []
    for wi in _ref_weights(q, c, eps):
        top = sorted(range(len(wi)), key=lambda e: -wi[e])[:k]
        out.append([mpmath.fsum(wi[e] * v[e][j] for e in top) for j in range(len(v[0]))])
    return out


def _gsr_samples(with_values: bool):
    def samples(dtype):
        g = gen(6400 + ALL_DTYPES.index(dtype) + 10 * with_values)
        out = []
        for eps, label in ((1e-2, "generic"), (1e-9, "ε=1e-9"), (1.0, "ε=1")):
            q, c = unit(g, 3, 4), unit(g, 6, 4)
            c[2] = q[0]  # a query on a prototype
            args = (q, c, normal(g, 6, 2)) if with_values else (q, c)
            kwargs = {"eps": eps} | ({"k": 2} if with_values else {})
            out.append(Sample(tuple(t.to(dtype) for t in args), kwargs, label))
        if with_values:
            q, c, v = unit(g, 2, 3), unit(g, 5, 3), normal(g, 5, 2)
            out.append(Sample((q.to(dtype), c.to(dtype), v.to(dtype)), {"eps": 1e-2, "k": 5}, "k = K_pool"))
        return out

    return samples


def _gsr_errors():
    g = gen(6500)
    q, c, v = unit(g, 2, 3), unit(g, 4, 3), normal(g, 4, 2)
    return [
        ErrorInput("k > K_pool", lambda: R.gsr_attention(q, c, v, eps=1e-2, k=5), ValueError, "k must be"),
        ErrorInput("k = 0", lambda: R.gsr_attention(q, c, v, eps=1e-2, k=0), ValueError, "k must be"),
        ErrorInput("v rows", lambda: R.gsr_attention(q, c, v[:3], eps=1e-2, k=2), ValueError, "one row per"),
        ErrorInput("zero prototype", lambda: R.gsr_weights(q, 0 * c, eps=1e-2), ValueError, "non-zero"),
        ErrorInput("eps <= 0", lambda: R.gsr_weights(q, c, eps=0.0), ValueError, "eps"),
    ]


GATE_TOL = Tolerance(16, "a d-term dot product (d ≤ 4), exp and one quotient per entry")


def _grad_gate():
    q, k, v = grad_qkv(37)
    return [Sample((q, (k.transpose(-1, -2) @ v)[:, None] / 4), {}, "batched W (2,1,3,3)")]


def _grad_gsr():
    q, k, v = grad_qkv(37)
    return [Sample((q, k, v), {"eps": 1e-2, "k": 2}, "Top-2 of 5, a query on a prototype")]


ENTRIES = [
    OpInfo(func=hypergate, ref=_ref_gate, core_dims=(1, 2), samples=_gate_samples(6000),
           errors=lambda: _gate_errors(hypergate), tol=GATE_TOL, measure="normwise", gradcheck=_grad_gate),
    OpInfo(func=hypergate_jacobian, ref=_ref_jacobian, core_dims=(1, 2), samples=_gate_samples(6100),
           errors=lambda: _gate_errors(hypergate_jacobian),
           tol=Tolerance(32, "torch.func's reverse-mode through the gate against the closed form (a dot "
                             "product, σ, σ(1−σ) and two products per entry)"),
           measure="normwise"),
    OpInfo(func=R.sphere_mlp_map, ref=_ref_mlp, core_dims=(1, 2, 1, 2, 1), samples=_mlp_samples,
           errors=_mlp_errors, gradcheck=lambda: _mlp_samples(torch.float64)[:2],  # tanh unsaturated
           tol=Tolerance(64, "two small matrix products (≤ 5 terms), tanh, a correctly rounded norm; tanh "
                             "saturates for ‖c‖ = 1e4 (condition ≤ ‖W₂‖)"),
           measure="normwise"),
    OpInfo(func=R.gsr_weights, ref=_ref_weights, core_dims=(2, 2), samples=_gsr_samples(False),
           errors=_gsr_errors,
           tol=Tolerance(64, "sida_attention's squared angles (32·eps) and the normalised inverse distances"),
           measure="normwise"),
    OpInfo(func=R.gsr_attention, ref=_ref_gsr, core_dims=(2, 2, 2), samples=_gsr_samples(True),
           errors=_gsr_errors,
           tol=Tolerance(64, "the weights (gsr_weights) and a k-term sum; samples keep the Top-K gap "
                             "far above rounding, so the selected set is the reference's"),
           measure="values", gradcheck=_grad_gsr),
]
