r"""Per-token Riemannian metrics :math:`g_t = I + U_t U_t^\top` and their pairwise distances.

The Riemannian-attention paper (Song, arXiv 2608.01283; statements as quoted by its
public review, ``003`` in the sources) gives every token a metric
:math:`g_t = I_d + U_t U_t^\top` with :math:`U_t \in \mathbb R^{d\times r}`, and measures a
query-key pair with the averaged metric :math:`g_{ij} = (g_i + g_j)/2`:

.. math:: D_{ij} = (q_i - k_j)^\top g_{ij} (q_i - k_j)
    = \lVert\Delta_{ij}\rVert^2 + \tfrac12\lVert U_i^\top\Delta_{ij}\rVert^2
      + \tfrac12\lVert U_j^\top\Delta_{ij}\rVert^2, \qquad \Delta_{ij} = q_i - k_j

(the paper's scores are :math:`s_{ij} = -D_{ij}/\tau`). Two evaluations:

- :func:`metric_sqdist_direct` -- the left-hand side with materialised ``d × d`` metrics,
  ``O(n_q n_k d²)`` work;
- :func:`metric_sqdist` -- the decomposed low-rank right-hand side, ``O(n_q n_k d r)``.

Both form :math:`\Delta_{ij}` by direct differences, so D is exactly 0 at coincident
points, and both are polynomials in the inputs (twice differentiable everywhere, also
under ``torch.func``). Their agreement is a test (a consistency check; the reference
is an mpmath evaluation of the quadratic form).
"""

import torch

from ._checks import check_float, check_not_nan, check_query_key, check_same_dtype, compute_dtype


def _check_tokens(name: str, t: torch.Tensor, points: torch.Tensor, last: str, last_size: int | None) -> None:
    check_float(name, t, min_dim=3)
    check_same_dtype(**{name: t, "q": points})
    n, d = points.shape[-2], points.shape[-1]
    if t.shape[-3] != n or t.shape[-2] != d or (last_size is not None and t.shape[-1] != last_size):
        want = f"(..., {n}, {d}, {last_size if last_size is not None else last})"
        raise ValueError(f"{name} must have shape {want} (one per token), got {tuple(t.shape)}")
    check_not_nan(name, t)


def metric_from_factors(u: torch.Tensor) -> torch.Tensor:
    r"""The metrics :math:`g_t = I_d + U_t U_t^\top` of the factors ``u``.

    Args:
        u: ``(..., d, r)`` factors (one per token in the leading dims).

    Returns:
        ``(..., d, d)`` symmetric positive definite metrics in u's dtype.

    Memory: the ``(..., d, d)`` output.
    """
    check_float("u", u)
    check_not_nan("u", u)
    eye = torch.eye(u.shape[-2], dtype=u.dtype, device=u.device)
    return eye + u @ u.transpose(-1, -2)


def _differences(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return q[..., :, None, :] - k[..., None, :, :]


def metric_sqdist(q: torch.Tensor, k: torch.Tensor, *, uq: torch.Tensor, uk: torch.Tensor) -> torch.Tensor:
    r"""Pairwise squared distances under the averaged per-token metrics, low-rank form.

    .. math:: D_{ij} = \lVert\Delta_{ij}\rVert^2 + \tfrac12\lVert U_i^\top\Delta_{ij}\rVert^2
        + \tfrac12\lVert U_j^\top\Delta_{ij}\rVert^2, \qquad \Delta_{ij} = q_i - k_j

    (module docstring).

    Args:
        q: ``(..., n_q, d)``; k: ``(..., n_k, d)``; same dtype, batch dims broadcast.
        uq: ``(..., n_q, d, r)`` the queries' metric factors; uk: ``(..., n_k, d, r)``.

    Returns:
        ``(..., n_q, n_k)`` in q's dtype (half dtypes computed in float32).

    Memory: O(n_q·n_k·(d + r)) per batch element (the differences and projections).
    """
    check_query_key(q, k)
    _check_tokens("uq", uq, q, "r", None)
    _check_tokens("uk", uk, k, "r", uq.shape[-1])
    work = compute_dtype(q.dtype)
    delta = _differences(q.to(work), k.to(work))
    pq = torch.einsum("...ijd,...idr->...ijr", delta, uq.to(work))
    pk = torch.einsum("...ijd,...jdr->...ijr", delta, uk.to(work))
    out = (delta * delta).sum(-1) + 0.5 * ((pq * pq).sum(-1) + (pk * pk).sum(-1))
    return out.to(q.dtype)


def metric_sqdist_direct(
    q: torch.Tensor, k: torch.Tensor, *, gq: torch.Tensor, gk: torch.Tensor
) -> torch.Tensor:
    r"""Pairwise squared distances under the averaged metrics, direct (materialised) form.

    .. math:: D_{ij} = \Delta_{ij}^\top \frac{g_i + g_j}{2} \Delta_{ij}, \qquad \Delta_{ij} = q_i - k_j

    Args:
        q: ``(..., n_q, d)``; k: ``(..., n_k, d)``; same dtype, batch dims broadcast.
        gq: ``(..., n_q, d, d)`` the queries' metrics; gk: ``(..., n_k, d, d)``.
            Symmetry and definiteness are not checked (that would read every matrix).

    Returns:
        ``(..., n_q, n_k)`` in q's dtype (half dtypes computed in float32).

    Memory: O(n_q·n_k·d) per batch element (the differences and one product).
    """
    check_query_key(q, k)
    d = q.shape[-1]
    _check_tokens("gq", gq, q, "d", d)
    _check_tokens("gk", gk, k, "d", d)
    work = compute_dtype(q.dtype)
    delta = _differences(q.to(work), k.to(work))
    quad_q = torch.einsum("...ijd,...ide,...ije->...ij", delta, gq.to(work), delta)
    quad_k = torch.einsum("...ijd,...jde,...ije->...ij", delta, gk.to(work), delta)
    return (0.5 * (quad_q + quad_k)).to(q.dtype)
