"""Measurements that several specs take: FLOP counts on shapes alone, and numerical ranks.

Numerics are imported inside the functions, so a spec may import this module at its top.
"""

from __future__ import annotations


def meta(*shape: int, dtype: str = "float64"):
    """An empty tensor on the ``meta`` device: an operator run on it does shape arithmetic only,
    so its FLOPs can be counted at any size in milliseconds and without memory."""
    import torch

    return torch.empty(*shape, dtype=getattr(torch, dtype), device="meta")


def count_flops(fn) -> int:
    """Total FLOPs that ``torch.utils.flop_counter.FlopCounterMode`` records while ``fn()`` runs.

    The counter sees matrix products (mm, bmm, addmm, baddbmm, einsum lowered to them) and
    attention kernels only; elementwise work is not counted, and a spec says where that matters.
    """
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    return int(counter.get_total_flops())


def numerical_rank(m):
    """``(rank, singular values, threshold)`` of each matrix of ``m`` (``(..., rows, cols)``).

    A singular value counts when it exceeds σ₁·max(rows, cols)·eps(dtype): the round-off of an
    SVD of a matrix of norm σ₁, and ``numpy.linalg.matrix_rank``'s default threshold. ``rank``
    is an int64 tensor of shape ``(...)``; ``threshold`` has the same shape.
    """
    import torch

    sv = torch.linalg.svdvals(m)
    threshold = sv[..., 0] * max(m.shape[-2:]) * torch.finfo(m.dtype).eps
    return (sv > threshold[..., None]).sum(-1), sv, threshold
