"""Lemma 2.4 for softmax: L_soft = O(n·L_W²R²/√d), and the proof's Step 5 (where "the linear n
scaling for softmax" comes from)."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from attnaudit import operators, sampling, symbolic, tolerances
from attnaudit.checks import Clause, ProofStep, Relation, ScalingLaw, control, grids, search
from attnaudit.claims.georesolver import _jacobians as jac

from . import _common as lemma

STATEMENT = lemma.LEMMA_PREAMBLE + (
    r"\;\text{(Proof, Step 5: } \frac{\partial W_{ij}}{\partial q_i}=\frac{1}{\sqrt{d_h}}W_{ij}"
    r"\big(k_j-\sum_mW_{im}k_m\big)\text{; thus } \sum_j\|\partial W_{ij}/\partial q_i\|_2\le"
    r"\frac{1}{\sqrt{d_h}}\sum_jW_{ij}\|k_j-\bar k_i\|_2\le\frac{2R}{\sqrt{d_h}}\sum_jW_{ij}"
    r"=\frac{2nR}{\sqrt{d_h}}. \text{ This gives the linear } n \text{ scaling for softmax.)}"
)
CLAUSES = (Clause("softmax-bound", "Lsoft=(n⋅LW2R2/d)"),)
PROOF_STEPS = (
    ProofStep("derivative", "The derivative is: ∂Wij∂i=1dhWij(j−∑mWimm)."),
    ProofStep("first-inequality", "Thus: ∑j=1n‖∂Wij∂i‖2≤1dh∑j=1nWij‖j−¯i‖2"),
    ProofStep("spread-bound", "‖j−¯i‖2≤2Rdh∑j=1nWij"),
    ProofStep("sum-to-n", "2Rdh∑j=1nWij=2nRdh"),
    ProofStep("linear-n", "This gives the linear n scaling for softmax."),
)
READING = (f"Quantity: {lemma.QUANTITY}, for softmax attention with scale 1/√d, over ‖q_i‖, ‖k_m‖ ≤ R and "
           "‖v_j‖ ≤ L_V. Statement: L_soft = O(n L_W²R²/√d), i.e. the worst case grows at most like n "
           "(d fixed) and decays at least like d^(−1/2) (n fixed).")
N_FREE = ("sup ‖∂o_i/∂q_i‖₂ over ‖q_i‖, ‖k_m‖ ≤ R, ‖v_j‖ ≤ L_V equals L_V·R/√d "
          "for every even n: no growth in n at all.")

D_VALUE, EPS, R_BOUND, V_BOUND = lemma.D_VALUE, lemma.EPS, lemma.R_BOUND, lemma.V_BOUND
D_SOFT, N_FOR_D_SWEEP = 4, 8  # key/query dimension of the n-sweep; n of the d-sweep
D_GRID = grids.log_integer_grid(1, 1000, quick=4, full=7)
n_sym, R_sym = sp.symbols("n R", positive=True)


def _ball_search(ctx, n, dim):
    """Projected Adam on softmax's ‖∂o/∂q‖ over ‖q‖, ‖k_m‖ ≤ R, ‖v_j‖ ≤ L_V at (n, d)."""
    gen = ctx.generator(f"softmax-search:n={n}:d={dim}")
    batch = ctx.pick(quick=6, full=32)
    radii = lambda *shape: torch.rand(*shape, 1, generator=gen, dtype=ctx.dtype, device=ctx.device)  # noqa: E731
    q = sampling.unit_vectors(ctx, gen, batch, dim) * radii(batch) * R_BOUND
    k = sampling.unit_vectors(ctx, gen, batch, n, dim) * radii(batch, n).sqrt() * R_BOUND
    project = lambda q, k, v: tuple(jac.project_ball(x, b)  # noqa: E731
                                    for x, b in ((q, R_BOUND), (k, R_BOUND), (v, V_BOUND)))
    q, k, v, searched = jac.ascend(lemma.attend("softmax"), q, k, lemma.values_in_ball(ctx, gen, batch, n),
                                   project=project, steps=ctx.pick(quick=20, full=80), lr=(0.2, 0.2, 0.1))
    return {"q": q, "k": k, "v": v}, float(searched.max())


def _ball_constructions(ctx, n, dim, op="softmax"):
    """The largest norm through ``op`` of the two-group constructions at a = R and a = min(√ε, R)."""
    eps = lemma.full(ctx, 1, EPS)
    built = [jac.two_group_construction(1, n, dim, D_VALUE, a, V_BOUND, dtype=ctx.dtype, device=ctx.device)
             for a in (R_BOUND, min(math.sqrt(EPS), R_BOUND))]
    return max(float(lemma.jacobian_norm(op, *b, eps)[0]) for b in built)


# The worst case over the balls at (n, d): searched once per run.
BALL_WORST = search.WorstCase("ball", _ball_search, _ball_constructions)


def ida_on_ball_worst(ctx, grid):
    """The control's measure: the largest norm through IDA (ε = EPS) on the softmax search's end
    points and constructions at (N_FOR_D_SWEEP, d)."""
    def worst(dim):
        case = BALL_WORST.at(ctx, N_FOR_D_SWEEP, dim).case
        eps = lemma.full(ctx, len(case["q"]), EPS)
        searched = float(lemma.jacobian_norm("ida", case["q"], case["k"], case["v"], eps).max())
        return max(searched, _ball_constructions(ctx, N_FOR_D_SWEEP, dim, "ida"))

    return np.array([worst(int(d)) for d in grid])


def sample_softmax_constructions(ctx, gen):
    """Two-group constructions q = 0, keys n/2 at ±R·e₁, values ±L_V·e₁: (n, d) ∈ {(2, 1), (64, 4),
    (1024, 16), (8, 1000)}; R log-uniform in [1e-2, 1e2]."""
    batch = ctx.pick(quick=4, full=16)
    for n, dim in ((2, 1), (64, 4), (1024, 16), (8, 1000)):
        yield {"n": n, "d": dim, "eps": lemma.full(ctx, batch, EPS),
               "a": sampling.log_uniform(ctx, gen, batch, low=1e-2, high=1e2)}


def sample_softmax_searched(ctx, gen):
    """The instances the n- and d-sweeps' searches ended on (n ≤ 2048), then random ones. Random: n ∈ {1, 2,
    3, 8, 64}, d ∈ {1, 4, 32}: q and keys Gaussian × a log-uniform scale in [1e-2, 1e2] per instance, values
    in the L_V-ball (weight-gradient-formula: a Gaussian probe U)."""
    yield from BALL_WORST.cases(ctx, [(int(n), D_SOFT) for n in lemma.N_GRID(ctx) if n <= 2048]
                                + [(N_FOR_D_SWEEP, int(dim)) for dim in D_GRID(ctx)])
    yield from sample_softmax_random(ctx, gen)


def sample_softmax_random(ctx, gen, probe=False):
    """n ∈ {1, 2, 3, 8, 64}, d ∈ {1, 4, 32}: q and keys Gaussian × a log-uniform scale in
    [1e-2, 1e2] per instance, values in the L_V-ball (weight-gradient-formula: a Gaussian probe U)."""
    batch = ctx.pick(quick=64, full=512)
    for count in (1, 2, 3, 8, 64):
        for dim in (1, 4, 32):
            scale = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-2, high=1e2)
            case = {"q": sampling.gaussian(ctx, gen, batch, dim) * scale[:, 0],
                    "k": sampling.gaussian(ctx, gen, batch, count, dim) * scale,
                    "v": lemma.values_in_ball(ctx, gen, batch, count)}
            yield case | ({"probe": sampling.gaussian(ctx, gen, batch, count, dim)} if probe else {})


def sample_softmax_probed(ctx, gen):
    """n ∈ {1, 2, 3, 8, 64}, d ∈ {1, 4, 32}: q and keys Gaussian × a log-uniform scale in [1e-2, 1e2] per
    instance, values in the L_V-ball (weight-gradient-formula: a Gaussian probe U)."""
    return sample_softmax_random(ctx, gen, probe=True)


def _softmax_figures(case):
    """∂W_ij/∂q_i ``(B, n, d)`` (torch.func through softmax_weights), W_ij, k̄_i and √d."""
    q, k = case["q"], case["k"]
    one = lambda qi, ki: operators.softmax_weights(qi[None, :], ki)[0]  # noqa: E731
    dw = torch.func.vmap(torch.func.jacrev(one))(q, k)
    weights = operators.softmax_weights(q[:, None, :], k)[:, 0, :]
    return dw, weights, (weights[..., None] * k).sum(-2), math.sqrt(k.shape[-1])


SOFT_TOL = tolerances.Roundoff(condition="n + 1 + max|q·k|/√d (exp amplifies a logit's rounding by its size)",
                               scale="the compared value")


def _soft_tol(case, value):
    q, k = case["q"], case["k"]
    norm = lambda x: torch.linalg.vector_norm(x, dim=-1)  # noqa: E731
    logits = norm(q) * norm(k).amax(-1) / math.sqrt(k.shape[-1])
    return SOFT_TOL(k.shape[-2] + 1 + logits, value.dtype) * value


def softmax_weight_gradient_gap(case):
    """⟨U, ∂W_ij/∂q_i⟩ (torch.func) == ⟨U, (1/√d) W_ij (k_j − Σ_m W_im k_m)⟩ for a fixed probe U."""
    dw, weights, mean_key, root = _softmax_figures(case)
    k, probe = case["k"], case["probe"]
    formula = weights[..., None] * (k - mean_key[:, None, :]) / root
    # k_j − k̄_i cancels when one weight dominates: the error scale is W_ij(|k_j| + |k̄_i|)/√d.
    magnitude = weights[..., None] * (k.abs() + mean_key.abs()[:, None, :]) / root
    residual = (dw * probe).sum((-1, -2)) - (formula * probe).sum((-1, -2))
    return residual, torch.zeros_like(residual), _soft_tol(case, (magnitude * probe.abs()).sum((-1, -2)))


def softmax_step5_gap(case, part):
    """Step 5's chain: ``first`` Σ_j ‖∂W_ij/∂q_i‖ <= (1/√d) Σ_j W_ij ‖k_j − k̄_i‖ (equality holds);
    ``spread`` (1/√d) Σ_j W_ij ‖k_j − k̄_i‖ <= (2R/√d) Σ_j W_ij, R = max_m ‖k_m‖."""
    dw, weights, mean_key, root = _softmax_figures(case)
    k = case["k"]
    spread = (weights * torch.linalg.vector_norm(k - mean_key[:, None, :], dim=-1)).sum(-1) / root
    radius = torch.linalg.vector_norm(k, dim=-1).amax(-1) / root
    if part == "first":  # equality holds: a residual (both sides cancel when one weight dominates)
        residual = torch.linalg.vector_norm(dw, dim=-1).sum(-1) - spread
        return residual, torch.zeros_like(residual), _soft_tol(case, spread + radius)
    rhs = 2 * radius * weights.sum(-1)
    return spread, rhs, _soft_tol(case, rhs)


def softmax_derivation():
    d_h, qx, qy = sp.Symbol("d_h", positive=True), *sp.symbols("q_x q_y", real=True)
    keys = [sp.symbols(f"k_{m}x k_{m}y", real=True) for m in (1, 2, 3)]
    exps = [sp.exp((qx * kx + qy * ky) / sp.sqrt(d_h)) for kx, ky in keys]
    weights = [e / sum(exps) for e in exps]
    mean_kx = sum(w * kx for w, (kx, _) in zip(weights, keys, strict=True))
    summed = 2 * R_sym / sp.sqrt(d_h)  # (2R/√d_h) Σ_j W_ij with Σ_j W_ij = 1
    return [
        symbolic.exact("Step 5: ∂W_ij/∂q_i = (1/√d_h) W_ij (k_j − Σ_m W_im k_m) (x-coordinate, n = 3, "
                       "d = 2 symbolic keys)", weights[0] * (keys[0][0] - mean_kx) / sp.sqrt(d_h),
                       sp.diff(weights[0], qx), role="proof", step="derivative"),
        symbolic.exact("Step 5: Σ_j W_ij = 1 (n = 3)", 1, sp.simplify(sum(weights)), role="derivation"),
        symbolic.exact("Step 5: (2R/√d_h) Σ_j W_ij = 2nR/√d_h", 2 * n_sym * R_sym / sp.sqrt(d_h), summed,
                       role="proof", step="sum-to-n",
                       note="softmax rows sum to 1, so the sum is 2R/√d_h; 2nR/√d_h needs every W_ij = 1"),
        symbolic.leading_order("Step 5: 'this gives the linear n scaling for softmax'", summed, n_sym, n_sym,
                               role="proof", step="linear-n",
                               note="with the sum corrected the proof's bound 2R/√d_h has no n at all"),
    ]


SOFTMAX_FAMILY = ("worst case: the largest norm at (a) the end points of a projected-Adam ascent on softmax's"
                  " ‖∂o/∂q‖ (6 restarts × 20 steps quick, 32 × 80 full; q, keys in the R-ball, values in the "
                  "L_V-ball) and (b) two-group constructions q = 0, keys ±a·e₁ (a = R, min(√ε, R)), values "
                  f"±L_V·e₁; R = L_V = {R_BOUND:g}, d_v = {D_VALUE}")
SPREAD = "(1/√d) Σ_j W_ij ‖k_j − k̄_i‖"
N_QUANTITY = f"worst-case ‖∂o_i/∂q_i‖₂ (softmax, d = {D_SOFT})"
N_MEASURE = BALL_WORST.measure(lambda n: (int(n), D_SOFT))

CLAIMS = (lemma.claim(
    "georesolver/lemma-2.4/softmax",
    "softmax; proof Step 5", statement=STATEMENT, reading=READING, clauses=CLAUSES,
    proof_steps=PROOF_STEPS, n_free=N_FREE, derivation=softmax_derivation,
    checks=(
        ScalingLaw(name="jacobian-norm-vs-n", quantity=N_QUANTITY, variable="n", exponent=1.0, order="O",
                   grid=lemma.N_GRID, measure=N_MEASURE, family=SOFTMAX_FAMILY, tolerance=lemma.FLAT,
                   controls=(lemma.moved("n", -0.5),)),
        ScalingLaw(name="jacobian-norm-vs-n-linear", quantity=N_QUANTITY, variable="n", exponent=1.0,
                   order="Θ", grid=lemma.N_GRID, measure=N_MEASURE, tolerance=lemma.FLAT, role="proof",
                   family=SOFTMAX_FAMILY, step="linear-n", predicted="Θ(n) (Step 5: 'the linear n scaling')"),
        ScalingLaw(name="jacobian-norm-vs-d", variable="d", exponent=-0.5, order="O", grid=D_GRID,
                   quantity=f"worst-case ‖∂o_i/∂q_i‖₂ (softmax, n = {N_FOR_D_SWEEP})", family=SOFTMAX_FAMILY,
                   tolerance=lemma.FLAT, measure=BALL_WORST.measure(lambda d: (N_FOR_D_SWEEP, int(d))),
                   controls=(control(f"IDA (ε = {EPS:g}) in place of softmax on the same instances",
                                     contrast="operator", measure=ida_on_ball_worst),)),
        lemma.supremum(sample_softmax_searched, "softmax"),
        lemma.attains(sample_softmax_constructions, "softmax", "L_V·R/√d",
                      f"IDA (ε = {EPS:g}) in place of softmax"),
        Relation(name="weight-gradient-formula", lhs="⟨U, ∂W_ij/∂q_i⟩ (torch.func through softmax_weights) − "
                 "⟨U, (1/√d) W_ij (k_j − Σ_m W_im k_m)⟩", rel="==", rhs="0",
                 evaluate=softmax_weight_gradient_gap, sample=sample_softmax_probed, tolerance=SOFT_TOL,
                 role="proof", step="derivative"),
        Relation(name="step5-first-inequality", lhs=f"Σ_j ‖∂W_ij/∂q_i‖ (torch.func) − {SPREAD}", rel="<=",
                 rhs="0", evaluate=lambda c: softmax_step5_gap(c, "first"), sample=sample_softmax_random,
                 tolerance=SOFT_TOL, role="proof", step="first-inequality"),
        Relation(name="step5-spread-bound", lhs=SPREAD, rel="<=", rhs="(2R/√d) Σ_j W_ij, R = max_m ‖k_m‖",
                 evaluate=lambda c: softmax_step5_gap(c, "spread"), sample=sample_softmax_random,
                 tolerance=SOFT_TOL, role="proof", step="spread-bound"),
    ),
    notes=("Step 5's last equality replaces Σ_j W_ij = 1 by n, which is where 'the linear n scaling for "
           "softmax' comes from. Table 3's 'Softmax O(n)' entry is the statement's bound. The layer "
           "reading (Jacobian in all inputs) is not measured."),
),)
