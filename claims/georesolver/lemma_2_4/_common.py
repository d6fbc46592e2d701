"""What the lemma's claims share: the quantity, the bounds R and L_V, the Jacobian norm through the
operators, the suite's supremum, the two-group construction, and the score gradient ‖∂S/∂q‖ of
S = (‖q−k‖²+ε)⁻¹ (Step 1, ``score-gradient-max``, and Step 3 of ``ida-general``)."""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp
import torch

from attnaudit import operators, sampling, symbolic, tolerances
from attnaudit.checks import Claim, Reading, Relation, control, grids
from attnaudit.checks.tables import ROUNDOFF_EXPONENT
from attnaudit.claims.georesolver import _jacobians as jac

LEMMA_PREAMBLE = (
    r"\text{For a single attention layer with residual connection, assuming bounded weights and"
    r" inputs, and additionally assuming the key distribution has effective rank }"
    r" r_{\mathrm{eff}}=\Theta(1) \text{ or exhibits a clustering structure with } C=\Theta(1)"
    r" \text{ clusters, then: } L_{\mathrm{IDA}}=O(1+\log n\cdot L_W^2R^2),\;"
    r" L_{\mathrm{soft}}=O(n\cdot L_W^2R^2/\sqrt{d})."
)
QUANTITY = ("L = sup ‖∂o_i/∂q_i‖₂, o_i = Σ_j W_ij v_j, one query, keys and values held fixed "
            "(the residual connection adds 1 and is left out; with v = xW_V, L_V = L_W R)")
PROOF_QUANTITY_WHY = ("'the Lipschitz constant of a layer' is not defined by the statement; the "
                      "proof defines it as the supremum of ‖∂o_i/∂q_i‖₂ over bounded inputs")
N_FREE_WHY = ("a stronger reading than the statement, which it implies: the covariance form of "
              "∂o/∂q bounds the proof's own quantity without n, and two key groups attain the bound")

R_BOUND = 1.0  # R: ‖q_i − k_m‖ ≤ R (IDA), ‖q‖, ‖k‖ ≤ R (softmax)
V_BOUND = 1.0  # L_V: ‖v_j‖ ≤ L_V
D_IDA = 2  # key/query dimension of the IDA searches (IDA's bound has no d)
D_VALUE = 2  # values: the worst case over any d_v is attained at d_v = 1 (‖J‖ = max_u ‖uᵀJ‖)
EPS = 1e-2  # ε of the n-sweeps and of softmax's IDA control (√ε < R)
# The n-sweeps' grid, >= 3 decades (the full profile denser): 2 … 2048 (8192).
N_GRID = grids.per_profile(quick=grids.geometric(2, 4, 6), full=grids.geometric(2, 2, 13))
JAC_TOL = tolerances.Roundoff(condition="n + 10 (an n-term weighted sum, then the SVD)", scale="the bound")
FLAT = tolerances.FitBias(
    bias=0.0, floor=ROUNDOFF_EXPONENT,
    source="the closed-form supremum the measured worst values equal to round-off (flat in n, "
           "∝ ε^(−1/2) resp. d^(−1/2): exact power laws); the floor is a fitted exponent's round-off")


def claim(claim_id, label, n_free, **fields):
    """A claim of the lemma (not Step 1): the proof's quantity read, ``n_free`` the alternative."""
    return Claim(id=claim_id, section="§2.4", kind="asymptotic", time_limit_s=30.0,
                 label=f"Lemma 2.4 (Lipschitz Scaling under Low Effective Rank), {label}",
                 reading_why=PROOF_QUANTITY_WHY, alternatives=(Reading("n-free", n_free, N_FREE_WHY),),
                 **fields)


def moved(variable: str, exponent: float):
    return control(f"the statement's exponent moved below the measured one: O({variable}^{exponent:g})",
                   contrast="prediction", exponent=exponent)


def attend(op, eps=EPS):
    return functools.partial(operators.ida_attention, eps=eps) if op == "ida" else operators.softmax_attention


def jacobian_norm(op, q, k, v, eps=None):
    """‖∂o/∂q‖₂ per instance (torch.func through the operator); IDA takes ε per instance ``(B,)``."""
    if op == "ida":
        return jac.query_jacobian_norm(lambda *x: operators.ida_attention(*x[:3], eps=x[3]), q, k, v, eps)
    return jac.query_jacobian_norm(operators.softmax_attention, q, k, v)


def values_in_ball(ctx, gen, batch, count):
    u = torch.rand(batch, count, 1, generator=gen, dtype=ctx.dtype, device=ctx.device)
    return sampling.unit_vectors(ctx, gen, batch, count, D_VALUE) * u * V_BOUND


def full(ctx, batch, value):
    return torch.full((batch,), value, dtype=ctx.dtype, device=ctx.device)


def supremum_gap(case, op="ida", factor=1.0):
    """‖∂o/∂q‖ <= factor × the suite's supremum for the case's own R and L_V = max_j ‖v_j‖:
    IDA L_V·max_{0≤a≤R} 2a/(a²+ε), R = max_m ‖q−k_m‖; softmax L_V·R/√d, R = max_m ‖k_m‖."""
    q, k, v, eps = case["q"], case["k"], case["v"], case.get("eps")
    norm = lambda x: torch.linalg.vector_norm(x, dim=-1).amax(-1)  # noqa: E731
    if op == "ida":
        a = torch.minimum(eps.sqrt(), norm(k - q[:, None, :]))
        bound = 2 * a / (a.square() + eps)
    else:
        bound = norm(k) / math.sqrt(k.shape[-1])
    rhs = factor * norm(v) * bound
    return jacobian_norm(op, q, k, v, eps), rhs, JAC_TOL(k.shape[-2], q.dtype) * rhs


def supremum(sample, op="ida"):
    """The n-free reading's bound, checked on the instances the worst-case search ended on."""
    ida = op == "ida"
    return Relation(name="suite-supremum", lhs=f"‖∂o_i/∂q_i‖₂ (torch.func through {op}_attention)", rel="<=",
                    rhs=("L_V·max_{0≤a≤R} 2a/(a²+ε), R = max_m‖q_i−k_m‖, L_V = max_j‖v_j‖" if ida
                         else "L_V·R/√d, R = max_m‖k_m‖, L_V = max_j‖v_j‖"),
                    evaluate=functools.partial(supremum_gap, op=op), sample=sample, tolerance=JAC_TOL,
                    reading="n-free", controls=(control(
                        "half the bound: L_V·max a/(a²+ε)", contrast="prediction",
                        evaluate=lambda c: supremum_gap(c, "ida", 0.5)),) * ida)


def construction_gap(case, op="ida", measured="ida"):
    """The two-group construction's ‖∂o/∂q‖ through ``measured`` == the closed form for ``op``:
    L_V·2a/(a²+ε) (IDA) or L_V·a/√d (softmax)."""
    n, dim, a, eps = int(case["n"]), int(case["d"]), case["a"], case["eps"]
    built = jac.two_group_construction(len(a), n, dim, D_VALUE, a, V_BOUND, dtype=a.dtype, device=a.device)
    rhs = V_BOUND * (2 * a / (a.square() + eps) if op == "ida" else a / math.sqrt(dim))
    return jacobian_norm(measured, *built, eps), rhs, JAC_TOL(n, a.dtype) * rhs


def attains(sample, op, rhs, contrast):
    """The two-group construction attains the n-free bound; the control measures it through ``contrast``."""
    other = "softmax" if op == "ida" else "ida"
    return Relation(name="construction-attains", lhs="‖∂o_i/∂q_i‖₂ of the two-group construction", rel="==",
                    rhs=rhs, evaluate=functools.partial(construction_gap, op=op, measured=op), sample=sample,
                    tolerance=JAC_TOL, reading="n-free", controls=(control(
                        contrast, contrast="operator", evaluate=lambda c: construction_gap(c, op, other)),))


def score_bound_step(name, step):
    """2a/(a²+ε)² ≤ 2R/ε² for 0 < a ≤ R = a + t, both sides times ε²(a²+ε)² > 0, expanded."""
    a, t, eps_sym = sp.symbols("a t epsilon", positive=True)
    gap = sp.expand(2 * (a + t) * (a**2 + eps_sym) ** 2 - 2 * a * eps_sym**2)
    return symbolic.holds(name + " (R = a + t; times ε²(a²+ε)², expanded)", gap >= 0, role="proof", step=step)


# ── the score gradient ‖∂S/∂q‖ of S = (‖q−k‖²+ε)⁻¹ ──

DIMS = (1, 3, 16)
SCORE_EPS = (1e-8, 1e4)  # ε range of the score-gradient checks
SCORE_TOL = tolerances.Roundoff(
    condition="1 + (‖q‖+‖k‖)/‖q−k‖ (the backward forms 2G(q − k) as 2(Gq − Gk), which cancels "
              "when ‖q−k‖ ≪ ‖k‖)", scale="the compared value")


def score_gradient_norm(q, k, eps):
    """‖∂S/∂q‖ by autograd through ``operators.squared_distances``: q ``(B, m, d)``, one key per
    instance k ``(B, 1, d)``, eps ``(B,)`` → ``(B, m)`` (each S depends on its own q only)."""
    q = q.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad((1.0 / (operators.squared_distances(q, k)[..., 0] + eps[:, None])).sum(), q)
    return torch.linalg.vector_norm(grad, dim=-1)


def score_tol(q, k, value):
    norm = lambda x: torch.linalg.vector_norm(x, dim=-1)  # noqa: E731
    return SCORE_TOL(1.0 + (norm(q) + norm(k)) / norm(q - k), q.dtype) * value


def on_ray(case, t):
    """q = k + t√ε·u for t ``(B,)`` (in units of √ε, the only length in the problem)."""
    return case["k"] + (t * case["eps"].sqrt())[:, None] * case["u"]


def ray_norm(case, t):
    q = on_ray(case, t)
    value = score_gradient_norm(q[:, None, :], case["k"][:, None, :], case["eps"])[:, 0]
    return value, score_tol(q, case["k"], value)


def point_gap(case, rhs_of):
    """Autograd ‖∂S/∂q‖ at each pair (q, k) against ``rhs_of(a, ε)``, a = ‖q−k‖."""
    q, k, eps = case["q"], case["k"], case["eps"]
    rhs = rhs_of(torch.linalg.vector_norm(q - k, dim=-1), eps)
    return score_gradient_norm(q[:, None, :], k[:, None, :], eps)[:, 0], rhs, score_tol(q, k, rhs)


def sample_points(ctx, gen, batch=None):
    """pairs q = k + t√ε·u: k ~ N(0, I_d), d ∈ {1, 3, 16}; t log-uniform in [1e-4, 1e4] (half) or within
    ±3 % of 1/√3 (half); ε log-uniform in [10^-8, 10^4]"""
    batch = batch or ctx.pick(quick=4000, full=40000)
    half = batch // 2
    for d in DIMS:  # the shell ±3 % about 1/√3 is where the bound is attained
        case = {"k": sampling.gaussian(ctx, gen, batch, d), "u": sampling.unit_vectors(ctx, gen, batch, d),
                "eps": sampling.log_uniform(ctx, gen, batch, low=SCORE_EPS[0], high=SCORE_EPS[1])}
        unit = torch.rand(batch - half, generator=gen, dtype=ctx.dtype, device=ctx.device)
        shell = 1 + 0.03 * (2 * unit - 1)
        t = torch.cat([sampling.log_uniform(ctx, gen, half, low=1e-4, high=1e4), shell / math.sqrt(3)])
        yield {"q": on_ray(case, t), "k": case["k"], "eps": case["eps"]}


def point_strategy(ctx):
    """One pair (q, k) in d ∈ [1, 4]: k in [−10, 10]^d, q = k + t√ε·u, t ∈ [1e-6, 1e3], ε ∈ [1e-10, 1e4]."""
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    def for_dim(d):
        direction = arrays(np.float64, (d,), elements=st.floats(-1, 1, width=64)).filter(
            lambda v: np.linalg.norm(v) > 1e-3)
        return st.tuples(arrays(np.float64, (d,), elements=st.floats(-10, 10, width=64)), direction,
                         st.floats(1e-6, 1e3), sampling.log_uniform_floats(1e-10, 1e4))

    def build(drawn):
        k, u, t, eps = drawn
        case = {"k": ctx.tensor(k)[None], "u": ctx.tensor(u / np.linalg.norm(u))[None],
                "eps": ctx.tensor([eps])}
        return {"q": on_ray(case, ctx.tensor([t])), "k": case["k"], "eps": case["eps"]}

    return st.integers(1, 4).flatmap(for_dim).map(build)
