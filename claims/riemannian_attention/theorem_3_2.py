"""Riemannian attention, Theorem 3.2: heterogeneous per-token metrics make the scores non-Gram."""

from __future__ import annotations

import sympy as sp

from attnaudit.checks import Claim, Kind, Reading, Relation, control, symbolic, tolerances

STATEMENT = (
    r"s_{ij} = -(q_i-k_j)^\top g_{ij}(q_i-k_j)/\tau,\ g_t = I + U_tU_t^\top:\ \text{no universal "
    r"factorisation } s_{ij} = \phi_i^\top\psi_j \text{ with } \dim = O(d);\ "
    r"d' \ge \min\{\dim\operatorname{span}\{U_tU_t^\top\},\ d(d+1)/2\},\ \text{tight at } d^2 "
    r"\text{ by vectorisation}"
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
                           "d(d+1)/2 between the metric and the other token", vec, quad, role="proof")]


def _scores(q, k, u):
    from attnaudit import operators

    return operators.metric_scores(q, k, uq=u, uk=u, tau=1.0, path="direct")


def _cases(ctx, gen, kinds):
    import torch

    batch = ctx.pick(quick=3, full=20)
    for d in DIMS:
        n = (d + 1) * (d + 2) + 12
        for kind in kinds:
            q, k, u, span = _family(ctx, gen, kind, batch, n, d)
            yield {"q": q, "k": k, "u": u, "span": torch.full((batch,), float(span), dtype=q.dtype)}


def _family(*args):
    from attnaudit.claims.riemannian_attention._ranks import family

    return family(*args)


def rank_vs_bound(case, bound="paper"):
    import torch

    from attnaudit.checks.measure import numerical_rank

    scores = _scores(case["q"], case["k"], case["u"])
    rank = numerical_rank(scores)[0].to(scores.dtype)
    d = case["q"].shape[-1]
    sym = d * (d + 1) / 2
    if bound == "paper":
        rhs = torch.minimum(case["span"], torch.full_like(rank, sym))
    elif bound == "sym":          # Ω(d²) whatever the family (the control / the review's reading)
        rhs = torch.full_like(rank, sym)
    elif bound == "d":
        rhs = torch.full_like(rank, float(d))
    else:                         # d + 3: one more than the homogeneous rank d + 2
        rhs = torch.full_like(rank, float(d + 3))
    return rank, rhs, torch.zeros_like(rank)


def factorisation_gap(case, quadratic=True):
    """max|D − φψᵀ| for the explicit vectorised factorisation (dimension 2d² + 2d + 2)."""
    import torch

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
    fact = torch.einsum("bif,bjf->bij", torch.cat(phi, -1), torch.cat(psi, -1))
    direct = -_scores(q, k, u)
    gap = (direct - fact).abs().amax(dim=(-1, -2))
    norm = q.norm(dim=-1)[:, :, None] + k.norm(dim=-1)[:, None, :]
    size = (norm.square() * (1 + u.square().sum((-1, -2))[:, :, None] + u.square().sum((-1, -2))[:, None, :]))
    d = q.shape[-1]
    return gap, 0.0 * gap, FACT_TOL(2 * d * d + 3 * d + 2, q.dtype) * size.amax(dim=(-1, -2))


def _s(kinds):
    return lambda ctx, gen: _cases(ctx, gen, kinds)


SAMPLER = ("Gaussian q, k and U_t ∈ R^{d×2} for n = (d+1)(d+2) + 12 tokens, d = 2…8; families: "
           "independent U_t (span Sym(d)), two factors (span 2), one factor (span 1)")

CLAIMS = (Claim(
    id="riemannian-attention/theorem-3.2", label="Theorem 3.2 (non-Gram scores)", section="§3.2",
    statement=STATEMENT, kind=Kind.INEQUALITY, derivation=derivation,
    reading=(
        "Universal sense: a factorisation s_ij = φ(q_i, U_i)ᵀψ(k_j, U_j) valid for all tokens of a "
        "metric family must have dimension d' ≥ min{dim span{U_tU_tᵀ}, d(d+1)/2} (so Ω(d²) when "
        "the factors span Sym(d)), and one of dimension O(d²) exists. Every score matrix of "
        "the family has rank ≤ d', so a measured numerical rank ≥ the bound certifies it for that "
        "d; the explicit vectorised factorisation (dimension 2d² + 2d + 2; (d+1)(d+2) with "
        "half-vectorisation) shows tightness up to the constant."
    ),
    reading_why="the review's restatement in the universal, fixed-functional-form sense (its major "
                "comment 2), which is the setting of the paper's own proof",
    alternatives=(
        Reading("nonconstant-family",
                "As literally premised: whenever span{U_tU_tᵀ} has dimension ≥ 2 (a non-constant "
                "family), no O(d)-dimensional factorisation exists (d' ≥ d(d+1)/2).",
                "the theorem's stated premise, which the review says overclaims"),
        Reading("euclidean-part",
                "Even with homogeneous metrics the minimal dimension is ≥ d (the Euclidean "
                "−‖q_i − k_j‖² part alone needs the d-dimensional dot product).",
                "the review's second objection to Eq. (7)"),
    ),
    proof_absent="the source quotes the proof's idea (the quadratic sub-terms ‖U_iᵀk_j‖², "
                 "‖U_jᵀq_i‖² and vectorisation), not the proof",
    notes=("Measured ranks (quick seed, d = 2…8) are exactly (d+1)(d+2) for independent factors, "
           "d + 8 (d ≥ 4) for two rank-2 factors and d + 2 for one factor: row and column terms, "
           "the cross terms (2q_i + A_iq_i)ᵀk_j and q_iᵀA_jk_j, and the pairings k_jᵀA_ik_j, "
           "q_iᵀA_jq_i of dimension ≤ min(span, d(d+1)/2) each. The suite agrees "
           "with the review on both objections: a span of 2 gives rank O(d) (the 'nonconstant-family' "
           "reading is refuted for d ≥ 6), and homogeneous metrics need ≥ d. The growth in d is "
           "given exactly (rank (d+1)(d+2), pinned by the test for d = 3, 6) rather than fitted: "
           "the engine's 3-decade fit in d would need L ≥ d² ≈ 10⁶ tokens per score matrix."),
    checks=(
        Relation(name="rank-lower-bound", lhs="numerical rank of S", rel=">=",
                 rhs="min{dim span{U_tU_tᵀ}, d(d+1)/2}", evaluate=rank_vs_bound,
                 sample=_s(("full", "two", "homogeneous")), tolerance=EXACT, sampler=SAMPLER,
                 controls=(control("homogeneous metrics held to the full-span bound d(d+1)/2",
                                   evaluate=lambda c: rank_vs_bound(c, "sym"),
                                   sample=_s(("homogeneous",))),)),
        Relation(name="vectorised-factorisation", lhs="max|D − φψᵀ|", rel="<=", rhs="0",
                 evaluate=factorisation_gap, sample=_s(("full",)), tolerance=FACT_TOL, sampler=SAMPLER,
                 controls=(control("the O(d) factorisation (no vectorised blocks)",
                                   evaluate=lambda c: factorisation_gap(c, False)),)),
        Relation(name="nonconstant-needs-sym", lhs="numerical rank of S", rel=">=", rhs="d(d+1)/2",
                 evaluate=lambda c: rank_vs_bound(c, "sym"), sample=_s(("two",)), tolerance=EXACT,
                 sampler=SAMPLER + " (two factors only)", reading="nonconstant-family"),
        Relation(name="homogeneous-needs-d", lhs="numerical rank of S", rel=">=", rhs="d",
                 evaluate=lambda c: rank_vs_bound(c, "d"), sample=_s(("homogeneous",)), tolerance=EXACT,
                 sampler=SAMPLER + " (one factor only)", reading="euclidean-part",
                 controls=(control("bound d + 3", evaluate=lambda c: rank_vs_bound(c, "d+3")),)),
    ),
),)
