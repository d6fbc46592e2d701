"""What the lemma's three claims share: the quantity, the bounds R and L_V, the sweeps' grids, the
Jacobian norm through the operators, the suite's supremum and the two-group construction."""

from __future__ import annotations

import functools
import inspect
import math

import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import Relation, control, grids, sampling, symbolic, tolerances
from attnaudit.checks.tables import ROUNDOFF_EXPONENT
from attnaudit.claims.georesolver import _jacobians as jac

R_BOUND = 1.0  # R: ‖q_i − k_m‖ ≤ R (IDA), ‖q‖, ‖k‖ ≤ R (softmax)
V_BOUND = 1.0  # L_V: ‖v_j‖ ≤ L_V
D_IDA = 2  # key/query dimension of the IDA searches (IDA's bound has no d)
D_SOFT = 4  # key/query dimension of the softmax n-sweep
D_VALUE = 2  # values: the worst case over any d_v is attained at d_v = 1 (‖J‖ = max_u ‖uᵀJ‖)
EPS = 1e-2  # ε of the n-sweeps and of softmax's IDA control (√ε < R)
N_FOR_EPS_SWEEP, N_FOR_D_SWEEP = 16, 8
# Searches: (restarts, Adam steps) per profile (quick, full).
IDA_SEARCH = {"restarts": (8, 32), "steps": (30, 80)}
CLUSTER_SEARCH = {"restarts": (4, 30), "steps": (15, 80)}
BALL_SEARCH = {"restarts": (6, 32), "steps": (20, 80)}

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
JAC_TOL = tolerances.Roundoff(condition="n + 10 (an n-term weighted sum, then the SVD)", scale="the bound")
FLAT = tolerances.FitBias(
    bias=0.0, floor=ROUNDOFF_EXPONENT,
    source="the closed-form supremum the measured worst values equal to round-off (flat in n, "
           "∝ ε^(−1/2) resp. d^(−1/2): exact power laws); the floor is a fitted exponent's round-off")



# The sweeps' grids, >= 3 decades (the full profile denser).
N_GRID = grids.per_profile(quick=grids.geometric(2, 4, 6), full=grids.geometric(2, 2, 13))  # 2 … 2048 (8192)
CLUSTER_N_GRID = grids.per_profile(quick=grids.geometric(8, 4, 6), full=grids.geometric(8, 2, 11))  # 8 … 8192
INVERSE_EPS_GRID = grids.log_grid(1.0, 1e6, quick=4, full=13)
D_GRID = grids.log_integer_grid(1, 1000, quick=4, full=7)


def doc(function) -> str:
    """A function's docstring on one line (a sampler's description, composed from several)."""
    return " ".join(inspect.getdoc(function).split())


def pick(ctx, pair):
    return ctx.pick(quick=pair[0], full=pair[1])


def search_text(search) -> str:
    pairs = zip(search["restarts"], search["steps"], strict=True)
    return "{} restarts × {} steps quick, {} × {} full".format(*(x for pair in pairs for x in pair))


def moved(variable: str, exponent: float):
    return control(f"the statement's exponent moved below the measured one: O({variable}^{exponent:g})",
                   contrast="prediction", exponent=exponent)


def attend(op, eps=EPS):
    """(q, k, v) ↦ output of IDA (at ``eps``) or softmax attention."""
    return functools.partial(operators.ida_attention, eps=eps) if op == "ida" else operators.softmax_attention


def jacobian_norm(op, q, k, v, eps=None):
    """‖∂o/∂q‖₂ per instance (torch.func through the operator); IDA takes ε per instance ``(B,)``."""
    if op == "ida":
        return jac.query_jacobian_norm(lambda *x: operators.ida_attention(*x[:3], eps=x[3]), q, k, v, eps)
    return jac.query_jacobian_norm(operators.softmax_attention, q, k, v)


def values_in_ball(ctx, gen, batch, count):
    """Values in the ball of radius L_V: uniform directions, radii uniform in [0, L_V]."""
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


def construction_gap(case, op="ida", measured="ida"):
    """The two-group construction's ‖∂o/∂q‖ through ``measured`` == the closed form for ``op``:
    L_V·2a/(a²+ε) (IDA) or L_V·a/√d (softmax)."""
    n, dim, a, eps = int(case["n"]), int(case["d"]), case["a"], case["eps"]
    built = jac.two_group_construction(len(a), n, dim, D_VALUE, a, V_BOUND, dtype=a.dtype, device=a.device)
    rhs = V_BOUND * (2 * a / (a.square() + eps) if op == "ida" else a / math.sqrt(dim))
    return jacobian_norm(measured, *built, eps), rhs, JAC_TOL(n, a.dtype) * rhs



IDA_SUPREMUM_LHS = "‖∂o_i/∂q_i‖₂ (torch.func through ida_attention)"
IDA_SUPREMUM_RHS = "L_V·max_{0≤a≤R} 2a/(a²+ε), R = max_m‖q_i−k_m‖, L_V = max_j‖v_j‖"
IDA_SUPREMUM_CONTROLS = (control("half the bound: L_V·max a/(a²+ε)", contrast="prediction",
                                 evaluate=lambda c: supremum_gap(c, "ida", 0.5)),)


def relation(name, lhs, rel, rhs, evaluate, sample, tolerance, **fields):
    """A Relation from positional fields (its sampler text defaults to the sample function's docstring)."""
    return Relation(name=name, lhs=lhs, rel=rel, rhs=rhs, evaluate=evaluate, sample=sample,
                    tolerance=tolerance, **fields)


n_sym, R_sym, LV_sym, eps_sym = sp.symbols("n R L_V epsilon", positive=True)


def score_bound_step(name, step):
    """2a/(a²+ε)² ≤ 2R/ε² for 0 < a ≤ R = a + t, both sides times ε²(a²+ε)² > 0, expanded."""
    a, t = sp.symbols("a t", positive=True)
    gap = sp.expand(2 * (a + t) * (a**2 + eps_sym) ** 2 - 2 * a * eps_sym**2)
    return symbolic.holds(name + " (R = a + t; times ε²(a²+ε)², expanded)", gap >= 0, role="proof", step=step)

