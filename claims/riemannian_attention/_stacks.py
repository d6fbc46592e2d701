"""Pure attention stacks (no residual, no FFN) measured over depth; shared by conjecture 3.4,
conjecture 3.6, corollary 3.3 and rank-collapse/doubly-exponential.

A stack: L Gaussian tokens in R^d, per-layer Haar-orthogonal W_Q, W_K, W_V (‖W‖₂ = 1, so the
bound β of Dong et al. is fixed), temperature τ, and optionally per-position metric factors
U_t ∈ R^{d×m} (fixed across depth) with E‖U_t‖_F² = Ū² (the metric strength). The relative
residual ρ_l = ‖res(X_l)‖_{1,∞}/‖1c_lᵀ‖_{1,∞} is carried in log form by
``operators.metric_attention.collapse_stack`` (residual-exact), so y_l = −log ρ_l can reach 10⁶.
"""

from __future__ import annotations

import math

D, M, TAU = 4, 2, 2.0


def stack_y(ctx, tag: str, *, batch: int, n: int, depth: int, kind: str = "distance",
            strength: float = 0.0, d: int = D, m: int = M, tau: float = TAU, homogeneous: bool = False,
            erank: bool = False):
    """(B, depth + 1) values of y_l = −log ρ_l for ``batch`` random stacks (seeded by ``tag``);
    with ``erank``, z_l = −log(r_eff(X_lᵀX_l) − 1) instead (the effective rank's excess over 1).

    ``homogeneous``: one metric G = I + UUᵀ (E‖U‖_F² = strength) for every token, applied
    exactly as the Euclidean distance of (q, k)·C with G = CCᵀ (Cholesky), i.e. W_Q, W_K ← W_Q C,
    W_K C (Corollary 3.3's modified inner product)."""
    import torch

    from attnaudit import operators

    gen = ctx.generator(f"stack:{tag}")
    dt = ctx.dtype
    c = torch.randn(batch, d, generator=gen, dtype=dt)
    r = torch.randn(batch, n, d, generator=gen, dtype=dt)
    r = r - r.mean(dim=1, keepdim=True)
    ws = [torch.linalg.qr(torch.randn(batch, depth, d, d, generator=gen, dtype=dt))[0] for _ in range(3)]
    u = None
    if homogeneous:
        uh = torch.randn(batch, 1, d, m, generator=gen, dtype=dt) * math.sqrt(strength / (d * m))
        chol = torch.linalg.cholesky(torch.eye(d, dtype=dt) + uh @ uh.transpose(-1, -2))
        ws = [ws[0] @ chol, ws[1] @ chol, ws[2]]
    elif strength > 0:
        u = torch.randn(batch, n, d, m, generator=gen, dtype=dt) * math.sqrt(strength / (d * m))
    log_res, log_scale, log_er = operators.collapse_stack(c, r, *ws, u=u, tau=tau, kind=kind,
                                                          with_erank=True)
    return -log_er if erank else -(log_res - log_scale)


def asymptotic_depths(y, y_min: float):
    """Depths at which every stack has y ≥ y_min (the collapsed, asymptotic regime), and the
    mean and standard error of y there."""
    import torch

    ok = (y >= y_min).all(dim=0)
    ok = ok & (torch.cumsum((~ok).flip(0).int(), 0).flip(0) == 0)  # a contiguous tail of depths
    idx = torch.nonzero(ok).flatten()
    sel = y[:, idx]
    sem = sel.std(dim=0) / math.sqrt(y.shape[0]) if y.shape[0] > 1 else torch.zeros_like(sel[0])
    return idx.to(y.dtype), sel.mean(dim=0), sem
