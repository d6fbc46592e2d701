"""The streamed fast paths' default tile shape (``operators._tiles``) and the streams at that shape."""

from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from attnaudit.operators import _tiles, hida_attention, ida_attention, poincare_tanh_map, sida_attention
from attnaudit.operators._checks import expansion_bound
from attnaudit.operators._tiles import STREAM_BLOCK, STREAM_TILE_BYTES, generic_shape, stream_shape
from attnaudit.operators.core import DEFAULT_BLOCK, DEFAULT_CHUNK


def test_stream_shape_defaults_keep_one_buffer_within_the_byte_budget():
    assert stream_shape(8, 4, None, None) == (512, STREAM_BLOCK)  # float32, B·H = 8
    assert stream_shape(8, 8, None, None) == (256, STREAM_BLOCK)  # float64
    assert stream_shape(1, 4, None, None) == (512, STREAM_BLOCK)  # capped at 512 queries
    assert stream_shape(10_000, 8, None, None) == (64, STREAM_BLOCK)  # floor of 64 queries
    for batch, itemsize in ((8, 4), (8, 8), (16, 4), (32, 8)):
        chunk, block = stream_shape(batch, itemsize, None, None)
        assert batch * chunk * block * itemsize <= STREAM_TILE_BYTES
    assert stream_shape(8, 4, 3, 5) == (3, 5)  # the caller's values win
    assert stream_shape(8, 4, None, 1024) == (256, 1024)
    assert generic_shape(None, None) == (DEFAULT_CHUNK, DEFAULT_BLOCK)
    assert generic_shape(7, None) == (7, DEFAULT_BLOCK)


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
    small = tuple(torch.randn(2, 40, 8, generator=g, dtype=torch.float64) for _ in range(3))
    _three(*small)  # another dtype and shape replace the kept buffers
    with torch.inference_mode():  # buffers made here cannot be updated in place outside it
        inside = _three(q, k, v)
    outside = _three(q, k, v)
    monkeypatch.setattr(_tiles, "WORKSPACE_MAX_BYTES", 0)
    fresh = _three(q, k, v)
    for outs in (inside, outside, fresh):
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
