r"""Metric (Riemannian) attention with per-token metrics :math:`g_t = I + U_tU_t^\top`.

The Riemannian-attention paper (Song, arXiv 2608.01283; statements as its public review
``003`` quotes them) scores a query-key pair with the averaged metric
:math:`g_{ij} = (g_i + g_j)/2`:

.. math:: s_{ij} = -(q_i - k_j)^\top g_{ij} (q_i - k_j)/\tau .

- :func:`metric_scores` -- the scores, ``path="direct"`` (materialised ``d × d`` metrics,
  :func:`operators.metric_sqdist_direct`) or ``path="decomposed"`` (the paper's Eq. (16)
  expansion: per-token terms ‖q_i‖², ‖k_j‖², U_iᵀq_i, U_jᵀk_j plus the per-pair
  projections U_iᵀk_j and U_jᵀq_i, each ``O(d r)`` per pair -- the per-token precomputation
  does not supply them). Every contraction is an ``einsum`` so that
  ``torch.utils.flop_counter.FlopCounterMode`` counts the whole cost.
- :func:`woodbury_inverse` -- :math:`g^{-1} = I - U(I_r + U^\top U)^{-1}U^\top`, applied to
  vectors (``O(d r)`` per vector after an ``O(d r^2 + r^3)`` core) or materialised.
- :func:`metricnet` -- Definition 5.2's MetricNet, Linear(d, d·m) → σ → Linear(d·m, d·r).
- :func:`metric_bias_attention` -- the metric correction fused as an additive bias into a
  key-block-streamed softmax attention (online normaliser): never forms an L × L matrix;
  :func:`metric_attention_direct` is the direct reference (softmax of the full score matrix).
- :func:`composite_residual` -- Dong et al.'s res(X) = X − 1x̄ᵀ in the composite norm
  ‖·‖_{1,∞} = sqrt(‖·‖₁‖·‖_∞), and :func:`collapse_stack` -- a pure attention stack (no
  residual, no FFN) carried in residual-exact form.
"""

import math

import torch

from ._checks import check_float, check_not_nan, check_query_key, check_same_dtype, compute_dtype
from .metric import metric_from_factors, metric_sqdist_direct

PATHS = ("decomposed", "direct")


def _check_factors(name: str, u: torch.Tensor, points: torch.Tensor) -> None:
    check_float(name, u, min_dim=3)
    check_same_dtype(**{name: u, "q": points})
    n, d = points.shape[-2], points.shape[-1]
    if u.shape[-3] != n or u.shape[-2] != d:
        raise ValueError(f"{name} must have shape (..., {n}, {d}, r) (one per token), got {tuple(u.shape)}")
    check_not_nan(name, u)


def _check_tau(tau: float) -> None:
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not math.isfinite(tau) or tau <= 0:
        raise ValueError(f"tau must be a positive finite number, got {tau!r}")


def metric_scores(q: torch.Tensor, k: torch.Tensor, *, uq: torch.Tensor, uk: torch.Tensor,
                  tau: float = 1.0, path: str = "decomposed") -> torch.Tensor:
    r"""Scores :math:`s_{ij} = -(q_i-k_j)^\top \tfrac{g_i+g_j}{2}(q_i-k_j)/\tau`, g_t = I + U_tU_tᵀ.

    Args:
        q: ``(..., n_q, d)``; k: ``(..., n_k, d)``; same dtype.
        uq: ``(..., n_q, d, r)`` query-token factors; uk: ``(..., n_k, d, r)`` key-token factors.
        tau: temperature > 0.
        path: ``"decomposed"`` (Eq. 16 expansion; cost 2·n_q·n_k·d·r for the per-pair
            projections plus O(n_q·n_k·(d + r))) or ``"direct"`` (materialised metrics,
            O(n_q·n_k·d²)). The decomposed form expands squares, so it loses the exact 0 at
            coincident points (absolute error ~u·(‖q‖² + ‖k‖²)·(1 + ‖U‖²)).

    Returns:
        ``(..., n_q, n_k)`` in q's dtype (half dtypes computed in float32).
    """
    check_query_key(q, k)
    _check_factors("uq", uq, q)
    _check_factors("uk", uk, k)
    if uq.shape[-1] != uk.shape[-1]:
        raise ValueError(f"uq and uk must share the rank r, got {uq.shape[-1]} and {uk.shape[-1]}")
    _check_tau(tau)
    if path not in PATHS:
        raise ValueError(f"path must be one of {PATHS}, got {path!r}")
    dtype, work = q.dtype, compute_dtype(q.dtype)
    q, k, uq, uk = (t.to(work) for t in (q, k, uq, uk))
    if path == "direct":
        d2 = metric_sqdist_direct(q, k, gq=metric_from_factors(uq), gk=metric_from_factors(uk))
        return (-d2 / tau).to(dtype)
    return (-_decomposed_sqdist(q, k, uq, uk) / tau).to(dtype)


def _decomposed_sqdist(q, k, uq, uk):
    """Eq. (16): D = ‖q‖² + ‖k‖² − 2qᵀk + ½(‖a_i‖² − 2a_iᵀP_ij + ‖P_ij‖²) + ½(‖Q_ij‖² − 2Q_ijᵀb_j + ‖b_j‖²)
    with a_i = U_iᵀq_i, b_j = U_jᵀk_j (per token) and P_ij = U_iᵀk_j, Q_ij = U_jᵀq_i (per pair)."""
    qq = torch.einsum("...id,...id->...i", q, q)
    kk = torch.einsum("...jd,...jd->...j", k, k)
    qk = torch.einsum("...id,...jd->...ij", q, k)
    a = torch.einsum("...idr,...id->...ir", uq, q)          # per token: O(d r)
    b = torch.einsum("...jdr,...jd->...jr", uk, k)
    p = torch.einsum("...idr,...jd->...ijr", uq, k)         # per pair: O(d r)
    qp = torch.einsum("...jdr,...id->...ijr", uk, q)        # per pair: O(d r)
    aa = torch.einsum("...ir,...ir->...i", a, a)
    bb = torch.einsum("...jr,...jr->...j", b, b)
    ap = torch.einsum("...ir,...ijr->...ij", a, p)          # per pair: O(r)
    pp = torch.einsum("...ijr,...ijr->...ij", p, p)
    qb = torch.einsum("...ijr,...jr->...ij", qp, b)
    qpqp = torch.einsum("...ijr,...ijr->...ij", qp, qp)
    euc = qq[..., :, None] + kk[..., None, :] - 2.0 * qk
    return euc + 0.5 * (aa[..., :, None] - 2.0 * ap + pp) + 0.5 * (qpqp - 2.0 * qb + bb[..., None, :])


def woodbury_inverse(u: torch.Tensor, v: torch.Tensor | None = None) -> torch.Tensor:
    r""":math:`g^{-1} = I - U(I_r + U^\top U)^{-1}U^\top` for :math:`g = I + UU^\top` (Woodbury).

    Args:
        u: ``(..., d, r)`` factors.
        v: optional ``(..., d, m)`` right-hand sides: returns g⁻¹v at cost
            2dr² (UᵀU) + O(r³) (Cholesky solve) + 4·d·r·m, never forming a d × d matrix.

    Returns:
        ``g⁻¹ v`` of shape ``(..., d, m)``, or without ``v`` the dense ``(..., d, d)`` inverse
        (2d²r more for the outer product).
    """
    check_float("u", u)
    check_not_nan("u", u)
    work = compute_dtype(u.dtype)
    uw = u.to(work)
    r = uw.shape[-1]
    core = torch.eye(r, dtype=work, device=u.device) + torch.einsum("...dr,...ds->...rs", uw, uw)
    chol = torch.linalg.cholesky(core)
    if v is None:
        x = torch.cholesky_solve(uw.transpose(-1, -2), chol)             # (r, d)
        eye = torch.eye(uw.shape[-2], dtype=work, device=u.device)
        return (eye - torch.einsum("...dr,...re->...de", uw, x)).to(u.dtype)
    check_float("v", v)
    check_same_dtype(u=u, v=v)
    if v.shape[-2] != u.shape[-2]:
        raise ValueError(f"v must have shape (..., {u.shape[-2]}, m), got {tuple(v.shape)}")
    vw = v.to(work)
    utv = torch.einsum("...dr,...dm->...rm", uw, vw)
    return (vw - torch.einsum("...dr,...rm->...dm", uw, torch.cholesky_solve(utv, chol))).to(v.dtype)


def metricnet(x: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor, b2: torch.Tensor,
              *, r: int) -> torch.Tensor:
    r"""MetricNet (Definition 5.2): U_t = reshape(Linear(d·m, d·r)(σ(Linear(d, d·m)(x_t))), d, r).

    σ is GELU (the source quotes only the two linear maps; the activation is elementwise and
    costs O(d·m) per token, not counted by the FLOP counter).

    Args:
        x: ``(..., L, d)`` tokens; w1: ``(d·m, d)``, b1: ``(d·m,)``; w2: ``(d·r, d·m)``,
            b2: ``(d·r,)`` (``torch.nn.Linear`` layout).
        r: metric rank.

    Returns:
        ``(..., L, d, r)`` factors. Cost per token: 2·d·(d·m) + 2·(d·m)·(d·r) multiply-adds.
    """
    check_float("x", x)
    for name, t in (("w1", w1), ("w2", w2)):
        check_float(name, t)
    check_same_dtype(x=x, w1=w1, b1=b1, w2=w2, b2=b2)
    d = x.shape[-1]
    if w1.shape[-1] != d or w2.shape[-1] != w1.shape[0] or w2.shape[0] != d * r:
        raise ValueError(f"MetricNet weights must be (d·m, d) and (d·r, d·m) for d={d}, r={r}, got "
                         f"{tuple(w1.shape)} and {tuple(w2.shape)}")
    check_not_nan("x", x)
    if isinstance(r, bool) or not isinstance(r, int) or r < 1:
        raise ValueError(f"r must be an int >= 1, got {r!r}")
    h = torch.nn.functional.gelu(torch.nn.functional.linear(x, w1, b1))
    return torch.nn.functional.linear(h, w2, b2).reshape(*x.shape[:-1], d, r)


def _bias_scores(q, k, uq, uk, tau):
    """Key-varying part of the scores, row terms (‖q_i‖², ½‖U_iᵀq_i‖²) dropped: they cancel in
    the row softmax (Eq. 28). Returns (n_q, n_k) for one key block."""
    kk = torch.einsum("...jd,...jd->...j", k, k)
    qk = torch.einsum("...id,...jd->...ij", q, k)
    a = torch.einsum("...idr,...id->...ir", uq, q)
    b = torch.einsum("...jdr,...jd->...jr", uk, k)
    p = torch.einsum("...idr,...jd->...ijr", uq, k)
    qp = torch.einsum("...jdr,...id->...ijr", uk, q)
    bias = (-2.0 * torch.einsum("...ir,...ijr->...ij", a, p) + torch.einsum("...ijr,...ijr->...ij", p, p)
            + torch.einsum("...ijr,...ijr->...ij", qp, qp) - 2.0 * torch.einsum("...ijr,...jr->...ij", qp, b)
            + torch.einsum("...jr,...jr->...j", b, b)[..., None, :])
    return (2.0 * qk - kk[..., None, :] - 0.5 * bias) / tau


def metric_attention_direct(q, k, v, *, uq, uk, tau: float = 1.0) -> torch.Tensor:
    """Direct reference: softmax over keys of :func:`metric_scores` (``path="direct"``), times v.

    Memory: the (n_q, n_k) score matrix and the (n_q, n_k, d) differences.
    """
    check_float("v", v)
    s = metric_scores(q, k, uq=uq, uk=uk, tau=tau, path="direct")
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"mismatched n: k has n={k.shape[-2]} keys, v has n={v.shape[-2]}")
    check_same_dtype(q=q, v=v)
    work = compute_dtype(q.dtype)
    return (torch.softmax(s.to(work), dim=-1) @ v.to(work)).to(q.dtype)


def metric_bias_attention(q, k, v, *, uq, uk, tau: float = 1.0, block: int = 64) -> torch.Tensor:
    r"""Metric attention fused as an additive bias, streamed over key blocks (never L × L).

    Per key block: Euclidean logits 2qᵀk − ‖k‖² plus the metric bias (the key-varying terms of
    Eq. 16), divided by τ; an online softmax (running max, rescaled sums) accumulates the output.
    Peak extra memory O(n_q·block·r + n_q·d_v) instead of O(n_q·n_k).

    Args:
        q: ``(..., n_q, d)``; k: ``(..., n_k, d)``; v: ``(..., n_k, d_v)``; uq/uk factors as in
            :func:`metric_scores`; tau > 0; block: keys per block (int >= 1).

    Returns:
        ``(..., n_q, d_v)`` in q's dtype.
    """
    check_query_key(q, k)
    check_float("v", v)
    check_same_dtype(q=q, v=v)
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"mismatched n: k has n={k.shape[-2]} keys, v has n={v.shape[-2]}")
    _check_factors("uq", uq, q)
    _check_factors("uk", uk, k)
    _check_tau(tau)
    if isinstance(block, bool) or not isinstance(block, int) or block < 1:
        raise ValueError(f"block must be an int >= 1, got {block!r}")
    dtype, work = q.dtype, compute_dtype(q.dtype)
    q, k, v, uq, uk = (t.to(work) for t in (q, k, v, uq, uk))
    run_max = acc = norm = None
    for start in range(0, k.shape[-2], block):
        sl = slice(start, start + block)
        s = _bias_scores(q, k[..., sl, :], uq, uk[..., sl, :, :], tau)
        m_blk = s.amax(dim=-1)
        new_max = m_blk if run_max is None else torch.maximum(run_max, m_blk)
        w = torch.exp(s - new_max[..., None])
        contrib = w @ v[..., sl, :]
        if run_max is None:
            acc, norm = contrib, w.sum(-1)
        else:
            scale = torch.exp(run_max - new_max)
            acc = acc * scale[..., None] + contrib
            norm = norm * scale + w.sum(-1)
        run_max = new_max
        del s, w, contrib
    return (acc / norm[..., None]).to(dtype)


def composite_norm(x: torch.Tensor) -> torch.Tensor:
    r"""‖X‖_{1,∞} = sqrt(‖X‖₁ ‖X‖_∞) (max column abs sum × max row abs sum) over the last two dims."""
    a = x.abs()
    return torch.sqrt(a.sum(-2).amax(-1) * a.sum(-1).amax(-1))


def composite_residual(x: torch.Tensor) -> torch.Tensor:
    r"""‖X − 1x̄ᵀ‖_{1,∞} with x̄ the column mean: within a factor 2 of min_x ‖X − 1xᵀ‖_{1,∞}
    (both ‖1(x̄ − x)ᵀ‖₁ and ‖1(x̄ − x)ᵀ‖_∞ are at most the same norm of X − 1xᵀ)."""
    return composite_norm(x - x.mean(dim=-2, keepdim=True))


def collapse_stack(c: torch.Tensor, r: torch.Tensor, wq: torch.Tensor, wk: torch.Tensor, wv: torch.Tensor,
                   *, u: torch.Tensor | None = None, tau: float = 1.0, kind: str = "distance",
                   with_erank: bool = False):
    r"""A pure attention stack (no residual, no FFN) on X = 1cᵀ + R, every layer computed in full.

    Each layer: X ← softmax(S(XW_Q, XW_K)) X W_V, with S the dot product qᵀk/τ (``kind="dot"``)
    or the metric distance −(q_i−k_j)ᵀg_ij(q_i−k_j)/τ (``kind="distance"``; ``u`` the
    per-position factors, fixed across depth, or None for g = I).

    The form is residual-exact and of unbounded exponent range: R is carried as e^{λ}·R̂ with
    ‖R̂‖_{1,∞} = 1 and λ a float64 logarithm (so the residual can reach e^{−10⁹}, far beyond
    float64's 1e-308). With s = e^{λ}, the scores are split exactly (algebra, no approximation)
    into row terms (they cancel in the softmax), column terms (a polynomial in s; they give p =
    softmax(col)) and the coupled part C = Σ_k s^k C_k, each C_k formed from R̂ alone (k = 2 only
    without metrics; k = 1 and 2 with them). C is carried as σ·Ĉ with log σ = max_k(kλ +
    log max|C_k|), computed from the C_k (no degree is assumed), and every layer is then
    evaluated in full: e^{C} − 1 = σ·Ĉ·φ(σĈ) with φ(x) = (e^x − 1)/x, z = Σ_j p_j(e^{C_ij} − 1),
    P = 1pᵀ + E with E = p∘(e^C − 1 − z)/(1 + z), R' = s·center(E R̂W_V), c' = cW_V + s·(pᵀR̂W_V +
    mean(E R̂W_V)), so λ' = λ + log σ + log‖center(Ê R̂W_V)‖. A term below float64's relative
    precision of the term it is added to is lost exactly as float64 arithmetic loses it; nothing
    is propagated by a formula that presumes the per-layer order.

    Args:
        c: ``(B, d)``; r: ``(B, L, d)`` with zero column means; wq, wk, wv: ``(B, depth, d, d)``;
        u: ``(B, L, d, m)`` or None.

    Returns:
        (log residuals ``(B, depth + 1)``: log ‖R_l‖_{1,∞}, log scales ``(B, depth + 1)``:
        log ‖1c_lᵀ‖_{1,∞} = log(√L·‖c_l‖₁)), and with ``with_erank`` a third ``(B, depth + 1)``:
        log(r_eff(X_lᵀX_l) − 1), the effective rank (tr K)²/tr(K²) of K = XᵀX = L·ccᵀ + RᵀR
        (1ᵀR = 0) less 1, in log form: (tr K)² − ‖K‖_F² = 2L(‖c‖²‖R‖_F² − ‖Rc‖²) + ‖R‖_F⁴ − ‖RᵀR‖_F²,
        each part ≥ 0 and formed from R̂ with the scale e^{2λ}, e^{4λ} kept apart.
    """
    if kind not in ("dot", "distance"):
        raise ValueError(f"kind must be 'dot' or 'distance', got {kind!r}")
    n = r.shape[-2]
    norm0 = composite_norm(r)
    lam, rhat = torch.log(norm0), r / norm0[:, None, None]
    out_res, out_scale = [lam], [torch.log(math.sqrt(n) * c.abs().sum(-1))]
    out_erank = [_log_erank_excess(c, rhat, lam, n)]
    for layer in range(wq.shape[1]):
        w_q, w_k, w_v = wq[:, layer], wk[:, layer], wv[:, layer]
        mq, mk = torch.einsum("bd,bde->be", c, w_q), torch.einsum("bd,bde->be", c, w_k)
        ahat, bhat, rvhat = rhat @ w_q, rhat @ w_k, rhat @ w_v
        s = torch.exp(lam)                                          # may underflow to 0: col only
        col, parts = _score_parts(kind, mq, mk, ahat, bhat, u, tau, s)
        log_sigma = torch.stack([k * lam + torch.log(ck.abs().amax((-1, -2))) for k, ck in parts]).amax(0)
        chat = sum(torch.exp(k * lam - log_sigma)[:, None, None] * ck for k, ck in parts)
        x = torch.exp(log_sigma)[:, None, None] * chat              # the coupled part (0 if tiny)
        em_hat = chat * _expm1_over_x(x)                            # (e^C − 1)/σ
        p = torch.softmax(col, dim=-1)
        z_hat = torch.einsum("bj,bij->bi", p, em_hat)
        denom = 1.0 + torch.exp(log_sigma)[:, None] * z_hat
        e_hat = p[:, None, :] * (em_hat - z_hat[..., None]) / denom[..., None]   # E/σ
        # Where the coupled part is not small, E = softmax(col + C) − 1pᵀ directly (the same
        # quantity; e^C − 1 may overflow there, and nothing cancels).
        big = log_sigma > 0.0
        if bool(big.any()):
            e_big = torch.softmax(col[:, None, :] + x.clamp_max(1e300), dim=-1) - p[:, None, :]
            e_hat = torch.where(big[:, None, None], e_big / torch.exp(log_sigma)[:, None, None], e_hat)
        er = e_hat @ rvhat                                          # E R̂ W_V / σ
        mean_er = er.mean(dim=-2)
        step = er - mean_er[:, None, :]
        nrm = composite_norm(step)
        c = (torch.einsum("bd,bde->be", c, w_v)
             + s[:, None] * (torch.einsum("bj,bjd->bd", p, rvhat) + torch.exp(log_sigma)[:, None] * mean_er))
        lam = lam + log_sigma + torch.log(nrm)
        rhat = step / nrm[:, None, None]
        out_res.append(lam)
        out_scale.append(torch.log(math.sqrt(n) * c.abs().sum(-1)))
        out_erank.append(_log_erank_excess(c, rhat, lam, n))
    res, scale = torch.stack(out_res, dim=-1), torch.stack(out_scale, dim=-1)
    return (res, scale, torch.stack(out_erank, dim=-1)) if with_erank else (res, scale)


def _expm1_over_x(x):
    """φ(x) = (e^x − 1)/x, φ(0) = 1, to float64 relative precision for every x (series near 0)."""
    small = x.abs() < 1e-5
    safe = torch.where(small, torch.ones_like(x), x)
    return torch.where(small, 1.0 + x / 2 + x * x / 6, torch.expm1(safe) / safe)


def _log_erank_excess(c, rhat, lam, n):
    """log(r_eff(XᵀX) − 1) for X = 1cᵀ + e^λ R̂ (1ᵀR̂ = 0), without forming X."""
    cc = c.square().sum(-1)
    rr = rhat.square().sum((-1, -2))
    rc = torch.einsum("bld,bd->bl", rhat, c).square().sum(-1)
    gram = rhat.transpose(-1, -2) @ rhat
    gg = gram.square().sum((-1, -2))
    e2 = torch.exp(2 * lam)
    num1 = 2 * n * (cc * rr - rc)
    num2 = (rr.square() - gg).clamp_min(0.0)
    den = (n * cc).square() + e2 * 2 * n * rc + e2.square() * gg
    return 2 * lam + torch.log(num1 + e2 * num2) - torch.log(den)


def _score_parts(kind, mq, mk, a, b, u, tau, s):
    """(column part at scale s, [(k, C_k)]) of the scores of q_i = m_q + s·a_i, k_j = m_k + s·b_j.

    The coupled part (depending on both i and j) is Σ_k s^k C_k with C_k formed from a, b (the
    residual directions) alone; row terms are dropped (they cancel in the softmax). For
    ``kind="distance"``, ½Δᵀ(G_i + G_j)Δ with Δ_ij = m + s(a_i − b_j), m = m_q − m_k, G_t = I + U_tU_tᵀ,
    has the column terms −s·mᵀb_j + ½‖m − s·b_j‖² + ½s²‖b_j‖² + ½‖U_jᵀ(m − s·b_j)‖², the coupled
    terms of degree 1, s(−μ_iᵀU_iᵀb_j + (U_jᵀa_i)ᵀμ_j) with μ_t = U_tᵀm, and of degree 2,
    s²(−2a_iᵀb_j − (U_iᵀa_i)ᵀU_iᵀb_j − (U_jᵀa_i)ᵀU_jᵀb_j + ½‖U_jᵀa_i‖² + ½‖U_iᵀb_j‖²).
    """
    if kind == "dot":
        col = s[:, None] * torch.einsum("bd,bjd->bj", mq, b) / tau
        return col, [(2, torch.einsum("bid,bjd->bij", a, b) / tau)]
    m = mq - mk
    sb = s[:, None, None] * b
    col_d = (-torch.einsum("bd,bjd->bj", m, sb) + 0.5 * (m[:, None, :] - sb).square().sum(-1)
             + 0.5 * sb.square().sum(-1))
    deg2 = -2.0 * torch.einsum("bid,bjd->bij", a, b)
    parts = []
    if u is not None:
        mu = torch.einsum("bd,btdr->btr", m, u)                     # U_tᵀm per position
        ua = torch.einsum("btdr,bid->bitr", u, a)                   # [b, i, j, r] = U_jᵀ a_i
        ub = torch.einsum("btdr,bjd->bjtr", u, b)                   # [b, j, t, r] = U_tᵀ b_j
        ub_jj = torch.einsum("bjjr->bjr", ub)
        ub_ij = ub.transpose(1, 2)                                  # [b, i, j, r] = U_iᵀ b_j
        ua_ii = torch.einsum("biir->bir", ua)
        col_d = col_d + 0.5 * (mu - s[:, None, None] * ub_jj).square().sum(-1)
        deg1 = -torch.einsum("bir,bijr->bij", mu, ub_ij) + torch.einsum("bijr,bjr->bij", ua, mu)
        parts.append((1, -deg1 / tau))
        deg2 = (deg2 - torch.einsum("bir,bijr->bij", ua_ii, ub_ij) - torch.einsum("bijr,bjr->bij", ua, ub_jj)
                + 0.5 * ua.square().sum(-1) + 0.5 * ub_ij.square().sum(-1))
    parts.append((2, -deg2 / tau))
    return -col_d / tau, parts
