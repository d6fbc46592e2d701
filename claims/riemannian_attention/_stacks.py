"""Pure attention stacks (no residual, no FFN) measured over depth; shared by conjecture 3.4,
conjecture 3.6, corollary 3.3 and rank-collapse/doubly-exponential. And the token and metric
families of the score-rank specs (theorem-3.2, corollary-3.3; ranks by
:func:`checks.measure.numerical_rank`).

A stack: L Gaussian tokens in R^d, per-layer Haar-orthogonal W_Q, W_K, W_V (‖W‖₂ = 1, so the
bound β of Dong et al. is fixed; ``weight_scale`` scales W_Q and W_K), temperature τ, and
optionally per-position metric factors U_t ∈ R^{d×m} (fixed across depth) with E‖U_t‖_F² = Ū²
(the metric strength). The relative residual ρ_l = ‖res(X_l)‖_{1,∞}/‖1c_lᵀ‖_{1,∞} is carried in log form by
``operators.metric_attention.collapse_stack`` (residual-exact, every layer computed in full), so
y_l = −log ρ_l can reach 10⁸.
"""

from __future__ import annotations

import math

import torch

from attnaudit import operators
from attnaudit.checks.sampling import gaussian

D, M, TAU = 4, 2, 2.0


def stack_y(ctx, tag: str, *, batch: int, n: int, depth: int, kind: str = "distance",
            strength: float = 0.0, d: int = D, m: int = M, tau: float = TAU, homogeneous: bool = False,
            erank: bool = False, weight_scale: float = 1.0):
    """(B, depth + 1) values of y_l = −log ρ_l for ``batch`` random stacks (seeded by ``tag``);
    with ``erank``, z_l = −log(r_eff(X_lᵀX_l) − 1) instead (the effective rank's excess over 1).

    ``homogeneous``: one metric G = I + UUᵀ (E‖U‖_F² = strength) for every token, applied
    exactly as the Euclidean distance of (q, k)·C with G = CCᵀ (Cholesky), i.e. W_Q, W_K ← W_Q C,
    W_K C (Corollary 3.3's modified inner product). ``weight_scale``: W_Q, W_K are ``weight_scale``
    times Haar-orthogonal (‖W_Q‖₂ = ‖W_K‖₂ = weight_scale; Dong et al.'s β, and with it the bound's
    constant, grow as its square)."""
    gen = ctx.generator(f"stack:{tag}")
    dt = ctx.dtype
    c = torch.randn(batch, d, generator=gen, dtype=dt)
    r = torch.randn(batch, n, d, generator=gen, dtype=dt)
    r = r - r.mean(dim=1, keepdim=True)
    ws = [torch.linalg.qr(torch.randn(batch, depth, d, d, generator=gen, dtype=dt))[0] for _ in range(3)]
    ws = [ws[0] * weight_scale, ws[1] * weight_scale, ws[2]]
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


def below_threshold_depths(y, y_min: float):
    """Depths from the first at which at least half of the stacks have y ≥ y_min on (the grid of a
    collapse fit; a stack above its threshold there is left out by :func:`below_threshold_mean`)."""
    ok = (y >= y_min).double().mean(dim=0) >= 0.5
    first = int(torch.nonzero(ok).flatten()[0]) if bool(ok.any()) else y.shape[1]
    return torch.arange(first, y.shape[1], dtype=y.dtype)


def below_threshold_mean(y, depths, y_min: float, relative: bool = False):
    """Mean of y at ``depths`` over the stacks with y ≥ y_min at the first of them (those past the
    threshold there: the hypothesis of a collapse bound; what they do afterwards is not selected).
    ``relative``: each stack's y divided by its own value at the first depth (the growth since then;
    it removes the stack-to-stack spread of the prefactor, not the rate)."""
    idx = [int(v) for v in depths]
    keep = y[:, idx[0]] >= y_min
    sel = y[keep][:, idx]
    return (sel / sel[:, :1] if relative else sel).mean(dim=0)


def family(ctx, gen, kind: str, batch: int, n: int, d: int, r: int = 2):
    """Tokens q, k ∈ R^d and per-token factors U_t ∈ R^{d×r}: ``full`` (independent Gaussian: span
    Sym(d) once n ≥ d(d+1)/2), ``two`` (each token one of two Gaussian factors: span 2) or
    ``homogeneous`` (one factor for all: span 1). Returns (q, k, u, span dimension)."""
    q, k = gaussian(ctx, gen, batch, n, d), gaussian(ctx, gen, batch, n, d)
    if kind == "full":
        return q, k, gaussian(ctx, gen, batch, n, d, r), min(n, d * (d + 1) // 2)
    if kind == "two":
        pair = gaussian(ctx, gen, batch, 2, d, r)
        pick = torch.randint(0, 2, (batch, n), generator=gen)
        pick[:, 0], pick[:, 1] = 0, 1
        return q, k, pair[torch.arange(batch)[:, None], pick], 2
    return q, k, gaussian(ctx, gen, batch, 1, d, r).expand(batch, n, d, r).clone(), 1
