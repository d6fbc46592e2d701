"""Inverse-Distance Attention (IDA, the "Euclidean Resolver") and its kernel.

Source: GeoResolver §2.1 and Theorem 2.8, arXiv 2608.10416.
"""

import torch

from . import _tiles
from ._checks import (  # noqa: I001
    EXPANSION_TAU,
    broadcastable_eps,
    check_eps,
    check_float,
    check_not_nan,
    check_qkv,
    check_query_key,
    compute_dtype,
    positive_range,
)
from ._expansion import centred, expand, gather_pairs, recompute, resolve_path, threshold
from .core import distance_attention, distance_weights
from .distances import pairwise_sq


def exact_sqdist(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """The exact path's squared distances: direct differences (:func:`squared_distances`)."""
    return pairwise_sq(q, k)


def _fast_points(q: torch.Tensor, k: torch.Tensor):
    """Per-token features of the fast path: the points and their key-centred copies."""
    centre = k.detach().mean(dim=-2, keepdim=True)
    return (q, *centred(q, centre)), (k, *centred(k, centre))


def fast_sqdist(qf, kf) -> torch.Tensor:
    """Fast-path squared distances of a tile: expansion, then exact recomputation.

    Pairs with expanded value at most ``EXPANSION_TAU · (‖q‖² + max‖k‖²)`` (centred
    coordinates) are recomputed by direct differences; the rest have relative error
    below ``expansion_bound(d, dtype)``.
    """
    q, qc, qn = qf
    k, kc, kn = kf
    d2 = expand(qc, qn, kc, kn)
    batch = d2.shape[:-2]

    def exact(idx):
        diff = gather_pairs(q, batch, idx, -2) - gather_pairs(k, batch, idx, -1)
        return (diff * diff).sum(dim=-1)

    return recompute(d2, threshold(qn, kn), None, exact)


def _fast_stream(q, k, v, eps, block: int | None, chunk_size: int | None) -> torch.Tensor:
    """The fast path without autograd: one GEMM per tile (``_tiles``), same bound.

    Row screen: a row is inspected when its tile minimum reaches ``τ(‖q_i‖² + max_j ‖k_j‖²) + ε``
    (all keys' maximum, computed once: a superset of the rows with a pair to recompute); pairs with
    ``D̃ - ε <= τ(‖q_i‖² + ‖k_j‖²)`` are recomputed by direct differences. Normaliser bounds:
    ``ε <= D <= 2((‖q_i‖ + max_j ‖k_j‖)² + ε)`` (centred; the factor 2 covers rounding).
    """
    q3, k3, v3, eps_b, batch = _tiles.flatten(q, k, v, eps)
    centre = k3.mean(dim=-2, keepdim=True)
    qa, qc, ka, kc = _tiles.augmented_pair(q3, k3, centre)
    qn, kn = _tiles.sum_squares(qc), _tiles.sum_squares(kc)
    knmax = kn.amax(dim=-1, keepdim=True)
    level = EXPANSION_TAU * (qn + knmax) + eps_b
    high = (qn.sqrt() + knmax.sqrt()).square_().add_(eps_b).mul_(2.0)
    torch.add(qn, eps_b, out=qa[..., 0])
    qa[..., 1] = 1.0
    qc.mul_(-2.0)
    ka[..., 0] = 1.0
    ka[..., 1] = kn
    eps_rows = eps_b.expand(qn.shape)
    tiny = positive_range(q.dtype)[0]

    def tile(qa_, ka_, q_rows, k_rows, out, spare):
        qx, qn_, eps_r, level_ = q_rows
        kx, kn_ = k_rows
        torch.bmm(qa_, ka_.transpose(-1, -2), out=out)
        rows = _tiles.flagged_rows(out.amin(dim=-1), level_)
        if rows is None:
            return
        bi, ii = rows
        sub = out[bi, ii] - eps_r[bi, ii][:, None]
        r, j = (sub <= EXPANSION_TAU * (qn_[bi, ii][:, None] + kn_[bi])).nonzero(as_tuple=True)
        bb, qi = bi[r], ii[r]
        diff = qx[bb, qi] - kx[bb, j]
        out[bb, qi, j] = ((diff * diff).sum(dim=-1) + eps_r[bb, qi]).clamp_min(tiny)

    out = _tiles.stream(qa, ka, (q3, qn, eps_rows, level), (k3, kn), v3, tile, block=block,
                        chunk_size=chunk_size, bounds=(eps_rows, high))
    return out.reshape(*batch, *out.shape[-2:])


def ida_weights(q: torch.Tensor, k: torch.Tensor, *, eps: float | torch.Tensor) -> torch.Tensor:
    r"""Inverse-distance attention weights (the reference path of :func:`ida_attention`).

    .. math:: D_{ij} = \lVert q_i - k_j \rVert^2 + \varepsilon, \qquad
        W_{ij} = \frac{D_{ij}^{-1}}{\sum_m D_{im}^{-1}}
        = \operatorname{softmax}_j(-\log D_{ij})

    (GeoResolver §2.1, arXiv 2608.10416).

    Args:
        q: ``(..., n_q, d)`` floating tensor.
        k: ``(..., n_k, d)`` of the same dtype; batch dims broadcast.
        eps: ε, a positive finite Python float, or a tensor broadcastable to the batch
            shape ``(...)`` (e.g. shape ``(B,)`` for ``q`` of shape ``(B, n, d)``: one
            ε per batch element). A tensor ε must be positive; it is not checked
            (that would synchronise with the device). It may require grad. Keep it
            on ``q``'s device: otherwise it is copied there (a blocking copy).

    Returns:
        ``(..., n_q, n_k)`` row-stochastic weights in ``q``'s dtype.

    Evaluated by :func:`operators.core.distance_weights` with exact squared distances
    (direct differences, exactly 0 at coincident points):
    :math:`W_{ij} = r_{ij}/\sum_m r_{im}` with :math:`r_{ij} = c_i / D_{ij} \in (0, 1]` and
    :math:`c_i` the row minimum of D rounded down to a power of two, i.e. the stable
    softmax of :math:`-\log D` without the log/exp rounding: it never overflows, even
    when 1/ε exceeds the dtype (float32 with ε = 1e-40), and a query equal to a key gets
    weight exactly 1 in the limit ε → 0. D is clamped to ``[finfo.tiny, finfo.max]``
    (this only matters when ε underflows or distances overflow; ties then share the
    weight). Half dtypes are computed in float32. Differentiable twice (in q, k, ε).
    Raises ``ValueError`` if q or k contains NaN (read on CPU; a device-side assert
    elsewhere).

    Memory: O(n_q·n_k) per batch element: one such buffer, reused in place, when no
    autograd graph is recorded; about four (distances, clamped, ratios, weights) when
    one is. Plus float32 copies of q, k for half dtypes.
    """
    check_query_key(q, k)
    check_eps(eps)
    work = compute_dtype(q.dtype)
    return distance_weights(q.to(work), k.to(work), sqdist=exact_sqdist, eps=eps).to(q.dtype)


def ida_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    eps: float | torch.Tensor,
    chunk_size: int | None = None,
    block: int | None = None,
    path: str = "auto",
) -> torch.Tensor:
    r"""Inverse-distance attention (the Euclidean Resolver), streamed over key blocks.

    .. math:: \mathrm{out}_i = \sum_j W_{ij} v_j, \qquad
        W_{ij} = \frac{(\lVert q_i - k_j \rVert^2 + \varepsilon)^{-1}}
        {\sum_m (\lVert q_i - k_m \rVert^2 + \varepsilon)^{-1}}

    (GeoResolver §2.1, arXiv 2608.10416). Weights as in :func:`ida_weights`, evaluated by
    :func:`operators.core.distance_attention`.

    Args:
        q: ``(..., n_q, d)`` floating tensor.
        k: ``(..., n_k, d)``; v: ``(..., n_k, d_v)``; same dtype as ``q``, batch dims
            broadcast.
        eps: ε, a positive finite Python float or a positive tensor broadcastable to
            the batch shape ``(...)`` (not checked, see :func:`ida_weights`).
        chunk_size: queries per chunk (>= 1); None: ``core.DEFAULT_CHUNK`` (256), or on the
            streamed fast path as many as keep one head's tile within 1 MiB (512 in float32 and
            256 in float64; a tile holds one head, or several for short sequences, see
            ``operators._tiles``).
        block: keys per block (>= 1); None: ``core.DEFAULT_BLOCK`` (256), on the streamed
            fast path 512.
        path: ``"exact"`` -- squared distances by direct differences (exactly 0 at
            coincident points; with ``v`` the identity the weights equal
            :func:`ida_weights` bit for bit). ``"fast"`` -- the matmul expansion in
            key-centred coordinates, with every pair whose expanded value is at most
            ``EXPANSION_TAU = 1/8`` of ``‖q‖² + max‖k‖²`` recomputed by direct differences
            (so coincident pairs are still exactly 0); every other D has relative error
            below ρ = ``operators._checks.expansion_bound(d, dtype)``, hence each weight
            below 2ρ/(1 - ρ) relative and ``|out_fast - out_exact| <= 2ρ/(1-ρ)·max_j |v_j|``
            (ρ = 1.2e-13 for float64 and 6.5e-5 for float32 at d = 64). ``"auto"``
            (default) -- ``"fast"`` for CPU tensors outside ``torch.func`` transforms and
            with no input requiring grad, ``"exact"`` otherwise (on accelerators the fast
            path's data-dependent recomputation would synchronise; under vmap it has no
            batching rule; its bound covers values, not derivatives).

    Returns:
        ``(..., n_q, d_v)`` in ``q``'s dtype (half dtypes computed in float32).

    Memory (forward): O(chunk_size · block) per batch element for one tile, plus
    O(n·d) for the accumulators, the output and (fast path) the centred copies of q, k;
    float32 copies of q, k, v for half dtypes. Under autograd every tile's ratios are
    kept for backward, O(n_q·n_k) in total.
    """
    check_qkv(q, k, v)  # check_query_key's type, dtype and shape checks, and v's
    check_not_nan("q", q)
    check_not_nan("k", k)
    check_not_nan("v", v)
    check_eps(eps)
    _tiles.check_shape(chunk_size, block)
    route = resolve_path(path, q, k, v)
    work = compute_dtype(q.dtype)
    qw, kw, vw = q.to(work), k.to(work), v.to(work)
    if route == "fast" and _tiles.eligible(qw, kw, vw, eps):
        return _fast_stream(qw, kw, vw, eps, block, chunk_size).to(q.dtype)
    chunk_size, block = _tiles.generic_shape(chunk_size, block)
    if route == "exact":
        out = distance_attention(qw, kw, vw, sqdist=exact_sqdist, eps=eps, block=block, chunk_size=chunk_size)
    else:
        qf, kf = _fast_points(qw, kw)
        out = distance_attention(qf, kf, vw, sqdist=fast_sqdist, eps=eps, block=block, chunk_size=chunk_size)
    return out.to(q.dtype)


def ida_kernel(x: torch.Tensor, *, eps: float | torch.Tensor) -> torch.Tensor:
    r"""The inverse-distance kernel matrix of a point set.

    .. math:: K_{ij} = \left(\lVert x_i - x_j \rVert^2 + \varepsilon\right)^{-1}

    (the kernel of GeoResolver Theorem 2.8, arXiv 2608.10416). The diagonal is
    exactly ``1/ε`` (rounded once), since the distances there are exactly 0.

    Args:
        x: ``(..., n, d)`` floating tensor.
        eps: ε, a positive finite Python float or a positive tensor broadcastable to
            the batch shape ``(...)`` (not checked, see :func:`ida_weights`).

    Returns:
        ``(..., n, n)`` symmetric tensor in ``x``'s dtype. Entries are the exact values,
        so ``1/ε`` beyond the dtype's range is ``inf`` (half dtypes are computed in
        float32, then cast back).

    Memory: O(n²) per batch element (distances and kernel).
    """
    check_float("x", x)
    check_not_nan("x", x)
    check_eps(eps)
    xw = x.to(compute_dtype(x.dtype))
    d2 = pairwise_sq(xw, xw)
    return (d2 + broadcastable_eps(eps, d2)).reciprocal().to(x.dtype)


def effective_rank(k: torch.Tensor) -> torch.Tensor:
    r"""Effective rank of a batch of symmetric matrices.

    .. math:: r_{\mathrm{eff}}(K) = \frac{(\operatorname{tr} K)^2}{\operatorname{tr}(K^2)}
        = \frac{(\sum_i K_{ii})^2}{\sum_{ij} K_{ij}^2} \quad (K = K^\top)

    (GeoResolver §2.1, arXiv 2608.10416). Computed with the right-hand side: the sum of
    squared entries, which equals tr(K²) for symmetric K only. Symmetry is not checked
    (that would synchronise); for a non-symmetric input this is the Frobenius variant.

    Args:
        k: ``(..., n, n)`` floating tensor.

    Returns:
        ``(...)`` tensor in ``k``'s dtype; NaN for a zero (or 0x0) matrix or one with
        infinite entries.

    The ratio is scale-invariant, so K is first divided by max|K_ij| (detached, which
    leaves derivatives exact): no overflow of ΣK², e.g. for K with 1/ε = 1e200. Half
    dtypes are computed in float32.

    Memory: two O(n²) temporaries per batch element (scaled K and its square).
    """
    check_float("k", k)
    if k.shape[-1] != k.shape[-2]:
        raise ValueError(f"k must be square in its last two dims, got {tuple(k.shape[-2:])}")
    kw = k.to(compute_dtype(k.dtype))
    if kw.shape[-1] > 0:  # amax of an empty matrix is an error; 0x0 gives 0/0 below
        kw = kw / kw.abs().amax(dim=(-2, -1), keepdim=True).detach()
    trace = kw.diagonal(dim1=-2, dim2=-1).sum(-1)
    return (trace.square() / kw.square().sum(dim=(-2, -1))).to(k.dtype)
