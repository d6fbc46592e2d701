r"""The fast paths' inference loop: one GEMM per tile into reused buffers (private).

Same algorithm as :func:`operators.core.distance_attention` (online power-of-two
normaliser, key blocks, query chunks), specialised for the fast paths when no autograd
graph is recorded and no ``torch.func`` transform runs:

- each tile's distances come from **one** batched GEMM of augmented features,
  :math:`[s_i\,\lVert q_i\rVert^2 + e,\; s_i,\; -2 s_i q_i] \cdot [t_j,\; t_j\lVert k_j\rVert^2,\; t_j k_j]
  = s_i t_j (\lVert q_i\rVert^2 + \lVert k_j\rVert^2 - 2 q_i\cdot k_j) + e\,t_j`, so the norms,
  the per-token scales of the geometry and ε (when :math:`t_j = 1`) cost no extra pass;
- the row minimum of that tile serves both the online normaliser and the screen for
  cancelled pairs (``_expansion``): only rows whose minimum is at or below their
  threshold are inspected pair by pair and recomputed;
- tiles, ratios and accumulators live in buffers allocated once per call and
  overwritten (``out=`` and in-place ops): a fresh multi-megabyte tile per step would
  cost page faults that measured slower than the arithmetic.

Tile shape: unless the caller sets them, ``block = STREAM_BLOCK`` (512) keys and as many
queries per chunk as keep one buffer within ``STREAM_TILE_BYTES`` (8 MiB), at most 512 and at
least 64: 512 × 512 in float32 and 256 × 512 in float64 at B = 8. Bigger GEMMs run closer to the
BLAS peak, bigger buffers fall out of cache (measured 2026-12-02 at load about 5, one thread,
n = 2048, B·H = 8, IDA against SDPA: float32 1.58× at 256 × 256, 1.32× at 512 × 512, 1.59× at
1024 × 512; float64 1.30× at 256 × 256, 1.31× at 256 × 512, 1.45× at 512 × 512); the generic
core keeps its own defaults (``core.DEFAULT_CHUNK``, ``core.DEFAULT_BLOCK``).

Memory: one or two ``(B, chunk_size, block)`` tile buffers plus O(B·n·d) features and
accumulators, B the flattened batch. The tile buffers form a per-thread workspace kept between
calls (:func:`workspace`, at most ``WORKSPACE_MAX_BYTES``; :func:`release_workspace` frees it):
freed and reallocated each call, their pages were faulted in afresh every time, which cost HIDA
(two 8 MiB buffers) 1.6x at n = 512 and 1.1x at n = 1024 of its time (measured 2026-12-02, one
thread, B·H = 8, float32: 3.78x -> 2.44x and 2.72x -> 2.40x SDPA with glibc's trimming turned off).
"""

import math
import threading
from collections.abc import Callable

import torch

from ._checks import check_block, check_chunk_size, needs_graph, transforms_active
from .core import DEFAULT_BLOCK, DEFAULT_CHUNK, pow2_floor

STREAM_BLOCK = 512
STREAM_TILE_BYTES = 8 * 2**20
WORKSPACE_MAX_BYTES = 64 * 2**20

_WORKSPACE = threading.local()


def workspace(count: int, numel: int, dtype: torch.dtype, device: torch.device) -> list[torch.Tensor]:
    """``count`` flat buffers of at least ``numel`` elements, kept for the next call on this thread.

    Reused when the held ones match dtype, device and inference mode (a tensor made under
    ``torch.inference_mode`` cannot be updated in place outside it) and are large enough; replaced
    otherwise. Fresh, unkept buffers when they would exceed ``WORKSPACE_MAX_BYTES`` or while this
    thread's workspace is in use (a stream inside a stream). Release them with :func:`release_workspace`.
    """
    key = (torch.device(device), dtype, torch.is_inference_mode_enabled())
    nbytes = count * numel * torch.empty((), dtype=dtype).element_size()
    held = getattr(_WORKSPACE, "held", None)
    if nbytes > WORKSPACE_MAX_BYTES or getattr(_WORKSPACE, "busy", False):
        return [torch.empty(numel, dtype=dtype, device=device) for _ in range(count)]
    if held is None or held[0] != key or len(held[1]) < count or held[1][0].numel() < numel:
        _WORKSPACE.held = None  # free the old buffers before allocating the new ones
        held = (key, [torch.empty(numel, dtype=dtype, device=device) for _ in range(count)])
        _WORKSPACE.held = held
    return held[1][:count]


def release_workspace() -> None:
    """Free this thread's kept tile buffers (the next fast-path call allocates them again)."""
    _WORKSPACE.held = None


def stream_shape(batch: int, itemsize: int, chunk_size: int | None, block: int | None) -> tuple[int, int]:
    """``(chunk_size, block)`` of the streamed loop for a flattened batch of ``batch`` elements
    of ``itemsize`` bytes: the caller's values, or the defaults of the module docstring."""
    block = STREAM_BLOCK if block is None else block
    if chunk_size is None:
        chunk_size = min(512, max(64, STREAM_TILE_BYTES // (max(batch, 1) * block * itemsize)))
    return chunk_size, block


def check_shape(chunk_size: int | None, block: int | None) -> None:
    """Each of ``chunk_size`` and ``block`` is None (the default of its path) or an int >= 1."""
    if chunk_size is not None:
        check_chunk_size(chunk_size)
    if block is not None:
        check_block(block)


def generic_shape(chunk_size: int | None, block: int | None) -> tuple[int, int]:
    """``(chunk_size, block)`` for :func:`operators.core.distance_attention`: the caller's
    values or the core's defaults."""
    return (DEFAULT_CHUNK if chunk_size is None else chunk_size, DEFAULT_BLOCK if block is None else block)


def eligible(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, eps) -> bool:
    """Whether the buffer-reusing loop applies: no autograd graph, no transform, no empty
    dimension (those take the generic core, which also reports the errors)."""
    return (not transforms_active() and not needs_graph(q, k, v, eps)
            and min(q.numel(), k.numel(), v.numel()) > 0)


def _slice(rows: tuple[torch.Tensor, ...], start: int, stop: int) -> tuple[torch.Tensor, ...]:
    return tuple(r[:, start:stop] for r in rows)


def stream(
    qa: torch.Tensor,
    ka: torch.Tensor,
    q_rows: tuple[torch.Tensor, ...],
    k_rows: tuple[torch.Tensor, ...],
    v: torch.Tensor,
    tile: Callable,
    *,
    block: int | None,
    chunk_size: int | None,
    spares: int = 1,
) -> torch.Tensor:
    """Inverse-distance attention ``(B, n_q, d_v)`` of 3-D inputs with a fast ``tile``.

    ``tile(qa, ka, q_rows, k_rows, out, spare)`` fills ``out`` with ``D + ε`` (>= finfo.tiny)
    for augmented features ``qa`` / ``ka`` of a chunk and a block, and returns the row
    minimum; ``q_rows`` / ``k_rows`` are per-token extras ``(B, n)`` or ``(B, n, f)`` sliced
    alongside (what the geometry needs to screen and recompute); ``spare`` holds
    ``spares`` scratch tiles. ``chunk_size`` / ``block`` None: :func:`stream_shape`.
    """
    b, n_q, n_k, d_v = qa.shape[0], qa.shape[1], ka.shape[1], v.shape[-1]
    chunk_size, block = stream_shape(b, v.element_size(), chunk_size, block)
    out = torch.empty(b, n_q, d_v, dtype=v.dtype, device=v.device)
    flat = workspace(1 + spares, b * min(chunk_size, n_q) * min(block, n_k), v.dtype, v.device)
    outer = getattr(_WORKSPACE, "busy", False)
    _WORKSPACE.busy = True
    try:
        _stream_into(out, qa, ka, q_rows, k_rows, v, tile, flat, block, chunk_size)
    finally:
        _WORKSPACE.busy = outer
    return out


def _stream_into(out, qa, ka, q_rows, k_rows, v, tile, flat, block, chunk_size) -> None:
    b, n_q, n_k, d_v = qa.shape[0], qa.shape[1], ka.shape[1], v.shape[-1]
    acc = torch.empty(b, min(chunk_size, n_q), d_v, dtype=v.dtype, device=v.device)
    total = torch.empty(b, min(chunk_size, n_q), dtype=v.dtype, device=v.device)
    for qs in range(0, n_q, chunk_size):
        qe = min(qs + chunk_size, n_q)
        nq = qe - qs
        a, t, c = acc[:, :nq], total[:, :nq], None
        for ks in range(0, n_k, block):
            ke = min(ks + block, n_k)
            shape = (b, nq, ke - ks)  # every tile's buffers are views of the same storage
            dist, *spare = (f[: math.prod(shape)].view(shape) for f in flat)
            m = tile(qa[:, qs:qe], ka[:, ks:ke], _slice(q_rows, qs, qe), _slice(k_rows, ks, ke), dist, spare)
            c_new = pow2_floor(m) if c is None else torch.minimum(c, pow2_floor(m))
            ratio = torch.div(c_new[..., None], dist, out=dist)
            if c is None:
                torch.bmm(ratio, v[:, ks:ke], out=a)
                torch.sum(ratio, dim=-1, out=t)
            else:
                alpha = c_new / c  # a power of two: exact
                a.mul_(alpha[..., None]).baddbmm_(ratio, v[:, ks:ke])
                t.mul_(alpha).add_(ratio.sum(dim=-1))
            c = c_new
        torch.div(a, t[..., None], out=out[:, qs:qe])


def augmented(x: torch.Tensor, centre: torch.Tensor, lead: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    """``(a, xc)``: a fresh ``(B, n, lead + d)`` tensor whose last ``d`` columns ``xc`` (a view)
    hold ``x - centre``; the ``lead`` columns are left for the caller. One allocation where a
    ``torch.cat`` of temporaries would make four (each a round of fresh pages)."""
    a = torch.empty(*x.shape[:-1], lead + x.shape[-1], dtype=x.dtype, device=x.device)
    xc = a[..., lead:]
    torch.sub(x, centre, out=xc)
    return a, xc


def sum_squares(x: torch.Tensor) -> torch.Tensor:
    """``Σ x²`` over the last dim, as the squared 2-norm: a reduction with no full-size
    temporary (``x * x`` or ``vecdot`` would make one); relative error about (d + 3)u."""
    return torch.linalg.vector_norm(x, dim=-1).square_()


def flagged_rows(m: torch.Tensor, level: torch.Tensor, high: torch.Tensor | None = None,
                 m_high: torch.Tensor | None = None):
    """``(b, i)`` indices of the rows whose screen fires (host read: CPU only), or None."""
    rows = m <= level
    if high is not None:
        rows |= m_high >= high
    if not bool(rows.any()):
        return None
    return rows.nonzero(as_tuple=True)


def flatten(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, eps):
    """Broadcast the batch dims of q, k, v (and a tensor ε) and flatten them into one.

    Returns ``(q3, k3, v3, eps_b, batch)`` with ``eps_b`` of shape ``(B, 1)`` (a tensor
    either way) and ``batch`` the broadcast batch shape, for reshaping the output.
    """
    eps_shape = eps.shape if isinstance(eps, torch.Tensor) else ()
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], eps_shape)

    def flat(x):
        return x.expand(*batch, *x.shape[-2:]).reshape(-1, *x.shape[-2:])

    b = flat(q).shape[0]
    if isinstance(eps, torch.Tensor):
        eps_b = eps.to(device=q.device, dtype=q.dtype).expand(batch).reshape(b, 1)
    else:
        eps_b = torch.full((b, 1), float(eps), dtype=q.dtype, device=q.device)
    return flat(q), flat(k), flat(v), eps_b, batch
