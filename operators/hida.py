r"""The sub-quadratic HIDA family of GeoResolver §5.4–§5.6 (arXiv 2608.10416): FP-, L- and C-HIDA.

All three use the Poincaré squared distance of Dense-HIDA (Definition 5.1),
:math:`d_c(x, y)^2 = \tfrac4c\operatorname{asinh}^2\sqrt{\delta}`,
:math:`\delta = c\lVert x - y\rVert^2/(\alpha_x\alpha_y)`, with
:math:`\lVert x - y\rVert^2 = \lVert x\rVert^2 + \lVert y\rVert^2 - 2\langle x, y\rangle` formed by
batched matmuls, so that ``torch.utils.flop_counter.FlopCounterMode`` counts the dominant cost
(2·d FLOPs per query–key pair and 2·d_v per weighted value). That Gram form loses absolute
accuracy ~u·(‖x‖² + ‖y‖²) ≤ 2u·/c in ‖x − y‖² (clamped at 0); with ε ≫ u/c it changes the
weights by a relative O(u/ε) only (tested against the exact dense references).

- :func:`fp_hida_index_sets` / :func:`fp_hida_attention` — FP-HIDA with the sparse index sets
  of Definition 5.2, run as a gather of ``(n, |S|)`` indices: cost O(n·|S|·d_h).
- :func:`fp_hida_reference` — Dense-HIDA restricted by a dense ``(n, n)`` mask built by
  Python sets from Definition 5.2 (the independent reference).
- :func:`l_hida_attention` — L-HIDA exactly as Definition 5.3 (anchor summaries are *sums*
  over keys, ṽ_k = Σ_i W^KA_ik v_i, not means); ``normalise=True`` gives the variant whose
  summaries are weighted means. :func:`nystrom_hida_attention` is the object the proof of
  Theorem 5.5 analyses (K̃ = K_nm K_mm⁻¹ K_mn, row-normalised).
- :func:`c_hida_online` — C-HIDA (Definition 5.4): online hyperbolic k-means over a stream,
  batched over independent runs, O(c·d) work per token; :func:`c_hida_attention` attends
  over the c summaries.
"""

import math

import torch

from ._checks import (
    check_curvature,
    check_eps,
    check_float,
    check_not_nan,
    check_qkv,
    needs_graph,
    transforms_active,
)
from ._numerics import positive_range
from .core import fits
from .poincare import _gap, poincare_sqdist


# ---------------------------------------------------------------- shared kernel pieces
def _gap_or_meta(name: str, x: torch.Tensor, c: float) -> torch.Tensor:
    if x.device.type == "meta":
        return 1.0 - c * x.square().sum(-1)
    return _gap(name, x, c)


def _gram_sqdist(xq: torch.Tensor, aq: torch.Tensor, xk: torch.Tensor, ak: torch.Tensor, c: float,
                 eq: str) -> torch.Tensor:
    """d_c² from the Gram form; ``eq`` is the einsum of the inner products (a matmul)."""
    nq, nk = xq.square().sum(-1), xk.square().sum(-1)
    inner = torch.einsum(eq, xq, xk)
    if eq == "...id,...isd->...is":  # gathered keys: (..., n, S)
        sq, denom = nq[..., None] + nk, aq[..., None] * ak
    else:  # (..., n_q, d) x (..., n_k, d)
        sq, denom = nq[..., :, None] + nk[..., None, :], aq[..., :, None] * ak[..., None, :]
    if _in_place(xq, aq, xk, ak):
        # The same operations in the same order, on two pair-sized buffers instead of nine: the
        # bits are those of the expression below (2·inner is exact), at a third of its time.
        return (sq.sub_(inner.mul_(2)).clamp_min_(0).mul_(c).div_(denom)
                .sqrt_().asinh_().square_().mul_(4.0 / c))
    delta = c * (sq - 2 * inner).clamp_min(0) / denom
    return (4.0 / c) * torch.asinh(delta.sqrt()).square()


def _in_place(*tensors: torch.Tensor) -> bool:
    """Whether intermediate buffers may be overwritten: no autograd graph, no torch.func transform."""
    return not (needs_graph(*tensors) or transforms_active())


def _weights(d2: torch.Tensor, eps, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Row-normalised (d² + ε)⁻¹. Overwrites ``d2`` where no graph is recorded: pass a fresh tensor."""
    eps_t = eps[..., None, None] if isinstance(eps, torch.Tensor) else eps
    eps_shape = eps_t.shape if isinstance(eps_t, torch.Tensor) else ()
    if mask is None and _in_place(d2, eps_t) and fits(eps_shape, d2.shape):
        r = d2.add_(eps_t).reciprocal_()  # 1/x is reciprocal(x)·1 in torch: the same bits
        return r.div_(r.sum(-1, keepdim=True))
    r = 1.0 / (d2 + eps_t)
    if mask is not None:
        r = r * mask
    return r / r.sum(-1, keepdim=True)


def _check_ball_qkv(q, k, v, eps, c):
    check_qkv(q, k, v)
    check_eps(eps)
    check_curvature(c)
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.device.type != "meta":
            check_not_nan(name, t)


def dense_hida_gram(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, eps: float | torch.Tensor,
                    c: float = 1.0) -> torch.Tensor:
    """Dense-HIDA (Definition 5.1) in one shot with the Gram-form distances of this module: the
    same arithmetic as the sparse operators, every pair (2·n_q·n_k·(d + d_v) matmul FLOPs). The
    streamed :func:`operators.hida_attention` is the accurate operator; this one is for counting."""
    _check_ball_qkv(q, k, v, eps, c)
    aq, ak = _gap_or_meta("q", q, c), _gap_or_meta("k", k, c)
    return _weights(_gram_sqdist(q, aq, k, ak, c, "...id,...jd->...ij"), eps) @ v


# ---------------------------------------------------------------- FP-HIDA (Definition 5.2)
def fp_default_width(n: int) -> int:
    """w = g = ⌈log₂ n⌉ (at least 1): the Θ(log n) choice of Definition 5.2 used by default."""
    return max(1, math.ceil(math.log2(max(n, 2))))


def _candidates(rows: torch.Tensor, n: int, w: int, g: int) -> torch.Tensor:
    """Every index Definition 5.2 lists for the rows ``rows`` (duplicates and out-of-range kept)."""
    i = rows[:, None]
    dev = rows.device
    window = i + torch.arange(-w, w + 1, device=dev)
    glob = ((torch.arange(g, device=dev) * n) // g).expand(len(rows), g)
    offs = 2 ** torch.arange(math.ceil(math.log2(n)) + 1 if n > 1 else 1, device=dev)
    return torch.cat([window, glob, i + offs, i - offs, i], dim=1)


def fp_hida_set_sizes(n: int, *, w: int, g: int, chunk: int = 1 << 15, device=None) -> torch.Tensor:
    """|S_i| for every i < n (exhaustive, vectorised, ``chunk`` rows at a time): ``(n,)`` int64."""
    _check_fp_args(n, w, g)
    out = []
    for s in range(0, n, chunk):
        cand = _candidates(torch.arange(s, min(s + chunk, n), device=device), n, w, g)
        cand = torch.where((cand >= 0) & (cand < n), cand, n).sort(dim=1).values
        keep = cand < n
        keep[:, 1:] &= cand[:, 1:] != cand[:, :-1]
        out.append(keep.sum(1))
    return torch.cat(out)


def _check_fp_args(n: int, w: int, g: int) -> None:
    for name, val in (("n", n), ("w", w), ("g", g)):
        if isinstance(val, bool) or not isinstance(val, int):
            raise TypeError(f"{name} must be an int, got {type(val).__name__}")
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if w < 0:
        raise ValueError(f"the local window w must be >= 0, got {w}")
    if not 1 <= g <= n:
        raise ValueError(f"the number of global tokens g must lie in [1, n], got g={g}, n={n}")


def fp_hida_index_sets(n: int, *, w: int, g: int, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    r"""The sparse index sets of Definition 5.2 (0-based), padded to the widest row.

    .. math:: S_i = \{j : |i - j| \le w\} \cup \{0, \lfloor n/g\rfloor, \lfloor 2n/g\rfloor,
        \dots, \lfloor (g-1)n/g\rfloor\} \cup \{i \pm 2^k\}_{k=0}^{\lceil\log_2 n\rceil} \cup \{i\},

    every index restricted to ``[0, n)``. Returns ``(index, mask)``, both ``(n, S)`` with
    ``S = max_i |S_i|``: row i holds S_i in increasing order, padded with index 0 where ``mask``
    is False. Memory O(n·(2w + g + 2⌈log₂n⌉)).
    """
    _check_fp_args(n, w, g)
    rows = torch.arange(n, device=device)
    cand = _candidates(rows, n, w, g)
    cand = torch.where((cand >= 0) & (cand < n), cand, n).sort(dim=1).values
    keep = cand < n
    keep[:, 1:] &= cand[:, 1:] != cand[:, :-1]
    sizes = keep.sum(1)
    width = int(sizes.max())
    order = (~keep).to(torch.int8).argsort(dim=1, stable=True)[:, :width]
    index = cand.gather(1, order)
    mask = torch.arange(width, device=device) < sizes[:, None]
    return torch.where(mask, index, 0), mask


def fp_hida_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, eps: float | torch.Tensor,
                      c: float = 1.0, w: int | None = None, g: int | None = None,
                      index: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
    r"""FP-HIDA (GeoResolver §5.4): Dense-HIDA with query i restricted to the keys S_i.

    .. math:: o_i = \sum_{j \in S_i} W_{ij} v_j, \quad
        W_{ij} = \frac{(d_c(q_i,k_j)^2+\varepsilon)^{-1}}{\sum_{m\in S_i}(d_c(q_i,k_m)^2+\varepsilon)^{-1}}

    Args:
        q, k: ``(..., n, d)`` points of the ball; v: ``(..., n, d_v)``; one dtype (q and k have
            the same n: the index sets are those of self-attention over one sequence).
        eps: ε > 0 (float or a tensor of the batch shape); c: curvature −c.
        w, g: window half-width and global-token count (default ⌈log₂ n⌉ each).
        index: precomputed ``(index, mask)`` of :func:`fp_hida_index_sets` (e.g. moved to the
            ``meta`` device to count FLOPs without computing).

    Cost: gathers ``(..., n, S, d)`` keys and ``(..., n, S, d_v)`` values, then two batched
    matmuls (2nS·d and 2nS·d_v FLOPs) and O(nS) elementwise work: O(n log n · d_h) for
    w, g = Θ(log n). Memory O(n·S·(d + d_v)).
    """
    _check_ball_qkv(q, k, v, eps, c)
    n = k.shape[-2]
    if q.shape[-2] != n:
        raise ValueError(f"FP-HIDA's index sets are per position: q has n={q.shape[-2]}, k has n={n}")
    if index is None:
        w = fp_default_width(n) if w is None else w
        g = min(fp_default_width(n), n) if g is None else g
        index = fp_hida_index_sets(n, w=w, g=g, device=q.device)
    idx, mask = index
    if idx.shape[0] != n or idx.shape != mask.shape:
        raise ValueError(f"index sets must be (n, S) with n={n}, got {tuple(idx.shape)} and "
                         f"{tuple(mask.shape)}")
    aq, ak = _gap_or_meta("q", q, c), _gap_or_meta("k", k, c)
    kg, vg, akg = k[..., idx, :], v[..., idx, :], ak[..., idx]
    d2 = _gram_sqdist(q, aq, kg, akg, c, "...id,...isd->...is")
    weights = _weights(d2, eps, mask.to(q.dtype))
    return torch.einsum("...is,...isd->...id", weights, vg)


def definition_sets(n: int, w: int, g: int) -> list[set[int]]:
    """Definition 5.2's S_i by Python sets (the independent reference of the index sets)."""
    top = math.ceil(math.log2(n)) if n > 1 else 0
    glob = {(t * n) // g for t in range(g)}
    out = []
    for i in range(n):
        s = {j for j in range(i - w, i + w + 1)} | glob | {i}
        s |= {i + 2**kk for kk in range(top + 1)} | {i - 2**kk for kk in range(top + 1)}
        out.append({j for j in s if 0 <= j < n})
    return out


def fp_hida_reference(q, k, v, *, eps, c: float = 1.0, w: int, g: int) -> torch.Tensor:
    """Dense masked reference: exact Dense-HIDA distances (:func:`poincare_sqdist`), weights
    zeroed outside a dense mask built by :func:`definition_sets`, rows renormalised."""
    _check_ball_qkv(q, k, v, eps, c)
    n = k.shape[-2]
    mask = torch.zeros(n, n, dtype=q.dtype, device=q.device)
    for i, s in enumerate(definition_sets(n, w, g)):
        mask[i, sorted(s)] = 1
    return _weights(poincare_sqdist(q, k, c=c), eps, mask) @ v


# ---------------------------------------------------------------- L-HIDA (Definition 5.3)
def l_hida_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, anchors: torch.Tensor, *,
                     eps: float | torch.Tensor, c: float = 1.0, normalise: bool = False) -> torch.Tensor:
    r"""L-HIDA (GeoResolver Definition 5.3) with m anchors ``a_1..a_m``.

    .. math:: \tilde W^{KA}_{ik} = \frac{(d(k_i,a_k)^2+\varepsilon)^{-1}}
        {\sum_l (d(k_i,a_l)^2+\varepsilon)^{-1}},
        \quad \tilde v_k = \sum_{i=1}^n \tilde W^{KA}_{ik} v_i, \quad
        o_j = \sum_{k=1}^m \tilde W^{QA}_{jk}\tilde v_k

    exactly as written: each key spreads its value over the anchors, and the summaries are
    *sums* over the n keys (‖ṽ_k‖ grows like n). With ``normalise=True`` the summaries are the
    weighted means ṽ_k / Σ_i W̃^KA_ik (a variant, not the paper's definition).

    Args:
        q: ``(..., n_q, d)``, k: ``(..., n, d)``, v: ``(..., n, d_v)``, anchors ``(..., m, d)``.

    Cost: four matmuls of O((n + n_q)·m·d) and O(n·m·d_v + n_q·m·d_v): O(n d_h) for m = Θ(1).
    """
    _check_ball_qkv(q, k, v, eps, c)
    check_float("anchors", anchors)
    if anchors.shape[-1] != q.shape[-1] or anchors.dtype != q.dtype:
        raise ValueError(f"anchors must be (..., m, {q.shape[-1]}) in {q.dtype}, got "
                         f"{tuple(anchors.shape)} {anchors.dtype}")
    aa = _gap_or_meta("anchors", anchors, c)
    aq, ak = _gap_or_meta("q", q, c), _gap_or_meta("k", k, c)
    eq = "...id,...jd->...ij"
    w_ka = _weights(_gram_sqdist(k, ak, anchors, aa, c, eq), eps)  # (..., n, m)
    summaries = w_ka.transpose(-1, -2) @ v  # (..., m, d_v)
    if normalise:
        summaries = summaries / w_ka.sum(-2)[..., None]
    w_qa = _weights(_gram_sqdist(q, aq, anchors, aa, c, eq), eps)  # (..., n_q, m)
    return w_qa @ summaries


def nystrom_hida_attention(q, k, v, anchors, *, eps, c: float = 1.0) -> torch.Tensor:
    r"""The object Theorem 5.5's proof analyses: the Nyström kernel
    :math:`\tilde K = K_{qm} K_{mm}^{+} K_{mk}` of the inverse-distance kernel
    :math:`K(x, y) = (d_c(x, y)^2 + \varepsilon)^{-1}`, row-normalised: ``o = (K̃ v) / (K̃ 1)``.
    (The pseudo-inverse: the hyperbolic inverse-distance kernel need not be positive definite.)"""
    _check_ball_qkv(q, k, v, eps, c)
    eps_t = eps[..., None, None] if isinstance(eps, torch.Tensor) else eps
    kqm = 1.0 / (poincare_sqdist(q, anchors, c=c) + eps_t)
    kmm = 1.0 / (poincare_sqdist(anchors, anchors, c=c) + eps_t)
    kmk = 1.0 / (poincare_sqdist(anchors, k, c=c) + eps_t)
    left = kqm @ torch.linalg.pinv(kmm, hermitian=True)
    ones = torch.ones(*v.shape[:-1], 1, dtype=v.dtype, device=v.device)
    num, den = left @ (kmk @ v), left @ (kmk @ ones)
    return num / den


# ---------------------------------------------------------------- C-HIDA (Definition 5.4)
def c_hida_step(x: torch.Tensor, s: torch.Tensor, counts: torch.Tensor, *, lr: float, c: float = 1.0,
                margin: float = 1e-5) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""One token of Definition 5.4 for B independent runs: ``x (B, 1, d)``, summaries ``s (B, c, d)``,
    assignment counts ``counts (B, c)``. Returns ``(loss (B,), s, counts)`` with the loss
    :math:`\min_k d_c(x, s_k)^2` taken *before* the update, and the nearest summary moved by
    :math:`s_{k^*} \leftarrow \Pi_{\mathbb B}(s_{k^*} + \eta/|I_{k^*}|\,(x - s_{k^*}))`. Work O(c·d),
    independent of how many tokens came before."""
    # Plain α = 1 − c‖·‖² (no double-double): the stream's points stay ``margin`` inside the ball,
    # where float64 α keeps ≥ 10 digits, and the step must stay cheap.
    ax, as_ = 1.0 - c * x.square().sum(-1), 1.0 - c * s.square().sum(-1)
    d2 = _gram_sqdist(x, ax, s, as_, c, "...id,...jd->...ij")[:, 0, :]  # (B, c)
    best, arg = d2.min(dim=-1)
    rows = torch.arange(x.shape[0], device=x.device)
    counts = counts.index_put((rows, arg), counts.new_ones(()), accumulate=True)
    step = (lr / counts[rows, arg])[:, None]
    chosen = s[rows, arg]
    moved = chosen + step * (x[:, 0] - chosen)
    limit = (1.0 - margin) / math.sqrt(c)  # Π: radial clamp onto the ball of radius (1 − margin)/√c
    norm = torch.linalg.vector_norm(moved, dim=-1, keepdim=True)
    moved = moved * torch.clamp(limit / norm.clamp_min(positive_range(moved.dtype)[0]), max=1.0)
    return best, s.index_put((rows, arg), moved), counts


def c_hida_online(keys: torch.Tensor, init: torch.Tensor, *, lr: float, c: float = 1.0,
                  margin: float = 1e-5) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Online hyperbolic k-means of Definition 5.4 over a stream, batched over runs.

    For t = 1..T: assign k_t to the nearest summary :math:`k^* = \arg\min_k d_c(k_t, s_k)`
    (the loss :math:`f_t = \min_k d_c(k_t, s_k^{(t)})^2` is recorded *before* the update),
    then :math:`s_{k^*} \leftarrow \Pi_{\mathbb B}(s_{k^*} + \eta_t (k_t - s_{k^*}))` with
    :math:`\eta_t` = ``lr`` / (number of keys assigned to k* so far) -- the running-mean step
    1/|I_k| of the definition times η (:func:`c_hida_step`). Π projects onto the ball.

    Args:
        keys: ``(B, T, d)`` B independent streams of points of the ball.
        init: ``(B, c, d)`` initial summaries.

    Returns:
        ``(losses (B, T), summaries (B, c, d))``. Per token O(c·d) work, independent of T.
    """
    check_float("keys", keys, min_dim=3)
    check_float("init", init, min_dim=3)
    check_not_nan("keys", keys)
    if init.shape[0] != keys.shape[0] or init.shape[-1] != keys.shape[-1]:
        raise ValueError(f"init must be (B, c, d) with B={keys.shape[0]}, d={keys.shape[-1]}")
    s = init.clone()
    counts = torch.zeros(s.shape[:2], dtype=keys.dtype, device=keys.device)
    losses = []
    for t in range(keys.shape[1]):
        loss, s, counts = c_hida_step(keys[:, t : t + 1, :], s, counts, lr=lr, c=c, margin=margin)
        losses.append(loss)
    return torch.stack(losses, dim=1), s


def c_hida_attention(q: torch.Tensor, summaries: torch.Tensor, values: torch.Tensor, *,
                     eps: float | torch.Tensor, c: float = 1.0) -> torch.Tensor:
    """C-HIDA's attention: each query attends over the c summary tokens only (O(c·d) per query)."""
    _check_ball_qkv(q, summaries, values, eps, c)
    aq, asum = _gap_or_meta("q", q, c), _gap_or_meta("summaries", summaries, c)
    d2 = _gram_sqdist(q, aq, summaries, asum, c, "...id,...jd->...ij")
    return _weights(d2, eps) @ values
