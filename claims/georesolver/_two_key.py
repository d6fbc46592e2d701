"""The two-key 1D losses of GeoResolver §2.6 (Theorem 2.6, Corollary 2.7), batched.

Keys k₁ = 0, k₂ = Δ > 0 on a line, query q ∈ ℝ, values v₁, v₂ and target y:
L(q) = (W₁(q)v₁ + W₂(q)v₂ − y)² = r²(W₁(q) − w*)², with r = v₁ − v₂ and w* = (y − v₂)/r.

IDA (the paper's definitions): W₁ = A/(A+B), A = (q²+ε)⁻¹, B = ((q−Δ)²+ε)⁻¹, i.e. with
N = q²+ε, M = (q−Δ)²+ε, S = N+M: W₁ = M/S, W₂ = N/S. Softmax: s(q) = −Δq/√d, W₁ = σ(s).

Every function takes tensors that broadcast against each other (parameters of shape (B, 1)
against a grid of q of shape (B, G), say) and uses cancellation-free closed forms: the
derivatives and the weight differences W₁(a) − W₁(b) are factored so that no two nearly equal
numbers are subtracted (the forms are SymPy-checked in the claims' derivations, and the
weights are checked against ``operators.ida_weights`` / ``softmax_weights`` by autograd).
All loops here run over iterations (bisection, golden section, gradient descent), never over
instances.
"""

from __future__ import annotations

import math

import torch

import operators

# ── IDA weight and its derivatives ──


def ida_w1(q, eps, delta):
    """W₁(q) = M/S (weight of the key at 0)."""
    m = (q - delta).square() + eps
    return m / (m + q.square() + eps)


def ida_w2(q, eps, delta):
    """W₂(q) = N/S (weight of the key at Δ), accurate where W₁ is close to 1."""
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
    """The zeros q₋ < 0 < Δ < q₊ of W₁′: roots of q² − Δq − ε (q₋ in a cancellation-free form)."""
    root = torch.sqrt(delta.square() + 4 * eps)
    q_plus = (delta + root) / 2
    return -eps / q_plus, q_plus


# ── softmax weight and its derivatives (s = −Δq/√d) ──


def soft_w1(q, dim, delta):
    return torch.sigmoid(-delta * q / torch.sqrt(dim))


def soft_w2(q, dim, delta):
    return torch.sigmoid(delta * q / torch.sqrt(dim))


def soft_dw1(q, dim, delta):
    """W₁′ = −(Δ/√d) W₁W₂."""
    return -(delta / torch.sqrt(dim)) * soft_w1(q, dim, delta) * soft_w2(q, dim, delta)


def soft_d2w1(q, dim, delta):
    """W₁″ = (Δ²/d) W₁W₂(W₂ − W₁)."""
    w1, w2 = soft_w1(q, dim, delta), soft_w2(q, dim, delta)
    return (delta.square() / dim) * w1 * w2 * (w2 - w1)


def soft_w1_difference(a, b, dim, delta):
    """σ(s_a) − σ(s_b) = sinh((s_a − s_b)/2)/(2 cosh(s_a/2) cosh(s_b/2)), without cancellation."""
    scale = delta / torch.sqrt(dim)
    s_a, s_b = -scale * a, -scale * b
    # Divide in logs: cosh overflows for |s| > 710 while the ratio stays representable.
    log_den = _log_cosh(s_a / 2) + _log_cosh(s_b / 2) + math.log(2.0)
    half = (s_a - s_b) / 2
    return torch.sign(half) * torch.exp(_log_sinh_abs(half) - log_den)


def _log_cosh(x):
    x = x.abs()
    return x + torch.log1p(torch.exp(-2 * x)) - math.log(2.0)


def _log_sinh_abs(x):
    x = x.abs()
    return x + torch.log(-torch.expm1(-2 * x)) - math.log(2.0)


# ── the two mechanisms behind one interface ──


class Mechanism:
    """W₁, W₂, W₁′, W₁″ and stable W₁(a) − W₁(b) of one attention rule; ``scale`` is ε or d."""

    def __init__(self, name, w1, w2, dw1, d2w1, difference):
        self.name, self.w1, self.w2, self.dw1, self.d2w1, self.difference = (
            name, w1, w2, dw1, d2w1, difference)


IDA = Mechanism("ida", ida_w1, ida_w2, ida_dw1, ida_d2w1, ida_w1_difference)
SOFTMAX = Mechanism("softmax", soft_w1, soft_w2, soft_dw1, soft_d2w1, soft_w1_difference)


def operator_weight_and_slope(mech: Mechanism, q, scale, delta):
    """(W₁, W₁′) through the operators (``ida_weights`` / ``softmax_weights``) and autograd.

    q, scale, delta of shape (B,): one 1D query and two keys (0 and Δ) per instance.
    """
    q_var = q.detach().clone().requires_grad_(True)
    keys = torch.stack([torch.zeros_like(delta), delta], dim=-1)[..., None]  # (B, 2, 1)
    if mech is IDA:
        weights = operators.ida_weights(q_var[:, None, None], keys, eps=scale)
    else:
        # Logits q·k/√d: feed q/√d with unit scale (the operator's scale is one float per call).
        weights = operators.softmax_weights((q_var / torch.sqrt(scale))[:, None, None], keys, scale=1.0)
    w1 = weights[:, 0, 0]
    (slope,) = torch.autograd.grad(w1.sum(), q_var)
    return w1.detach(), slope


# ── the loss L = r²(W₁ − w*)² ──


def residual(mech, q, scale, delta, v1, v2, y):
    """e(q) = W₁(v₁ − y) + W₂(v₂ − y) (= W₁v₁ + W₂v₂ − y, exact where y = v₁ or y = v₂)."""
    return mech.w1(q, scale, delta) * (v1 - y) + mech.w2(q, scale, delta) * (v2 - y)


def loss_terms(mech, q, scale, delta, v1, v2, y):
    """(L, L′, L″) at q: L = e², L′ = 2e·rW₁′, L″ = 2r²W₁′² + 2e·rW₁″."""
    r = v1 - v2
    e = residual(mech, q, scale, delta, v1, v2, y)
    dw = mech.dw1(q, scale, delta)
    return e.square(), 2 * e * r * dw, 2 * (r * dw).square() + 2 * e * r * mech.d2w1(q, scale, delta)


def loss_gap(mech, q, q_min, scale, delta, v1, v2, y):
    """L(q) − L(q_min) = (e − e_min)(e + e_min), e − e_min = r(W₁(q) − W₁(q_min)) exactly and
    e + e_min = 2e_min + (e − e_min): no cancellation near q_min."""
    r = v1 - v2
    step = r * mech.difference(q, q_min, scale, delta)
    e_min = residual(mech, q_min, scale, delta, v1, v2, y)
    return step * (2 * e_min + step)


def pl_ratio(mech, q, q_min, scale, delta, v1, v2, y):
    """|L′(q)|²/(2(L(q) − L*)) with L* = L(q_min) (inf where the gap is 0); the residual is
    e = e_min + r(W₁(q) − W₁(q_min)), accurate near the minimiser."""
    r = v1 - v2
    step = r * mech.difference(q, q_min, scale, delta)
    e_min = residual(mech, q_min, scale, delta, v1, v2, y)
    slope = 2 * (e_min + step) * r * mech.dw1(q, scale, delta)
    return slope.square() / (2 * step * (2 * e_min + step))


# ── infimum over a segment: dense grid, then golden-section refinement ──

GOLDEN = (math.sqrt(5.0) - 1) / 2


def unit_grid(points: int, like: torch.Tensor, depth: int = 12) -> torch.Tensor:
    """t ∈ (0, 1]: uniform points plus geometric ones crowding both ends down to 10^-depth."""
    uniform = torch.linspace(0, 1, points + 1, dtype=like.dtype, device=like.device)[1:]
    ends = torch.logspace(-depth, -1, points // 4, dtype=like.dtype, device=like.device)
    t = torch.cat([uniform, ends, 1 - ends])
    return torch.unique(t.clamp(min=ends[0], max=1.0))


def segment_infimum(fn, lo, hi, points: int, refine_steps: int = 60):
    """inf over q ∈ [lo + (hi−lo)·10^-12, hi] of fn(q) for each instance (lo, hi of shape (B,)).

    ``fn`` maps q of shape (B, G) to values (B, G). Dense grid, then golden-section search on
    the two grid cells around each instance's grid minimum (the bracket shrinks by 0.618 a step:
    60 steps reach the float64 resolution of the cell). Returns (infimum, argmin).
    """
    t = unit_grid(points, lo)
    q = lo[:, None] + (hi - lo)[:, None] * t[None, :]
    values = fn(q)
    j = torch.argmin(values, dim=1)
    a = q.gather(1, (j - 1).clamp(min=0)[:, None])[:, 0]
    b = q.gather(1, (j + 1).clamp(max=q.shape[1] - 1)[:, None])[:, 0]
    best_q = q.gather(1, j[:, None])[:, 0]
    best = values.gather(1, j[:, None])[:, 0]
    x1, x2 = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    f1, f2 = fn(x1[:, None])[:, 0], fn(x2[:, None])[:, 0]
    for _ in range(refine_steps):
        left = f1 < f2
        b = torch.where(left, x2, b)
        a = torch.where(left, a, x1)
        x2_new = torch.where(left, x1, a + GOLDEN * (b - a))
        x1_new = torch.where(left, b - GOLDEN * (b - a), x2)
        f_new = fn(torch.where(left, x1_new, x2_new)[:, None])[:, 0]
        f1, f2 = torch.where(left, f_new, f2), torch.where(left, f1, f_new)
        x1, x2 = x1_new, x2_new
        for x, f in ((x1, f1), (x2, f2)):
            better = f < best
            best, best_q = torch.where(better, f, best), torch.where(better, x, best_q)
    return best, best_q
