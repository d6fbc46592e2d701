r"""RMSNorm (Zhang & Sennrich 2019, *Root Mean Square Layer Normalization*, eq. 4, arXiv 1910.07467).

The fiber-bundle paper (``shared/papers/002_0acff97fdc4b473e.txt``, abstract 4) lists RMSNorm
among the components it models and reports an ``ε^{−1/2}`` Lipschitz scaling.
"""

import torch

from ._checks import check_float, check_not_nan, compute_dtype


def rms_norm(x: torch.Tensor, *, eps: float, weight: torch.Tensor | None = None) -> torch.Tensor:
    r"""Root-mean-square normalisation over the last dimension.

    .. math:: \mathrm{RMSNorm}(x) = g \odot \frac{x}{\sqrt{\tfrac1d\lVert x\rVert_2^2 + \varepsilon}}

    Its Jacobian is :math:`J = \mathrm{diag}(g)\,(I - x x^\top/(d r^2))/r`,
    :math:`r = \sqrt{\lVert x\rVert^2/d + \varepsilon}`, of spectral norm at most
    :math:`\max|g|/r \le \max|g|/\sqrt\varepsilon`, attained at ``x = 0``.

    Args:
        x: ``(..., d)`` floating tensor, ``d >= 1``.
        eps: ``ε > 0`` (a Python float).
        weight: optional gain ``g`` of shape ``(d,)`` (or broadcastable), same dtype.

    Returns ``(..., d)`` in ``x``'s dtype (half dtypes computed in float32). Memory: one copy.
    """
    check_float("x", x, min_dim=1)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise TypeError(f"eps must be a positive float, got {type(eps).__name__}")
    if not (eps > 0 and eps < float("inf")):
        raise ValueError(f"eps must be positive and finite, got {eps}")
    if x.shape[-1] < 1:
        raise ValueError("x must have a non-empty last dimension")
    check_not_nan("x", x)
    work = x.to(compute_dtype(x.dtype))
    out = work * torch.rsqrt(work.square().mean(dim=-1, keepdim=True) + eps)
    if weight is not None:
        check_float("weight", weight, min_dim=1)
        if weight.dtype != x.dtype:
            raise TypeError(f"weight must have x's dtype {x.dtype}, got {weight.dtype}")
        out = out * weight.to(work.dtype)
    return out.to(x.dtype)
