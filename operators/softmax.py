"""Scaled dot-product (softmax) attention: the baseline the geometric operators face."""

import math

import torch

from ._checks import (
    check_chunk_size,
    check_not_nan,
    check_qkv,
    check_query_key,
    compute_dtype,
    query_chunks,
)


def _weights(q: torch.Tensor, k: torch.Tensor, scale: float | None) -> torch.Tensor:
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1]) if q.shape[-1] > 0 else 1.0
    # Scaling q (n_q·d products) is cheaper than scaling the n_q·n_k logits.
    logits = (q * scale) @ k.transpose(-1, -2)
    # Half dtypes: normalise in float32, as fused attention kernels do.
    return torch.softmax(logits, dim=-1, dtype=compute_dtype(q.dtype)).to(q.dtype)


def softmax_weights(
    q: torch.Tensor, k: torch.Tensor, *, scale: float | None = None
) -> torch.Tensor:
    r"""Softmax attention weights.

    .. math:: W_{ij} = \frac{\exp(s\, q_i \cdot k_j)}{\sum_m \exp(s\, q_i \cdot k_m)},
        \qquad s = 1/\sqrt{d} \text{ by default}

    (Vaswani et al. 2017, "Attention Is All You Need", eq. 1, arXiv 1706.03762).

    Args:
        q: ``(..., n_q, d)`` floating tensor.
        k: ``(..., n_k, d)`` tensor of the same dtype; batch dims broadcast.
        scale: the factor ``s``; ``None`` means ``1/sqrt(d)``.

    Returns:
        ``(..., n_q, n_k)`` row-stochastic weights in ``q``'s dtype (half dtypes are
        normalised in float32, then cast back).

    Memory: the ``(..., n_q, n_k)`` logits and weights (two such tensors at peak).
    """
    check_query_key(q, k)
    return _weights(q, k, scale)


def softmax_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    scale: float | None = None,
    chunk_size: int = 1024,
) -> torch.Tensor:
    r"""Softmax attention, evaluated over chunks of queries.

    .. math:: \mathrm{out}_i = \sum_j W_{ij} v_j, \qquad
        W_{ij} = \operatorname{softmax}_j(s\, q_i \cdot k_j)

    (Vaswani et al. 2017, eq. 1, arXiv 1706.03762). Same semantics as
    ``torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)``
    (no mask, no dropout).

    Args:
        q: ``(..., n_q, d)`` floating tensor.
        k: ``(..., n_k, d)``; v: ``(..., n_k, d_v)``; same dtype as ``q``, batch dims
            broadcast.
        scale: ``s``; ``None`` means ``1/sqrt(d)``.
        chunk_size: queries processed per step (>= 1).

    Returns:
        ``(..., n_q, d_v)`` in ``q``'s dtype.

    Memory (forward): besides inputs and output, O(n_k·chunk_size) per batch element
    for one chunk's logits and weights; with several chunks the output is assembled
    by one concatenation (a transient second copy of the output). Under autograd each
    chunk's weights are kept for backward, O(n_q·n_k) in total.
    """
    check_qkv(q, k, v)
    check_not_nan("q", q)
    check_not_nan("k", k)
    check_chunk_size(chunk_size)
    n_q = q.shape[-2]
    if n_q <= chunk_size:
        return _weights(q, k, scale) @ v
    outs = [_weights(q[..., s:e, :], k, scale) @ v for s, e in query_chunks(n_q, chunk_size)]
    return torch.cat(outs, dim=-2)
