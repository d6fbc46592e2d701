"""Riemannian attention, Theorem 3.2: heterogeneous per-token metrics make the scores non-Gram."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit import operators, symbolic, tolerances
from attnaudit.checks import Claim, Clause, Reading, Relation, control
from attnaudit.checks.measure import numerical_rank
from attnaudit.claims.riemannian_attention._stacks import family

STATEMENT = (
    r"s_{ij} = -(q_i-k_j)^\top g_{ij}(q_i-k_j)/\tau,\ g_t = I + U_tU_t^\top:\ \text{no universal "
    r"factorisation } s_{ij} = \phi_i^\top\psi_j \text{ with } \dim = O(d);\ "
    r"d' \ge \min\{\dim\operatorname{span}\{U_tU_t^\top\},\ d(d+1)/2\},\ \text{tight at } d^2 "
    r"\text{ by vectorisation}"
)
CLAUSES = (
    Clause("no-linear-factorisation",
           "with heterogeneous per-token metrics $g_t = I + U_t U_t^\\top$, the Riemannian attention "
           "scores $s_{ij}^{\\mathrm{Riem}} = -(q_i-k_j)^\\top g_{ij}(q_i-k_j)/\\tau$ cannot be factorized "
           "as $\\phi_i^\\top \\psi_j$ with factors of dimension $O(d)$"),
    Clause("span-bound",
           "any universal factorization needs dimension at least $\\min\\{\\dim\\mathrm{span}\\,"
           "\\{U_tU_t^\\top\\}_t,\\ d(d+1)/2\\}$"),
    Clause("quadratic-when-full-span",
           "which is $\\Omega(d^2)$ when the metric factors span the symmetric matrices"),
    Clause("tight", "it shows the bound is tight because vectorization separates the score at "
                    "dimension $d^2$"),
)
READING = (
    "As stated: (i) heterogeneous per-token metrics — the premise, as the review quotes it, is a "
    "family {U_tU_tᵀ} spanning a subspace of Sym(d) of dimension ≥ 2 — admit no universal "
    "factorisation s_ij = φ(q_i, U_i)ᵀψ(k_j, U_j) of dimension O(d); tested on a span-2 family "
    "(each token one of two rank-2 factors): its score matrices must then have rank ≥ d(d+1)/2; "
    "(ii) any universal factorisation has dimension ≥ min{dim span{U_tU_tᵀ}, d(d+1)/2}: every "
    "score matrix has rank ≤ d', so a measured rank ≥ the bound certifies it for that family and "
    "d; (iii) Ω(d²) (rank ≥ d(d+1)/2) when the factors span Sym(d); (iv) a vectorised "
    "factorisation of dimension O(d²) exists (2d² + 2d + 2 here)."
)

DIMS = (2, 3, 4, 5, 6, 7, 8)
EXACT = tolerances.Exact("integer ranks (singular values above σ₁·max(m, n)·ε)")
# φ·ψ sums 2d² + 2d + 2 products of terms of size ≤ (‖q‖ + ‖k‖)²(1 + ‖U_i‖² + ‖U_j‖²).
FACT_TOL = tolerances.Roundoff(condition="2d² + 3d + 2 products, relative to max_ij (‖q_i‖ + ‖k_j‖)²"
                                         "(1 + ‖U_i‖_F² + ‖U_j‖_F²)", scale="that size")


def derivation():
    # ½k_jᵀA_ik_j = ½⟨vec A_i, vec k_jk_jᵀ⟩ (d = 2): the term behind the d(d+1)/2 bound.
    a11, a12, a22, k1, k2 = sp.symbols("a11 a12 a22 k1 k2", real=True)
    quad = (sp.Matrix([[k1, k2]]) * sp.Matrix([[a11, a12], [a12, a22]]) * sp.Matrix([k1, k2]))[0]
    vec = a11 * k1**2 + 2 * a12 * k1 * k2 + a22 * k2**2
    return [symbolic.exact("kᵀA k = ⟨vec A, vec kkᵀ⟩ (d = 2): a bilinear pairing of dimension "
                           "d(d+1)/2 between the metric and the other token", vec, quad,
                           role="derivation")]


def _scores(q, k, u):
    return operators.metric_scores(q, k, uq=u, uk=u, tau=1.0, path="direct")


def _s(*kinds):
    def sample(ctx, gen):
        batch = ctx.pick(quick=3, full=20)
        for d in DIMS:
            for kind in kinds:
                q, k, u, span = family(ctx, gen, kind, batch, (d + 1) * (d + 2) + 12, d)
                yield {"q": q, "k": k, "u": u, "span": torch.full((batch,), float(span), dtype=q.dtype)}
    return sample


def rank_vs_bound(case, bound="paper"):
    scores = _scores(case["q"], case["k"], case["u"])
    rank = numerical_rank(scores)[0].to(scores.dtype)
    d = case["q"].shape[-1]
    sym = torch.full_like(rank, d * (d + 1) / 2)
    if bound == "paper":
        rhs = torch.minimum(case["span"], sym)
    elif bound == "sym":          # Ω(d²) whatever the family (the control / the review's reading)
        rhs = sym
    else:                         # d, or d + 3: one more than the homogeneous rank d + 2
        rhs = torch.full_like(rank, float(d + 3 if bound == "d+3" else d))
    return rank, rhs, 0.0


def _factor_gap(case, phi, psi):
    """max|D − φψᵀ| per case, and (‖q_i‖ + ‖k_j‖)² per pair."""
    q, k, u = case["q"], case["k"], case["u"]
    gap = (-_scores(q, k, u) - torch.einsum("bif,bjf->bij", phi, psi)).abs().amax(dim=(-1, -2))
    return gap, (q.norm(dim=-1)[:, :, None] + k.norm(dim=-1)[:, None, :]).square()


def factorisation_gap(case, quadratic=True):
    """max|D − φψᵀ| for the explicit vectorised factorisation (dimension 2d² + 2d + 2)."""
    q, k, u = case["q"], case["k"], case["u"]
    a = u @ u.transpose(-1, -2)                                   # (B, n, d, d)
    aq = torch.einsum("btde,bte->btd", a, q)
    ak = torch.einsum("btde,bte->btd", a, k)
    row = q.square().sum(-1) + 0.5 * (q * aq).sum(-1)
    col = k.square().sum(-1) + 0.5 * (k * ak).sum(-1)
    one = torch.ones_like(row)
    phi = [row[..., None], one[..., None], -2 * q - aq, -q]
    psi = [one[..., None], col[..., None], k, ak]
    if quadratic:
        phi += [0.5 * a.flatten(-2), 0.5 * (q[..., :, None] * q[..., None, :]).flatten(-2)]
        psi += [(k[..., :, None] * k[..., None, :]).flatten(-2), a.flatten(-2)]
    gap, norm2 = _factor_gap(case, torch.cat(phi, -1), torch.cat(psi, -1))
    size = norm2 * (1 + u.square().sum((-1, -2))[:, :, None] + u.square().sum((-1, -2))[:, None, :])
    d = q.shape[-1]
    return gap, 0.0 * gap, FACT_TOL(2 * d * d + 3 * d + 2, q.dtype) * size.amax(dim=(-1, -2))


def span_two_gap(case):
    """max|D − φψᵀ| for a universal factorisation of dimension 3d + 6 valid for every token of a
    span-2 family (each A_t = U_tU_tᵀ one of A = U_0U_0ᵀ, B = U_1U_1ᵀ, tokens arbitrary):
    D = [‖q‖² + ½qᵀA_iq]·1 + 1·[‖k‖² + ½kᵀA_jk] − (2q + A_iq)ᵀk − α_j(Aq)ᵀk − β_j(Bq)ᵀk
    + ½α_i kᵀAk + ½β_i kᵀBk + ½α_j qᵀAq + ½β_j qᵀBq, with (α_t, β_t) the indicator of A_t."""
    q, k, u = case["q"], case["k"], case["u"]
    a_t = u @ u.transpose(-1, -2)                                 # (B, n, d, d)
    big_a, big_b = a_t[:, :1], a_t[:, 1:2]                        # the family's two metrics
    alpha = (a_t == big_a).flatten(-2).all(-1).to(q.dtype)        # (B, n)
    beta = 1.0 - alpha
    aq_i = torch.einsum("btde,bte->btd", a_t, q)
    ak_j = torch.einsum("btde,bte->btd", a_t, k)
    aq, bq = (torch.einsum("bde,bte->btd", m[:, 0], q) for m in (big_a, big_b))
    ka, kb = (torch.einsum("btd,bde,bte->bt", k, m[:, 0], k) for m in (big_a, big_b))
    qa, qb = (q * aq).sum(-1), (q * bq).sum(-1)
    one = torch.ones_like(alpha)
    phi = [(q.square().sum(-1) + 0.5 * (q * aq_i).sum(-1))[..., None], one[..., None], -(2 * q + aq_i),
           -aq, -bq, 0.5 * alpha[..., None], 0.5 * beta[..., None], 0.5 * qa[..., None], 0.5 * qb[..., None]]
    psi = [one[..., None], (k.square().sum(-1) + 0.5 * (k * ak_j).sum(-1))[..., None], k,
           alpha[..., None] * k, beta[..., None] * k, ka[..., None], kb[..., None], alpha[..., None],
           beta[..., None]]
    phi, psi = torch.cat(phi, -1), torch.cat(psi, -1)
    d = q.shape[-1]
    assert phi.shape[-1] == 3 * d + 6
    gap, norm2 = _factor_gap(case, phi, psi)
    size = norm2 * (1 + 2 * u.square().sum((-1, -2)).amax(-1)[:, None, None])
    return gap, 0.0 * gap, FACT_TOL(3 * d + 8, q.dtype) * size.amax(dim=(-1, -2))


SAMPLER = ("Gaussian q, k and U_t ∈ R^{d×2} for n = (d+1)(d+2) + 12 tokens, d = 2…8; families: "
           "independent U_t (span Sym(d)), two factors (span 2), one factor (span 1)")
ONLY = {("two",): " (two factors only)", ("full",): " (independent factors only)",
        ("homogeneous",): " (one factor only)"}
HOMOGENEOUS = "homogeneous metrics (one factor for all tokens: span 1) held to the full-span bound d(d+1)/2"


def _check(name, lhs, rhs, kinds, evaluate, tolerance=EXACT, rel=">=", sampler=None, **kw):
    return Relation(name=name, lhs=lhs, rel=rel, rhs=rhs, evaluate=evaluate, sample=_s(*kinds),
                    tolerance=tolerance, sampler=sampler or SAMPLER + ONLY.get(kinds, ""), **kw)


def _homogeneous(hypothesis, **changes):
    return (control(HOMOGENEOUS, contrast="hypothesis", hypothesis=hypothesis, sample=_s("homogeneous"),
                    **changes),)


CLAIMS = (Claim(
    id="riemannian-attention/theorem-3.2", label="Theorem 3.2 (non-Gram scores)", section="§3.2",
    statement=STATEMENT, kind="inequality", derivation=derivation, clauses=CLAUSES, reading=READING,
    alternatives=(
        Reading("full-span",
                "The review's repair: restated in the universal, fixed-functional-form sense with the "
                "full-span condition explicit — when {U_tU_tᵀ} spans Sym(d) the minimal universal "
                "factorisation dimension is ≥ d(d+1)/2 = Ω(d²), and O(d²) is attained.",
                "the referee's corrected statement (major comment 2); clause (i)'s premise dropped"),
        Reading("euclidean-part",
                "Even with homogeneous metrics the minimal dimension is ≥ d (the Euclidean "
                "−‖q_i − k_j‖² part alone needs the d-dimensional dot product).",
                "the review's second objection to Eq. (7)"),
    ),
    proof_absent="the source names the proof's ingredients (the quadratic sub-terms ‖U_iᵀk_j‖², "
                 "‖U_jᵀq_i‖² and vectorisation), not the argument",
    notes=("Measured ranks (quick seed, d = 2…8) are exactly (d+1)(d+2) for independent factors, "
           "d + 8 (d ≥ 4) for two rank-2 factors and d + 2 for one factor: row and column terms, "
           "the cross terms (2q_i + A_iq_i)ᵀk_j and q_iᵀA_jk_j, and the pairings k_jᵀA_ik_j, "
           "q_iᵀA_jq_i of dimension ≤ min(span, d(d+1)/2) each. Clause (i) is false: a span-2 family "
           "has rank d + 8 < d(d+1)/2 from d = 5, and the explicit universal factorisation "
           "(span-two-factorisation, dimension 3d + 6 whatever the factors' rank, exact on every "
           "token) is O(d). With the full-span premise (the review's repair, reading 'full-span') the "
           "bound holds. Homogeneous metrics need ≥ d (the review's second objection). The growth in "
           "d is given exactly (rank (d+1)(d+2), pinned by the test for d = 3, 6) rather than fitted: "
           "the engine's 3-decade fit in d would need L ≥ d² ≈ 10⁶ tokens per score matrix."),
    checks=(
        _check("heterogeneous-needs-sym", "numerical rank of S (span-2 family)", "d(d+1)/2", ("two",),
               lambda c: rank_vs_bound(c, "sym"), clause="no-linear-factorisation"),
        _check("span-two-factorisation", "max|D − φψᵀ| (dimension 3d + 6)", "0", ("two",), span_two_gap,
               FACT_TOL, "<=", role="derivation"),
        _check("rank-lower-bound", "numerical rank of S", "min{dim span{U_tU_tᵀ}, d(d+1)/2}",
               ("full", "two", "homogeneous"), rank_vs_bound, clause="span-bound",
               controls=_homogeneous("the span of {U_tU_tᵀ} enters the bound",
                                     evaluate=lambda c: rank_vs_bound(c, "sym"))),
        _check("full-span-needs-sym", "numerical rank of S (full span)", "d(d+1)/2", ("full",),
               lambda c: rank_vs_bound(c, "sym"), clause="quadratic-when-full-span",
               controls=_homogeneous("the factors span Sym(d)")),
        _check("vectorised-factorisation", "max|D − φψᵀ|", "0", ("full",), factorisation_gap, FACT_TOL, "<=",
               sampler=SAMPLER, clause="tight",
               controls=(control("the O(d) factorisation (no vectorised blocks) in its place",
                                 contrast="prediction", evaluate=lambda c: factorisation_gap(c, False)),)),
        _check("repaired-full-span-needs-sym", "numerical rank of S (full span)", "d(d+1)/2", ("full",),
               lambda c: rank_vs_bound(c, "sym"), reading="full-span",
               controls=_homogeneous("the factors span Sym(d)")),
        _check("homogeneous-needs-d", "numerical rank of S", "d", ("homogeneous",),
               lambda c: rank_vs_bound(c, "d"), reading="euclidean-part",
               controls=(control("bound d + 3", contrast="prediction",
                                 evaluate=lambda c: rank_vs_bound(c, "d+3")),)),
    ),
),)
