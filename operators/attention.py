r"""Hyperbolic and spherical inverse-distance attention on the shared core.

Dense-HIDA (GeoResolver Definition 5.1) and SIDA (Definition 8.1), arXiv 2608.10416:
:func:`operators.core.distance_attention` with the Poincaré or spherical squared
distance. Each has the two paths of :func:`operators.ida_attention`:

- ``"exact"`` -- the geometry's pairwise squared distance (:func:`poincare_sqdist`,
  :func:`sphere_sqdist`): direct differences, double-double norms;
- ``"fast"`` -- the Euclidean part of the distance by the matmul expansion, every pair
  where it cancels recomputed with the geometry's exact formula (``_expansion``); the
  rest has relative error below ρ (HIDA) or 2ρ (SIDA), ρ = ``_checks.expansion_bound``:
  the transforms from the Euclidean quantity to the squared geodesic distance have
  condition number at most 1 (:math:`t\,g'(t)/g(t) \le 1` for
  :math:`g = \operatorname{asinh}^2\sqrt t` and for the half-angle map);
- ``"auto"`` (default) -- ``"fast"`` for CPU tensors outside ``torch.func`` transforms and
  with no input requiring grad, ``"exact"`` otherwise.
"""

import math

import torch

from . import _tiles
from ._checks import (
    check_curvature,
    check_eps,
    check_float_dtype,
    check_not_nan,
    check_qkv,
    compute_dtype,
    positive_range,
    require,
)
from ._expansion import EXPANSION_TAU, centred, expand, flagged, gather_pairs, patch, resolve_path, threshold
from ._smooth import asinh_sqrt_sq, half_angle_sq, smooth_needed
from .core import distance_attention
from .distances import pairwise_sq
from .poincare import DTYPES, _gap, _pairwise_delta
from .sphere import norm_gap_sq, unitish


def _check(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    check_qkv(q, k, v)
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_float_dtype(name, t, DTYPES)
        check_not_nan(name, t)


# ---------------------------------------------------------------- Dense-HIDA
def _hida_exact(c: float):
    def sqdist(qf, kf) -> torch.Tensor:
        (q, aq), (k, ak) = qf, kf
        if smooth_needed(q, k):  # α per tile, so that derivatives flow as in poincare_sqdist
            return (4.0 / c) * asinh_sqrt_sq(_pairwise_delta(q, k, c), True)
        # No derivatives: the α computed (and checked) once per call, sliced; α is per point, so
        # its rows are the values _pairwise_delta would compute again for every tile.
        delta = (c * pairwise_sq(q, k)) / (aq[..., :, 0, None] * ak[..., None, :, 0])
        return (4.0 / c) * asinh_sqrt_sq(delta, False)

    return sqdist


def _hida_fast(c: float):
    def sqdist(qf, kf) -> torch.Tensor:
        q, qc, qn, qg = qf
        k, kc, kn, kg = kf
        e = expand(qc, qn, kc, kn)
        batch = e.shape[:-2]
        idx = flagged(e, threshold(qn, kn), None)
        if idx is not None:
            diff = gather_pairs(q, batch, idx, -2) - gather_pairs(k, batch, idx, -1)
            e = patch(e, idx, (diff * diff).sum(dim=-1))
        if smooth_needed(e, qg, kg):
            return (4.0 / c) * asinh_sqrt_sq(e * (c * qg) * kg.transpose(-1, -2), True)
        delta = e.mul_(c * qg).mul_(kg.transpose(-1, -2))
        # (4/c) asinh²√δ = (1/c) log1p(2(δ + √(δ(1+δ))))²: positive terms only.
        t = delta.add(1.0).mul_(delta).sqrt_().add_(delta)
        return t.mul_(2.0).log1p_().square_().mul_(1.0 / c)

    return sqdist


def _hida_stream(q, k, v, aq, ak, eps, c: float, block: int | None, chunk_size: int | None) -> torch.Tensor:
    r"""HIDA's fast path without autograd: one GEMM per tile gives w = 2δ directly.

    With a = 1/α_q, b = 1/α_k: ``[2c·a·‖q‖², 2c·a, -4c·a·q] · [b, b·‖k‖², b·k] = 2δ``
    (centred coordinates), then ``D = ε + log1p(w + √(w² + 2w))² / c`` in place. A row is inspected
    when its tile minimum of w reaches ``τ·2c·a_i·(‖q_i‖² + max_j ‖k_j‖²)·max_j b_j`` (all keys'
    maxima, computed once). Normaliser bounds: ``ε <= D <= 2(ε + (log(4/α_q) + max log(4/α_k))²/c)``,
    from :math:`d_c(q, k) \le d_c(q, 0) + d_c(0, k)` and
    :math:`d_c(0, x) = 2\operatorname{artanh}(\sqrt c\lVert x\rVert)/\sqrt c \le \log(4/α)/\sqrt c`.
    """
    q3, k3, v3, eps_b, batch = _tiles.flatten(q, k, v, eps)
    a3 = (1.0 / aq).expand(*batch, aq.shape[-1]).reshape(q3.shape[:-1])
    b3 = (1.0 / ak).expand(*batch, ak.shape[-1]).reshape(k3.shape[:-1])
    centre = k3.mean(dim=-2, keepdim=True)
    qa, qc, ka, kc = _tiles.augmented_pair(q3, k3, centre)
    qn, kn = _tiles.sum_squares(qc), _tiles.sum_squares(kc)
    sq = (2.0 * c) * a3
    level = EXPANSION_TAU * sq * (qn + kn.amax(dim=-1, keepdim=True)) * b3.amax(dim=-1, keepdim=True)
    far = torch.log(4.0 * a3) + torch.log(4.0 * b3).amax(dim=-1, keepdim=True)
    high = far.square_().div_(c).add_(eps_b).mul_(2.0)
    torch.mul(sq, qn, out=qa[..., 0])
    qa[..., 1] = sq
    qc.mul_((-2.0 * sq)[..., None])
    ka[..., 0] = b3
    torch.mul(b3, kn, out=ka[..., 1])
    kc.mul_(b3[..., None])
    eps_rows = eps_b.expand(qn.shape)
    tau, root2 = EXPANSION_TAU, math.sqrt(2.0)

    def tile(qa_, ka_, q_rows, k_rows, out, spare):
        qx, qn_, sq_, eps_r, level_ = q_rows
        kx, kn_, b_ = k_rows
        w = torch.bmm(qa_, ka_.transpose(-1, -2), out=out)
        rows = _tiles.flagged_rows(w.amin(dim=-1), level_)
        if rows is not None:
            bi, ii = rows
            exact_level = tau * sq_[bi, ii][:, None] * b_[bi] * (qn_[bi, ii][:, None] + kn_[bi])
            r, j = (w[bi, ii] <= exact_level).nonzero(as_tuple=True)
            bb, qi = bi[r], ii[r]
            diff = qx[bb, qi] - kx[bb, j]
            w[bb, qi, j] = sq_[bb, qi] * b_[bb, j] * (diff * diff).sum(dim=-1)
        # out = ε + log1p(w + √2·√(w + w²/2))² / c (w = 2δ >= 0).
        t = torch.addcmul(w, w, w, value=0.5, out=spare[0])
        torch.add(w, _tiles.inplace("sqrt", t), alpha=root2, out=t)
        _tiles.inplace("log1p", t)
        torch.addcmul(eps_r[:, :1, None], t, t, value=1.0 / c, out=out)

    out = _tiles.stream(qa, ka, (q3, qn, sq, eps_rows, level), (k3, kn, b3), v3, tile, block=block,
                        chunk_size=chunk_size, bounds=(eps_rows, high), spares=1)
    return out.reshape(*batch, *out.shape[-2:])


def hida_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    eps: float | torch.Tensor,
    c: float = 1.0,
    chunk_size: int | None = None,
    block: int | None = None,
    path: str = "auto",
) -> torch.Tensor:
    r"""Dense hyperbolic inverse-distance attention (Dense-HIDA).

    .. math:: D^{\mathbb H}_{ij} = d_c(q_i, k_j)^2 + \varepsilon, \qquad
        W_{ij} = \frac{(D^{\mathbb H}_{ij})^{-1}}{\sum_m (D^{\mathbb H}_{im})^{-1}}, \qquad
        \mathrm{out}_i = \sum_j W_{ij} v_j

    (GeoResolver Definition 5.1, arXiv 2608.10416), :math:`d_c` the Poincaré distance of
    curvature -c (:func:`poincare_sqdist`).

    Args:
        q: ``(..., n_q, d)``, k: ``(..., n_k, d)`` points of the ball (c·‖·‖² < 1);
            v: ``(..., n_k, d_v)``; one dtype, batch dims broadcast.
        eps: ε, a positive finite float or a positive tensor broadcastable to the batch
            shape (not checked, see :func:`ida_weights`).
        c: positive float; the ball has curvature -c.
        chunk_size, block: queries per chunk and keys per block (>= 1); None: the defaults
            of :func:`operators.ida_attention`.
        path: ``"auto"``, ``"fast"`` or ``"exact"`` (module docstring); the fast path's
            squared distances have relative error below ρ = ``expansion_bound(d, dtype)``,
            so ``|out_fast - out_exact| <= 2ρ/(1-ρ)·max_j |v_j|`` beyond rounding (that of
            sqrt and log1p included: log1p at most 2 ulp, see ``_tiles.inplace``).

    Returns:
        ``(..., n_q, d_v)`` in q's dtype (half dtypes computed in float32). Raises
        ``ValueError`` for points outside the ball or NaN.

    Memory (forward): O(chunk_size · block) per batch element for one tile, O(n·d) for
    the accumulators, output and per-token features (centred copies, 1/α); under autograd
    O(n_q·n_k) in total.
    """
    _check(q, k, v)
    check_eps(eps)
    check_curvature(c)
    _tiles.check_shape(chunk_size, block)
    route = resolve_path(path, q, k, v)
    work = compute_dtype(q.dtype)
    qw, kw, vw = q.to(work), k.to(work), v.to(work)
    aq, ak = _gap("q", qw, c), _gap("k", kw, c)  # also the membership check
    if route == "fast" and _tiles.eligible(qw, kw, vw, eps):
        return _hida_stream(qw, kw, vw, aq, ak, eps, c, block, chunk_size).to(q.dtype)
    chunk_size, block = _tiles.generic_shape(chunk_size, block)
    if route == "exact":
        return distance_attention((qw, aq[..., None]), (kw, ak[..., None]), vw, sqdist=_hida_exact(c),
                                  eps=eps, block=block, chunk_size=chunk_size).to(q.dtype)
    centre = kw.detach().mean(dim=-2, keepdim=True)
    qf = (qw, *centred(qw, centre), (1.0 / aq)[..., None])
    kf = (kw, *centred(kw, centre), (1.0 / ak)[..., None])
    return distance_attention(qf, kf, vw, sqdist=_hida_fast(c), eps=eps, block=block,
                              chunk_size=chunk_size).to(q.dtype)


# ---------------------------------------------------------------- SIDA
def _sida_exact(qf, kf) -> torch.Tensor:
    (x, qa, qr), (y, ka, kr) = qf, kf
    gap = norm_gap_sq((qa[..., 0], qr[..., 0]), (ka[..., 0], kr[..., 0]))
    minus = pairwise_sq(x, y)
    plus = pairwise_sq(x, -y)
    return 4.0 * half_angle_sq((minus - gap).clamp_min(0.0), (plus - gap).clamp_min(0.0), smooth_needed(x, y))


def _sida_pair_sq(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Exact squared angles of paired vectors ``(P, d)``: the per-pair arithmetic of the exact
    path (:func:`unitish` norms, direct differences, the half-angle ``atan2``)."""
    xs, (qa, qr) = unitish("q", x)
    ys, (ka, kr) = unitish("k", y)
    gap = ((qa - ka) + (qr - kr)).square()
    minus = ((xs - ys) ** 2).sum(dim=-1) - gap
    plus = ((xs + ys) ** 2).sum(dim=-1) - gap
    return 4.0 * half_angle_sq(minus.clamp_min(0.0), plus.clamp_min(0.0), False)


def _sida_pairs(qf, kf, batch, idx) -> torch.Tensor:
    """Exact squared angles of the flagged pairs (the paired form of :func:`sphere_sqdist`)."""
    return _sida_pair_sq(gather_pairs(qf[0], batch, idx, -2), gather_pairs(kf[0], batch, idx, -1))


def _sida_fast(qf, kf) -> torch.Tensor:
    _, qu, qn, _, _ = qf
    _, ku, kn, _, _ = kf
    e = expand(qu, qn, ku, kn)  # ‖x̂ - ŷ‖² = 4 sin²(θ/2)
    batch = e.shape[:-2]
    level = qn + kn.amax(dim=-2, keepdim=True)
    idx = flagged(e, EXPANSION_TAU * level, (2.0 - EXPANSION_TAU) * level)
    # ‖x̂ + ŷ‖² = 2(‖x̂‖² + ‖ŷ‖²) - ‖x̂ - ŷ‖²: no cancellation away from the flagged pairs.
    plus = (2.0 * qn + 2.0 * kn.transpose(-1, -2)) - e
    if smooth_needed(e):
        theta_sq = 4.0 * half_angle_sq(e.clamp_min(0.0), plus.clamp_min(0.0), True)
    else:
        theta_sq = torch.atan2(e.clamp_min_(0.0).sqrt_(), plus.clamp_min_(0.0).sqrt_(), out=e)
        theta_sq = theta_sq.square_().mul_(4.0)
    if idx is None:
        return theta_sq
    return patch(theta_sq, idx, _sida_pairs(qf, kf, batch, idx))


def _normalise_into(name: str, x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    r"""``out = x / ‖x‖`` per row, the norm from the work dtype's sum of squares.

    Rows whose sum of squares leaves ``[2^-100, 2^100]`` (it may have under- or overflowed,
    e.g. beyond 1e±19 in float32) are first divided by their largest entry. Raises for zero rows.
    """
    s = _tiles.sum_squares(x)
    torch.mul(x, torch.rsqrt(s)[..., None], out=out)
    ok = (s >= 2.0**-100) & (s <= 2.0**100)
    if not bool(ok.all()):  # one op fewer than negating first, for the common case
        odd = ~ok
        rows = x[odd]
        top = rows.abs().amax(dim=-1, keepdim=True)
        require(top > 0, f"{name} must be non-zero (the angle of a zero vector is undefined)")
        scaled = rows / top
        out[odd] = scaled * torch.rsqrt(_tiles.sum_squares(scaled))[..., None]
    return out


def _sida_stream(q, k, v, eps, block: int | None, chunk_size: int | None) -> torch.Tensor:
    r"""SIDA's fast path without autograd: one GEMM per tile gives
    :math:`\tilde c = (1 - \lVert\hat x\rVert^2)/2 + (1 - \lVert\hat y\rVert^2)/2 + \hat x\cdot\hat y`,
    the cosine of the angle for the normalised vectors, then :math:`D = \varepsilon + \arccos^2\tilde c`;
    the pairs with :math:`|\tilde c| \ge 1 - \tau` (``EXPANSION_TAU``: within about 29° of 0 or of
    π) are recomputed exactly (:func:`_sida_pair_sq`).

    Bound. Let :math:`\lVert\hat x\rVert^2 = 1 + \eta_x`: normalising by the rounded norm leaves
    :math:`|\eta_x| \le (d/2 + 4)u` and turns the direction by at most about u. The augmented
    features :math:`[(1 - \lVert\hat x\rVert^2)/2,\ 1,\ \hat x] \cdot
    [1,\ (1 - \lVert\hat y\rVert^2)/2,\ \hat y]`
    hold :math:`1 - \lVert\hat x\rVert^2` exactly (Sterbenz) from a sum of squares within
    :math:`\gamma_d`; their GEMM errs by at most :math:`\gamma_{d+2}(1 + O(u))`
    (:math:`\sum_i |\hat x_i \hat y_i| \le \lVert\hat x\rVert\lVert\hat y\rVert`), and its exact value
    differs from :math:`\cos\theta` by :math:`|\eta_x + \eta_y|(1 - \hat x\cdot\hat y)/2 \le (d + 8)u`.
    So :math:`|\tilde c - \cos\theta| \le E = (3d + 10)u` to first order. A kept pair has
    :math:`|\tilde c| < 1 - \tau`, hence :math:`\theta \in (\theta_0, \pi - \theta_0)` with
    :math:`\theta_0 = \arccos(7/8 + E) > 0.505`, and :math:`|\Delta(\theta^2)|/\theta^2 \le
    2E/(\theta\sin\theta) \le 8.2E`; the directions' turn adds :math:`4u/\theta_0 < 8u`, arccos's
    rounding (at most 3 ulp, numpy's stated bound for float32 and 1 ulp for float64 or torch's) about
    6u relative in θ, hence 12u in θ², the square and ε 2u. In all
    :math:`(24.6d + 104)u < 2\rho`, since :math:`\rho = \gamma/(\tau - \gamma) > 8\gamma` and
    :math:`\gamma = 2\gamma_{d+2} + 4u > (2d + 8)u`: θ² is within 2ρ relative, as
    :func:`sida_attention` states.

    Normaliser bounds: :math:`\varepsilon \le D \le 2(\varepsilon + \pi^2)`.
    """
    q3, k3, v3, eps_b, batch = _tiles.flatten(q, k, v, eps)
    qa, qc, ka, kc = _tiles.augmented_pair(q3, k3, None)
    qu = _normalise_into("q", q3, qc)
    ku = _normalise_into("k", k3, kc)
    qa[..., 0] = (1.0 - _tiles.sum_squares(qu)) * 0.5  # exact: Sterbenz, then a power of two
    qa[..., 1] = 1.0
    ka[..., 0] = 1.0
    ka[..., 1] = (1.0 - _tiles.sum_squares(ku)) * 0.5
    eps_rows = eps_b.expand(q3.shape[:-1])
    high = (eps_b + math.pi**2).mul_(2.0).expand(q3.shape[:-1])
    near, tiny = 1.0 - EXPANSION_TAU, positive_range(q.dtype)[0]

    def tile(qa_t, ka_t, q_rows, k_rows, out, spare):
        qx, eps_r = q_rows
        (kx,) = k_rows
        cos = torch.bmm(qa_t, ka_t.transpose(-1, -2), out=out)
        rows = _tiles.flagged_rows(cos.amin(dim=-1), -near, near, cos.amax(dim=-1))
        pairs = None
        if rows is not None:
            bi, ii = rows
            r, j = (cos[bi, ii].abs() >= near).nonzero(as_tuple=True)
            pairs = (bi[r], ii[r], j)
        # In place: cos turns into θ, then D = ε + θ². No clamp pass: a pair with |cos| >= 1 - τ is
        # flagged above and overwritten below, so only its (discarded) value can be NaN.
        theta = _tiles.inplace("arccos", cos)
        torch.addcmul(eps_r[:, :1, None], theta, theta, out=out)
        if pairs is not None:
            bb, qi, j = pairs
            out[bb, qi, j] = (_sida_pair_sq(qx[bb, qi], kx[bb, j]) + eps_r[bb, qi]).clamp_min(tiny)

    out = _tiles.stream(qa, ka, (q3, eps_rows), (k3,), v3, tile, block=block, chunk_size=chunk_size,
                        bounds=(eps_rows, high))
    return out.reshape(*batch, *out.shape[-2:])


def sida_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    eps: float | torch.Tensor,
    chunk_size: int | None = None,
    block: int | None = None,
    path: str = "auto",
) -> torch.Tensor:
    r"""Spherical inverse-distance attention (SIDA).

    .. math:: D^{S}_{ij} = d_S(q_i, k_j)^2 + \varepsilon, \qquad
        W_{ij} = \frac{(D^{S}_{ij})^{-1}}{\sum_m (D^{S}_{im})^{-1}}, \qquad
        \mathrm{out}_i = \sum_j W_{ij} v_j

    (GeoResolver Definition 8.1, arXiv 2608.10416), :math:`d_S` the great-circle
    distance, i.e. the angle (:func:`sphere_sqdist`; scale-invariant, so q and k may be
    any non-zero vectors).

    Args:
        q: ``(..., n_q, d)``, k: ``(..., n_k, d)`` non-zero vectors; v: ``(..., n_k, d_v)``;
            one dtype, batch dims broadcast.
        eps: ε, a positive finite float or a positive tensor broadcastable to the batch
            shape (not checked, see :func:`ida_weights`).
        chunk_size, block: queries per chunk and keys per block (>= 1); None: the defaults
            of :func:`operators.ida_attention`.
        path: ``"auto"``, ``"fast"`` or ``"exact"`` (module docstring). The fast path
            expands ``‖x̂ - ŷ‖²`` for the normalised vectors (without autograd: their cosine,
            :func:`_sida_stream`) and recomputes the pairs within about 29° of 0 or of π
            (``EXPANSION_TAU``) exactly; the other squared angles have relative error below 2ρ,
            so ``|out_fast - out_exact| <= 4ρ/(1-2ρ)·max_j |v_j|`` beyond rounding (the
            arccos/log1p kernels included: at most 3 ulp, see ``_tiles.inplace``).

    Returns:
        ``(..., n_q, d_v)`` in q's dtype (half dtypes computed in float32). Raises
        ``ValueError`` for zero vectors or NaN.

    Memory (forward): O(chunk_size · block) per batch element for one tile (two buffers on
    the fast path), O(n·d) for accumulators, output and per-token features; under
    autograd O(n_q·n_k) in total.
    """
    _check(q, k, v)
    check_eps(eps)
    _tiles.check_shape(chunk_size, block)
    route = resolve_path(path, q, k, v)
    work = compute_dtype(q.dtype)
    qw, kw, vw = q.to(work), k.to(work), v.to(work)
    if route == "fast" and _tiles.eligible(qw, kw, vw, eps):
        return _sida_stream(qw, kw, vw, eps, block, chunk_size).to(q.dtype)
    chunk_size, block = _tiles.generic_shape(chunk_size, block)
    qs, (qa, qr) = unitish("q", qw)
    ks, (ka, kr) = unitish("k", kw)
    if route == "exact":
        qf, kf = (qs, qa[..., None], qr[..., None]), (ks, ka[..., None], kr[..., None])
        return distance_attention(qf, kf, vw, sqdist=_sida_exact, eps=eps, block=block,
                                  chunk_size=chunk_size).to(q.dtype)
    qf = (qs, qs, (qs * qs).sum(dim=-1, keepdim=True), qa[..., None], qr[..., None])
    kf = (ks, ks, (ks * ks).sum(dim=-1, keepdim=True), ka[..., None], kr[..., None])
    return distance_attention(qf, kf, vw, sqdist=_sida_fast, eps=eps, block=block,
                              chunk_size=chunk_size).to(q.dtype)
