"""GeoResolver §7, Theorem 7.1 (HyperGate Gradient Lower Bound) on ``operators.hypergate`` (h = σ(W_g x) ⊙ x)
and ``operators.hypergate_jacobian`` (∂h/∂x by ``torch.func.jacrev`` under ``vmap``); inputs where the
gradient vanishes are searched for along rays (det J changes sign, bisection)."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit import operators, sampling, symbolic, tolerances
from attnaudit.checks import Claim, Clause, ProofStep, Relation, control, search

STATEMENT = (
    r"\Bigl\|\frac{\partial\mathcal L}{\partial x_i}\Bigr\|_2\ge\bigl(\lambda_{\min}(G_i)"
    r"-O(\|W_g\|\|x_i\|)\bigr)\Bigl\|\frac{\partial\mathcal L}{\partial h_i}\Bigr\|_2,\quad "
    r"h_i=G_ix_i,\ G_i=\mathrm{diag}(\sigma(W_gx_i)).\ \text{In particular, for bounded } x_i "
    r"\text{ and } W_g \text{, the lower bound is strictly positive, so gradients do not vanish due "
    r"to gating alone.}")

BOUND = 2.0  # ‖x‖₂, ‖W_g‖₂ ≤ BOUND in the "bounded inputs" reading and in the search
READING = ("For h = σ(W_g x) ⊙ x with x ∈ ℝ^d, W_g ∈ ℝ^{d×d}, any d: (inequality) σ_min(∂h/∂x) ≥ "
           "λ_min(G) − C‖W_g‖₂‖x‖₂ with one constant C free of d, x and W_g (which gives the gradient "
           "bound, as ‖∂L/∂x‖ = ‖Jᵀ∂L/∂h‖ ≥ σ_min(J)‖∂L/∂h‖); the suite derives C = 1/4 and tests "
           "sup (λ_min(G) − σ_min(J))/(‖W_g‖₂‖x‖₂) ≤ 1/4; (positive) for finite x and W_g "
           f"(tested at ‖x‖₂, ‖W_g‖₂ ≤ {BOUND:g}) ∂h/∂x is non-singular, so the gradient through the "
           "gate never vanishes.")

CLAUSES = (
    Clause("inequality", "‖∂ℒ∂i‖2≥(λmin(i)−(‖g‖‖i‖))‖∂ℒ∂i‖2"),
    Clause("positive", "In particular, for bounded ix_i and gW_g, the lower bound is strictly positive, so "
                       "gradients do not vanish due to gating alone."),
)
READING_WHY = ("the displayed inequality with the O(·) read as a constant times ‖W_g‖₂‖x‖₂; 'bounded' "
               "as the proof reads it: 'λ_min(G_i) > 0 for finite z_k, [so] the lower bound is "
               "strictly positive for bounded inputs'")
PROOF_STEPS = (
    ProofStep("chain-rule", "By the chain rule: ∂ℒ∂i=(∂i∂i)⊤∂ℒ∂i."),
    ProofStep("jacobian", "the Jacobian is: ∂i∂i=i+(∂i∂i)i."),
    ProofStep("sigma-prime", "σ′(zk)=σ(zk)(1−σ(zk))∈(0,1/4)"),
    ProofStep("diagonal", "Thus: (∂i∂i)kk=σ(zk)+σ′(zk)g,k⊤i."),
    ProofStep("dominant", "The matrix ∂i/∂i _i/ _i is diagonally dominant for bounded ‖i‖\\|x_i\\| and "
                          "‖g‖\\|W_g\\|."),
    ProofStep("singular-value", "Its smallest singular value satisfies: σmin(∂i∂i)≥λmin(i)−(‖g‖‖i‖)."),
    ProofStep("positive", "Since λmin(i)=minkσ(zk)>0 _ (G_i)= _kσ(z_k)>0 for finite zkz_k, the lower bound "
                          "is strictly positive for bounded inputs."),
    ProofStep("gradient", "Therefore: ‖∂ℒ∂i‖2≥σmin(∂i∂i)‖∂ℒ∂i‖2."),
)

C_DERIVED = 0.25  # σ' ≤ 1/4 and Weyl: σ_min(G + DW) ≥ σ_min(G) − ‖D‖₂‖W‖₂, ‖D‖₂ ≤ ¼‖x‖_∞
DIMS = (1, 2, 4, 8)
# σ_min by an SVD is backward stable: off by ≤ c·d·u·‖J‖₂; λ_min(G) = min σ(z_k) to a few ulps.
RATIO_TOL = tolerances.Roundoff(condition="d·‖J‖₂ + 1 (the SVD's backward error and σ's), divided by "
                                          "‖W_g‖₂‖x‖₂ (absolute, on the ratio)")
FLOOR = tolerances.Roundoff(condition="d (an SVD resolves σ_min/‖J‖₂ only down to c·d·u: below it, J is "
                                      "singular to working precision)")


def _jacobian_parts(case):
    x, w = case["x"], case["w"]
    jac = operators.hypergate_jacobian(x, w)
    sv = torch.linalg.svdvals(jac)
    gate = torch.sigmoid((w @ x[..., None])[..., 0])
    scale = torch.linalg.matrix_norm(w, ord=2) * x.norm(dim=-1)
    # ‖J‖₂ ≤ max σ(z_k) + ¼‖W_g‖₂‖x‖₂ =: bound (> 0; J itself can be exactly 0 when d = 1)
    return sv[..., -1], sv[..., 0], gate.amin(dim=-1), scale, gate.amax(dim=-1) + scale / 4


def ratio_gap(case, constant=C_DERIVED):
    smin, smax, lam, scale, _ = _jacobian_parts(case)
    lhs = (lam - smin) / scale
    return lhs, torch.full_like(lhs, constant), RATIO_TOL(case["x"].shape[-1] * smax + 1, smin.dtype) / scale


def nonsingular_gap(case):
    """σ_min(J)/(max σ(z_k) + ¼‖W_g‖₂‖x‖₂) (≥ σ_min(J)/‖J‖₂) against the round-off floor below which an
    SVD cannot tell J from a singular matrix."""
    smin, _, _, _, bound = _jacobian_parts(case)
    lhs = smin / bound
    return lhs, torch.full_like(lhs, FLOOR(case["x"].shape[-1], lhs.dtype)), 0.0


def paper_diagonal_gap(case):
    x, w = case["x"], case["w"]
    z = (w @ x[..., None])[..., 0]
    s = torch.sigmoid(z)
    diag = torch.diagonal(operators.hypergate_jacobian(x, w), dim1=-2, dim2=-1)
    lhs = (diag - (s + s * (1 - s) * z)).abs().amax(dim=-1)
    return lhs, torch.zeros_like(lhs), RATIO_TOL(x.shape[-1] * (1 + z.abs().amax(dim=-1)), lhs.dtype)


def singular_search(ctx, d):
    """Rays x = t·u, t ∈ (0, 2], for random W_g with ‖W_g‖₂ log-uniform in [0.5, 2]: det J(t·u) on 64
    points, then 56 bisection steps on the first sign change (checks.search.sign_changes). Returns
    the points found (batched).
    The search evaluates J in closed form (checked against torch.func by the derivation and by
    ``paper-jacobian-diagonal``'s operator); the checks evaluate the points with the operator."""

    def rays():
        gen = ctx.generator(f"singular-search:{d}")
        batch = ctx.pick(quick=96, full=1024)
        w = sampling.gaussian(ctx, gen, batch, d, d)
        w = w / torch.linalg.matrix_norm(w, ord=2)[:, None, None] * sampling.log_uniform(
            ctx, gen, batch, 1, 1, low=0.5, high=BOUND)
        u = sampling.unit_vectors(ctx, gen, batch, d)
        t = torch.linspace(0, BOUND, 65, dtype=ctx.dtype, device=ctx.device)[1:]

        def sign_of_det(ts, rows):  # the closed form G + diag(σ′(z)⊙x)W_g (the checks use torch.func's)
            x = ts[..., None] * u[rows, None, :]
            z = (w[rows, None] @ x[..., None])[..., 0]
            s = torch.sigmoid(z)
            jacobian = torch.diag_embed(s) + (s * (1 - s) * x)[..., None] * w[rows, None]
            return torch.sign(torch.linalg.det(jacobian))

        # t to 2·2⁻⁵⁶ ≈ 3e-17 (halved 56 times): σ_min far below the round-off floor
        found, lo, hi, _ = search.sign_changes(sign_of_det, t.expand(batch, -1), candidates=1, rounds=56,
                                               first_only=True, what="sign change of det J")
        return {"x": ((lo + hi) / 2)[:, None] * u[found], "w": w[found]}

    return ctx.cached(("singular", d), rays)


def sample(high):
    """As FAMILY says, with r and s at most ``high``."""
    def draw(ctx, gen):
        batch = ctx.pick(quick=256, full=8192)
        for d in DIMS:
            x = sampling.unit_vectors(ctx, gen, batch, d) * sampling.log_uniform(ctx, gen, batch, 1, low=1e-3,
                                                                                 high=high)
            w = sampling.gaussian(ctx, gen, batch, d, d, scale=d**-0.5) * sampling.log_uniform(
                ctx, gen, batch, 1, 1, low=1e-2, high=high)
            yield {"x": x, "w": w}
        for d in DIMS:
            found = singular_search(ctx, d)
            if found["x"].shape[0]:
                yield found

    return draw


def _strategy(ctx):
    import numpy as np
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    entries = st.floats(-5, 5, allow_nan=False, width=64)
    pairs = st.integers(1, 4).flatmap(lambda d: st.tuples(arrays(np.float64, (d,), elements=entries),
                                                          arrays(np.float64, (d, d), elements=entries)))
    return (pairs.filter(lambda p: np.linalg.norm(p[0]) * np.linalg.norm(p[1], 2) > 1e-6)
            .map(lambda p: {"x": ctx.tensor(p[0])[None], "w": ctx.tensor(p[1])[None]}))


def derivation():
    x1, x2 = sp.symbols("x_1 x_2", real=True)
    w = sp.Matrix(2, 2, sp.symbols("w_11 w_12 w_21 w_22", real=True))
    z = w * sp.Matrix([x1, x2])
    sig = [1 / (1 + sp.exp(-zk)) for zk in z]
    h = sp.Matrix([sig[0] * x1, sig[1] * x2])
    jac = h.jacobian([x1, x2])
    dsig = [s * (1 - s) for s in sig]
    at = {x1: 1, x2: 1, w[0, 0]: 0, w[0, 1]: 1, w[1, 0]: 0, w[1, 1]: 0}
    closed = sp.diag(*sig) + sp.diag(dsig[0] * x1, dsig[1] * x2) * w
    zz, s_ = sp.Symbol("z", real=True), sp.Symbol("s", positive=True)
    at_minus_two = (1 + zz * (1 - 1 / (1 + sp.exp(-zz)))).subs(zz, -2)  # J/σ(z): d = 1, w = 1, x = z
    return [
        symbolic.exact("∂h/∂x = G + diag(σ′(z)⊙x)W_g, diagonal entry (d = 2)", closed[0, 0], jac[0, 0],
                       role="proof", step="jacobian"),
        symbolic.exact("∂h/∂x = G + diag(σ′(z)⊙x)W_g, off-diagonal entry (d = 2)", closed[0, 1], jac[0, 1],
                       role="proof", step="jacobian"),
        symbolic.exact("the proof's diagonal (∂h/∂x)_kk = σ(z_k) + σ′(z_k)W_{g,k}ᵀx, at x = (1, 1), "
                       "W_g = [[0, 1], [0, 0]]", (sig[0] + dsig[0] * z[0]).subs(at), jac[0, 0].subs(at),
                       role="proof", step="diagonal",
                       note="the diagonal is σ(z_k) + σ′(z_k)x_k(W_g)_kk: the proof has z_k for x_k(W_g)_kk"),
        symbolic.holds("σ′(z) = σ(1 − σ) ≤ 1/4: 1/4 − s(1 − s) = (s − 1/2)² ≥ 0",
                       sp.GreaterThan(sp.Rational(1, 4) - s_ * (1 - s_), 0), role="proof", step="sigma-prime",
                       note="so ‖diag(σ′(z)⊙x)‖₂ ≤ ‖x‖_∞/4 ≤ ‖x‖₂/4 and, by Weyl, C = 1/4 suffices"),
        symbolic.holds("d = 1, W_g = 1, x = −2 (bounded): ∂h/∂x = σ(z)(1 + z(1 − σ(z))) is positive",
                       sp.StrictGreaterThan(at_minus_two, 0), role="proof", step="positive",
                       note="it is (1 − e²)/(1 + e²) < 0 there and 1 at x = 0: it vanishes in between"),
        symbolic.holds("bounded inputs (d = 1, W_g = 1, x = −2): the gate's Jacobian is non-zero there "
                       "and on the segment to 0", sp.StrictGreaterThan(at_minus_two, 0),
                       role="statement", clause="positive"),
    ]


FAMILY = ("d ∈ {1, 2, 4, 8}: x = r·u, r log-uniform in [1e-3, 10], W_g = s·N(0, 1/d), s log-uniform in "
          "[1e-2, 10]; plus the singular points of the ray search (‖x‖₂, ‖W_g‖₂ ≤ 2); Hypothesis d ≤ 4, "
          "entries in [−5, 5]")

CLAIMS = (Claim(
    id="georesolver/theorem-7.1", label="Theorem 7.1 (HyperGate Gradient Lower Bound)", section="§7",
    statement=STATEMENT, clauses=CLAUSES, proof_steps=PROOF_STEPS, reading=READING, reading_why=READING_WHY,
    kind="inequality", derivation=derivation,
    checks=(
        Relation(name="constant-quarter", lhs="(λ_min(G) − σ_min(∂h/∂x))/(‖W_g‖₂‖x‖₂)", rel="<=",
                 rhs="C = 1/4", evaluate=ratio_gap, sample=sample(10.0), strategy=_strategy,
                 tolerance=RATIO_TOL, sampler=FAMILY, max_examples=20, clause="inequality",
                 controls=(control("C = 0 (the O(·) term dropped)", contrast="prediction",
                                   evaluate=lambda case: ratio_gap(case, 0.0)),
                           control("C = 0.24 (just below the derived 1/4)", contrast="prediction",
                                   evaluate=lambda case: ratio_gap(case, 0.24)))),
        Relation(name="jacobian-nonsingular", lhs="σ_min(∂h/∂x)/(max_k σ(z_k) + ¼‖W_g‖₂‖x‖₂)", rel=">=",
                 rhs="the SVD's round-off floor 64·u·d", evaluate=nonsingular_gap, sample=sample(BOUND),
                 tolerance=FLOOR, clause="positive",
                 sampler="as the primary family with r, s ≤ 2, and the ray search's singular points"),
        Relation(name="paper-jacobian-diagonal", lhs="max_k |(∂h/∂x)_kk − (σ(z_k) + σ′(z_k)W_{g,k}ᵀx)|",
                 rel="==", rhs="0", evaluate=paper_diagonal_gap, sample=sample(BOUND), tolerance=RATIO_TOL,
                 role="proof", step="diagonal", sampler="as jacobian-nonsingular"),
    ),
    correction=lambda evidence: (
        "σ_min(∂h/∂x) ≥ λ_min(G) − ¼‖W_g‖₂‖x‖₂ (the constant 1/4 is sharp: the ratio → 1/4 as "
        "W_g x → 0⁻ in one dimension); the bound is positive only while ¼‖W_g‖₂‖x‖₂ < λ_min(G): "
        "bounded inputs can make ∂h/∂x singular (d = 1: W_g x ≈ −1.2785)."),
    time_limit_s=30.0,
    notes=("The inequality holds with C = 1/4 (Weyl, σ′ ≤ 1/4), and 1/4 is sharp; the theorem's own "
           "'in particular' clause is false, so the statement as written is refuted. The proof's "
           "entrywise Jacobian is wrong (σ′(z_k)W_{g,k}ᵀx = σ′(z_k)z_k on the diagonal instead of "
           "σ′(z_k)x_k(W_g)_kk) and its 'in particular' does not follow: λ_min(G) > 0 does not make "
           "λ_min(G) − C‖W_g‖‖x‖ positive, and the ray search finds bounded inputs where ∂h/∂x is "
           "singular, so some ∂L/∂h gives ∂L/∂x = 0 through the gate."),
),)
