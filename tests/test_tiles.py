"""The streamed fast paths' default tile shape (``operators._tiles``) and the streams at that shape."""

from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from attnaudit.operators import _tiles, hida_attention, ida_attention, poincare_tanh_map, sida_attention
from attnaudit.operators._checks import expansion_bound
from attnaudit.operators._tiles import (
    STREAM_BLOCK,
    STREAM_TILE_BYTES,
    generic_shape,
    heads_per_tile,
    stream_shape,
)
from attnaudit.operators.core import DEFAULT_BLOCK, DEFAULT_CHUNK


def test_stream_shape_defaults_keep_one_tile_within_the_byte_budget():
    assert stream_shape(8, 4, None, None) == (512, STREAM_BLOCK)  # float32: 512 x 512 per head, 1 MiB
    assert stream_shape(8, 8, None, None) == (256, STREAM_BLOCK)  # float64: 256 x 512
    assert stream_shape(1, 2, None, None) == (512, STREAM_BLOCK)  # capped at 512 queries
    assert stream_shape(8, 4, 3, 5) == (3, 5)  # the caller's values win
    assert stream_shape(8, 4, None, 4096) == (64, 4096)  # floor of 64 queries
    assert generic_shape(None, None) == (DEFAULT_CHUNK, DEFAULT_BLOCK)
    assert generic_shape(7, None) == (7, DEFAULT_BLOCK)
    for itemsize in (4, 8):
        chunk, block = stream_shape(8, itemsize, None, None)
        assert heads_per_tile(8, itemsize, chunk, block) == 1
        assert chunk * block * itemsize <= STREAM_TILE_BYTES
    # short sequences: as many heads per tile as fit, at least one, at most the batch
    assert heads_per_tile(8, 4, 100, 100) == 8
    assert heads_per_tile(100, 4, 128, 128) == STREAM_TILE_BYTES // (128 * 128 * 4)
    assert heads_per_tile(8, 4, 4096, 4096) == 1


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_default_streams_span_several_tiles_within_the_stated_bound(dtype):
    """n = 1030 keys: two full 512-key blocks and a tail, three query chunks (the default
    shapes only come into play beyond 512 tokens); coincident and antipodal pairs included."""
    n, d = 1030, 8
    g = torch.Generator().manual_seed(5)
    q, k, v = (torch.randn(1, n, d, generator=g, dtype=dtype) for _ in range(3))
    k[0, 700], k[0, 1025] = q[0, 3], -q[0, 900]
    rho = expansion_bound(d, dtype)
    vmax = float(v.abs().max())
    slack = 64 * torch.finfo(dtype).eps
    out = ida_attention(q, k, v, eps=1e-3)
    assert float((out - ida_attention(q, k, v, eps=1e-3, path="exact")).abs().max()) <= (
        2 * rho / (1 - rho) + slack) * vmax
    out = sida_attention(q, k, v, eps=1e-3)
    assert float((out - sida_attention(q, k, v, eps=1e-3, path="exact")).abs().max()) <= (
        4 * rho / (1 - 2 * rho) + slack) * vmax
    qb, kb = poincare_tanh_map(q), poincare_tanh_map(k)
    out = hida_attention(qb, kb, v, eps=1e-3)
    assert float((out - hida_attention(qb, kb, v, eps=1e-3, path="exact")).abs().max()) <= (
        2 * rho / (1 - rho) + slack) * vmax


def test_explicit_tile_shape_is_checked():
    q = torch.randn(4, 3)
    cases = (({"block": 0}, ValueError), ({"chunk_size": 0}, ValueError), ({"block": 2.0}, TypeError))
    for path in ("fast", "exact"):
        for kwargs, err in cases:
            with pytest.raises(err):
                ida_attention(q, q, q, eps=1e-2, path=path, **kwargs)


def _three(q, k, v):
    qb, kb = poincare_tanh_map(q), poincare_tanh_map(k)
    return (ida_attention(q, k, v, eps=1e-3), hida_attention(qb, kb, v, eps=1e-3),
            sida_attention(q, k, v, eps=1e-3))


def test_kept_workspace_changes_no_bit_whatever_ran_before(monkeypatch):
    """The tile buffers kept between calls (``_tiles.workspace``) are fully overwritten before
    they are read: the same inputs give the same bits after other shapes, dtypes and modes ran,
    as with fresh buffers every call (a workspace limit of 0 bytes)."""
    g = torch.Generator().manual_seed(9)
    q, k, v = (torch.randn(3, 600, 8, generator=g) for _ in range(3))
    _tiles.release_workspace()
    first = _three(q, k, v)
    copies = [t.clone() for t in first]  # outputs are the caller's: no later call may write them
    small = tuple(torch.randn(2, 40, 8, generator=g, dtype=torch.float64) for _ in range(3))
    _three(*small)  # another dtype and shape replace the kept buffers
    with torch.inference_mode():  # buffers made here cannot be updated in place outside it
        inside = _three(q, k, v)
    outside = _three(q, k, v)
    monkeypatch.setattr(_tiles, "WORKSPACE_MAX_BYTES", 0)
    fresh = _three(q, k, v)
    for outs in (copies, inside, outside, fresh):
        for a, b in zip(first, outs, strict=True):
            assert torch.equal(a, b)
    _tiles.release_workspace()
    assert _tiles._WORKSPACE.held is None


def test_threads_keep_their_own_workspace():
    """Each thread holds its own buffers: concurrent calls give the serial results."""
    g = torch.Generator().manual_seed(10)
    inputs = [tuple(torch.randn(2, 520 + 10 * i, 8, generator=g) for _ in range(3)) for i in range(4)]
    serial = [_three(*x) for x in inputs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda x: _three(*x), inputs))
    for s, p in zip(serial, parallel, strict=True):
        for a, b in zip(s, p, strict=True):
            assert torch.equal(a, b)


def _inputs(batch, n, d, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(batch, n, d, generator=g, dtype=dtype) for _ in range(3))
    k[0, 7], k[-1, n - 2] = q[0, 3], -q[-1, n - 5]  # a coincident and an antipodal pair: flagged rows
    return q, k, v


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("batch, n", [(5, 700), (5, 300), (3, 37)])
def test_fixed_normaliser_gives_the_running_minimums_bits(monkeypatch, dtype, batch, n):
    """A fixed power-of-two normaliser per row (``_tiles.fixed_normaliser``) and the running minimum
    of the generic core give the same bits: powers of two commute with every rounding. Shapes with one
    head per tile and several key blocks (n = 700), two heads per tile and a short last group (n = 300),
    and one tile of all heads (n = 37)."""
    q, k, v = _inputs(batch, n, 8, dtype, 11)
    fixed = _three(q, k, v)
    monkeypatch.setattr(_tiles, "fixed_normaliser", lambda low, high: None)
    running = _three(q, k, v)
    for a, b in zip(fixed, running, strict=True):
        assert torch.equal(a, b)


def test_fixed_normaliser_declines_bounds_that_could_give_subnormal_ratios():
    for dtype in (torch.float32, torch.float64):
        tiny = torch.finfo(dtype).tiny
        low = torch.tensor([[1e-3, 2.0]], dtype=dtype)
        c = _tiles.fixed_normaliser(low, torch.tensor([[1e3, 1e3]], dtype=dtype))
        assert torch.equal(c, torch.tensor([[2.0**-10, 2.0]], dtype=dtype))
        assert _tiles.fixed_normaliser(low, torch.tensor([[1e3, 0.5 / tiny]], dtype=dtype)) is not None
        too_far = torch.tensor([[1e3, 2.0 / (tiny * 2.0**-10)]], dtype=dtype)
        assert _tiles.fixed_normaliser(low, too_far) is None
        assert _tiles.fixed_normaliser(low, torch.tensor([[1e3, float("inf")]], dtype=dtype)) is None


def test_subnormal_eps_takes_the_running_minimum_within_the_bound(monkeypatch):
    """ε = 1e-40 in float32 (below the normal range): ε/max D would be subnormal, so the stream
    declines the fixed normaliser; the result keeps the stated bound."""
    calls = []
    original = _tiles.fixed_normaliser

    def spy(low, high):
        calls.append(original(low, high))
        return calls[-1]

    monkeypatch.setattr(_tiles, "fixed_normaliser", spy)
    q, k, v = _inputs(2, 600, 8, torch.float32, 12)
    rho = expansion_bound(8, torch.float32)
    vmax = float(v.abs().max())
    slack = 64 * torch.finfo(torch.float32).eps
    out = ida_attention(q, k, v, eps=1e-40)
    assert calls and calls[-1] is None
    assert float((out - ida_attention(q, k, v, eps=1e-40, path="exact")).abs().max()) <= (
        2 * rho / (1 - rho) + slack) * vmax


# numpy's stated maximum errors (its umath validation sets) for the SIMD kernels the fast paths use;
# torch's fallbacks (SLEEF's u10 functions) are within 1 ulp.
ULP_BOUND = {("arccos", torch.float32): 3, ("log1p", torch.float32): 2,
             ("arccos", torch.float64): 1, ("log1p", torch.float64): 1, ("sqrt", torch.float32): 0.5,
             ("sqrt", torch.float64): 0.5}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", ["arccos", "log1p", "sqrt"])
def test_inplace_elementwise_within_its_ulp_bound_against_mpmath(name, dtype):
    """``_tiles.inplace`` on the ranges the fast paths use (arccos: |x| < 7/8, SIDA's kept pairs;
    log1p and sqrt: HIDA's arguments, 0 to 1e30), against mpmath at 40 digits, in ulps of the result."""
    mpmath = pytest.importorskip("mpmath")
    g = torch.Generator().manual_seed(13)
    if name == "arccos":
        x = torch.cat([torch.rand(3000, generator=g, dtype=torch.float64) * 1.75 - 0.875,
                       0.875 - torch.rand(500, generator=g, dtype=torch.float64) * 1e-3,
                       -0.875 + torch.rand(500, generator=g, dtype=torch.float64) * 1e-3])
    else:
        x = torch.cat([torch.rand(1000, generator=g, dtype=torch.float64) * 10,
                       10.0 ** (torch.rand(3000, generator=g, dtype=torch.float64) * 60 - 30)])
    x = x.to(dtype)
    got = _tiles.inplace(name, x.clone().view(40, -1)).flatten()
    with mpmath.workdps(40):
        fn = {"arccos": mpmath.acos, "log1p": mpmath.log1p, "sqrt": mpmath.sqrt}[name]
        ref = [fn(mpmath.mpf(float(t))) for t in x]
        eps = torch.finfo(dtype).eps  # one ulp of [1, 2)

        def ulps(y, r):
            unit = eps * mpmath.mpf(2) ** mpmath.floor(mpmath.log(abs(r), 2))
            return float(abs(mpmath.mpf(float(y)) - r) / unit)

        ulp = [ulps(y, r) for y, r in zip(got, ref, strict=True)]
    worst = max(ulp)
    assert worst <= ULP_BOUND[(name, dtype)], (
        f"{name} {dtype}: max error {worst:.2f} ulp, but should be <= {ULP_BOUND[(name, dtype)]} "
        f"[x = {float(x[ulp.index(worst)])!r}]")
