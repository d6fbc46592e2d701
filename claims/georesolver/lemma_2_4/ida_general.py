"""Lemma 2.4, general case (no low-rank or clustering assumption): L_IDA = O(n·L_W²R²/ε²), and the
proof's Steps 1–3 (the quotient rule, Z_i ≥ 1/ε, the bound 4nR/ε, the chain to O(nRL_V/ε))."""

from __future__ import annotations

import math

import sympy as sp
import torch

from attnaudit import operators, sampling, symbolic, tolerances
from attnaudit.checks import Clause, ProofStep, Relation, ScalingLaw, grids, search
from attnaudit.claims.georesolver import _jacobians as jac

from . import _common as lemma

STATEMENT = lemma.LEMMA_PREAMBLE + (
    r"\; \text{Without the low-rank/clustering assumption, the general bound is: }"
    r" L_{\mathrm{IDA}}=O(n\cdot L_W^2R^2/\varepsilon^2). \;\text{(Proof, Step 3: }"
    r" \sum_j\|\partial W_{ij}/\partial q_i\|_2\le\frac{2}{\varepsilon^{-1}}\cdot\frac{2nR}{\varepsilon^2}"
    r"=\frac{4nR}{\varepsilon},\ \|V\|_F\le nL_V, \text{ this gives } L_{\mathrm{IDA}}=O(nRL_V/\varepsilon)"
    r"\text{ in the general case.)}"
)
CLAUSES = (Clause("general-bound", "Without the low-rank/clustering assumption, the general bound is: "
                                   "LIDA=(n⋅LW2R2/ε2)"),)
PROOF_STEPS = (
    ProofStep("quotient", "The derivative of WijW_ij with respect to iq_i is: "
                          "∂Wij∂i=∂ij∂i⋅1Zi−ijZi2∑m=1n∂im∂i."),
    ProofStep("compact", "This can be rewritten more compactly as: ∂Wij∂i=1Zi(∂ij∂i−Wij∑m=1n∂im∂i)."),
    ProofStep("weights-sum", "The second term simplifies because ∑j=1nWij=1"),
    ProofStep("step2-sum", "Therefore: ∑j=1n‖∂Wij∂i‖2≤2Zi∑m=1n‖∂im∂i‖2."),
    ProofStep("score-bound", "Since ‖∂im/∂i‖2≤2R/ε2\\| _im/ _i\\|_2≤ 2R/ ^2 for bounded inputs"),
    ProofStep("z-lower-bound", "and Zi≥ε−1Z_i≥ ^-1 (at least the diagonal term)"),
    ProofStep("weight-sum-bound", "we get: ∑j=1n‖∂Wij∂i‖2≤2ε−1⋅2nRε2=4nRε"),
    ProofStep("chain", "Thus: ‖∂i∂i‖2≤∑j=1n‖j‖2‖∂Wij∂i‖2≤‖F∑j=1n‖∂Wij∂i‖2."),
    ProofStep("values-bound", "With bounded values ‖F≤nLV\\|V\\|_F≤ nL_V"),
    ProofStep("conclusion", "this gives LIDA=(nRLV/ε)L_IDA=O(nRL_V/ ) in the general case"),
)
READING = (f"Quantity: {lemma.QUANTITY}, for IDA, over n keys with ‖q_i − k_m‖ ≤ R and values "
           "‖v_j‖ ≤ L_V. Statement: L = O(n L_W²R²/ε²), i.e. the worst-case norm grows at most like n "
           "(ε fixed) and at most like ε⁻² as ε → 0 (n fixed).")
N_FREE = ("sup ‖∂o_i/∂q_i‖₂ over ‖q_i−k_m‖ ≤ R, ‖v_j‖ ≤ L_V equals L_V·max_{0≤a≤R} 2a/(a²+ε) "
          "(L_V/√ε for R ≥ √ε) for every even n ≥ 2: no growth in n at all.")

D_IDA, D_VALUE, EPS, R_BOUND, V_BOUND = lemma.D_IDA, lemma.D_VALUE, lemma.EPS, lemma.R_BOUND, lemma.V_BOUND
N_FOR_EPS_SWEEP = 16
INVERSE_EPS_GRID = grids.log_grid(1.0, 1e6, quick=4, full=13)
n_sym, R_sym, LV_sym, eps_sym = sp.symbols("n R L_V epsilon", positive=True)


def _ball_points(ctx, gen, batch, count, dim, low, high):
    radius = sampling.log_uniform(ctx, gen, batch, count, 1, low=low, high=high)
    return sampling.unit_vectors(ctx, gen, batch, count, dim) * radius


def sample_ida_constructions(ctx, gen):
    """Two-group constructions (keys n/2 at q ± a·e₁, values ±L_V·e₁): n ∈ {2, 64, 1024}, d = 2;
    ε log-uniform in [1e-6, 1e2]; a = t√ε, t log-uniform in [1e-2, 10]."""
    batch = ctx.pick(quick=6, full=24)
    for n in (2, 64, 1024):
        eps = sampling.log_uniform(ctx, gen, batch, low=1e-6, high=1e2)
        yield {"n": n, "d": D_IDA, "eps": eps,
               "a": eps.sqrt() * sampling.log_uniform(ctx, gen, batch, low=1e-2, high=10.0)}


def _ida_search(ctx, n, eps):
    """Projected Adam on ‖∂o/∂q‖ over ‖q−k_m‖ ≤ R, ‖v_j‖ ≤ L_V at (n, ε): where it ended, and its best."""
    gen = ctx.generator(f"ida-search:n={n}:eps={eps:.3e}")
    batch, scale = ctx.pick(quick=8, full=32), min(math.sqrt(eps), R_BOUND)
    q = torch.zeros(batch, D_IDA, dtype=ctx.dtype, device=ctx.device)
    k = _ball_points(ctx, gen, batch, n, D_IDA, scale / 30, R_BOUND)
    q, k, v, searched = jac.ascend(
        lemma.attend("ida", eps), q, k, lemma.values_in_ball(ctx, gen, batch, n),
        steps=ctx.pick(quick=30, full=80), lr=(0.0, 0.5 * scale, 0.1), free_query=False,
        project=lambda q, k, v: (q, jac.project_ball(k, R_BOUND), jac.project_ball(v, V_BOUND)))
    return {"q": q, "k": k, "v": v, "eps": lemma.full(ctx, batch, eps)}, float(searched.max())


def _ida_constructions(ctx, n, eps):
    """The two-group construction at a = min(√ε, R) and at Step 1's maximiser a = √(ε/3)."""
    built = [jac.two_group_construction(1, n, D_IDA, D_VALUE, min(a, R_BOUND), V_BOUND, dtype=ctx.dtype,
                                        device=ctx.device)
             for a in (min(math.sqrt(eps), R_BOUND), math.sqrt(eps / 3))]
    return max(float(jac.query_jacobian_norm(lemma.attend("ida", eps), *b)[0]) for b in built)


# The worst case at (n, ε), translation invariance putting q at 0: searched once per run.
IDA_WORST = search.WorstCase("ida", _ida_search, _ida_constructions)


def sample_ida_searched(ctx, gen):
    """The instances the n-sweep's search ended on, then random ones: n ∈ {1, 2, 3, 8, 64}, keys
    at radii log-uniform in [1e-3√ε, 10], one ε log-uniform in [1e-6, 1e2] per batch."""
    yield from IDA_WORST.cases(ctx, ((int(n), EPS) for n in lemma.N_GRID(ctx)))
    batch = ctx.pick(quick=64, full=512)
    for count in (1, 2, 3, 8, 64):
        eps = float(sampling.log_uniform(ctx, gen, 1, low=1e-6, high=1e2)[0])
        yield {"q": torch.zeros(batch, D_IDA, dtype=ctx.dtype, device=ctx.device),
               "k": _ball_points(ctx, gen, batch, count, D_IDA, 1e-3 * math.sqrt(eps), 10.0),
               "v": lemma.values_in_ball(ctx, gen, batch, count), "eps": lemma.full(ctx, batch, eps)}


# ── the proof's Steps 1–3, numerically ──


def _ida_weight_figures(case):
    """‖∂W_ij/∂q_i‖ ``(B, n)`` (torch.func through ida_weights), Σ_m ‖∂S_im/∂q_i‖ = Σ_m
    2a/(a²+ε)², Z_i and R = max_m ‖q−k_m‖."""
    q, k, eps = case["q"], case["k"], case["eps"]
    one = lambda qi, ki, ei: operators.ida_weights(qi[None, :], ki, eps=ei)[0]  # noqa: E731
    dw = torch.linalg.vector_norm(torch.func.vmap(torch.func.jacrev(one))(q, k, eps), dim=-1)
    a2 = operators.squared_distances(q[:, None, :], k)[:, 0, :]
    score = 1.0 / (a2 + eps[:, None])
    return dw, (2 * a2.sqrt() * score.square()).sum(-1), score.sum(-1), a2.amax(-1).sqrt()


WEIGHT_TOL = tolerances.Roundoff(
    condition="n + 1 + (‖q‖+‖k‖)/min_m‖q−k_m‖ (n-term sums, and the backward's 2(Gq − Gk))",
    scale="the bound")
Z_TOL = tolerances.Roundoff(condition="n + 2 (an n-term sum of reciprocals)", scale="1/ε")


def _weight_tol(value, q, k):
    a = torch.linalg.vector_norm(k - q[:, None, :], dim=-1).amin(-1).clamp_min(1e-300)
    scale = torch.linalg.vector_norm(q, dim=-1) + torch.linalg.vector_norm(k, dim=-1).amax(-1)
    return WEIGHT_TOL(k.shape[-2] + 1 + scale / a, value.dtype) * value


def weight_sum_gap(case, step):
    """Σ_j ‖∂W_ij/∂q_i‖ <= Step 2's (2/Z_i) Σ_m ‖∂S_im/∂q_i‖, or Step 3's result 4nR/ε with
    R = max_m ‖q_i − k_m‖."""
    dw, score_grad_sum, z, radius = _ida_weight_figures(case)
    rhs = 2 * score_grad_sum / z if step == 2 else 4 * case["k"].shape[-2] * radius / case["eps"]
    return dw.sum(-1), rhs, _weight_tol(rhs, case["q"], case["k"])


def normaliser_gap(case):
    """Z_i = Σ_m (‖q_i−k_m‖²+ε)⁻¹ >= 1/ε (Step 3, "at least the diagonal term")."""
    z = (1.0 / (operators.squared_distances(case["q"][:, None, :], case["k"])[:, 0, :]
                + case["eps"][:, None])).sum(-1)
    rhs = 1.0 / case["eps"]
    return z, rhs, Z_TOL(case["k"].shape[-2] + 2, z.dtype) * rhs


def chain_gap(case):
    """‖∂o_i/∂q_i‖ <= Σ_j ‖v_j‖ ‖∂W_ij/∂q_i‖ (<= ‖V‖_F Σ_j ‖∂W_ij/∂q_i‖), Step 3."""
    q, k, v, eps = case["q"], case["k"], case["v"], case["eps"]
    norm = lambda x: torch.linalg.vector_norm(x, dim=-1)  # noqa: E731
    rhs = (norm(v) * _ida_weight_figures(case)[0]).sum(-1)
    # The entries' scale L_V·max_j ‖∂log S_ij/∂q_i‖ (also when W is constant, n = 1, and rhs = 0).
    a = norm(k - q[:, None, :])
    scale = norm(v).amax(-1) * (2 * a / (a.square() + eps[:, None])).amax(-1)
    return lemma.jacobian_norm("ida", q, k, v, eps), rhs, _weight_tol(rhs + scale, q, k)


def sample_key_sets(ctx, gen, own_key: bool = False):
    """q ~ N(0, I_2); n ∈ {1, 2, 3, 8, 64} keys at q + t√ε·u, t log-uniform in [1e-3, 1e3];
    ε log-uniform in [1e-6, 1e2] per instance; values in the L_V-ball; ``own_key``: k_1 = q."""
    batch = ctx.pick(quick=256, full=2048)
    for count in (1, 2, 3, 8, 64):
        eps = sampling.log_uniform(ctx, gen, batch, low=1e-6, high=1e2)
        q = sampling.gaussian(ctx, gen, batch, D_IDA)
        t = sampling.log_uniform(ctx, gen, batch, count, 1, low=1e-3, high=1e3) * eps.sqrt()[:, None, None]
        k = q[:, None, :] + sampling.unit_vectors(ctx, gen, batch, count, D_IDA) * t
        if own_key:
            k[:, 0, :] = q
        yield {"q": q, "k": k, "v": lemma.values_in_ball(ctx, gen, batch, count), "eps": eps}


def sample_own_key(ctx, gen):
    """q ~ N(0, I_2); n ∈ {1, 2, 3, 8, 64} keys at q + t√ε·u, t log-uniform in [1e-3, 1e3]; ε log-uniform in
    [1e-6, 1e2] per instance; values in the L_V-ball; ``own_key``: k_1 = q. Here own_key: k_1 = q."""
    return sample_key_sets(ctx, gen, own_key=True)


def sample_quarter_points(ctx, gen):
    """pairs q = k + t√ε·u: k ~ N(0, I_d), d ∈ {1, 3, 16}; t log-uniform in [1e-4, 1e4] (half) or within
    ±3 % of 1/√3 (half); ε log-uniform in [10^-8, 10^4] (a quarter of score-gradient-max's batches)"""
    return lemma.sample_points(ctx, gen, ctx.pick(quick=1000, full=10000))


def key_set_strategy(ctx):
    """One query and n ∈ [1, 4] keys in d ∈ [1, 3]: coordinates in [−10, 10], ε ∈ [1e-6, 1e2]."""
    from hypothesis import strategies as st

    def build(drawn):
        x, eps = ctx.tensor(drawn[0]), drawn[1]
        return {"q": x[:1], "k": x[None, 1:], "eps": ctx.tensor([eps]),
                "v": x.new_zeros(1, x.shape[0] - 1, D_VALUE)}

    points = sampling.point_sets(n=(2, 5), d=(1, 3))
    return st.tuples(points, sampling.log_uniform_floats(1e-6, 1e2)).map(build)


def ida_general_derivation():
    # The quotient rule for any scores: S_m(q) abstract functions of one coordinate of q, n = 3.
    qx = sp.Symbol("q_x", real=True)
    scores = [sp.Function(f"S_{m}")(qx) for m in (1, 2, 3)]
    z, ds = sum(scores), [sp.diff(s_m, qx) for s_m in scores]
    dw1 = sp.diff(scores[0] / z, qx)
    s, w1, w2, z_i = sp.Symbol("s", positive=True), *sp.symbols("W_1 W_2 Z_i", positive=True)
    norms = sp.symbols("N_1:4", nonnegative=True)  # ‖∂S_im/∂q_i‖, m = 1..3
    return [
        symbolic.exact("Step 1: ∂W_ij/∂q_i = (∂S_ij/∂q_i)/Z_i − S_ij/Z_i² Σ_m ∂S_im/∂q_i "
                       "(one coordinate of q, n = 3, any differentiable S_im)",
                       ds[0] / z - scores[0] / z**2 * sum(ds), dw1, role="proof", step="quotient"),
        symbolic.exact("Step 1: = (1/Z_i)(∂S_ij/∂q_i − W_ij Σ_m ∂S_im/∂q_i)",
                       (ds[0] - scores[0] / z * sum(ds)) / z, dw1, role="proof", step="compact"),
        symbolic.exact("Step 2: Σ_j W_ij Σ_m ‖∂S_im/∂q_i‖ = Σ_m ‖∂S_im/∂q_i‖ (Σ_j W_ij = 1, n = 3)",
                       sum(norms), sum(w * sum(norms) for w in (w1, w2, 1 - w1 - w2)), role="proof",
                       step="weights-sum"),
        symbolic.exact("Step 2: (1/Z_i)Σ_j‖∂S_ij/∂q_i‖ + (1/Z_i)Σ_m‖∂S_im/∂q_i‖ = (2/Z_i)Σ_m‖∂S_im/∂q_i‖",
                       2 * sum(norms) / z_i, (sum(norms) + sum(norms)) / z_i, role="proof", step="step2-sum"),
        lemma.score_bound_step("Step 3: ‖∂S_im/∂q_i‖ = 2a/(a²+ε)² ≤ 2R/ε² for 0 < a ≤ R", "score-bound"),
        symbolic.exact("Step 3: (2/ε⁻¹)·(2nR/ε²) = 4nR/ε", 4 * n_sym * R_sym / eps_sym,
                       (2 / eps_sym**-1) * (2 * n_sym * R_sym / eps_sym**2), role="proof",
                       step="weight-sum-bound",
                       note="the rendered '2ε−1⋅2nRε2' has lost its fraction bars; 1/Z_i ≤ ε from "
                            "Z_i ≥ 1/ε makes \\frac{2}{\\varepsilon^{-1}} the reading"),
        symbolic.holds("Step 3: ‖V‖_F ≤ √n·L_V ≤ n·L_V (n = (1+s)²)",
                       sp.LessThan(sp.sqrt((1 + s) ** 2) * LV_sym, (1 + s) ** 2 * LV_sym), role="proof",
                       step="values-bound"),
        symbolic.leading_order(
            "Step 3 conclusion: the proof's bounds ‖V‖_F ≤ nL_V and Σ_j‖∂W_ij/∂q_i‖ ≤ 4nR/ε "
            "multiply to the proof's bound O(nRL_V/ε)",
            (n_sym * LV_sym) * (4 * n_sym * R_sym / eps_sym), n_sym, n_sym * R_sym * LV_sym / eps_sym,
            role="proof", step="conclusion",
            note="the product of the proof's own two bounds is the proof's bound "
                 "4·L_V·R·n²/ε (4n^(3/2)RL_V/ε with ‖V‖_F ≤ √n L_V): O(nRL_V/ε) does "
                 "not follow from them"),
    ]


IDA_FAMILY = ("worst case: the larger of (a) a projected-Adam ascent on ‖∂o/∂q‖ (8 restarts × 30 steps "
              "quick, 32 × 80 full; keys at log-uniform radii in [√ε/30, R] about q = 0, values in the "
              "L_V-ball) and (b) the two-group construction (keys at q ± a·e₁, values ±L_V·e₁) at "
              "a = min(√ε, R) and a² = ε/3; "
              f"R = L_V = {R_BOUND:g}, d = {D_IDA}, d_v = {D_VALUE}")
EPS_QUANTITY = f"worst-case ‖∂o_i/∂q_i‖₂ (IDA, n = {N_FOR_EPS_SWEEP})"
EPS_MEASURE = IDA_WORST.measure(lambda x: (N_FOR_EPS_SWEEP, float(1.0 / x)))
WEIGHT_SUM = "Σ_j ‖∂W_ij/∂q_i‖ (torch.func through ida_weights)"
Z_I = "Z_i = Σ_m (‖q_i−k_m‖²+ε)⁻¹"

CLAIMS = (lemma.claim(
    "georesolver/lemma-2.4/ida-general",
    "general case", statement=STATEMENT, reading=READING, clauses=CLAUSES,
    proof_steps=PROOF_STEPS, n_free=N_FREE, derivation=ida_general_derivation,
    checks=(
        ScalingLaw(name="jacobian-norm-vs-n", quantity=f"worst-case ‖∂o_i/∂q_i‖₂ (IDA, ε = {EPS:g})",
                   variable="n", exponent=1.0, order="O", grid=lemma.N_GRID, family=IDA_FAMILY,
                   tolerance=lemma.FLAT, measure=IDA_WORST.measure(lambda n: (int(n), EPS)),
                   predicted="O(n) (the statement's O(n L_W²R²/ε²) in n)",
                   controls=(lemma.moved("n", -0.5),)),
        ScalingLaw(name="jacobian-norm-vs-inverse-eps", quantity=EPS_QUANTITY, variable="1/ε", exponent=2.0,
                   order="O", grid=INVERSE_EPS_GRID, family=IDA_FAMILY, tolerance=lemma.FLAT,
                   measure=EPS_MEASURE, predicted="O(ε^-2) (the statement's O(n L_W²R²/ε²) in ε)",
                   controls=(lemma.moved("(1/ε)", 0.25),)),
        ScalingLaw(name="jacobian-norm-vs-inverse-eps-proof", quantity=EPS_QUANTITY, variable="1/ε",
                   exponent=1.0, order="O", grid=INVERSE_EPS_GRID, measure=EPS_MEASURE,
                   family=IDA_FAMILY, tolerance=lemma.FLAT, role="proof", step="conclusion",
                   predicted="O(ε^-1) (the proof's bound O(nRL_V/ε) in ε)"),
        lemma.supremum(sample_ida_searched),
        lemma.attains(sample_ida_constructions, "ida", "L_V·2a/(a²+ε)", "softmax attention in place of IDA"),
        Relation(name="step3-score-gradient", lhs="‖∂S_im/∂q_i‖ (autograd)", rel="<=",
                 rhs="2R/ε² with R = ‖q_i−k_m‖", strategy=lemma.point_strategy, sample=sample_quarter_points,
                 evaluate=lambda case: lemma.point_gap(case, lambda a, eps: 2 * a / eps.square()),
                 tolerance=lemma.SCORE_TOL, role="proof", step="score-bound", max_examples=40),
        Relation(name="normaliser-lower-bound", lhs=Z_I, rel=">=", rhs="1/ε", evaluate=normaliser_gap,
                 sample=sample_key_sets, tolerance=Z_TOL, strategy=key_set_strategy, max_examples=60,
                 role="proof", step="z-lower-bound"),
        Relation(name="normaliser-own-key", lhs=Z_I, rel=">=", rhs="1/ε", evaluate=normaliser_gap,
                 sample=sample_own_key, tolerance=Z_TOL, role="derivation"),
        Relation(name="step2-weight-gradient-sum", lhs=WEIGHT_SUM, rel="<=", rhs="(2/Z_i) Σ_m ‖∂S_im/∂q_i‖",
                 evaluate=lambda c: weight_sum_gap(c, 2), sample=sample_key_sets, tolerance=WEIGHT_TOL,
                 role="proof", step="step2-sum"),
        Relation(name="step3-weight-gradient-sum", lhs=WEIGHT_SUM, rel="<=", rhs="4nR/ε, R = max_m ‖q_i−k_m‖",
                 evaluate=lambda c: weight_sum_gap(c, 3), sample=sample_key_sets, tolerance=WEIGHT_TOL,
                 role="proof", step="weight-sum-bound"),
        Relation(name="output-jacobian-chain", lhs="‖∂o_i/∂q_i‖₂ (torch.func through ida_attention)",
                 rel="<=", rhs="Σ_j ‖v_j‖‖∂W_ij/∂q_i‖ (≤ ‖V‖_F Σ_j ‖∂W_ij/∂q_i‖)", evaluate=chain_gap,
                 sample=sample_key_sets, tolerance=WEIGHT_TOL, role="proof", step="chain"),
    ),
    notes=("The statement's bound O(nL_W²R²/ε²) and the proof's bound O(nRL_V/ε) differ (ε⁻² vs ε⁻¹). "
           "Step 3's 'Z_i ≥ ε⁻¹ (at least the diagonal term)' presumes a key at the query (W_Q = W_K; "
           "checked both ways). The layer reading (Jacobian of x ↦ x + Attn(xW_Q, xW_K, xW_V) in all "
           "inputs) is not measured: its worst-case search does not fit the quick budget."),
),)
