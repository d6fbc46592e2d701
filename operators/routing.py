r"""Spherical routing of GeoResolver §8.2 and §10 (arXiv 2608.10416): the learnable map onto the
sphere and Geodesic Sparse Routing (GSR) with Top-K prototypes.

- :func:`sphere_mlp_map`: :math:`\phi_C(c) = \mathrm{MLP}_\theta(c)/\lVert\mathrm{MLP}_\theta(c)\rVert`
  with a two-layer tanh MLP (§8.2 names "MLP" only; the architecture is this module's choice).
  The other two maps of §8.2 are :func:`operators.sphere_normalize` (φ_A) and
  :func:`operators.sphere_stereographic` (φ_B).
- :func:`gsr_weights`: the SIDA weights :math:`w_e = (d_S(q,c_e)^2+\varepsilon)^{-1}/
  \sum_l (d_S(q,c_l)^2+\varepsilon)^{-1}` over the whole pool (from :func:`sphere_sqdist`, the
  squared distances :func:`sida_attention` uses; tested against it and against mpmath).
- :func:`gsr_topk`: the Top-K set :math:`S(q)` and its weights.
- :func:`gsr_attention`: :math:`o(q) = \sum_{e\in S(q)} w_e v_e` with the pool-normalised
  weights, not renormalised over S(q) (§10.1's definition); :func:`gsr_exact` is
  :math:`o^*(q)`, SIDA over the whole pool.
"""

import torch

from ._checks import (
    FLOAT_DTYPES,
    broadcastable_eps,
    check_eps,
    check_float,
    check_float_dtype,
    check_not_nan,
    check_same_dtype,
    compute_dtype,
)
from .attention import sida_attention
from .sphere import sphere_normalize, sphere_sqdist


def sphere_mlp_map(c: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor,
                   b2: torch.Tensor) -> torch.Tensor:
    r"""Learnable map onto the sphere :math:`\phi_C(c) = m/\lVert m\rVert`,
    :math:`m = W_2\tanh(W_1 c + b_1) + b_2` (GeoResolver §8.2).

    Args:
        c: ``(..., d_in)`` centroids; w1: ``(h, d_in)``; b1: ``(h,)``; w2: ``(d_out, h)``;
            b2: ``(d_out,)``; one dtype.

    Returns:
        ``(..., d_out)`` unit vectors; ``ValueError`` where the MLP output is exactly 0 (the
        map is undefined there).
    """
    for name, t, dims in (("c", c, 1), ("w1", w1, 2), ("b1", b1, 1), ("w2", w2, 2), ("b2", b2, 1)):
        check_float(name, t, min_dim=dims)
        check_float_dtype(name, t, FLOAT_DTYPES)
        check_not_nan(name, t)
    check_same_dtype(c=c, w1=w1, b1=b1, w2=w2, b2=b2)
    if w1.shape[-1] != c.shape[-1] or b1.shape != w1.shape[:1] or w2.shape[-1] != w1.shape[0] \
            or b2.shape != w2.shape[:1]:
        raise ValueError(f"mismatched MLP shapes: c {tuple(c.shape)}, w1 {tuple(w1.shape)}, b1 "
                         f"{tuple(b1.shape)}, w2 {tuple(w2.shape)}, b2 {tuple(b2.shape)}")
    hidden = torch.tanh(c @ w1.transpose(-1, -2) + b1)
    return sphere_normalize(hidden @ w2.transpose(-1, -2) + b2)


def _check_k(k: int, pool: int) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= pool:
        raise ValueError(f"k must be an int with 1 <= k <= K_pool = {pool}, got {k!r}")


def gsr_weights(q: torch.Tensor, c: torch.Tensor, *, eps: float | torch.Tensor) -> torch.Tensor:
    r"""SIDA weights of every prototype, ``(..., n_q, K_pool)``:
    :math:`w_e = D_e^{-1}/\sum_l D_l^{-1}`, :math:`D_e = d_S(q, c_e)^2 + \varepsilon` (the weights
    of :func:`sida_attention`, from :func:`sphere_sqdist`), formed as
    :math:`(D_{\min}/D_e)/\sum_l (D_{\min}/D_l)` so that no inverse overflows for tiny ε."""
    check_eps(eps)
    work = compute_dtype(q.dtype)
    d = sphere_sqdist(q.to(work), c.to(work))
    d = d + broadcastable_eps(eps, d)
    ratio = d.amin(dim=-1, keepdim=True).detach() / d
    return (ratio / ratio.sum(dim=-1, keepdim=True)).to(q.dtype)


def gsr_topk(q: torch.Tensor, c: torch.Tensor, *, eps: float | torch.Tensor, k: int
             ) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Top-K routing :math:`S(q)`: the ``k`` largest SIDA weights and their prototype indices,
    each ``(..., n_q, k)``, in descending order of weight."""
    _check_k(k, c.shape[-2])
    return torch.topk(gsr_weights(q, c, eps=eps), k, dim=-1)


def gsr_attention(q: torch.Tensor, c: torch.Tensor, v: torch.Tensor, *, eps: float | torch.Tensor,
                  k: int) -> torch.Tensor:
    r"""GSR output :math:`o(q) = \sum_{e\in S(q)} w_e v_e` (GeoResolver §10.1).

    Args:
        q: ``(..., n_q, d)`` queries; c: ``(..., K_pool, d)`` prototypes (non-zero vectors, the
            angle is scale-invariant); v: ``(..., K_pool, d_v)`` values; eps: ε > 0; k: the
            number of routed prototypes, ``1 <= k <= K_pool``.

    Returns:
        ``(..., n_q, d_v)``: the pool-normalised weights of the Top-K, not renormalised.
    """
    check_float("v", v)
    check_same_dtype(q=q, v=v)
    if v.shape[-2] != c.shape[-2]:
        raise ValueError(f"v must have one row per prototype: {v.shape[-2]} rows for {c.shape[-2]}")
    w, idx = gsr_topk(q, c, eps=eps, k=k)
    sparse = torch.zeros(*w.shape[:-1], c.shape[-2], dtype=w.dtype, device=w.device)
    sparse = sparse.scatter(-1, idx, w)
    return sparse @ v


def gsr_exact(q: torch.Tensor, c: torch.Tensor, v: torch.Tensor, *, eps: float | torch.Tensor
              ) -> torch.Tensor:
    r""":math:`o^*(q)`: SIDA over the whole pool (:func:`sida_attention`)."""
    return sida_attention(q, c, v, eps=eps)
