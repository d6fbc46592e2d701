"""The sub-quadratic HIDA family and HCC beyond the registry: index sets against Definition 5.2 by
Python sets, FP-HIDA against a dense masked reference, C-HIDA against a per-token loop, the
bit-packed cache's exact round trip and measured size, and the FLOP counts the claims fit."""

import math

import pytest
import torch

from attnaudit.operators import hcc as H
from attnaudit.operators import hida as HD
from attnaudit.operators import hida_attention, poincare_sqdist

F64 = torch.float64


def _ball(g, *shape, rmax=0.85):
    x = torch.randn(*shape, generator=g, dtype=F64)
    return x / x.norm(dim=-1, keepdim=True) * rmax * torch.rand(*shape[:-1], 1, generator=g, dtype=F64)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 17, 33, 64, 100])
def test_index_sets_are_definition_5_2(n):
    for w in sorted({0, 1, 3, HD.fp_default_width(n)}):
        for g in sorted({1, min(n, 3), min(n, HD.fp_default_width(n)), n}):
            idx, mask = HD.fp_hida_index_sets(n, w=w, g=g)
            want = HD.definition_sets(n, w, g)
            assert [set(idx[i][mask[i]].tolist()) for i in range(n)] == want
            assert HD.fp_hida_set_sizes(n, w=w, g=g, chunk=7).tolist() == [len(s) for s in want]


@pytest.mark.parametrize("n,w,g", [(7, 1, 2), (16, 2, 4), (40, 5, 6), (64, 6, 6)])
def test_fp_hida_matches_dense_masked_reference(n, w, g):
    gen = torch.Generator().manual_seed(n)
    q, k, v = _ball(gen, 3, n, 4), _ball(gen, 3, n, 4), torch.randn(3, n, 2, generator=gen, dtype=F64)
    k[:, 1] = q[:, 1]
    out = HD.fp_hida_attention(q, k, v, eps=1e-3, w=w, g=g)
    ref = HD.fp_hida_reference(q, k, v, eps=1e-3, w=w, g=g)
    assert (out - ref).abs().max() < 1e-11


def test_fp_hida_with_every_key_is_dense_hida():
    gen = torch.Generator().manual_seed(1)
    n = 50
    q, k, v = _ball(gen, n, 3), _ball(gen, n, 3), torch.randn(n, 2, generator=gen, dtype=F64)
    full = (torch.arange(n).expand(n, n), torch.ones(n, n, dtype=torch.bool))
    dense = hida_attention(q, k, v, eps=1e-2)
    assert (HD.fp_hida_attention(q, k, v, eps=1e-2, index=full) - dense).abs().max() < 1e-12
    assert (HD.dense_hida_gram(q, k, v, eps=1e-2) - dense).abs().max() < 1e-12


def test_fp_hida_flops_are_the_gather_count():
    from torch.utils.flop_counter import FlopCounterMode

    n, d = 1000, 8
    idx, mask = HD.fp_hida_index_sets(n, w=10, g=10)
    x = torch.empty(n, d, dtype=F64, device="meta")
    with FlopCounterMode(display=False) as fc:
        HD.fp_hida_attention(x, x, x, eps=1e-2, index=(idx.to("meta"), mask.to("meta")))
    assert fc.get_total_flops() == 2 * n * idx.shape[1] * (d + d)


def test_nystrom_with_every_key_as_anchor_is_dense_hida():
    gen = torch.Generator().manual_seed(2)
    q, k, v = _ball(gen, 6, 3), _ball(gen, 9, 3), torch.randn(9, 2, generator=gen, dtype=F64)
    dense = hida_attention(q, k, v, eps=1e-1)
    assert (HD.nystrom_hida_attention(q, k, v, k, eps=1e-1) - dense).abs().max() < 1e-9


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_dense_hida_in_place_buffers_give_the_graph_paths_bits(dtype):
    """Without autograd the Gram-form kernel overwrites two buffers instead of allocating nine: the
    same operations in the same order, so the same bits as the out-of-place expression."""
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 40, 6, generator=gen, dtype=dtype)
    k = 0.9 * x / (1 + torch.linalg.vector_norm(x, dim=-1, keepdim=True))
    v, anchors = torch.randn(2, 40, 3, generator=gen, dtype=dtype), k[:, :5]
    eps = torch.tensor([1e-3, 0.5], dtype=dtype)
    for op in (lambda q: HD.dense_hida_gram(q, k, v, eps=eps),
               lambda q: HD.l_hida_attention(q, k, v, anchors, eps=0.1, normalise=True)):
        fast = op(k)
        graph = op(k.clone().requires_grad_())
        assert graph.requires_grad and torch.equal(fast, graph.detach())


def test_l_hida_summaries_are_sums_as_defined():
    gen = torch.Generator().manual_seed(3)
    q, k = _ball(gen, 4, 3), _ball(gen, 30, 3)
    ones = torch.ones(30, 1, dtype=F64)
    # one anchor: every weight is 1, so each output is the sum of the values (n), or their mean (1)
    a = _ball(gen, 1, 3)
    assert torch.allclose(HD.l_hida_attention(q, k, ones, a, eps=1e-2), torch.full((4, 1), 30.0, dtype=F64))
    means = HD.l_hida_attention(q, k, ones, a, eps=1e-2, normalise=True)
    assert torch.allclose(means, torch.ones(4, 1, dtype=F64))


def test_c_hida_online_matches_a_token_loop():
    gen = torch.Generator().manual_seed(4)
    keys, init = _ball(gen, 2, 40, 3), _ball(gen, 2, 3, 3)
    losses, final = HD.c_hida_online(keys, init, lr=0.7)
    for b in range(2):
        s, counts = init[b].clone(), [0, 0, 0]
        for t in range(40):
            d2 = poincare_sqdist(keys[b, t : t + 1], s)[0]
            j = int(d2.argmin())
            assert abs(float(d2[j]) - float(losses[b, t])) < 1e-10
            counts[j] += 1
            s[j] = s[j] + 0.7 / counts[j] * (keys[b, t] - s[j])
            s[j] = s[j] * min(1.0, (1 - 1e-5) / float(s[j].norm()))
        assert torch.allclose(final[b], s, atol=1e-12)


@pytest.mark.parametrize("n,d,b,b_r", [(1, 4, 4, 6), (7, 32, 4, 6), (100, 33, 3, 5), (64, 4096, 4, 6),
                                       (9, 5, 8, 8)])
def test_hcc_cache_round_trip_is_exact_and_size_is_measured(n, d, b, b_r):
    gen = torch.Generator().manual_seed(n + d)
    keys = _ball(gen, n, d, rmax=0.9999)
    cache = H.HCCKeyCache(keys, b=b, b_r=b_r)
    direction, radius = H.hcc_quantize(keys, b=b, b_r=b_r)
    got_d, got_r = cache.codes()
    assert torch.equal(got_d, direction) and torch.equal(got_r, radius)
    assert cache.buffer.dtype == torch.uint8
    assert cache.nbytes == cache.buffer.numel() == math.ceil(n * (d * b + b_r) / 8)
    assert torch.equal(cache.keys(), H.hcc_roundtrip(keys, b=b, b_r=b_r))
    assert int(direction.max()) <= 2**b - 1 and int(radius.max()) <= 2**b_r - 1


def test_pack_bits_round_trip_and_errors():
    gen = torch.Generator().manual_seed(5)
    widths = [1, 3, 7, 13, 30]
    codes = torch.stack([torch.randint(0, 2**w, (50,), generator=gen) for w in widths], dim=1)
    buf = H.pack_bits(codes, widths)
    assert buf.numel() == math.ceil(50 * sum(widths) / 8)
    assert torch.equal(H.unpack_bits(buf, 50, widths), codes)
    with pytest.raises(ValueError, match="does not fit"):
        H.pack_bits(torch.tensor([[2]]), [1])
    with pytest.raises(ValueError, match="bits, .* needed"):
        H.unpack_bits(buf[:3], 50, widths)


def test_radius_top_code_is_clamped():
    k = torch.tensor([[0.999, 0.0]], dtype=F64)
    _, radius = H.hcc_quantize(k, b=4, b_r=2)
    assert int(radius) == 3  # round(0.999·4) = 4 would need a third bit
