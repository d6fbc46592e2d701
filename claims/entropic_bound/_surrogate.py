"""The linear-attention surrogate shared by the entropic-bound specs.

A token-mixing operator M ∈ ℝ^{n×n} acts on a sequence X ∈ ℝ^{n×d} (n tokens, d features):
Y = M X. A task is a target operator M* of rank r* (its intrinsic rank), inputs whose d feature
columns are i.i.d. N(0, Σ) over the token axis, Σ = diag(s) with s log-uniform in [1/4, 4], and
the squared loss E‖(M − M*)x‖². The excess risk of a model M is then exactly
‖(M − M*)Σ^{1/2}‖_F².
"""

import torch

N_TOKENS = 16
TASK_FAMILY = (f"n = {N_TOKENS} tokens; M* = A Bᵀ with A, B ∈ ℝ^{{n×r*}} i.i.d. N(0, 1/n); feature columns "
               "i.i.d. N(0, Σ), Σ = diag(s), s log-uniform in [1/4, 4]")


def sample_tasks(ctx, gen, batch: int, rank: int, n: int = N_TOKENS):
    """(M* (batch, n, n) of rank ``rank``, s (batch, n) the token covariance's diagonal)."""
    a = torch.randn(batch, n, rank, generator=gen, dtype=ctx.dtype, device=ctx.device) / n**0.5
    b = torch.randn(batch, n, rank, generator=gen, dtype=ctx.dtype, device=ctx.device) / n**0.5
    s = 4.0 ** (2 * torch.rand(batch, n, generator=gen, dtype=ctx.dtype, device=ctx.device) - 1)
    return a @ b.transpose(-1, -2), s


def excess_risk(m, target, s):
    """‖(M − M*)Σ^{1/2}‖_F² = E‖(M − M*)x‖² for x ~ N(0, diag(s))."""
    return ((m - target) * s.sqrt()[..., None, :]).square().sum(dim=(-1, -2))


def als_fit(target, s, rank: int, gen, iterations: int = 300):
    """Best rank-``rank`` model by alternating least squares on the population risk, from a random
    start: U ← M*ΣV(VᵀΣV)⁻¹ (exact minimiser over U), V ← (U⁺M*)ᵀ (exact minimiser over V, Σ ≻ 0).
    Independent of the SVD that gives the Eckart–Young value."""
    batch, n, _ = target.shape
    v = torch.randn(batch, n, rank, generator=gen, dtype=target.dtype, device=target.device)

    def best_u(v):
        sigma_v = s[..., :, None] * v  # ΣV
        return torch.linalg.solve(v.transpose(-1, -2) @ sigma_v, (target @ sigma_v).transpose(-1, -2)).mT

    for _ in range(iterations):
        v = torch.linalg.lstsq(best_u(v), target).solution.transpose(-1, -2)
        v = torch.linalg.qr(v).Q  # same span, so the same next U Vᵀ; keeps VᵀΣV well conditioned
    return best_u(v) @ v.transpose(-1, -2)


def eckart_young_tail(target, s, rank: int):
    """inf over rank-``rank`` M of the excess risk: Σ_{i>rank} σ_i(M*Σ^{1/2})² (Eckart–Young–Mirsky,
    M ↦ MΣ^{1/2} preserving rank)."""
    return torch.linalg.svdvals(target * s.sqrt()[..., None, :])[..., rank:].square().sum(-1)
