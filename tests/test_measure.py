"""checks.measure: FLOP counts on meta tensors and numerical ranks, on cases with known answers."""

from __future__ import annotations

import torch

from attnaudit.checks.measure import count_flops, meta, numerical_rank


def test_count_flops_of_a_matmul_on_meta_tensors():
    a, b = meta(30, 40), meta(40, 50)
    assert a.device.type == "meta" and a.dtype == torch.float64
    assert count_flops(lambda: a @ b) == 2 * 30 * 40 * 50
    assert count_flops(lambda: a + 1.0) == 0  # elementwise work is not counted (documented)


def test_numerical_rank_of_known_ranks_in_a_batch():
    gen = torch.Generator().manual_seed(0)
    u = torch.randn(3, 20, 4, generator=gen, dtype=torch.float64)
    v = torch.randn(3, 4, 15, generator=gen, dtype=torch.float64)
    m = u @ v
    m[1, :, 2:] = 0.0  # rank ≤ 2 in the second matrix
    rank, sv, threshold = numerical_rank(m)
    assert rank.tolist() == [4, 2, 4]
    assert sv.shape == (3, 15) and threshold.shape == (3,)
    assert torch.all(threshold == sv[:, 0] * 20 * torch.finfo(torch.float64).eps)
