"""Tests for operators.core (the streamed distance-attention core) and the fast paths."""

import math

import pytest
import torch

from attnaudit.operators import (
    distance_attention,
    distance_weights,
    hida_attention,
    ida_attention,
    metric_sqdist,
    metric_sqdist_direct,
    poincare_sqdist,
    poincare_tanh_map,
    sida_attention,
    sphere_sqdist,
    squared_distances,
)
from attnaudit.operators._checks import expansion_bound
from attnaudit.operators.core import pow2_floor

F64 = torch.float64


def randn(seed, *shape, dtype=F64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=F64).to(dtype)


def ball(seed, *shape, dtype=F64):
    return poincare_tanh_map(randn(seed, *shape), scale=0.95).to(dtype)


GEOMETRIES = {
    "euclidean": (lambda s, *sh: randn(s, *sh), squared_distances),
    "poincare": (ball, lambda x, y: poincare_sqdist(x, y, c=1.0)),
    "sphere": (lambda s, *sh: randn(s, *sh), sphere_sqdist),
}


def test_pow2_floor_is_exact():
    m = torch.tensor([1.0, 1.5, 3.0, 2.0**-1022, 7e300, 0.1], dtype=F64)
    torch.testing.assert_close(
        pow2_floor(m), torch.tensor([1.0, 1.0, 2.0, 2.0**-1022, 2.0**999, 0.0625], dtype=F64), rtol=0, atol=0
    )
    m32 = torch.tensor([3.0, torch.finfo(torch.float32).tiny], dtype=torch.float32)
    assert pow2_floor(m32).tolist() == [2.0, torch.finfo(torch.float32).tiny]


@pytest.mark.parametrize("geometry", list(GEOMETRIES))
@pytest.mark.parametrize("block,chunk", [(1, 1), (3, 4), (5, 100), (100, 2)])
def test_streamed_weights_equal_reference_bit_for_bit(geometry, block, chunk):
    """With v = I the streamed output is the weight matrix: equal to the one-shot reference
    path at float64 bit for bit, for every block and chunk size (power-of-two rescaling),
    except subnormal weights (below finfo.tiny), which power-of-two scaling rounds."""
    points, sqdist = GEOMETRIES[geometry]
    q, k = points(1, 2, 9, 4), points(2, 2, 11, 4)
    k[0, 3] = q[0, 2]  # a coincident pair
    for eps in (1e-2, 1e-12, torch.finfo(F64).tiny):
        w = distance_weights(q, k, sqdist=sqdist, eps=eps, block=block, chunk_size=chunk)
        out = distance_attention(
            q,
            k,
            torch.eye(11, dtype=F64).expand(2, 11, 11),
            sqdist=sqdist,
            eps=eps,
            block=block,
            chunk_size=chunk,
        )
        normal = w.abs() >= torch.finfo(F64).tiny
        assert torch.equal(out[normal], w[normal]), (geometry, block, chunk, eps, (out - w).abs().max())
        # Subnormal weights (ε at the normal limit) are rescaled with one extra rounding.
        assert float((out - w)[~normal].abs().sum()) <= 2 * 2.0**-1074 * int((~normal).sum())


def test_core_streams_with_features_and_eps_tensor():
    q, k, v = randn(3, 3, 6, 2), randn(4, 3, 7, 2), randn(5, 3, 7, 3)
    eps = torch.tensor([1e-3, 1.0, 1e-9], dtype=F64)

    def sqdist(qf, kf):  # points carried as (x, 2x): the second feature is sliced alongside
        assert qf[1].shape[-2] == qf[0].shape[-2] and kf[1].shape[-2] == kf[0].shape[-2]
        return squared_distances(qf[1], kf[1]) / 4

    out = distance_attention((q, 2 * q), (k, 2 * k), v, sqdist=sqdist, eps=eps, block=2, chunk_size=4)
    torch.testing.assert_close(out, ida_attention(q, k, v, eps=eps, path="exact"))


@pytest.mark.parametrize("fn", [ida_attention, hida_attention, sida_attention])
def test_auto_path_under_torch_func_is_exact(fn):
    """Inside vmap/jacrev the default path is the exact one (the fast path's recomputation
    reads indices on the host); the transforms work and agree with plain calls."""
    q, k, v = ball(6, 3, 4, 3), ball(7, 3, 5, 3), randn(8, 3, 5, 2)
    batched = torch.func.vmap(lambda a, b, c: fn(a, b, c, eps=1e-3))(q, k, v)
    torch.testing.assert_close(batched, fn(q, k, v, eps=1e-3, path="exact"), rtol=0, atol=0)
    jac = torch.func.jacrev(lambda a: fn(a, k[0], v[0], eps=1e-3))(q[0])
    assert jac.shape == (4, 2, 4, 3) and torch.all(jac.isfinite())


def _clustered(seed, n, d, dtype):
    """Two tight clusters far from the origin: the expansion cancels inside each."""
    centres = 50.0 * randn(seed, 2, d)
    x = centres[torch.arange(n) % 2] + 1e-3 * randn(seed + 1, n, d)
    return x.to(dtype)


@pytest.mark.parametrize("dtype", [F64, torch.float32])
@pytest.mark.parametrize("data", ["gaussian", "offset", "clustered", "self"])
def test_ida_fast_path_within_stated_bound(dtype, data):
    """|out_fast - out_exact| <= 2ρ/(1-ρ)·max|v| (+ rounding), ρ = expansion_bound(d, dtype)."""
    n, d = 96, 16
    if data == "clustered":
        q, k = (
            _clustered(10, n, d, dtype),
            _clustered(10, n, d, dtype)[torch.randperm(n, generator=torch.Generator().manual_seed(0))],
        )
    else:
        q, k = randn(11, n, d, dtype=dtype), randn(12, n, d, dtype=dtype)
        if data == "offset":
            q, k = q + 300, k + 300
        if data == "self":
            k = q.clone()
    v = randn(13, n, 4, dtype=dtype)
    rho = expansion_bound(d, dtype)
    bound = (2 * rho / (1 - rho) + 64 * torch.finfo(dtype).eps) * float(v.abs().max())
    for eps in (1e-2, 1e-10):
        fast = ida_attention(q, k, v, eps=eps, path="fast", block=32, chunk_size=40)
        exact = ida_attention(q, k, v, eps=eps, path="exact", block=32, chunk_size=40)
        assert float((fast - exact).abs().max()) <= bound, (data, eps)
    if data == "self":  # exact retrieval survives the fast path: coincident pairs are recomputed
        out = ida_attention(q, q, v, eps=torch.finfo(dtype).tiny, path="fast")
        torch.testing.assert_close(out, v, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [F64, torch.float32])
def test_hida_and_sida_fast_paths_within_stated_bound(dtype):
    n, d = 80, 8
    rho = expansion_bound(d, dtype)
    v = randn(20, n, 3, dtype=dtype)
    q, k = ball(21, n, d, dtype=dtype), ball(22, n, d, dtype=dtype)
    k[5] = q[7]
    for eps in (1e-2, 1e-9):
        diff = hida_attention(q, k, v, eps=eps, path="fast", block=16) - hida_attention(
            q, k, v, eps=eps, path="exact"
        )
        assert float(diff.abs().max()) <= (2 * rho / (1 - rho) + 64 * torch.finfo(dtype).eps) * float(
            v.abs().max()
        )
    qs, ks = randn(23, n, d, dtype=dtype), randn(24, n, d, dtype=dtype)
    ks[3], ks[4] = qs[0], -qs[1]  # coincident and antipodal pairs
    for eps in (1e-2, 1e-9):
        diff = sida_attention(qs, ks, v, eps=eps, path="fast", block=16) - sida_attention(
            qs, ks, v, eps=eps, path="exact"
        )
        assert float(diff.abs().max()) <= (4 * rho / (1 - 2 * rho) + 64 * torch.finfo(dtype).eps) * float(
            v.abs().max()
        )


def test_fast_path_is_differentiable_twice():
    q, k, v = randn(30, 4, 3), randn(31, 5, 3), randn(32, 5, 2)
    k[2] = q[1]
    q.requires_grad_()
    assert torch.autograd.gradcheck(lambda a: ida_attention(a, k, v, eps=1e-2, path="fast"), (q,))
    assert torch.autograd.gradgradcheck(lambda a: ida_attention(a, k, v, eps=1e-2, path="fast"), (q,))


# ---------------------------------------------------------------- Hessians at coincident points
def _hessian_at_coincident(sqdist, x, others):
    """torch.func.hessian of D(x, y_0) in x at y_0 = x (forward-over-reverse)."""
    y = torch.cat([x[None], others])
    return torch.func.hessian(lambda a: sqdist(a[None], y)[0, 0])(x)


def test_sqdist_hessians_at_coincident_points():
    """Each geometry's squared distance is twice differentiable where x = y, with the
    metric tensor as Hessian: 2I (Euclidean), 2λ_x²I (Poincaré), 2(I - x̂x̂ᵀ)/‖x‖² (sphere),
    g_i + g_j (per-token metrics)."""
    d = 4
    x = 0.6 * randn(40, d) / randn(40, d).norm()
    others = randn(41, 3, d) * 0.1
    eye = torch.eye(d, dtype=F64)
    torch.testing.assert_close(_hessian_at_coincident(squared_distances, x, others), 2 * eye)
    for c in (1.0, 2.0):
        lam = 2 / (1 - c * float(x @ x))
        torch.testing.assert_close(
            _hessian_at_coincident(lambda a, b, c=c: poincare_sqdist(a, b, c=c), x, others), 2 * lam**2 * eye
        )
    xs = randn(42, d)
    h = _hessian_at_coincident(sphere_sqdist, xs, randn(43, 3, d))
    xh = xs / xs.norm()
    torch.testing.assert_close(h, 2 * (eye - torch.outer(xh, xh)) / float(xs @ xs))
    uq, uk = randn(44, 1, d, 2), randn(45, 4, d, 2)
    g = torch.eye(d, dtype=F64) + uq[0] @ uq[0].T + torch.eye(d, dtype=F64) + uk[0] @ uk[0].T
    h = torch.func.hessian(
        lambda a: metric_sqdist(a[None], torch.cat([x[None], others]), uq=uq, uk=uk)[0, 0]
    )(x)
    torch.testing.assert_close(h, g)
    gq, gk = uq @ uq.mT + eye, uk @ uk.mT + eye
    h = torch.func.hessian(
        lambda a: metric_sqdist_direct(a[None], torch.cat([x[None], others]), gq=gq, gk=gk)[0, 0]
    )(x)
    torch.testing.assert_close(h, g)


def test_sqdists_exactly_zero_at_coincident_points():
    x = ball(50, 5, 3)
    assert torch.all(poincare_sqdist(x, x).diagonal() == 0)
    s = randn(51, 5, 3)
    assert torch.all(sphere_sqdist(s, s).diagonal() == 0)
    assert torch.all(sphere_sqdist(s, 4.0 * s).diagonal() == 0)  # scale-invariant, exactly
    assert torch.all(sphere_sqdist(s, -s).diagonal() == math.pi**2)


@pytest.mark.parametrize("fn", [ida_attention, hida_attention, sida_attention])
def test_fast_tiles_broadcast_batch_dims_and_eps(fn):
    """The buffer-reusing fast loop flattens broadcast batch dims (ε included) like the core."""
    q, k, v = ball(60, 2, 1, 5, 3), ball(61, 3, 7, 3), randn(62, 3, 7, 2)
    k[1, 2] = q[0, 0, 1]  # a coincident pair inside one batch element
    eps = torch.tensor([[1e-3], [1.0]], dtype=F64)  # (2, 1) against batch (2, 3)
    fast = fn(q, k, v, eps=eps, block=3, chunk_size=2)
    assert fast.shape == (2, 3, 5, 2)
    torch.testing.assert_close(fast, fn(q, k, v, eps=eps, path="exact"), rtol=1e-12, atol=1e-12)
