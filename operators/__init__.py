"""Attention operators audited by attnaudit: pure torch functions on ``(..., n, d)`` tensors.

- :func:`squared_distances` -- pairwise ``‖x_i - y_j‖²``, exact at coincident points,
  twice differentiable.
- :func:`softmax_weights`, :func:`softmax_attention` -- scaled dot-product attention
  (the baseline; same semantics as ``torch.nn.functional.scaled_dot_product_attention``).
- :func:`ida_weights`, :func:`ida_attention` -- inverse-distance attention
  (GeoResolver's Euclidean Resolver, §2.1).
- :func:`ida_kernel` -- the kernel ``(‖x_i - x_j‖² + ε)^{-1}`` of GeoResolver Theorem 2.8.
- :func:`effective_rank` -- ``(tr K)² / tr(K²)`` of a batch of symmetric matrices.

All accept any float dtype (float16/bfloat16 are normalised in float32) on any device,
take geometry parameters keyword-only, and never synchronise with the device.
"""

from .distances import squared_distances
from .ida import effective_rank, ida_attention, ida_kernel, ida_weights
from .softmax import softmax_attention, softmax_weights

__all__ = [
    "effective_rank",
    "ida_attention",
    "ida_kernel",
    "ida_weights",
    "softmax_attention",
    "softmax_weights",
    "squared_distances",
]
