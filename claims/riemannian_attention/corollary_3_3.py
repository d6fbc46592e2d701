"""Riemannian attention, Corollary 3.3: identical metric factors give a Gram matrix under one modified
inner product, so the standard rank-collapse analysis applies."""

from __future__ import annotations

import math

import torch

from attnaudit import operators, tolerances
from attnaudit.checks import Claim, Clause, Relation, ScalingLaw, Use, control
from attnaudit.checks.measure import numerical_rank

from ._stacks import below_threshold_depths, below_threshold_mean, family, stack_y

STATEMENT = (r"U_t \equiv U:\ s_{ij} = \tfrac{2}{\tau}\langle q_i, k_j\rangle_G - \tfrac{1}{\tau}\|q_i\|_G^2"
             r" - \tfrac{1}{\tau}\|k_j\|_G^2,\ G = I + UU^\top:\ \text{a Gram matrix under one modified "
             r"inner product; standard rank-collapse analysis applies.}")
CLAUSES = (Clause("gram", "when all metric factors are identical, the Riemannian scores reduce to a "
                          "Gram matrix under a global modified inner product"),
           Clause("collapse-applies", "the known doubly-exponential rank-collapse analysis applies "
                                      "unchanged"))
READING = (
    "With U_t = U for all tokens (G = I + UUᵀ): (i) the row-softmax attention equals the softmax "
    "of a Gram matrix Q̃K̃ᵀ of (d+1)-dimensional vectors q̃_i = (q_i, 1), "
    "k̃_j = ((2/τ)Gk_j, −‖k_j‖²_G/τ) (the row term −‖q_i‖²_G/τ cancels); (ii) the score matrix has "
    "rank ≤ d + 2 (no growth with the metric); (iii) pure attention stacks with this metric "
    "collapse doubly exponentially as Dong et al.'s bound says: order at least 3 per layer below the "
    "threshold, −log ρ_l growing at least like 3^l (one-sided, as the bound is)."
)

TOL = tolerances.Roundoff(condition="(n + 4)(1 + max|s|): scores of size max|s| rounded, an n-term "
                                    "softmax normaliser")
EXACT = tolerances.Exact("integer ranks (singular values above σ₁·max(m, n)·ε)")
N_TOKENS, DEPTH, Y_MIN, STACKS, REPLICATES = 32, 24, 200.0, 48, 4
# y_{l+1} = 3·y_l − log C_l with O(1) offsets |B| ≲ 5: from y ≥ 200 the local rate differs from
# log 3 by ≤ (5/200)(1 − 1/3) at the first fitted depth (as in rank-collapse/doubly-exponential).
RATE_TOL = tolerances.FitBias(
    5.0 / Y_MIN * (1 - 1 / 3), "y = A·3^l − B with |B| ≤ 5 (the O(1) per-layer offsets log C_l) on "
    "depths with y ≥ 200: its local rate at the first fitted depth", margin=1.0)


def _case_scores(case, heterogeneous=False):
    u = case["u_het"] if heterogeneous else case["u"]
    return operators.metric_scores(case["q"], case["k"], uq=u, uk=u, tau=case["tau"][0].item(), path="direct")


def gram_form(case, heterogeneous=False):
    """max|softmax(S) − softmax(Q̃K̃ᵀ)| with q̃ = (q, 1), k̃ = ((2/τ)Gk, −‖k‖²_G/τ), G from U."""
    tau, q, k = case["tau"][0].item(), case["q"], case["k"]
    s = _case_scores(case, heterogeneous)
    g = operators.metric_from_factors(case["u"][:, 0])             # the (shared) factor's metric
    gk = torch.einsum("bde,bje->bjd", g, k)
    qt = torch.cat([q, torch.ones_like(q[..., :1])], -1)
    kt = torch.cat([2 * gk / tau, -(k * gk).sum(-1, keepdim=True) / tau], -1)
    gap = (torch.softmax(s, -1) - torch.softmax(qt @ kt.transpose(-1, -2), -1)).abs().amax(dim=(-1, -2))
    return gap, 0.0 * gap, TOL((s.shape[-1] + 4) * (1 + s.abs().amax(dim=(-1, -2))), s.dtype)


def score_rank(case, heterogeneous=False):
    scores = _case_scores(case, heterogeneous)
    rank = numerical_rank(scores)[0].to(scores.dtype)
    return rank, torch.full_like(rank, float(case["q"].shape[-1] + 2)), 0.0


def _sample(ctx, gen):
    """Gaussian q, k, one shared Gaussian U ∈ R^{d×2}, n = (d+1)(d+2) + 12 tokens, (d, τ) ∈ {(2,1),
    (4,2), (6,4)}"""
    batch = ctx.pick(quick=20, full=200)
    for d, tau in ((2, 1.0), (4, 2.0), (6, 4.0)):
        n = (d + 1) * (d + 2) + 12
        q, k, u, _ = family(ctx, gen, "homogeneous", batch, n, d)
        _, _, u_het, _ = family(ctx, gen, "full", batch, n, d)
        yield {"q": q, "k": k, "u": u, "u_het": u_het, "tau": torch.full((batch,), tau, dtype=q.dtype)}


def _y(ctx, homogeneous=True):
    return ctx.cached(("y", homogeneous), lambda: stack_y(
        ctx, f"cor:{homogeneous}", batch=ctx.pick(quick=STACKS, full=2 * STACKS), n=N_TOKENS,
        depth=DEPTH, kind="distance", strength=1.0, homogeneous=homogeneous))


def _grid(ctx, homogeneous=True):
    """Depths from the first at which half of the run's stacks have y ≥ 200 to the last."""
    return below_threshold_depths(_y(ctx, homogeneous), Y_MIN)


def _collapse(ctx, grid, homogeneous=True):
    """Mean over a batch of fresh random stacks (one shared metric, Haar weights per layer) of
    y_l = −log ρ_l at the grid's depths, every layer computed in full, over the stacks with
    y ≥ 200 at the grid's first depth."""
    return below_threshold_mean(_y(ctx, homogeneous), grid, Y_MIN)


HET = "heterogeneous per-token factors U_t in place of the shared U"
IDENTICAL = "all metric factors identical"

CLAIMS = (Claim(
    id="riemannian-attention/corollary-3.3", label="Corollary 3.3 (homogeneous metrics)", section="§3.2",
    statement=STATEMENT, kind="identity", clauses=CLAUSES, reading=READING,
    no_derivation="an algebraic consequence of the expansion checked in equation-28 and theorem-3.2",
    proof_absent="the review quotes the consequence, not an argument",
    uses=(Use("rank-collapse/doubly-exponential",
              "the known doubly-exponential rank-collapse analysis applies unchanged"),),
    reading_why="the corollary's two assertions, 'Gram under a modified inner product' made exact "
                "(the key-norm column it needs) and 'rank-collapse analysis applies' made measurable",
    notes=("The Gram form needs one extra coordinate for the key-norm penalty −‖k_j‖²_G/τ (the "
           "review's Eq. (28) point); otherwise it is standard attention with W_Q, W_K multiplied "
           f"by a square root of G. Stack: L = {N_TOKENS}, d = 4, τ = 2, Haar W per layer, "
           "E‖U‖_F² = 1; the depth-wise plot pairs with conjecture-3.4's (heterogeneous metrics)."),
    checks=(
        Relation(name="gram-form", lhs="max|softmax(S) − softmax(Q̃K̃ᵀ)|", rel="<=", rhs="0",
                 evaluate=gram_form, sample=_sample, tolerance=TOL, clause="gram",
                 controls=(control(HET, contrast="hypothesis", hypothesis=IDENTICAL,
                                   evaluate=lambda c: gram_form(c, True)),)),
        Relation(name="score-rank", lhs="numerical rank of S", rel="<=", rhs="d + 2", evaluate=score_rank,
                 sample=_sample, tolerance=EXACT, clause="gram",
                 controls=(control(HET, contrast="hypothesis", hypothesis=IDENTICAL,
                                   evaluate=lambda c: score_rank(c, True)),)),
        ScalingLaw(name="collapse-rate", quantity="−log ρ_l (relative res(X_l))", variable="l",
                   exponent=math.log(3.0), order="Ω", law="exponential", grid=_grid, measure=_collapse,
                   family=f"random pure attention stacks with one shared metric, L = {N_TOKENS}, d = 4, "
                          f"τ = 2, E‖U‖_F² = 1; each of {REPLICATES} replicates the mean over a batch of "
                          "fresh stacks",
                   predicted="Ω(exp(log 3 · l)): −log ρ_l grows at least like 3^l", tolerance=RATE_TOL,
                   replicates=REPLICATES, clause="collapse-applies",
                   controls=(control(HET + " (per position, fixed over depth)", contrast="hypothesis",
                                     hypothesis=IDENTICAL, grid=lambda ctx: _grid(ctx, False),
                                     measure=lambda ctx, g: _collapse(ctx, g, False)),)),
    ),
),)
