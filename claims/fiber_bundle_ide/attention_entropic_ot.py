"""Fiber-bundle IDE abstract: attention as a Schrödinger bridge (entropic optimal transport). Softmax is
compared with plans that POT (``ot.unbalanced.sinkhorn_unbalanced``, ``ot.sinkhorn``) solves independently,
never through the operator's code path; POT solves one problem per call."""

import warnings

import numpy as np
import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import Claim, Clause, Reading, Relation, control, sampling, symbolic, tolerances

STATEMENT = (r"\text{``The resulting framework yields quantitative predictions spanning entropic "
             r"optimal transport (Attention as a Schr\"odinger bridge)''}")
CLAUSES = (Clause("schrodinger", "quantitative predictions spanning entropic optimal transport (Attention "
                                 "as a Schrödinger bridge)"),)
READING = (
    "For all queries q_i (n), keys k_j (m) in ℝ^d: the softmax attention weights W = softmax(qkᵀ/√d) equal "
    "n·P*, P* the unique solution of the row-constrained entropic OT problem min_{P ≥ 0, P1 = 1/n} ⟨C, P⟩ + "
    "ε·KL(P ‖ (1/n)(1/m)ᵀ) with cost C_ij = −q_i·k_j and ε = √d (the column marginal free).")
READING_WHY = (
    "the abstract gives no formula; softmax rows sum to one while its columns are unconstrained, so the "
    "entropic OT problem it can solve has the source marginal only; cost −q·k and temperature √d are the "
    "standard attention logits (the suite's choice, stated). A static Schrödinger bridge in the strict sense "
    "fixes both marginals (the alternative reading, refuted): softmax cannot meet a column marginal it never "
    "imposes, so the abstract's correspondence can only be the one-sided problem")
ALTERNATIVES = (Reading(
    "two-marginal",
    "The softmax weights equal n·P_S, P_S the two-marginal entropic OT plan (Sinkhorn, both "
    "marginals uniform: the balanced Schrödinger bridge), same cost and ε.",
    "'Schrödinger bridge' usually fixes both marginals (as Sinkformer's doubly stochastic attention)"),)

# Softmax and POT both exponentiate the logits s_ij = q_i·k_j/√d: a rounded logit is off by u|s|,
# so each weight carries a relative error ~u(1 + max|s|) (plus a few u for the normalisation).
TOL = tolerances.Roundoff(condition="1 + max_ij |q_i·k_j|/√d (the logits' rounding through exp); plus "
                          "n × POT's final marginal residual (Sinkhorn stops at a threshold)")
SINKHORN_ITERS = 10_000


def derivation():
    """One query row (three keys stand for any n): KKT of min Σ c_j p_j + ε Σ p_j(log p_j − 1)
    subject to Σ p_j = a."""
    eps, a, lam = sp.symbols("epsilon a lambda", positive=True)
    c = sp.symbols("c1:4", real=True)
    p = sp.symbols("p1:4", positive=True)
    objective = sum(ci * pi + eps * pi * (sp.log(pi) - 1) for ci, pi in zip(c, p, strict=True))
    lagr = objective - lam * (sum(p) - a)
    stationary = sp.solve(sp.diff(lagr, p[0]), p[0])[0]
    unnorm = [sp.exp((lam - ci) / eps) for ci in c]
    plan = [a * u / sum(unnorm) for u in unnorm]
    q_dot_k = sp.symbols("s1:4", real=True)  # s_j = q·k_j, cost c_j = −s_j, ε = √d
    d = sp.Symbol("d", positive=True)
    softmax_1 = sp.exp(q_dot_k[0] / sp.sqrt(d)) / sum(sp.exp(s / sp.sqrt(d)) for s in q_dot_k)
    S = "statement"
    return [
        symbolic.exact("stationarity ∂L/∂p₁ = 0 gives p₁ = exp((λ − c₁)/ε)", stationary, unnorm[0], role=S),
        symbolic.holds("the objective is strictly convex: ∂²/∂p₁² = ε/p₁ > 0 (one minimiser)",
                       sp.Gt(sp.diff(lagr, p[0], 2), 0), role=S),
        symbolic.exact("the row constraint Σ p_j = a fixes λ: p_j = a·e^{−c_j/ε}/Σ_m e^{−c_m/ε}",
                       sp.simplify(plan[0]), a * sp.exp(-c[0] / eps) / sum(sp.exp(-ci / eps) for ci in c),
                       role=S),
        symbolic.exact("with c_j = −q·k_j and ε = √d: p₁/a = softmax₁(q·k/√d)",
                       (plan[0] / a).subs({ci: -si for ci, si in zip(c, q_dot_k, strict=True)}
                                          | {eps: sp.sqrt(d)}),
                       softmax_1, role=S),
    ]


def _plans(q, k, two_marginal: bool):
    """n·P per instance from POT (row marginal a = 1/n; columns free, or b = 1/m), and POT's final
    marginal residual in the units of n·P (0 up to round-off for the row problem: one scaling)."""
    import ot

    out, resid = [], []
    for qi, ki in zip(q.detach().cpu().numpy(), k.detach().cpu().numpy(), strict=True):
        n, m, d = qi.shape[0], ki.shape[0], qi.shape[1]
        a, b, cost = np.full(n, 1.0 / n), np.full(m, 1.0 / m), -(qi @ ki.T)
        # stopThr 1e-15 is below what Sinkhorn reaches in SINKHORN_ITERS on some instances; POT then
        # warns. The residual it stops at joins the tolerance, so the warning says nothing the record
        # does not: silenced here, not globally.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sinkhorn did not converge", category=UserWarning)
            if two_marginal:
                plan = ot.sinkhorn(a, b, cost, np.sqrt(d), numItermax=SINKHORN_ITERS, stopThr=1e-15)
            else:
                plan = ot.unbalanced.sinkhorn_unbalanced(a, b, cost, np.sqrt(d), reg_m=(float("inf"), 0.0),
                                                         numItermax=SINKHORN_ITERS, stopThr=1e-15)
        out.append(plan / a[:, None])
        col = np.abs(plan.sum(0) - b).max() if two_marginal else 0.0
        resid.append(n * max(np.abs(plan.sum(1) - a).max(), col))
    return (torch.as_tensor(np.stack(x), dtype=q.dtype, device=q.device) for x in (out, resid))


def _gap(two_marginal: bool):
    def evaluate(case):
        q, k = case["q"], case["k"]
        plans, resid = _plans(q, k, two_marginal)
        gap = (operators.softmax_weights(q, k) - plans).abs().amax(dim=(-1, -2))
        logits = (q @ k.transpose(-1, -2)).abs().amax(dim=(-1, -2)) / q.shape[-1] ** 0.5
        return gap, torch.zeros_like(gap), TOL(1 + logits, q.dtype) + resid

    return evaluate


def _sample(ctx, gen):
    """Gaussian q (n×d), k (m×d), scaled by log-uniform [0.1, 3] (logits up to ~30);
    (n, m, d) ∈ {(1, 2, 1), (8, 8, 4), (16, 32, 16)}."""
    batch = ctx.pick(quick=40, full=400)
    for n, m, d in ((1, 2, 1), (8, 8, 4), (16, 32, 16)):
        scale = sampling.log_uniform(ctx, gen, batch, 1, 1, low=0.1, high=3.0)
        yield {"q": sampling.gaussian(ctx, gen, batch, n, d) * scale,
               "k": sampling.gaussian(ctx, gen, batch, m, d) * scale}


CLAIMS = (Claim(
    id="fiber-bundle-ide/attention-entropic-ot", label="Attention as a Schrödinger bridge (entropic OT)",
    section="abstract", statement=STATEMENT, reading=READING, reading_why=READING_WHY, clauses=CLAUSES,
    alternatives=ALTERNATIVES, kind="identity", derivation=derivation,
    identity=("the Gibbs variational principle: the entropy-regularised row problem's minimiser is "
              "exp(−c_j/ε)/Σ exp(−c_m/ε), which is softmax by definition at c = −q·k, ε = √d"),
    proof_absent="only the abstract is available; it names the correspondence, not an argument",
    checks=(
        Relation(
            name="softmax-equals-row-ot", lhs="max_ij |softmax(qkᵀ/√d)_ij − n·P*_ij| (P* by POT)", rel="==",
            rhs="0", evaluate=_gap(False), sample=_sample, tolerance=TOL, sampler=_sample.__doc__,
            controls=(control("the two-marginal Sinkhorn plan (POT ot.sinkhorn) in place of the "
                              "row-constrained one", contrast="prediction", evaluate=_gap(True)),)),
        Relation(
            name="softmax-equals-sinkhorn", lhs="max_ij |softmax(qkᵀ/√d)_ij − n·P_S,ij| (P_S by POT)",
            rel="==", rhs="0", evaluate=_gap(True), sample=_sample, tolerance=TOL,
            sampler="the primary check's family", reading="two-marginal"),
    ),
    notes=("The identity is the Gibbs variational principle (softmax is the maximum-entropy row): exact "
           "for the source-marginal problem; doubly stochastic (Sinkhorn) attention is a different "
           "operator unless the softmax columns happen to sum to n/m."),
),)
