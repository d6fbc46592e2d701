r"""Connection walks on the token graph: attention as transport along edges.

A token sequence is a vector field ``x_j ∈ R^{d_in}`` over the positions; a connection walk
aggregates with a nonnegative walk matrix ``P`` while transporting each message along its edge by
a linear map ``T_ij : R^{d_in} → R^{d_out}``:

.. math:: (\mathcal{W} x)_i = \sum_j P_{ij}\, T_{ij}\, x_j .

:func:`connection_walk` takes a constant transport ``(d_out, d_in)`` or one per edge
``(n, n, d_out, d_in)``; :func:`mha_connection` writes multi-head attention in this form.
"""

import torch

from ._checks import check_float, check_not_nan, check_same_dtype


def connection_walk(x: torch.Tensor, walk: torch.Tensor, transport: torch.Tensor, *,
                    per_edge: bool | None = None) -> torch.Tensor:
    """``out_i = Σ_j walk_ij T_ij x_j``.

    Args:
        x: ``(..., n, d_in)``; walk: ``(..., n_out, n)``.
        transport: ``(..., d_out, d_in)`` (constant) or ``(..., n_out, n, d_out, d_in)`` (per edge);
            ``per_edge`` says which; ``None`` infers it (per edge when ``transport`` has at least 4
            dims and its dims −4, −3 match the walk's last two).

    Returns:
        ``(..., n_out, d_out)``.
    """
    check_float("x", x)
    check_float("walk", walk)
    check_float("transport", transport)
    check_same_dtype(x=x, walk=walk, transport=transport)
    if walk.shape[-1] != x.shape[-2]:
        raise ValueError(f"walk has {walk.shape[-1]} columns but x has n={x.shape[-2]} tokens")
    if transport.shape[-1] != x.shape[-1]:
        raise ValueError(f"transport maps d_in={transport.shape[-1]}, x has d={x.shape[-1]}")
    if per_edge is None:
        per_edge = transport.dim() >= 4 and tuple(transport.shape[-4:-2]) == tuple(walk.shape[-2:])
    check_not_nan("x", x)
    if per_edge:
        if tuple(transport.shape[-4:-2]) != tuple(walk.shape[-2:]):
            raise ValueError(f"per-edge transport must be (..., {walk.shape[-2]}, {walk.shape[-1]}, "
                             f"d_out, d_in), got {tuple(transport.shape)}")
        return torch.einsum("...ij,...ijab,...jb->...ia", walk, transport, x)
    return torch.einsum("...ij,...ab,...jb->...ia", walk, transport, x)


def mha_connection(x, wq, wk, wv, wo, *, rope=None, scale=None):
    """Multi-head attention (no biases) as one connection walk: ``(walk, transport)`` with

    ``walk_ij = Σ_h A^h_ij`` (nonnegative, row sums H) and the attention-gated mixture
    ``T_ij = Σ_h π^h_ij T_h``, ``π^h_ij = A^h_ij / walk_ij``, ``T_h = (W_V^h W_O^h)^T``
    (``(d_out, d)``, acting on column vectors). Returns walk ``(..., n, n)``, transport
    ``(..., n, n, d_out, d)`` and the headwise ``T_h`` ``(H, d_out, d)``.
    """
    from .mha import mha_weights

    a = mha_weights(x, wq, wk, rope=rope, scale=scale)  # (..., H, n, n)
    wv_h = wv.repeat_interleave(wq.shape[0] // wv.shape[0], dim=0)  # head h reads group h // (H/H_kv)
    t_h = (wv_h @ wo).transpose(-1, -2)  # (H, d_out, d)
    walk = a.sum(dim=-3)
    gates = a / walk.unsqueeze(-3)
    transport = torch.einsum("...hij,hab->...ijab", gates, t_h)
    return walk, transport, t_h
