r"""The fast paths' inference loop: one GEMM per tile into reused buffers (private).

Same algorithm as :func:`operators.core.distance_attention` (power-of-two normaliser, key
blocks, query chunks), specialised for the fast paths when no autograd graph is recorded and
no ``torch.func`` transform runs:

- each tile's distances come from **one** batched GEMM of augmented features,
  :math:`[s_i\,\lVert q_i\rVert^2 + e,\; s_i,\; -2 s_i q_i] \cdot [t_j,\; t_j\lVert k_j\rVert^2,\; t_j k_j]
  = s_i t_j (\lVert q_i\rVert^2 + \lVert k_j\rVert^2 - 2 q_i\cdot k_j) + e\,t_j`, so the norms,
  the per-token scales of the geometry and ε (when :math:`t_j = 1`) cost no extra pass;
- the tile's row extremes screen for cancelled pairs (``_expansion``) against per-row levels the
  geometry computes once per call: only rows that reach their level are inspected pair by pair
  and recomputed;
- the normaliser :math:`c_i` is fixed per row when the geometry bounds the row's D within
  :math:`[L_i, U_i]` with :math:`2^{\lfloor\log_2 L_i\rfloor} / U_i` at least ``finfo.tiny``
  (checked once per call): :math:`c_i = 2^{\lfloor\log_2 L_i\rfloor} \le \min_j D_{ij}`, so every
  ratio lies in [tiny, 1] and nothing is rescaled. A power of two commutes with every rounding
  of the ratios, the GEMM and the sums while nothing is subnormal, so this gives the running
  minimum's result bit for bit (barring subnormal products :math:`r_{ij} v_j`); otherwise
  (ε or distances near the ends of the range) the loop takes the running minimum of
  :func:`operators.core.distance_attention`, rescaling by exact powers of two;
- tiles and accumulators live in buffers kept between calls and overwritten (``out=`` and
  in-place ops): a fresh multi-megabyte tile per step would cost page faults that measured
  slower than the arithmetic.

Tile shape. A tile is ``heads × chunk × block``: ``block = STREAM_BLOCK`` (512) keys, ``chunk``
queries (512 in float32, ``STREAM_CHUNK_BYTES // (block · itemsize)``: 512 in float32 and 256 in
float64), and as many batch elements (heads) as keep the tile within ``STREAM_TILE_BYTES``
(1 MiB): one head at n ≥ 512, more for shorter sequences. A tile that stays in a core's L2 cache
(2 MiB here) from its GEMM through the transform, the division and the value GEMM measured faster
than all heads at once (8 MiB at B·H = 8): IDA 1.33× → 1.12× SDPA, HIDA 2.00× → 1.79× (float32,
one thread, n = 2048, load about 10, 2026-12-06). The generic core keeps its own defaults
(``core.DEFAULT_CHUNK``, ``core.DEFAULT_BLOCK``).

Memory: one or two tile buffers (``STREAM_TILE_BYTES`` each) plus O(B·n·d) features and
accumulators, B the flattened batch. The tile buffers form a per-thread workspace kept between
calls (:func:`workspace`, at most ``WORKSPACE_MAX_BYTES``; :func:`release_workspace` frees it):
freed and reallocated each call, their pages were faulted in afresh every time, which cost HIDA
1.6x at n = 512 and 1.1x at n = 1024 of its time (measured 2026-12-02 with 8 MiB tiles). The
augmented features (up to ``FEATURES_MAX_BYTES``) and the accumulators are kept the same way, each
under its own tag, from ``KEEP_MIN_BYTES`` up: fresh, the features' subtraction of the centre cost
585 µs of IDA's 4.3 ms at B = 1000, n = 16, d = 8 in float64, 123 µs kept (2026-12-06).
"""

import functools
import math
import threading
from collections.abc import Callable

import numpy as np
import torch

from ._checks import check_block, check_chunk_size, needs_graph, positive_range, transforms_active
from .core import DEFAULT_BLOCK, DEFAULT_CHUNK, pow2_floor

STREAM_BLOCK = 512
STREAM_CHUNK_BYTES = 2**20
STREAM_TILE_BYTES = 2**20
WORKSPACE_MAX_BYTES = 64 * 2**20
# The kept augmented features (both sides): they save the page faults of a fresh O(B·n·d) buffer,
# which matter next to the O(B·n²·d) work of small and mid-sized problems only.
FEATURES_MAX_BYTES = 16 * 2**20
KEEP_MIN_BYTES = 2**16

_WORKSPACE = threading.local()


def workspace(count: int, numel: int, dtype: torch.dtype, device: torch.device, tag: str = "tiles",
              limit: int | None = None) -> list[torch.Tensor]:
    """``count`` flat buffers of at least ``numel`` elements, kept for the next call on this thread.

    Each ``tag`` holds its own buffers (``"tiles"``: the tiles; ``"features"``: the augmented
    features of :func:`augmented_pair`; ``"acc"``: the accumulators of the loop). Reused when the
    held ones match dtype, device and inference mode (a tensor made under ``torch.inference_mode``
    cannot be updated in place outside it) and are large enough; replaced otherwise. Fresh, unkept
    buffers when they would exceed ``limit`` (default ``WORKSPACE_MAX_BYTES``) or while this
    thread's workspace is in use (a stream inside a stream). Release them with :func:`release_workspace`.
    """
    nbytes = count * numel * dtype.itemsize
    limit = WORKSPACE_MAX_BYTES if limit is None else min(limit, WORKSPACE_MAX_BYTES)
    if nbytes > limit or getattr(_WORKSPACE, "busy", False):
        return [torch.empty(numel, dtype=dtype, device=device) for _ in range(count)]
    key = (torch.device(device), dtype, torch.is_inference_mode_enabled())
    held = getattr(_WORKSPACE, "held", None)
    if held is None:
        held = _WORKSPACE.held = {}
    kept = held.get(tag)
    if kept is None or kept[0] != key or len(kept[1]) < count or kept[1][0].numel() < numel:
        held.pop(tag, None)  # free the old buffers before allocating the new ones
        kept = held[tag] = (key, [torch.empty(numel, dtype=dtype, device=device) for _ in range(count)])
    return kept[1][:count]


def buffers(shapes: list[tuple[int, ...]], dtype: torch.dtype, device: torch.device, tag: str,
            limit: int | None = None) -> list[torch.Tensor]:
    """Contiguous tensors of ``shapes``, disjoint views of one kept :func:`workspace` buffer of
    ``tag`` (fresh ``torch.empty`` tensors below ``KEEP_MIN_BYTES`` in all: small blocks come from
    the allocator's free lists without page faults, and carving costs an op per tensor)."""
    # Each tensor starts 64 bytes aligned, as a fresh one does (a GEMM library may pick its
    # kernel by alignment, and the kernel may set the order of a dot product's sums).
    step = max(1, 64 // dtype.itemsize)
    sizes = [-(-math.prod(shape) // step) * step for shape in shapes]
    if sum(sizes) * dtype.itemsize < KEEP_MIN_BYTES:
        return [torch.empty(shape, dtype=dtype, device=device) for shape in shapes]
    (flat,) = workspace(1, sum(sizes), dtype, device, tag=tag, limit=limit)
    out, offset = [], flat.storage_offset()
    for shape, size in zip(shapes, sizes, strict=True):
        strides = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * shape[i + 1]
        out.append(flat.as_strided(shape, strides, offset))
        offset += size
    return out


def release_workspace() -> None:
    """Free this thread's kept buffers (the next fast-path call allocates them again)."""
    _WORKSPACE.held = None


def stream_shape(batch: int, itemsize: int, chunk_size: int | None, block: int | None) -> tuple[int, int]:
    """``(chunk_size, block)`` of the streamed loop for elements of ``itemsize`` bytes: the caller's
    values, or the defaults of the module docstring (``batch`` is kept for the callers' signature:
    the heads per tile are :func:`heads_per_tile`)."""
    block = STREAM_BLOCK if block is None else block
    if chunk_size is None:
        chunk_size = min(512, max(64, STREAM_CHUNK_BYTES // (block * itemsize)))
    return chunk_size, block


def heads_per_tile(batch: int, itemsize: int, chunk: int, block: int) -> int:
    """Batch elements per tile: as many ``chunk × block`` slices as fit in ``STREAM_TILE_BYTES``,
    at least 1 and at most ``batch``."""
    return max(1, min(batch, STREAM_TILE_BYTES // max(1, chunk * block * itemsize)))


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


def _cut(x: torch.Tensor, b0: int, b1: int, start: int, stop: int) -> torch.Tensor:
    """``x[b0:b1, start:stop]``, or ``x`` itself when that is all of it (a view op costs a
    microsecond or two, which adds up over the many small tensors of a small problem)."""
    if b0 == 0 and start == 0 and b1 >= x.shape[0] and stop >= x.shape[1]:
        return x
    return x[b0:b1, start:stop]


def _slice(rows: tuple[torch.Tensor, ...], b0: int, b1: int, start: int, stop: int) -> tuple:
    return tuple(_cut(r, b0, b1, start, stop) for r in rows)


def fixed_normaliser(low: torch.Tensor, high: torch.Tensor) -> torch.Tensor | None:
    r"""Per-row :math:`c_i = 2^{\lfloor\log_2 L_i\rfloor}` for row bounds ``low`` ≤ D ≤ ``high``
    (``(B, n_q)``), or None when some :math:`c_i / U_i` could fall below ``finfo.tiny`` (or a bound
    is not finite): then the stream takes the running minimum. One host read."""
    tiny = positive_range(low.dtype)[0]
    c = pow2_floor(low.clamp_min(tiny))
    if not bool((c >= tiny * high).all()):  # NaN or inf in high fails too
        return None
    return c


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
    bounds: tuple[torch.Tensor, torch.Tensor] | None = None,
    spares: int = 0,
) -> torch.Tensor:
    """Inverse-distance attention ``(B, n_q, d_v)`` of 3-D inputs with a fast ``tile``.

    ``tile(qa, ka, q_rows, k_rows, out, spare)`` fills ``out`` with ``D = d² + ε`` (>= finfo.tiny)
    for augmented features ``qa`` / ``ka`` of some heads, a chunk and a block; ``q_rows`` /
    ``k_rows`` are per-token extras ``(B, n)`` or ``(B, n, f)`` sliced alongside (what the
    geometry needs to screen and recompute); ``spare`` holds ``spares`` scratch tiles.
    ``bounds``: ``(L, U)``, ``(B, n_q)`` tensors with ``L_i <= D_ij <= U_i`` for every key, for a
    fixed normaliser (:func:`fixed_normaliser`); None or unusable: the running minimum.
    ``chunk_size`` / ``block`` None: :func:`stream_shape`.
    """
    b, n_q, n_k, d_v = qa.shape[0], qa.shape[1], ka.shape[1], v.shape[-1]
    chunk_size, block = stream_shape(b, v.element_size(), chunk_size, block)
    chunk, blk = min(chunk_size, n_q), min(block, n_k)
    heads = heads_per_tile(b, v.element_size(), chunk, blk)
    fixed = None if bounds is None else fixed_normaliser(*bounds)
    out = torch.empty(b, n_q, d_v, dtype=v.dtype, device=v.device)
    flat = workspace(1 + spares, heads * chunk * blk, v.dtype, v.device)
    # Accumulators acc (heads, chunk, d_v), total and part (heads, chunk): kept too, since a fresh
    # one costs its page faults on every call (they are written before they are read).
    acc, total, *part = buffers([(heads, chunk, d_v), (heads, chunk)] + [(heads, chunk)] * (n_k > blk),
                                v.dtype, v.device, "acc")
    part = part[0] if part else total  # the later blocks' row sums: only with several key blocks
    outer = getattr(_WORKSPACE, "busy", False)
    _WORKSPACE.busy = True
    try:
        with np.errstate(all="ignore"):  # out-of-domain entries of ``inplace`` are overwritten
            _stream_into(out, qa, ka, q_rows, k_rows, v, tile, flat, fixed, heads, chunk_size, block,
                         acc, total, part)
    finally:
        _WORKSPACE.busy = outer
    return out


def _stream_into(out, qa, ka, q_rows, k_rows, v, tile, flat, fixed, heads, chunk_size, block,
                 acc, total, part) -> None:
    b, n_q, n_k = qa.shape[0], qa.shape[1], ka.shape[1]
    tiny = positive_range(v.dtype)[0]
    views = {}  # tile shape -> views of the kept buffers (every tile's are views of the same storage)
    for hs in range(0, b, heads):
        he = min(hs + heads, b)
        keys = [(_cut(ka, hs, he, ks, ks + block), _slice(k_rows, hs, he, ks, ks + block),
                 _cut(v, hs, he, ks, ks + block)) for ks in range(0, n_k, block)]
        for qs in range(0, n_q, chunk_size):
            qe = min(qs + chunk_size, n_q)
            a, t, p = (_cut(x, 0, he - hs, 0, qe - qs) for x in (acc, total, part))
            q_part, q_extra = _cut(qa, hs, he, qs, qe), _slice(q_rows, hs, he, qs, qe)
            c = None if fixed is None else _cut(fixed, hs, he, qs, qe)[..., None]
            for i, (k_part, k_extra, vk) in enumerate(keys):
                shape = (he - hs, qe - qs, k_part.shape[1])
                if shape not in views:
                    size = math.prod(shape)
                    views[shape] = [(f if f.numel() == size else f[:size]).view(shape) for f in flat]
                dist, *spare = views[shape]
                tile(q_part, k_part, q_extra, k_extra, dist, spare)
                if fixed is not None:
                    ratio = torch.div(c, dist, out=dist)
                    if i == 0:
                        torch.bmm(ratio, vk, out=a)
                        torch.sum(ratio, dim=-1, out=t)
                    else:
                        a.baddbmm_(ratio, vk)
                        t.add_(torch.sum(ratio, dim=-1, out=p))
                    continue
                c_new = pow2_floor(dist.amin(dim=-1).clamp_min_(tiny))
                if i == 0:
                    ratio = torch.div(c_new[..., None], dist, out=dist)
                    torch.bmm(ratio, vk, out=a)
                    torch.sum(ratio, dim=-1, out=t)
                else:
                    c_new = torch.minimum(c, c_new)
                    alpha = c_new / c  # a power of two: exact
                    ratio = torch.div(c_new[..., None], dist, out=dist)
                    a.mul_(alpha[..., None]).baddbmm_(ratio, vk)
                    t.mul_(alpha).add_(torch.sum(ratio, dim=-1, out=p))
                c = c_new
            torch.div(a, t[..., None], out=_cut(out, hs, he, qs, qe))


_TORCH_INPLACE = {"sqrt": "sqrt_", "log1p": "log1p_", "arccos": "acos_"}


@functools.cache
def _simd_ufunc(name: str, dtype: torch.dtype):
    """numpy's ufunc ``name`` for ``dtype`` when it is the faster choice on this CPU, else None:
    ``sqrt`` always (correctly rounded by both libraries, so only the speed differs: numpy's measured
    94 µs against torch's 153 on a 512 × 512 float32 tile), a transcendental when numpy dispatches it
    to a SIMD kernel here (``numpy.lib.introspect.opt_func_info``: a target other than the baseline;
    numpy's baseline loops call the C library one element at a time)."""
    code = {torch.float32: "ff", torch.float64: "dd"}.get(dtype)
    if code is None:
        return None
    if name == "sqrt":
        return np.sqrt
    try:
        from numpy.lib.introspect import opt_func_info
        info = opt_func_info(func_name=f"^{name}$").get(name, {}).get(code, {})
    except (ImportError, AttributeError):  # numpy < 2.0
        return None
    current = info.get("current", "")
    return getattr(np, name) if current and not current.startswith("baseline") else None


def inplace(name: str, t: torch.Tensor) -> torch.Tensor:
    """``t`` overwritten with the elementwise ``name`` (``sqrt``, ``log1p``, ``arccos``).

    On a contiguous CPU float32/float64 tensor, numpy's SIMD kernel when numpy has one for this
    CPU (its AVX-512 builds of ``arcsin``/``arccos``/``log1p``/... measured 2-4x faster than torch's
    on one thread: a 512 × 512 float32 tile, arccos 106 µs vs 453, log1p 112 vs 208, 2026-12-06);
    torch's in-place op otherwise. ``sqrt`` is correctly rounded in both. Out-of-domain inputs give
    NaN silently (the callers overwrite those entries; numpy's warnings are off inside the stream).
    Their accuracy on the fast paths' ranges is tested against mpmath (``tests/test_tiles.py``).
    """
    fn = _simd_ufunc(name, t.dtype) if t.device.type == "cpu" and t.is_contiguous() else None
    if fn is None:
        return getattr(t, _TORCH_INPLACE[name])()
    a = t.numpy()
    fn(a, out=a)
    return t


def augmented_pair(q: torch.Tensor, k: torch.Tensor, centre: torch.Tensor | None, lead: int = 2):
    """``(qa, qc, ka, kc)``: ``(B, n, lead + d)`` tensors ``qa``, ``ka`` whose last ``d`` columns
    ``qc``, ``kc`` (views) hold ``q - centre``, ``k - centre`` (``centre`` None: left for the caller,
    as the ``lead`` columns are). Both live in one kept buffer (:func:`buffers`, tag ``"features"``,
    up to ``FEATURES_MAX_BYTES``): a fresh one is faulted in afresh on every call, and ``torch.cat``
    of temporaries would make four. The caller writes every entry it leaves before reading it."""
    qa, ka = buffers([(*q.shape[:-1], lead + q.shape[-1]), (*k.shape[:-1], lead + k.shape[-1])],
                     q.dtype, q.device, "features", FEATURES_MAX_BYTES)
    qc, kc = qa[..., lead:], ka[..., lead:]
    if centre is not None:
        torch.sub(q, centre, out=qc)
        torch.sub(k, centre, out=kc)
    return qa, qc, ka, kc


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
    batch = q.shape[:-2]
    # torch.broadcast_shapes is Python-level (about 9 µs): skipped when the batch shapes agree.
    if not (k.shape[:-2] == batch and v.shape[:-2] == batch and eps_shape in ((), batch)):
        batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], eps_shape)

    def flat(x):
        if x.dim() == 3 and x.shape[:-2] == batch:  # already (B, n, f): expand and reshape are views of x
            return x
        return x.expand(*batch, *x.shape[-2:]).reshape(-1, *x.shape[-2:])

    b = math.prod(batch)
    if isinstance(eps, torch.Tensor):
        eps_b = eps.to(device=q.device, dtype=q.dtype).expand(batch).reshape(b, 1)
    else:
        eps_b = torch.full((b, 1), float(eps), dtype=q.dtype, device=q.device)
    return flat(q), flat(k), flat(v), eps_b, batch
