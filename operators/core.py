r"""The distance-attention core: inverse-distance weights from any geometry, streamed over keys.

Every inverse-distance operator of the papers has the same shape (GeoResolver §2.1,
Definitions 5.1 and 8.1, arXiv 2608.10416):

.. math:: D_{ij} = d(q_i, k_j)^2 + \varepsilon, \qquad
    W_{ij} = \frac{D_{ij}^{-1}}{\sum_m D_{im}^{-1}}, \qquad \mathrm{out}_i = \sum_j W_{ij} v_j

and differs only in the squared distance :math:`d^2`. A geometry hands the core a
callable ``sqdist(q_points, k_points) -> (..., n_q, n_k)``; the core does the rest.

Points are a tensor ``(..., n, d)`` or a tuple of per-token feature tensors
``(..., n, f_i)`` (e.g. a point and its precomputed squared norm): the core slices every
feature along the token dim ``-2`` and passes the slices, in the same structure, to
``sqdist``. ``sqdist`` must return a fresh tensor (the core may overwrite it).

**Online normaliser.** :math:`W` is invariant under :math:`D^{-1} \to c\,D^{-1}`. The
core uses :math:`r_{ij} = c_i / D_{ij}` with :math:`c_i = 2^{\lfloor \log_2 \min_j D_{ij}
\rfloor}`, the row minimum rounded down to a power of two, so every ratio lies in
:math:`(0, 1]` and nothing overflows (ε = 10⁻⁴⁰ in float32 included). Streaming over key
blocks, :math:`c_i` is the running minimum -- the counterpart of flash attention's running
maximum -- and when it drops, the partial sums are rescaled by the ratio of two powers of
two, which is exact. Hence the streamed result equals, bit for bit, the one-shot
reference :func:`distance_weights` with the same block partition of the row sums
(barring subnormal ratios, i.e. weights below ``finfo.tiny``).
"""

from collections.abc import Callable

import torch

from ._checks import (
    broadcastable_eps,
    check_block,
    check_eps,
    check_float,
    needs_graph,
    positive_range,
    transforms_active,
)

Points = torch.Tensor | tuple[torch.Tensor, ...]
SqDist = Callable[[Points, Points], torch.Tensor]

# Keys per block and queries per chunk: one (chunk x block) distance tile, 256 KiB in
# float32 per batch element, stays in a core's L2 cache (measured fastest on CPU).
DEFAULT_BLOCK = 256
DEFAULT_CHUNK = 256

_EXPONENT_MASK = {torch.float64: (torch.int64, 0x7FF0000000000000), torch.float32: (torch.int32, 0x7F800000)}


def pow2_floor(m: torch.Tensor) -> torch.Tensor:
    r""":math:`2^{\lfloor \log_2 m \rfloor}` for positive normal ``m``, exactly.

    Clears the significand bits (a bitwise AND on the integer view), so it is exact and
    works on any device, on meta tensors and under ``torch.func`` transforms.
    """
    int_dtype, mask = _EXPONENT_MASK[m.dtype]
    return (m.view(int_dtype) & mask).view(m.dtype)


def _features(p: Points) -> tuple[torch.Tensor, ...]:
    return p if isinstance(p, tuple) else (p,)


def _rows(p: Points, start: int, stop: int) -> Points:
    if isinstance(p, tuple):
        return tuple(f[..., start:stop, :] for f in p)
    return p[..., start:stop, :]


def _check_points(name: str, p: Points) -> int:
    feats = _features(p)
    if not feats:
        raise ValueError(f"{name} must hold at least one feature tensor")
    for i, f in enumerate(feats):
        check_float(f"{name}[{i}]" if isinstance(p, tuple) else name, f)
    n = feats[0].shape[-2]
    if any(f.shape[-2] != n for f in feats):
        raise ValueError(f"{name}: every feature needs the same token count (dim -2), got "
                         f"{[f.shape[-2] for f in feats]}")
    return n


def fits(shape: torch.Size, into: torch.Size) -> bool:
    """``torch.broadcast_shapes(into, shape) == into`` (which is Python-level, about 9 µs), read
    off the dims directly when every dim of ``shape`` is 1 or ``into``'s; the call otherwise (it
    raises for shapes that do not broadcast)."""
    lead = len(into) - len(shape)  # broadcasting aligns the trailing dims
    if lead >= 0 and all(a in (1, b) for a, b in zip(shape, into[lead:], strict=True)):
        return True
    return torch.broadcast_shapes(into, shape) == into


def _ratios(d2: torch.Tensor, eps, c_prev: torch.Tensor | None, inplace: bool):
    """``(c / D, c)`` for one block: D = clamp(d2 + eps), c the running power-of-two minimum."""
    floor, ceiling = positive_range(d2.dtype)
    eps_t = broadcastable_eps(eps, d2)
    # Floor: eps below the normal range (1e-40 in float32) must not give D = 0 and 0/0.
    # Ceiling: a row of infinite distances must not give inf/inf (ties share the weight).
    if inplace and (isinstance(eps_t, float) or fits(eps_t.shape, d2.shape)):
        dist = d2.add_(eps_t).clamp_(floor, ceiling)
    else:
        inplace = False
        dist = (d2 + eps_t).clamp(floor, ceiling)
    c = pow2_floor(dist.detach().amin(dim=-1))
    if c_prev is not None:
        c = torch.minimum(c_prev, c)
    # One correctly rounded division per entry. c is detached: W does not depend on it.
    if inplace:
        return torch.div(c[..., None], dist, out=dist), c
    return c[..., None] / dist, c


def _stream(qf: Points, kf: Points, v: torch.Tensor, sqdist: SqDist, eps, block: int, inplace: bool):
    n_k = _features(kf)[0].shape[-2]
    acc = total = c = None
    for start in range(0, n_k, block):
        stop = min(start + block, n_k)
        r, c_new = _ratios(sqdist(qf, _rows(kf, start, stop)), eps, c, inplace)
        part = r @ v[..., start:stop, :]
        if acc is None:
            acc, total = part, r.sum(dim=-1)
        else:
            alpha = c_new / c  # a power of two: the rescaling is exact
            if inplace and acc.shape == part.shape:
                acc = acc.mul_(alpha[..., None]).add_(part)
                total = total.mul_(alpha).add_(r.sum(dim=-1))
            else:
                acc = acc * alpha[..., None] + part
                total = total * alpha + r.sum(dim=-1)
        c = c_new
    return acc / total[..., None]


def distance_attention(
    q: Points,
    k: Points,
    v: torch.Tensor,
    *,
    sqdist: SqDist,
    eps: float | torch.Tensor,
    block: int = DEFAULT_BLOCK,
    chunk_size: int = DEFAULT_CHUNK,
) -> torch.Tensor:
    r"""Inverse-distance attention for any squared distance, streamed over key blocks.

    .. math:: \mathrm{out}_i = \sum_j W_{ij} v_j, \qquad
        W_{ij} = \frac{(d^2(q_i, k_j) + \varepsilon)^{-1}}{\sum_m (d^2(q_i, k_m) + \varepsilon)^{-1}}

    (GeoResolver §2.1 and Definitions 5.1, 8.1, arXiv 2608.10416).

    Args:
        q: queries, ``(..., n_q, d)`` or a tuple of per-token features ``(..., n_q, f)``.
        k: keys, same structure as ``q`` with ``n_k`` tokens; batch dims broadcast.
        v: ``(..., n_k, d_v)`` values in the distances' dtype.
        sqdist: ``sqdist(q_part, k_part)`` returns the ``(..., n_q', n_k')`` squared
            distances of the given slices as a fresh tensor.
        eps: ε, a positive finite float or a tensor broadcastable to the batch shape
            (not inspected: that would synchronise).
        block: keys per block (>= 1).
        chunk_size: queries per chunk (>= 1).

    Returns:
        ``(..., n_q, d_v)``.

    Exactness: with :math:`c_i` a power of two (module docstring), the result equals
    :func:`distance_weights` ``@ v`` up to the matmul's rounding; with ``v`` the identity
    it equals :func:`distance_weights` bit for bit. No host synchronisation: the loops run
    over shapes only. Works under autograd and ``torch.func`` transforms if ``sqdist``
    does (the normaliser is detached, which leaves every derivative exact).

    Memory (forward): O(chunk_size · block) per batch element for one distance tile, plus
    the O(n_q · d_v) accumulators and output -- linear in n. Without an autograd graph the
    tile is reused in place. Under autograd every tile's ratios are kept for backward,
    O(n_q · n_k) in total.
    """
    n_q = _check_points("q", q)
    n_k = _check_points("k", k)
    check_float("v", v)
    if v.shape[-2] != n_k:
        raise ValueError(f"mismatched n: k has n={n_k} keys, v has n={v.shape[-2]}")
    if n_k == 0:
        raise ValueError("k must hold at least one key (the weights of an empty row are undefined)")
    check_eps(eps)
    check_block(block)
    check_block(chunk_size, "chunk_size")
    inplace = not transforms_active() and not needs_graph(*_features(q), *_features(k), v, eps)
    if n_q <= chunk_size:
        return _stream(q, k, v, sqdist, eps, block, inplace)
    outs = [
        _stream(_rows(q, s, min(s + chunk_size, n_q)), k, v, sqdist, eps, block, inplace)
        for s in range(0, n_q, chunk_size)
    ]
    return torch.cat(outs, dim=-2)


def distance_weights(
    q: Points,
    k: Points,
    *,
    sqdist: SqDist,
    eps: float | torch.Tensor,
    block: int = DEFAULT_BLOCK,
    chunk_size: int = DEFAULT_CHUNK,
) -> torch.Tensor:
    r"""The reference path: the full ``(..., n_q, n_k)`` inverse-distance weight matrix.

    Same arithmetic as :func:`distance_attention` without streaming: the distances are
    evaluated tile by tile (``chunk_size`` queries × ``block`` keys, the same calls of
    ``sqdist``: vectorised kernels may round a transcendental differently in a tile's
    tail), then :math:`r_{ij} = c_i / D_{ij}` with the final power-of-two row minimum
    :math:`c_i`, row sums accumulated block by block in the same order,
    :math:`W = r / \sum r`.

    Memory: O(n_q · n_k) per batch element (distances, ratios, weights).
    """
    n_q = _check_points("q", q)
    n_k = _check_points("k", k)
    check_eps(eps)
    check_block(block)
    check_block(chunk_size, "chunk_size")
    inplace = not transforms_active() and not needs_graph(*_features(q), *_features(k), eps)
    rows = []
    for s in range(0, max(n_q, 1), chunk_size):
        qs = _rows(q, s, min(s + chunk_size, n_q))
        tiles = [sqdist(qs, _rows(k, b, min(b + block, n_k))) for b in range(0, max(n_k, 1), block)]
        rows.append(tiles[0] if len(tiles) == 1 else torch.cat(tiles, dim=-1))
    r, _ = _ratios(rows[0] if len(rows) == 1 else torch.cat(rows, dim=-2), eps, None, inplace)
    total = None
    for start in range(0, max(n_k, 1), block):
        part = r[..., start:start + block].sum(dim=-1)
        total = part if total is None else total + part
    if inplace:
        return r.div_(total[..., None])
    return r / total[..., None]
