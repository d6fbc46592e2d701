r"""HyperGate's dimension-level gate (GeoResolver §7, arXiv 2608.10416) and its Jacobian.

.. math:: G_i = \operatorname{diag}(\sigma(W_g x_i)), \qquad h_i = G_i x_i,
    \qquad \frac{\partial h_i}{\partial x_i} = G_i + \operatorname{diag}(\sigma'(z)\odot x_i)\,W_g,
    \quad z = W_g x_i

The head-level gate κ_h and the token-level boundary β_i of §7 are named but never defined
there, and Theorem 7.1 is about ``h_i = G_i x_i`` alone: only that gate is implemented. The
Jacobian is taken by ``torch.func`` (``jacrev`` under ``vmap``), never from the closed form,
so that the closed form above can be tested against it.
"""

import torch

from ._checks import FLOAT_DTYPES, check_float, check_float_dtype, check_not_nan, check_same_dtype


def _check(x: torch.Tensor, w_g: torch.Tensor) -> None:
    check_float("x", x, min_dim=1)
    check_float("w_g", w_g, min_dim=2)
    check_float_dtype("x", x, FLOAT_DTYPES)
    check_same_dtype(x=x, w_g=w_g)
    check_not_nan("x", x)
    check_not_nan("w_g", w_g)
    d = x.shape[-1]
    if w_g.shape[-2:] != (d, d):
        raise ValueError(f"w_g must be (..., d, d) with d = x.shape[-1] = {d}, got {tuple(w_g.shape)}")


def hypergate(x: torch.Tensor, w_g: torch.Tensor) -> torch.Tensor:
    r"""The gated representation :math:`h = \sigma(W_g x)\odot x` (GeoResolver §7).

    Args:
        x: ``(..., d)`` token representations.
        w_g: ``(..., d, d)`` gate weights, batch dims broadcast against x's.

    Returns:
        ``(..., d)`` in x's dtype (half dtypes computed in float32).
    """
    _check(x, w_g)
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw, ww = x.to(work), w_g.to(work)
    z = (ww @ xw[..., None])[..., 0]
    return (torch.sigmoid(z) * xw).to(x.dtype)


def hypergate_jacobian(x: torch.Tensor, w_g: torch.Tensor) -> torch.Tensor:
    r""":math:`\partial h/\partial x` of :func:`hypergate`, per token, by ``torch.func.jacrev``.

    Args:
        x: ``(..., d)``; w_g: ``(..., d, d)`` (batch dims broadcast).

    Returns:
        ``(..., d, d)``: entry ``[..., k, l] = ∂h_k/∂x_l``, in x's dtype.
    """
    _check(x, w_g)
    batch = torch.broadcast_shapes(x.shape[:-1], w_g.shape[:-2])
    d = x.shape[-1]
    xs = x.expand(*batch, d).reshape(-1, d)
    ws = w_g.expand(*batch, d, d).reshape(-1, d, d)
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype

    def gate(xi, wi):
        return torch.sigmoid(wi @ xi) * xi

    jac = torch.func.vmap(torch.func.jacrev(gate, argnums=0))(xs.to(work), ws.to(work))
    return jac.reshape(*batch, d, d).to(x.dtype)
