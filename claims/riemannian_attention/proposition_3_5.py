"""Riemannian attention, Proposition 3.5: metric score perturbation through Ū², transferred to the
singular values of the attention matrix (Weyl's inequality, softmax Lipschitzness)."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit import operators, sampling, symbolic, tolerances
from attnaudit.checks import Claim, Clause, Relation, control

STATEMENT = (
    r"|s^{\mathrm{Riem}}_{ij} - s^{\mathrm{Euc}}_{ij}| \le \frac{\bar U^2}{\tau}\|q_i-k_j\|^2,\ "
    r"\bar U^2 = \max_t\|U_t\|_F^2;\quad |\sigma_k(A^{\mathrm{Riem}}) - \sigma_k(A^{\mathrm{Euc}})| "
    r"\le \|A^{\mathrm{Riem}} - A^{\mathrm{Euc}}\|_2 \le \frac{L\,\bar U^2}{\tau}\max_{ij}\|q_i-k_j\|^2"
)
CLAUSES = (
    Clause("entrywise", "The symbol \\bar{U}^2 is used both as the running maximum max_t ||U_t||_F^2 in "
                        "Proposition 3.5"),
    Clause("transfer", "Weyl's inequality and softmax 1-Lipschitz property Used in Proposition 3.5 to "
                       "transfer score perturbation to singular values"),
)
READING = (
    "For g_t = I + U_tU_tᵀ and Ū² = max_t ‖U_t‖_F²: (entrywise) every score moves by at most "
    "|s_Riem − s_Euc|_ij ≤ Ū²‖q_i − k_j‖²/τ (s_Euc = −‖q_i − k_j‖²/τ); (transfer) the singular "
    "values of the row-softmax attention matrix move by at most (L/τ)·Ū²·max_ij‖q_i − k_j‖² "
    "(Weyl, then the 1-Lipschitz row softmax in ℓ2 and ‖·‖₂ ≤ ‖·‖_F over L rows)."
)

# δs = s_Riem − s_Euc is a difference of two computed scores, each of size ≤ (1 + Ū²)‖Δ‖²/τ and
# each a sum of 2r squares of d-term products: error ≲ (d + 2r)·u·(1 + Ū²)‖Δ‖²/τ, i.e. relative to
# the bound Ū²‖Δ‖²/τ a condition (d + 2r)(1 + Ū²)/Ū² (the subtraction cancels the Euclidean part;
# with (d + 2r) alone, an attained bound read 1 + 7e-14 against a tolerance of 3.6e-14 at seed 15).
ENTRY_TOL = tolerances.Roundoff(condition="(d + 2r)(1 + Ū²)/Ū²: squares of d-term projections in two "
                                          "scores of size ≤ (1 + Ū²)‖Δ‖²/τ whose difference is taken, "
                                          "relative to the bound Ū²‖Δ‖²/τ", scale="Ū²‖Δ‖²/τ")
# Singular values of L × L row-stochastic matrices (‖A‖₂ ≤ √L) to ~L·u·‖A‖₂ each (LAPACK SVD).
SV_TOL = tolerances.Roundoff(condition="L^{3/2}: two L × L SVDs of matrices with ‖A‖₂ ≤ √L, plus the "
                                       "softmax of scores of size ≤ max|s|", scale="1 + max|s|")


def derivation():
    # Frobenius bound of one projection: ‖uᵀΔ‖² ≤ ‖u‖²‖Δ‖² (Cauchy–Schwarz), d = 2, r = 1.
    u1, u2, x1, x2 = sp.symbols("u1 u2 x1 x2", real=True)
    gap = (u1**2 + u2**2) * (x1**2 + x2**2) - (u1 * x1 + u2 * x2) ** 2
    return [symbolic.exact("‖u‖²‖Δ‖² − (uᵀΔ)² = (u₁x₂ − u₂x₁)² ≥ 0 (Cauchy–Schwarz, d = 2)",
                           (u1 * x2 - u2 * x1) ** 2, gap, role="derivation")]


def _parts(case):
    q, k, uq, uk, tau = case["q"], case["k"], case["uq"], case["uk"], case["tau"][0].item()
    s_r = operators.metric_scores(q, k, uq=uq, uk=uk, tau=tau, path="direct")
    zq, zk = torch.zeros_like(uq), torch.zeros_like(uk)
    s_e = operators.metric_scores(q, k, uq=zq, uk=zk, tau=tau, path="direct")
    ubar = torch.maximum(uq.square().sum((-1, -2)).amax(-1), uk.square().sum((-1, -2)).amax(-1))
    delta2 = (q[..., :, None, :] - k[..., None, :, :]).square().sum(-1)
    return s_r, s_e, ubar, delta2, tau


def _sv_shift(s, s_other):
    """max_k |σ_k(softmax(s)) − σ_k(softmax(s_other))|."""
    a, b = torch.softmax(s, -1), torch.softmax(s_other, -1)
    return (torch.linalg.svdvals(a) - torch.linalg.svdvals(b)).abs().amax(-1)


def _sv_tol(s, power=1.5):
    return SV_TOL(s.shape[-1] ** power * (1 + s.abs().amax(dim=(-1, -2))), s.dtype)


def entrywise(case, factor=1.0):
    """max_ij |δs_ij| / (Ū²‖Δ_ij‖²/τ) ≤ 1."""
    s_r, s_e, ubar, delta2, tau = _parts(case)
    bound = factor * ubar[:, None, None] * delta2 / tau
    ratio = ((s_r - s_e).abs() / bound.clamp_min(1e-300)).amax(dim=(-1, -2))
    d, r = case["q"].shape[-1], case["uq"].shape[-1]
    return ratio, 0.0 * ratio + 1.0, ENTRY_TOL((d + 2 * r) * (1 + ubar) / ubar.clamp_min(1e-300), ratio.dtype)


def singular_shift(case, factor=1.0):
    s_r, s_e, ubar, delta2, tau = _parts(case)
    return _sv_shift(s_r, s_e), factor * s_r.shape[-1] * ubar * delta2.amax(dim=(-1, -2)) / tau, _sv_tol(s_r)


def any_perturbation(case):
    """Vacuity: max_k |σ_k(softmax(s)) − σ_k(softmax(s + δ))| ≤ L·max_ij|δ_ij| for a perturbation δ
    that is not a metric's at all (Gaussian, scaled like the metric one): Weyl and the 1-Lipschitz
    softmax give this for every perturbation, so the transfer adds nothing to the entrywise bound."""
    s_r, s_e, *_ = _parts(case)
    delta = case["noise"] * (s_r - s_e).abs().amax(dim=(-1, -2), keepdim=True)
    return _sv_shift(s_e + delta, s_e), s_e.shape[-1] * delta.abs().amax(dim=(-1, -2)), _sv_tol(s_e)


def softmax_lipschitz(case):
    """Proof step: ‖softmax(s_i) − softmax(s'_i)‖₂ ≤ ‖s_i − s'_i‖₂ per row (1-Lipschitz)."""
    s_r, s_e, *_ = _parts(case)
    lhs = (torch.softmax(s_r, -1) - torch.softmax(s_e, -1)).norm(dim=-1).amax(-1)
    rhs = (s_r - s_e).norm(dim=-1).amax(-1)
    return lhs, rhs, _sv_tol(s_r, 1)


def weyl(case):
    """Proof step: max_k |σ_k(A_Riem) − σ_k(A_Euc)| ≤ ‖A_Riem − A_Euc‖₂ (Weyl)."""
    s_r, s_e, *_ = _parts(case)
    rhs = torch.linalg.matrix_norm(torch.softmax(s_r, -1) - torch.softmax(s_e, -1), ord=2)
    return _sv_shift(s_r, s_e), rhs, _sv_tol(s_r)


def _sample(ctx, gen):
    batch = ctx.pick(quick=200, full=2000)
    for n, d, r, tau in ((4, 2, 1, 1.0), (8, 4, 2, 2.0), (16, 4, 1, 4.0)):
        scale = sampling.log_uniform(ctx, gen, batch, 1, 1, 1, low=1e-3, high=1.0)
        yield {"q": sampling.gaussian(ctx, gen, batch, n, d), "k": sampling.gaussian(ctx, gen, batch, n, d),
               "uq": scale * sampling.gaussian(ctx, gen, batch, n, d, r),
               "uk": scale * sampling.gaussian(ctx, gen, batch, n, d, r), "tau": ctx.tensor([tau] * batch),
               "noise": sampling.gaussian(ctx, gen, batch, n, n)}
    # the tight family: one rank-1 factor u for every token and Δ ∥ u (the bound is attained)
    n, d = 4, 3
    u = sampling.gaussian(ctx, gen, batch, 1, d, 1)
    q = sampling.gaussian(ctx, gen, batch, n, d)
    k = q - sampling.gaussian(ctx, gen, batch, n, 1, 1)[..., 0] * u[..., 0]
    yield {"q": q, "k": k, "uq": u.expand(batch, n, d, 1).clone(), "uk": u.expand(batch, n, d, 1).clone(),
           "tau": ctx.tensor([1.0] * batch), "noise": sampling.gaussian(ctx, gen, batch, n, n)}


SAMPLER = ("Gaussian q, k, U_t scaled log-uniformly in [1e-3, 1], (L, d, r, τ) ∈ {(4,2,1,1), (8,4,2,2), "
           "(16,4,1,4)}, plus the tight family U_t = u (rank 1, shared) with Δ_ii ∥ u")


def _check(name, lhs, rhs, evaluate, tolerance=SV_TOL, sampler=SAMPLER, **kw):
    return Relation(name=name, lhs=lhs, rel="<=", rhs=rhs, evaluate=evaluate, sample=_sample,
                    tolerance=tolerance, sampler=sampler, **kw)


CLAIMS = (Claim(
    id="riemannian-attention/proposition-3.5", label="Proposition 3.5 (metric perturbation)",
    section="§3.3", statement=STATEMENT, kind="inequality", derivation=derivation, clauses=CLAUSES,
    reading=READING,
    reading_why="the review quotes the ingredients (Ū², Weyl, softmax Lipschitz), not the constants: "
                "this is the bound they give; its L/τ factor is where Conjecture 3.6's τ/L comes from",
    proof_absent="the source only names the ingredients (the Frobenius bound, Weyl's inequality, the "
                 "softmax 1-Lipschitz property); the Weyl, Lipschitz and Cauchy–Schwarz steps checked "
                 "here are the suite's own derivation",
    notes=("The entrywise bound is attained by the tight family (closest relative margin ≈ 0). The "
           "transfer holds for every perturbation of the scores, metric or not (Weyl and the "
           "1-Lipschitz softmax; the vacuity check with Gaussian perturbations), so it adds nothing "
           "to the entrywise bound and reads vacuous; on random instances it is loose by two orders "
           "of magnitude. Ū² here is the running maximum max_t ‖U_t‖_F², not Conjecture 3.6's "
           "critical value (the review's minor comment 1 on the overloaded symbol)."),
    checks=(
        _check("entrywise-bound", "max_ij |δs_ij|/(Ū²‖Δ_ij‖²/τ)", "1", entrywise, tolerance=ENTRY_TOL,
               clause="entrywise", controls=(control("the bound with Ū² halved", contrast="prediction",
                                                     evaluate=lambda c: entrywise(c, 0.5)),)),
        _check("singular-value-transfer", "max_k |σ_k(A_Riem) − σ_k(A_Euc)|", "(L/τ)·Ū²·max‖Δ‖²",
               singular_shift, clause="transfer",
               controls=(control("the bound with Ū² = 0 (no metric effect: any perturbation fails it)",
                                 contrast="setting", evaluate=lambda c: singular_shift(c, 0.0)),)),
        _check("transfer-holds-for-any-perturbation", "max_k |σ_k shift| (Gaussian δ)", "L·max|δ|",
               any_perturbation, sampler=SAMPLER + "; δ Gaussian of the metric perturbation's size",
               role="vacuity", clause="transfer"),
        _check("weyl", "max_k |σ_k(A_Riem) − σ_k(A_Euc)|", "‖A_Riem − A_Euc‖₂", weyl, role="derivation"),
        _check("softmax-lipschitz", "max_i ‖δA_i‖₂", "max_i ‖δs_i‖₂", softmax_lipschitz, role="derivation"),
    ),
),)
