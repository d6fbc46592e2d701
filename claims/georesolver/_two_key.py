"""The 1D losses of GeoResolver §2.6 (Theorem 2.6, Corollary 2.7), batched; imported lazily.

Keys 0 and Δ: L(q) = (W₁v₁ + W₂v₂ − y)² = r²(W₁ − w*)², r = v₁ − v₂, w* = (y − v₂)/r; IDA W₁ = M/S
(N = q²+ε, M = (q−Δ)²+ε, S = N+M), softmax W₁ = σ(−Δq/√d); n keys: :func:`line_terms`. Tensors
broadcast ((B, 1) parameters against a (B, G) grid); closed forms are cancellation-free and
checked (SymPy, autograd through ``operators``); loops run over iterations, never instances.
"""

from __future__ import annotations

import torch

from attnaudit import operators
from attnaudit.checks import search


def ida_w1(q, eps, delta):
    m = (q - delta).square() + eps
    return m / (m + q.square() + eps)


def ida_w2(q, eps, delta):
    """W₂ = N/S, accurate where W₁ is close to 1."""
    n = q.square() + eps
    return n / (n + (q - delta).square() + eps)


def ida_dw1(q, eps, delta):
    """W₁′(q) = −2Δ(ε + Δq − q²)/S²."""
    s = q.square() + eps + (q - delta).square() + eps
    return -2 * delta * (eps + q * (delta - q)) / s.square()


def ida_d2w1(q, eps, delta):
    """W₁″(q) = −2Δ(Δ − 2q)(Δ² + 2Δq − 2q² + 6ε)/S³."""
    s = q.square() + eps + (q - delta).square() + eps
    return -2 * delta * (delta - 2 * q) * (delta.square() + 2 * q * (delta - q) + 6 * eps) / s.pow(3)


def ida_w1_difference(a, b, eps, delta):
    """W₁(a) − W₁(b) = Δ(a − b)(2ab − Δ(a+b) − 2ε)/(S_a S_b), without cancellation."""
    s_a = a.square() + (a - delta).square() + 2 * eps
    s_b = b.square() + (b - delta).square() + 2 * eps
    return delta * (a - b) * (2 * a * b - delta * (a + b) - 2 * eps) / (s_a * s_b)


def ida_stationary_points(eps, delta):
    """The zeros q₋ < 0 < Δ < q₊ of W₁′ (roots of q² − Δq − ε; q₋ without cancellation)."""
    q_plus = (delta + torch.sqrt(delta.square() + 4 * eps)) / 2
    return -eps / q_plus, q_plus


def soft_w1(q, dim, delta):  # σ(s), s = −Δq/√d; W₂ = σ(−s)
    return torch.sigmoid(-delta * q / torch.sqrt(dim))


def soft_dw1(q, dim, delta):
    """W₁′ = −(Δ/√d) W₁W₂."""
    return -(delta / torch.sqrt(dim)) * soft_w1(q, dim, delta) * torch.sigmoid(delta * q / torch.sqrt(dim))


def operator_slope(mech, q, scale, delta):
    """W₁′ through ``operators.ida_weights`` (mech "IDA", scale ε) or ``softmax_weights`` ("SOFTMAX",
    scale d) and autograd; q, scale, delta (B,)."""
    q_var = q.detach().clone().requires_grad_(True)
    keys = torch.stack([torch.zeros_like(delta), delta], dim=-1)[..., None]  # (B, 2, 1)
    if mech == "IDA":
        weights = operators.ida_weights(q_var[:, None, None], keys, eps=scale)
    else:  # logits q·k/√d: feed q/√d with unit scale (the operator's scale is one float per call)
        weights = operators.softmax_weights((q_var / torch.sqrt(scale))[:, None, None], keys, scale=1.0)
    return torch.autograd.grad(weights[:, 0, 0].sum(), q_var)[0]


def unit_grid(points: int, like: torch.Tensor, depth: int = 12) -> torch.Tensor:
    """t ∈ (0, 1]: uniform points plus geometric ones crowding both ends down to 10^-depth."""
    uniform = torch.linspace(0, 1, points + 1, dtype=like.dtype, device=like.device)[1:]
    ends = torch.logspace(-depth, -1, points // 4, dtype=like.dtype, device=like.device)
    return torch.unique(torch.cat([uniform, ends, 1 - ends]).clamp(min=ends[0], max=1.0))


def mu_key1(mech, scale, delta, points):
    """μ = inf over q ∈ [0, Δ] of |L′|²/(2(L − L*)) for y = v₁ = 1, v₂ = 0 (L* = L(0), r = 1) per
    instance, ``mech`` "IDA" (scale ε) or "SOFTMAX" (scale d), scale, delta (B,): a grid over [10^-12Δ, Δ]
    then checks.search's refinement. With e = e(0) + W₁(q) − W₁(0), e(0) = −W₂(0), accurate near 0."""
    scale, d = scale[:, None], delta[:, None]
    e_min = -ida_w2(0 * d, scale, d) if mech == "IDA" else torch.full_like(d, -0.5)

    def ratio(qs):
        if mech == "IDA":
            step, dw1 = ida_w1_difference(qs, 0 * qs, scale, d), ida_dw1(qs, scale, d)
        else:  # σ(s) − σ(0) = tanh(s/2)/2, without cancellation
            step, dw1 = torch.tanh(-d / (2 * torch.sqrt(scale)) * qs) / 2, soft_dw1(qs, scale, d)
        return (2 * (e_min + step) * dw1).square() / (2 * step * (2 * e_min + step))

    return search.minimise(ratio, d * unit_grid(points, delta)[None, :]).value


# ── n keys on a line: the loss (Σ_j W_j v_j − y)², its stationary points ──


def line_terms(q, keys, values, y, eps, second: bool = False):
    """e = Σ_j W_j(v_j − y), S = de/dq and, with ``second``, (S′, |terms of S′|) at q (B, G) for
    keys, values (B, n) and y, eps (B,). With a_j = 1/((q−k_j)²+ε), g_j = a_j′/a_j:
    S = Σ_j W_j g_j (v_j − o), o the output; S′ = Σ_j W_j(g_j(2g_j − ḡ) − 2a_j)(v_j − o) − ḡS."""
    diff = q[..., None] - keys[:, None, :]
    a = 1 / (diff.square() + eps[:, None, None])
    w = a / a.sum(-1, keepdim=True)
    g = -2 * diff * a
    dv = values[:, None, :] - y[:, None, None]
    e = (w * dv).sum(-1)
    dev = dv - e[..., None]
    wg = w * g
    s = (wg * dev).sum(-1)
    if not second:
        return e, s
    g_bar = wg.sum(-1)
    terms = w * (g * (2 * g - g_bar[..., None]) - 2 * a) * dev
    return e, s, terms.sum(-1) - g_bar * s, terms.abs().sum(-1) + (g_bar * s).abs()


def stationary_points(case):
    """Every sign change of L′ = 2eS on a grid over ℝ (uniform across the keys plus ±10^k key
    spans around each key, k ∈ [−10, 8]), bisected: (instance, q, is_local_min), a change
    − → + being a local minimum."""
    keys, values, y, eps = case["keys"], case["values"], case["y"], case["eps"]
    span = keys.amax(1) - keys.amin(1)
    t = torch.logspace(-10, 8, int(case["points"]), dtype=keys.dtype, device=keys.device)
    around = keys[:, :, None] + span[:, None, None] * torch.cat([-t, t])
    across = keys.amin(1)[:, None] + span[:, None] * torch.linspace(0, 1, t.numel() // 2, dtype=t.dtype,
                                                                     device=t.device)
    grid = torch.cat([around.flatten(1), across], 1).sort(1).values

    def sign(qs, i):
        return torch.sign(torch.mul(*line_terms(qs, keys[i], values[i], y[i], eps[i])))

    inst, lo, hi, s_lo = search.sign_changes(sign, grid, candidates=15, rounds=14, what="sign change of L′")
    return inst, (lo + hi) / 2, s_lo < 0
