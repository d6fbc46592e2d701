"""Tests for the operators package against slow loop references, mpmath, and torch SDPA."""

import dataclasses
import itertools
import math

import mpmath
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnaudit.operators import (
    effective_rank,
    gsr_attention,
    hida_attention,
    hypergate,
    ida_attention,
    ida_kernel,
    ida_weights,
    metric_sqdist,
    mobius_add,
    poincare_distance,
    poincare_expmap,
    poincare_logmap,
    poincare_logmap0,
    poincare_sqdist,
    poincare_tanh_map,
    sida_attention,
    softmax_attention,
    softmax_weights,
    sphere_distance,
    sphere_sqdist,
    sphere_stereographic,
    squared_distances,
)

F64 = torch.float64
HALF_DTYPES = [torch.float16, torch.bfloat16]
ALL_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]

# (rtol, atol) against a float64 reference, per dtype of the operator's inputs.
TOL = {
    torch.float64: (1e-12, 1e-13),  # loop references sum in a different order: a few ulps
    torch.float32: (1e-5, 1e-6),  # ~100 ulps of float32 covers the d- and n-term sums
    torch.float16: (1e-2, 1e-2),  # inputs/outputs rounded to 11 bits; internals in float32
    torch.bfloat16: (3e-2, 3e-2),  # inputs/outputs rounded to 8 bits; internals in float32
}

DEVICES = [
    "cpu",
    pytest.param(
        "cuda",
        marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available"),
    ),
]


@pytest.fixture(autouse=True)
def _float64_default():
    old = torch.get_default_dtype()
    torch.set_default_dtype(F64)
    yield
    torch.set_default_dtype(old)


def randn(seed: int, *shape: int, dtype=F64, device="cpu") -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=F64).to(dtype=dtype, device=device)


# ---------------------------------------------------------------- loop references
def _batched(fn, *tensors, batch_args=()):
    """Apply a 2-D reference fn over the broadcast batch dims of tensors (and batch_args)."""
    batch = torch.broadcast_shapes(
        *(t.shape[:-2] for t in tensors), *(torch.as_tensor(b).shape for b in batch_args)
    )
    tensors = [t.expand(*batch, *t.shape[-2:]) for t in tensors]
    extra = [torch.as_tensor(b).expand(batch) for b in batch_args]
    outs = []
    for idx in itertools.product(*(range(s) for s in batch)):
        outs.append(fn(*(t[idx] for t in tensors), *(float(e[idx]) for e in extra)))
    if not batch:
        return outs[0]
    out = torch.stack(outs)
    return out.reshape(*batch, *out.shape[1:])


def ref_sqdist(x, y):
    out = torch.empty(x.shape[0], y.shape[0], dtype=F64)
    for i in range(x.shape[0]):
        for j in range(y.shape[0]):
            out[i, j] = sum((float(a) - float(b)) ** 2 for a, b in zip(x[i], y[j], strict=True))
    return out


def ref_softmax_weights(q, k, scale):
    w = torch.empty(q.shape[0], k.shape[0], dtype=F64)
    for i in range(q.shape[0]):
        logits = [scale * float(q[i] @ k[j]) for j in range(k.shape[0])]
        top = max(logits)
        exps = [math.exp(s - top) for s in logits]
        for j in range(k.shape[0]):
            w[i, j] = exps[j] / sum(exps)
    return w


def ref_ida_weights(q, k, eps):
    d2 = ref_sqdist(q, k)
    w = torch.empty_like(d2)
    for i in range(q.shape[0]):
        inv = [1.0 / (float(d2[i, j]) + eps) for j in range(k.shape[0])]
        for j in range(k.shape[0]):
            w[i, j] = inv[j] / sum(inv)
    return w


def ref_kernel(x, eps):
    return 1.0 / (ref_sqdist(x, x) + eps)


def ref_erank(k):
    n = k.shape[0]
    tr = sum(float(k[i, i]) for i in range(n))
    tr_k2 = sum(float(k[i, j]) * float(k[j, i]) for i in range(n) for j in range(n))
    return torch.tensor(tr * tr / tr_k2)


def assert_close(actual, expected, dtype):
    rtol, atol = TOL[dtype]
    torch.testing.assert_close(actual.to(F64), expected.to(F64), rtol=rtol, atol=atol)


# ---------------------------------------------------------------- squared_distances
def test_squared_distances_matches_loop_with_broadcast():
    x, y = randn(0, 2, 1, 4, 3), randn(1, 3, 5, 3)
    out = squared_distances(x, y)
    assert out.shape == (2, 3, 4, 5)
    assert_close(out, _batched(ref_sqdist, x, y), F64)


@pytest.mark.parametrize("case", ["generic", "near_coincident", "large_offset"])
def test_squared_distances_against_mpmath(case):
    x, y = randn(2, 4, 8), randn(3, 5, 8)
    if case == "near_coincident":  # x.y expansion would lose every digit here
        y = x[[0, 1, 2, 3, 0]] + 1e-9 * randn(4, 5, 8)
    elif case == "large_offset":
        x, y = x + 1e4, y + 1e4
    out = squared_distances(x, y)
    with mpmath.workdps(50):
        for i, j in itertools.product(range(4), range(5)):
            exact = mpmath.fsum(
                (mpmath.mpf(float(a)) - mpmath.mpf(float(b))) ** 2
                for a, b in zip(x[i], y[j], strict=True)
            )
            rel = abs((mpmath.mpf(float(out[i, j])) - exact) / exact)
            assert rel < 20 * torch.finfo(F64).eps, (case, i, j, rel)  # d-term sum + sqrt/square


def test_squared_distances_exactly_zero_at_coincident_points():
    x = 1e3 * randn(4, 6, 5)
    y = torch.cat([randn(5, 3, 5), x[2:3]])
    assert squared_distances(x, y)[2, 3] == 0
    assert torch.all(squared_distances(x, x).diagonal() == 0)


@pytest.mark.parametrize("coincident", [False, True])
def test_squared_distances_gradcheck(coincident):
    x = randn(6, 2, 3, 4).requires_grad_()
    y = randn(7, 5, 4)
    if coincident:
        y = torch.cat([y, x.detach()[1, :2]])
    y.requires_grad_()
    assert torch.autograd.gradcheck(squared_distances, (x, y))
    assert torch.autograd.gradgradcheck(squared_distances, (x, y))


def test_squared_distances_hessian_is_2i_at_coincident_points():
    x = randn(8, 1, 3).requires_grad_()
    y = torch.cat([x.detach(), randn(9, 2, 3)])
    (grad,) = torch.autograd.grad(squared_distances(x, y).sum(), x, create_graph=True)
    assert torch.all(grad.isfinite())
    rows = [torch.autograd.grad(grad[0, c], x, retain_graph=True)[0][0] for c in range(3)]
    torch.testing.assert_close(torch.stack(rows), 2 * 3 * torch.eye(3))  # 2 I per key, 3 keys


# ---------------------------------------------------------------- softmax
def test_softmax_weights_matches_loop():
    q, k = randn(10, 2, 5, 4), randn(11, 2, 6, 4)
    assert_close(
        softmax_weights(q, k), _batched(lambda a, b: ref_softmax_weights(a, b, 0.5), q, k), F64
    )
    assert_close(
        softmax_weights(q, k, scale=1.3),
        _batched(lambda a, b: ref_softmax_weights(a, b, 1.3), q, k),
        F64,
    )


@pytest.mark.parametrize("scale", [None, 0.3])
def test_softmax_attention_matches_loop_and_sdpa(scale):
    q, k, v = randn(12, 2, 3, 7, 8), randn(13, 3, 9, 8), randn(14, 3, 9, 5)
    out = softmax_attention(q, k, v, scale=scale, chunk_size=3)
    s = scale if scale is not None else 1 / math.sqrt(8)
    ref = _batched(lambda a, b, c: ref_softmax_weights(a, b, s) @ c, q, k, v)
    assert_close(out, ref, F64)
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)
    assert_close(out, sdpa, F64)


@pytest.mark.parametrize("dtype", [torch.float32, *HALF_DTYPES])
def test_softmax_attention_low_precision_matches_sdpa(dtype):
    q, k, v = (randn(s, 2, 33, 16) for s in (15, 16, 17))
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    out = softmax_attention(q.to(dtype), k.to(dtype), v.to(dtype), chunk_size=8)
    assert out.dtype == dtype
    assert_close(out, ref, dtype)


@pytest.mark.parametrize("chunk_size", [1, 2, 5, 7, 13, 64])
def test_chunked_equals_unchunked(chunk_size):
    q, k, v = randn(18, 3, 13, 4), randn(19, 3, 6, 4), randn(20, 3, 6, 2)
    eps = torch.tensor([1e-3, 1e-1, 1.0])
    torch.testing.assert_close(
        softmax_attention(q, k, v, chunk_size=chunk_size), softmax_attention(q, k, v, chunk_size=13)
    )
    torch.testing.assert_close(
        ida_attention(q, k, v, eps=eps, chunk_size=chunk_size),
        ida_attention(q, k, v, eps=eps, chunk_size=13),
    )


# ---------------------------------------------------------------- IDA
def test_ida_weights_and_attention_match_loop():
    q, k, v = randn(21, 2, 1, 5, 3), randn(22, 4, 6, 3), randn(23, 4, 6, 2)
    ref_w = _batched(lambda a, b: ref_ida_weights(a, b, 0.01), q, k)
    assert_close(ida_weights(q, k, eps=0.01), ref_w, F64)
    assert_close(ida_attention(q, k, v, eps=0.01, chunk_size=2), ref_w @ v, F64)


def test_ida_eps_tensor_matches_per_batch_floats():
    q, k, v = randn(24, 4, 5, 3), randn(25, 4, 6, 3), randn(26, 4, 6, 2)
    eps = torch.tensor([1e-8, 1e-3, 0.1, 10.0])
    out = ida_attention(q, k, v, eps=eps, chunk_size=2)
    w = ida_weights(q, k, eps=eps)
    for b in range(4):
        torch.testing.assert_close(out[b], ida_attention(q[b], k[b], v[b], eps=float(eps[b])))
        torch.testing.assert_close(w[b], ida_weights(q[b], k[b], eps=float(eps[b])))
    # A 0-dim tensor eps behaves like the float; eps broadcasts over a new leading dim.
    torch.testing.assert_close(ida_weights(q, k, eps=torch.tensor(0.1)), ida_weights(q, k, eps=0.1))
    many = ida_weights(q, k, eps=eps[:, None])  # (4, 1) against batch (4,) -> (4, 4)
    assert many.shape == (4, 4, 5, 6)
    torch.testing.assert_close(many[2, 1], ida_weights(q[1], k[1], eps=0.1))


def test_ida_exact_retrieval_closed_form():
    eps = 1e-14
    k = 100.0 + randn(27, 7, 4)  # the offset makes any |q|^2+|k|^2-2q.k cancellation visible
    q = k[3:4].clone()
    assert squared_distances(q, k)[0, 3] == 0
    w = ida_weights(q, k, eps=eps)[0]
    d2 = ref_sqdist(q, k)[0]
    others = [j for j in range(7) if j != 3]
    s = sum(1.0 / (float(d2[j]) + eps) for j in others)
    # W_3 = 1 / (1 + eps S) = 1 - O(eps S); W_j = eps / ((D_j + eps)(1 + eps S)).
    assert abs(float(w[3]) - 1.0 / (1.0 + eps * s)) <= 2 * torch.finfo(F64).eps
    assert 0 < 1.0 - float(w[3]) <= 2 * eps * s
    for j in others:
        closed = eps / ((float(d2[j]) + eps) * (1.0 + eps * s))
        assert math.isclose(float(w[j]), closed, rel_tol=1e-13)


@pytest.mark.parametrize(
    "dtype,eps", [(torch.float32, 1e-40), (torch.float16, 1e-10), (F64, 1e-320)]
)
def test_ida_tiny_eps_is_finite_and_exact(dtype, eps):
    k = randn(28, 6, 4, dtype=dtype)
    q = torch.cat([k[:2], randn(29, 3, 4, dtype=dtype)])
    v = randn(30, 6, 3, dtype=dtype)
    w = ida_weights(q, k, eps=eps)
    out = ida_attention(q, k, v, eps=eps)
    assert torch.all(w.isfinite()) and torch.all(out.isfinite())
    assert w[0, 0] == 1 and w[1, 1] == 1  # exact retrieval in the limit
    torch.testing.assert_close(out[:2], v[:2], rtol=0, atol=0)
    # Two keys equal to the query share the weight.
    tie = ida_weights(k[:1], torch.cat([k[:1], k[:1], k[1:]]), eps=eps)[0]
    assert tie[0] == tie[1] == 0.5


def test_ida_kernel_matches_loop_with_exact_diagonal():
    x = randn(31, 3, 5, 4)
    eps = torch.tensor([1e-12, 1e-3, 2.0])
    kern = ida_kernel(x, eps=eps)
    for b in range(3):
        assert_close(kern[b], ref_kernel(x[b], float(eps[b])), F64)
        assert torch.all(kern[b].diagonal() == 1.0 / eps[b])
    torch.testing.assert_close(kern, kern.transpose(-1, -2), rtol=0, atol=0)


def test_effective_rank():
    mats = torch.stack([ida_kernel(randn(32, 6, 3), eps=e) for e in (1e-6, 1e-2, 1.0, 100.0)])
    out = effective_rank(mats)
    assert out.shape == (4,)
    assert_close(out, torch.stack([ref_erank(m) for m in mats]), F64)
    torch.testing.assert_close(effective_rank(torch.eye(5)), torch.tensor(5.0))
    torch.testing.assert_close(effective_rank(torch.ones(2, 5, 5)), torch.ones(2))
    # Scale invariant and no overflow of sum K^2 (entries 1e200).
    torch.testing.assert_close(effective_rank(1e200 * mats), out)
    # eps -> 0: K -> I/eps, so the effective rank tends to n (diagonal entries 1e300).
    big = ida_kernel(randn(33, 6, 3), eps=1e-300)
    torch.testing.assert_close(effective_rank(big), torch.tensor(6.0))


# ---------------------------------------------------------------- dtypes, devices, grads
def _ball(x):
    """Points of the Poincaré ball of curvature -2, differentiably (radius < 0.9/√2)."""
    return poincare_tanh_map(x, c=2.0)


OPERATORS = {
    "squared_distances": lambda q, k, v: squared_distances(q, k),
    "softmax_weights": lambda q, k, v: softmax_weights(q, k),
    "softmax_attention": lambda q, k, v: softmax_attention(q, k, v, chunk_size=3),
    "ida_weights": lambda q, k, v: ida_weights(q, k, eps=1e-2),
    "ida_attention": lambda q, k, v: ida_attention(q, k, v, eps=1e-2, chunk_size=3),
    "ida_attention_eps_tensor": lambda q, k, v: ida_attention(
        q, k, v, eps=torch.linspace(1e-2, 1.0, 2, device=q.device, dtype=F64), chunk_size=3
    ),
    "ida_kernel": lambda q, k, v: ida_kernel(q, eps=1e-2),
    "effective_rank": lambda q, k, v: effective_rank(ida_kernel(q, eps=1e-2)),
    "ida_attention_exact": lambda q, k, v: ida_attention(
        q, k, v, eps=1e-2, chunk_size=3, block=2, path="exact"),
    "hida_attention": lambda q, k, v: hida_attention(_ball(q), _ball(k), v, eps=1e-2, chunk_size=3, block=2),
    "hida_attention_exact": lambda q, k, v: hida_attention(
        _ball(q), _ball(k), v, eps=1e-2, chunk_size=3, block=2, path="exact"),
    "sida_attention": lambda q, k, v: sida_attention(q, k, v, eps=1e-2, chunk_size=3, block=2),
    "sida_attention_exact": lambda q, k, v: sida_attention(
        q, k, v, eps=1e-2, chunk_size=3, block=2, path="exact"),
    "poincare_sqdist": lambda q, k, v: poincare_sqdist(_ball(q), _ball(k), c=2.0),
    "poincare_distance": lambda q, k, v: poincare_distance(_ball(q), _ball(k)),
    "mobius_add": lambda q, k, v: mobius_add(_ball(q), _ball(k)),
    "poincare_logmap": lambda q, k, v: poincare_logmap(_ball(q), _ball(k)),
    "poincare_expmap": lambda q, k, v: poincare_expmap(_ball(q), k),
    "poincare_logmap0": lambda q, k, v: poincare_logmap0(_ball(q)),
    "sphere_sqdist": lambda q, k, v: sphere_sqdist(q, k),
    "sphere_distance": lambda q, k, v: sphere_distance(q, k),
    "sphere_stereographic": lambda q, k, v: sphere_stereographic(q),
    "metric_sqdist": lambda q, k, v: metric_sqdist(q, k, uq=q[..., None], uk=v[..., None]),
    "hypergate": lambda q, k, v: hypergate(q, (k.transpose(-1, -2) @ v)[:, None] / 4),
    "gsr_attention": lambda q, k, v: gsr_attention(q, k, v, eps=1e-2, k=2),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", list(OPERATORS))
def test_dtype_and_device_preserved(name, dtype, device):
    q, k, v = (randn(s, 2, 7, 4) for s in (34, 35, 36))
    ref = OPERATORS[name](q, k, v)
    out = OPERATORS[name](*(t.to(device=device, dtype=dtype) for t in (q, k, v)))
    assert out.dtype == dtype and out.device.type == device
    assert_close(out.cpu(), ref, dtype)


@pytest.mark.parametrize("name", list(OPERATORS))
def test_no_data_dependent_host_work(name):
    # Meta tensors carry no data: any .item() or branch on a value would raise here.
    q, k, v = (torch.empty(2, 7, 4, device="meta") for _ in range(3))
    assert OPERATORS[name](q, k, v).device.type == "meta"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
@pytest.mark.parametrize("name", list(OPERATORS))
def test_no_cuda_sync(name):
    q, k, v = (randn(s, 2, 7, 4, device="cuda") for s in (43, 44, 45))
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        OPERATORS[name](q, k, v)
    finally:
        torch.cuda.set_sync_debug_mode("default")


@pytest.mark.parametrize("name", list(OPERATORS))
def test_gradcheck_and_gradgradcheck(name):
    q, k, v = (randn(s, 2, 5, 3).requires_grad_() for s in (37, 38, 39))
    # Put one query exactly on a key: the derivatives must stay exact there.
    k = torch.cat([k[:, :4], q[:, :1]], dim=1).detach().requires_grad_()
    fn = OPERATORS[name]
    assert torch.autograd.gradcheck(fn, (q, k, v))
    assert torch.autograd.gradgradcheck(fn, (q, k, v))


def test_gradcheck_wrt_eps():
    q, k, v = randn(40, 2, 4, 3), randn(41, 2, 5, 3), randn(42, 2, 5, 2)
    eps = torch.tensor([1e-2, 0.5], requires_grad=True)

    def fn(e):
        return ida_attention(q, k, v, eps=e, chunk_size=3)

    assert torch.autograd.gradcheck(fn, (eps,))
    assert torch.autograd.gradgradcheck(fn, (eps,))


# torch.func's own internals call the deprecated torch.jit.script in torch 2.13.
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_torch_func_transforms_match_autograd():
    q, k, v = randn(46, 4, 3), randn(47, 5, 3), randn(48, 5, 2)
    k[2] = q[1]  # a coincident pair

    def f(a):
        return ida_attention(a, k, v, eps=1e-2).square().sum()

    a = q.clone().requires_grad_()
    (grad,) = torch.autograd.grad(f(a), a, create_graph=True)
    rows = [torch.autograd.grad(g, a, retain_graph=True)[0] for g in grad.reshape(-1)]
    hess = torch.stack(rows).reshape(4, 3, 4, 3)
    torch.testing.assert_close(torch.func.hessian(f)(q), hess)  # forward-over-reverse
    torch.testing.assert_close(torch.func.jacrev(torch.func.jacrev(f))(q), hess)
    batched = torch.func.vmap(lambda b: ida_attention(b, k, v, eps=1e-2))(torch.stack([q, q + 1]))
    torch.testing.assert_close(batched[1], ida_attention(q + 1, k, v, eps=1e-2))


def test_inference_and_autograd_paths_agree():
    # Without a graph the IDA buffers are reused in place; on the exact path the arithmetic
    # is the same. The fast path without a graph evaluates each tile by one GEMM of
    # augmented features (operators._tiles), with a graph by the expansion in autograd
    # ops: both within the fast path's stated bound of the exact path.
    q, k, v = randn(49, 2, 6, 3), randn(50, 2, 7, 3), randn(51, 2, 7, 2)
    eps = torch.tensor([1e-9, 0.3])
    with torch.no_grad():
        w, out, kern, fast = (
            ida_weights(q, k, eps=eps),
            ida_attention(q, k, v, eps=eps, path="exact"),
            ida_kernel(q, eps=eps),
            ida_attention(q, k, v, eps=eps),
        )
    qg = q.clone().requires_grad_()
    torch.testing.assert_close(ida_weights(qg, k, eps=eps), w, rtol=0, atol=0)
    torch.testing.assert_close(ida_attention(qg, k, v, eps=eps, path="exact"), out, rtol=0, atol=0)
    torch.testing.assert_close(ida_kernel(qg, eps=eps), kern, rtol=0, atol=0)
    torch.testing.assert_close(ida_attention(qg, k, v, eps=eps), fast, rtol=1e-13, atol=1e-13)


# ---------------------------------------------------------------- properties
@settings(derandomize=True, database=None, max_examples=30, deadline=None)
@given(
    n_q=st.integers(1, 6),
    n_k=st.integers(1, 6),
    d=st.integers(1, 4),
    eps=st.floats(1e-12, 1e3),
    seed=st.integers(0, 2**16),
)
def test_ida_properties(n_q, n_k, d, eps, seed):
    q, k, v = randn(seed, n_q, d), randn(seed + 1, n_k, d), randn(seed + 2, n_k, 2)
    w = ida_weights(q, k, eps=eps)
    assert torch.all(w >= 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(n_q))
    shift = randn(seed + 3, 1, d)  # translation invariance
    torch.testing.assert_close(ida_weights(q + shift, k + shift, eps=eps), w)
    perm = torch.randperm(n_k, generator=torch.Generator().manual_seed(seed))  # key equivariance
    torch.testing.assert_close(ida_attention(q, k[perm], v[perm], eps=eps), w @ v)


# ---------------------------------------------------------------- bad inputs
Q, K, V = torch.zeros(3, 4, dtype=F64), torch.zeros(5, 4, dtype=F64), torch.zeros(5, 2, dtype=F64)


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: squared_distances(Q, torch.zeros(5, 3)), ValueError, "mismatched last dims"),
        (lambda: softmax_attention(Q, torch.zeros(5, 3), V), ValueError, "mismatched last dims"),
        (lambda: ida_weights(Q, torch.zeros(5, 3), eps=1.0), ValueError, "mismatched last dims"),
        (lambda: softmax_attention(Q, K, torch.zeros(6, 2)), ValueError, "mismatched n"),
        (lambda: ida_attention(Q, K, torch.zeros(6, 2), eps=1.0), ValueError, "mismatched n"),
        (lambda: squared_distances(Q.long(), K.long()), TypeError, "floating dtype"),
        (lambda: ida_kernel(Q.int(), eps=1.0), TypeError, "floating dtype"),
        (lambda: softmax_weights(Q, K.float()), TypeError, "share one dtype"),
        (lambda: squared_distances(torch.zeros(4), K), ValueError, "at least 2 dims"),
        (lambda: squared_distances([[0.0]], K), TypeError, "must be a torch.Tensor"),
        (lambda: ida_weights(Q, K, eps=0.0), ValueError, "eps must be positive"),
        (lambda: ida_attention(Q, K, V, eps=-1e-3), ValueError, "eps must be positive"),
        (lambda: ida_kernel(Q, eps=math.nan), ValueError, "eps must be positive"),
        (lambda: ida_kernel(Q, eps=math.inf), ValueError, "eps must be positive"),
        (lambda: ida_kernel(Q, eps="1e-3"), TypeError, "eps must be a float"),
        (lambda: ida_kernel(Q, eps=torch.tensor([1j])), TypeError, "eps tensor must be real"),
        (lambda: softmax_attention(Q, K, V, chunk_size=0), ValueError, "chunk_size must be >= 1"),
        (lambda: ida_attention(Q, K, V, eps=1.0, chunk_size=-2), ValueError, "chunk_size must be"),
        (lambda: ida_attention(Q, K, V, eps=1.0, chunk_size=2.0), TypeError, "chunk_size must be"),
        (lambda: effective_rank(torch.zeros(3, 4)), ValueError, "must be square"),
    ],
)
def test_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_geometry_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        ida_weights(Q, K, 1e-3)  # type: ignore[misc]
    with pytest.raises(TypeError):
        softmax_attention(Q, K, V, 0.5)  # type: ignore[misc]


# ---------------------------------------------------------------- the registry
# Every operator is described once in operators.opinfo; these tests run over it, so a
# newly registered operator is tested by these four tests without further code.
from attnaudit.operators import opinfo  # noqa: E402
from attnaudit.operators.opinfo.poincare import naive_arcosh  # noqa: E402


def _dt(dtype):
    return str(dtype).removeprefix("torch.")


REFERENCE_CASES = [pytest.param(info, dtype, id=f"{info.name}-{_dt(dtype)}")
                   for info in opinfo.REGISTRY for dtype in info.dtypes]
INFOS = [pytest.param(info, id=info.name) for info in opinfo.REGISTRY]


@pytest.mark.parametrize("info,dtype", REFERENCE_CASES)
def test_registry_reference_agreement(info, dtype):
    """Every sample (boundary samples included) within the tolerance of the error model."""
    opinfo.check_reference(info, dtype)


@pytest.mark.parametrize("info", INFOS)
def test_registry_error_inputs(info):
    """Wrong shapes, dtypes, points outside the domain, NaN: each a clear error."""
    opinfo.check_errors(info)


@pytest.mark.parametrize("info,dtype", REFERENCE_CASES)
def test_registry_dtype_preserved(info, dtype):
    for sample in info.samples(dtype):
        out = info.op(*sample.args, **sample.kwargs)
        assert out.dtype == dtype, (info.name, sample.label, out.dtype)


BOUNDARY_LABELS = {
    "poincare_distance": ["r=1-1e-8/short-1e-13", "r=1-1e-8/long", "coincident", "antipodal"],
    "poincare_sqdist": ["1-1e-8"],
    "poincare_logmap0": ["r=1-1e-8"],
    "poincare_logmap": ["r=1-1e-8/short-1e-08", "r=1-1e-8/long"],
    "sphere_distance": ["θ=1e-13", "θ=π-1e-13", "coincident", "antipodal"],
    "ida_attention[path=exact]": ["ε=2.23e-308"],
    "ida_attention[path=fast]": ["ε=2.23e-308", "offset"],
    "hida_attention[path=fast]": ["1-1e-8", "ε=2.23e-308"],
    "sida_attention[path=fast]": ["antipodal", "ε=2.23e-308"],
}


@pytest.mark.parametrize("name,labels", list(BOUNDARY_LABELS.items()))
def test_registry_has_boundary_samples(name, labels):
    """The float64 samples reach ‖x‖ = 1 - 1e-8, θ near 0 and π, ε at the normal limit."""
    got = [s.label for s in opinfo.get(name).samples(F64)]
    for want in labels:
        assert any(want in label for label in got), (name, want, got)


def _arccos_angle(x, y):
    """Deliberately broken: the arccos form the papers write."""
    cos = (x * y).sum(-1) / (torch.linalg.vector_norm(x, dim=-1) * torch.linalg.vector_norm(y, dim=-1))
    return torch.arccos(cos.clamp(-1.0, 1.0))


def _expanded_sqdist(x, y):
    """Deliberately broken: the matmul expansion (never exactly 0 at coincident points)."""
    return torch.cdist(x, y, compute_mode="use_mm_for_euclid_dist").square()


@pytest.mark.parametrize("name,broken,where", [
    ("sphere_distance", _arccos_angle, "θ=1e-13"),
    ("poincare_distance", naive_arcosh, "r=1-1e-8"),
    ("squared_distances", _expanded_sqdist, "coincident"),
])
def test_registry_refutes_broken_operators(name, broken, where):
    """A broken operator fails the same checks: arccos instead of atan2, 1 - ‖x‖² formed
    directly, the matmul expansion where exact zeros are required."""
    info = opinfo.get(name)
    with pytest.raises(AssertionError, match=where):
        opinfo.check_reference(info, F64, fn=broken)


def test_registry_helpers_fail_on_bad_error_inputs():
    """check_errors itself: an error input that does not raise, or raises the wrong
    message, is reported."""
    info = opinfo.get("poincare_conformal_factor")
    silent = dataclasses.replace(info, errors=lambda: [opinfo.ErrorInput(
        "silent", lambda: None, ValueError, "x")])
    with pytest.raises(AssertionError, match="returned, but should raise ValueError"):
        opinfo.check_errors(silent)
    wrong = dataclasses.replace(info, errors=lambda: [opinfo.ErrorInput(
        "wrong message", lambda: (_ for _ in ()).throw(ValueError("other")), ValueError, "expected text")])
    with pytest.raises(AssertionError, match="should match"):
        opinfo.check_errors(wrong)


def test_opinfo_records_are_validated():
    info = opinfo.get("poincare_distance")
    with pytest.raises(ValueError, match="measure"):
        dataclasses.replace(info, measure="relative")
    with pytest.raises(ValueError, match="name"):
        dataclasses.replace(info, name="Poincaré Distance")


# ---------------------------------------------------------------- fast-path input handling
def test_nan_screen_by_sum_misses_nothing():
    """check_not_nan screens by the sum on the host: a NaN-free sum clears the tensor; a NaN
    sum made by +inf and -inf (no NaN) must not raise, and a NaN next to infinities must."""
    from attnaudit.operators._checks import check_not_nan

    check_not_nan("x", torch.tensor([math.inf, -math.inf, 1.0]))
    check_not_nan("x", torch.zeros(0))
    for bad in ([1.0, math.nan], [math.inf, math.nan], [-math.inf, math.nan, math.inf]):
        with pytest.raises(ValueError, match="x contains NaN"):
            check_not_nan("x", torch.tensor(bad))


@pytest.mark.parametrize("dtype,scale", [
    (torch.float32, 1e-40), (torch.float32, 1e-30), (torch.float32, 1e-20), (torch.float32, 1.0),
    (torch.float32, 1e20),
    (torch.float32, 1e30), (F64, 1e-200), (F64, 1e200),
])
def test_sida_fast_path_normalises_any_scale(dtype, scale):
    """The fast path's norms (sum of squares in the work dtype) under- or overflow beyond
    1e±19 in float32 and 1e±154 in float64 (1e-40: subnormal float32 entries); those rows
    are rescaled, so the result stays within the stated bound of the exact path (whose
    double-double norms scale each vector by a power of two first, for the same reason)."""
    from attnaudit.operators._checks import expansion_bound

    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 40, 8, generator=g, dtype=dtype) for _ in range(3))
    q[0, :5] *= scale
    k[1, 7:] *= scale
    k[0, 3] = -q[0, 3]  # antipodal and coincident pairs: recomputed from the raw vectors
    k[1, 4] = q[1, 4] * 2.0
    fast = sida_attention(q, k, v, eps=1e-3, block=16, chunk_size=8, path="fast")
    exact = sida_attention(q.double(), k.double(), v.double(), eps=1e-3, path="exact")
    rho = expansion_bound(8, dtype)
    # plus rounding: the weighted sum of v in the work dtype
    bound = (4 * rho / (1 - 2 * rho) + 64 * torch.finfo(dtype).eps) * v.abs().amax().double()
    assert (fast.double() - exact).abs().max() <= bound


def test_sida_fast_path_rejects_zero_vectors():
    q, k, v = (torch.randn(n, d, dtype=torch.float32) for n, d in ((3, 4), (5, 4), (5, 2)))
    k[2] = 0.0
    with pytest.raises(ValueError, match="k must be non-zero"):
        sida_attention(q, k, v, eps=1e-2, path="fast")
