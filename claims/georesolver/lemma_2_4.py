"""GeoResolver §2.4, Lemma 2.4 (Lipschitz scaling), proof Step 1: the maximum of the score gradient.

``score-gradient-max``: with :math:`S = (\\lVert q-k\\rVert^2+\\varepsilon)^{-1}` and
:math:`a = \\lVert q-k\\rVert`, the proof states :math:`\\lVert\\partial S/\\partial q\\rVert =
2a/(a^2+\\varepsilon)^2`, maximised at :math:`a^2=\\varepsilon/3` with value
:math:`\\tfrac{18}{16\\sqrt3}\\,\\varepsilon^{-3/2}`.

Kind: identity. The step asserts an exact maximum value and its location, not only an upper
bound; the bound the later steps use (the gradient never exceeds that value) is its consequence
and is checked as a third relation, with adversarial search.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp
import torch

import operators
from checks import Claim, Kind, Relation, ScalingLaw, sampling, symbolic, tolerances
from checks.context import single_thread
from checks.fitting import closed_form_bias

from . import _jacobians as jac

STATEMENT = (
    r"\left\| \frac{\partial S_{ij}}{\partial q_i} \right\|_2"
    r" = \frac{2\|q_i-k_j\|_2}{(\|q_i-k_j\|_2^2+\varepsilon)^2}. \text{ For } a=\|q_i-k_j\|_2\ge 0,"
    r" \text{ the function } a/(a^2+\varepsilon)^2 \text{ has its maximum at } a^2=\varepsilon/3"
    r" \ldots \left\| \frac{\partial S_{ij}}{\partial q_i} \right\|_2 \le"
    r" \frac{2\cdot\sqrt{\varepsilon/3}}{(\varepsilon/3+\varepsilon)^2}"
    r" = \frac{2\sqrt{\varepsilon/3}}{(4\varepsilon/3)^2}"
    r" = \frac{18}{16\sqrt{3}}\,\varepsilon^{-3/2} = O(\varepsilon^{-3/2})."
)

# The paper's constant 18/(16√3) = 3√3/8 ≈ 0.6495.
PAPER_CONSTANT = 18.0 / (16.0 * math.sqrt(3.0))

# Curvature at the maximum, g(a*(1+η)) = g(a*)·(1 − CURVATURE·η² + O(η³)) (SymPy:
# g''(a*)·a*²/(2g(a*)) = −3/4, checked in the tests); it sets how well round-off locates a*.
CURVATURE = 0.75

GRID_DECADES = 4.0  # the search grid spans a/√ε ∈ {0} ∪ [1e-4, 1e4]
GRID_POINTS = 97
GOLDEN_STEPS = 72  # bracket shrinks by 0.618^72 ≈ 1e-15 (relative to its start)


def derivation():
    q = sp.Matrix(sp.symbols("q1:4", real=True))
    k = sp.Matrix(sp.symbols("k1:4", real=True))
    eps = sp.Symbol("epsilon", positive=True)
    a = sp.Symbol("a", positive=True)
    t = sp.Symbol("t", nonnegative=True)
    r2 = sum((q[i] - k[i]) ** 2 for i in range(3))
    score = 1 / (r2 + eps)
    grad = [sp.diff(score, qi) for qi in q]
    g = a / (a**2 + eps) ** 2
    dg = sp.diff(g, a)
    steps = [
        symbolic.exact("∂S/∂q: first coordinate (the others alike)",
                       -2 * (q[0] - k[0]) / (r2 + eps) ** 2, grad[0]),
        symbolic.exact("‖∂S/∂q‖ = 2a/(a²+ε)², compared squared (both sides are ≥ 0)",
                       4 * r2 / (r2 + eps) ** 4, sum(gi**2 for gi in grad)),
        symbolic.exact("d/da [a/(a²+ε)²] = (ε − 3a²)/(a²+ε)³",
                       (eps - 3 * a**2) / (a**2 + eps) ** 3, dg),
    ]
    critical = sp.solve(sp.Eq(dg, 0), a)
    if len(critical) != 1:
        raise ValueError(f"expected one positive critical point, SymPy found {critical}")
    a_star = critical[0]
    steps.append(symbolic.exact("the critical point: a² = ε/3", eps / 3, a_star**2))
    steps.append(symbolic.holds(
        "second derivative negative at a² = ε/3",
        sp.StrictLessThan(sp.Symbol("g''(a*)"), 0),
        sp.simplify(sp.diff(g, a, 2).subs(a, a_star) < 0),
    ))
    # Global maximum on a ≥ 0: with a = t√ε, ε^{3/2}(g(a*) − g(a)) = P(t)/(16(t²+1)²), and
    # P factors into a square times a factor that is positive for t ≥ 0.
    peak = sp.simplify(g.subs(a, a_star) * eps ** sp.Rational(3, 2))  # ε^{3/2} g(a*) = 3√3/16
    gap = sp.together(peak - t / (t**2 + 1) ** 2)
    numerator = sp.numer(gap)
    _, factors = sp.factor_list(numerator, t, extension=sp.sqrt(3))
    nonnegative = all(power % 2 == 0 or factor.is_positive or (factor.is_nonnegative is True)
                      for factor, power in factors)
    steps.append(symbolic.holds(
        "a² = ε/3 is the global maximum on a ≥ 0",
        sp.GreaterThan(g.subs(a, a_star) - g, 0),
        sp.true if nonnegative and sp.denom(gap).is_positive else sp.false,
        note="with a = t√ε the gap is P(t)/(16(t²+1)²), P = "
             + sp.sstr(sp.factor(numerator, extension=sp.sqrt(3))),
    ))
    max_norm = 2 * g.subs(a, a_star)
    with sp.evaluate(False):  # keep the paper's forms readable in the trace
        paper_values = (
            ("value: 2√(ε/3)/(ε/3+ε)²", 2 * sp.sqrt(eps / 3) / (eps / 3 + eps) ** 2),
            ("value: 2√(ε/3)/(4ε/3)²", 2 * sp.sqrt(eps / 3) / (4 * eps / 3) ** 2),
            ("value: (18/(16√3)) ε^(−3/2)",
             sp.Integer(18) / (16 * sp.sqrt(3)) * eps ** (-sp.Rational(3, 2))),
        )
    steps.extend(symbolic.exact(name, value, max_norm) for name, value in paper_values)
    return steps


# ── numerics ──


def score_gradient_norm(q: torch.Tensor, k: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    """‖∂S/∂q‖ by autograd through ``operators.squared_distances``: q ``(B, m, d)``, one key per
    instance k ``(B, 1, d)``, eps ``(B,)`` → ``(B, m)``. Each S depends on its own q only, so the
    gradient of ΣS is the per-point gradient.
    """
    q = q.detach().requires_grad_(True)
    d2 = operators.squared_distances(q, k)[..., 0]
    score = 1.0 / (d2 + eps[:, None])
    (grad,) = torch.autograd.grad(score.sum(), q)
    return torch.linalg.vector_norm(grad, dim=-1)


def _relative_roundoff(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """64·u·(1 + (‖q‖+‖k‖)/‖q−k‖): the backward forms 2G(q − k) as 2(Gq − Gk), which cancels."""
    a = torch.linalg.vector_norm(q - k, dim=-1)
    scale = torch.linalg.vector_norm(q, dim=-1) + torch.linalg.vector_norm(k, dim=-1)
    return tolerances.roundoff(q.dtype, 1.0 + scale / a)


def ray_maximum(case):
    """Maximise ‖∂S/∂q‖ along q = k + a·u, a ≥ 0, per instance: grid, then golden section.

    Returns ``(a*, max, relative round-off τ at a*, relative bracket half-width)``, each ``(B,)``.
    The grid is in units of √ε (the only length in the problem), from 0 and 1e-4 to 1e4.
    """
    k, u, eps = case["k"], case["u"], case["eps"]
    root_eps = eps.sqrt()[:, None]
    kk, uu = k[:, None, :], u[:, None, :]

    def norm_at(t):  # t: (B, m) in units of √ε
        return score_gradient_norm(kk + (t * root_eps)[..., None] * uu, kk, eps)

    grid = torch.cat([torch.zeros(1, dtype=k.dtype, device=k.device),
                      torch.logspace(-GRID_DECADES, GRID_DECADES, GRID_POINTS - 1, dtype=k.dtype,
                                     device=k.device)])
    grid = grid.expand(k.shape[0], -1)
    best = norm_at(grid).argmax(dim=1, keepdim=True)
    lo = grid.gather(1, (best - 1).clamp(min=0))[:, 0]
    hi = grid.gather(1, (best + 1).clamp(max=GRID_POINTS - 1))[:, 0]
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(GOLDEN_STEPS):
        x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        f = norm_at(torch.stack([x1, x2], dim=1))
        right = f[:, 0] < f[:, 1]
        lo, hi = torch.where(right, x1, lo), torch.where(right, hi, x2)
    t_star = (lo + hi) / 2
    a_star = t_star * root_eps[:, 0]
    q_star = k + a_star[:, None] * u
    value = score_gradient_norm(q_star[:, None, :], kk, eps)[:, 0]
    return a_star, value, _relative_roundoff(q_star, k), (hi - lo) / (2 * t_star)


def max_value_gap(constant: float):
    """Relation evaluator: max_a ‖∂S/∂q‖ == constant·ε^{−3/2} (``constant`` is the paper's)."""

    def evaluate(case):
        _, value, tau, _ = ray_maximum(case)
        rhs = constant * case["eps"] ** -1.5
        # The maximum is flat: locating it to relative η changes the value by ¾η² ≪ τ.
        return value, rhs, tau * rhs

    return evaluate


def argmax_gap(fraction: float):
    """Relation evaluator: argmax_a ‖∂S/∂q‖ satisfies a² == fraction·ε (the paper's fraction 1/3)."""

    def evaluate(case):
        a_star, _, tau, half_width = ray_maximum(case)
        rhs = fraction * case["eps"]
        # A value noise τ hides the maximum within |η| ≤ √(2τ/CURVATURE) (the golden section can
        # mis-order two points whose values differ by ≤ 2τ); a² doubles the relative error.
        located = torch.sqrt(2 * tau / CURVATURE) + half_width
        return a_star.square(), rhs, 2 * located * rhs

    return evaluate


def norm_formula_gap(case):
    """Autograd ‖∂S/∂q‖ against the closed form 2a/(a²+ε)², a = ‖q−k‖ (no operator involved)."""
    q, k, eps = case["q"], case["k"], case["eps"]
    lhs = score_gradient_norm(q[:, None, :], k[:, None, :], eps)[:, 0]
    a = torch.linalg.vector_norm(q - k, dim=-1)
    rhs = 2 * a / (a.square() + eps) ** 2
    return lhs, rhs, _relative_roundoff(q, k) * rhs


def bound_gap(constant: float):
    """Relation evaluator: ‖∂S/∂q‖ <= constant·ε^{−3/2} at every point."""

    def evaluate(case):
        q, k, eps = case["q"], case["k"], case["eps"]
        lhs = score_gradient_norm(q[:, None, :], k[:, None, :], eps)[:, 0]
        rhs = constant * eps**-1.5
        return lhs, rhs, _relative_roundoff(q, k) * rhs

    return evaluate


# ── samplers ──

DIMS = (1, 3, 16)


def sample_rays(ctx, gen):
    """Rays q = k + a·u: k ~ N(0, I_d), u uniform on S^{d−1}, ε log-uniform in [1e-8, 1e4]."""
    batch = ctx.pick(quick=512, full=8192)
    for d in DIMS:
        yield {"k": sampling.gaussian(ctx, gen, batch, d),
               "u": sampling.unit_vectors(ctx, gen, batch, d),
               "eps": sampling.log_uniform(ctx, gen, batch, low=1e-8, high=1e4)}


def sample_points(ctx, gen):
    """Pairs (q, k): k ~ N(0, I_d), q = k + t√ε·u; half with t log-uniform in [1e-4, 1e4], half
    with t within ±3 % of 1/√3 (the shell where the bound is attained); ε log-uniform [1e-8, 1e4]."""
    batch = ctx.pick(quick=4000, full=40000)
    half = batch // 2
    for d in DIMS:
        k = sampling.gaussian(ctx, gen, batch, d)
        u = sampling.unit_vectors(ctx, gen, batch, d)
        eps = sampling.log_uniform(ctx, gen, batch, low=1e-8, high=1e4)
        spread = sampling.log_uniform(ctx, gen, half, low=1e-4, high=1e4)
        shell = (1 + 0.03 * (2 * torch.rand(batch - half, generator=gen, dtype=ctx.dtype,
                                            device=ctx.device) - 1)) / math.sqrt(3.0)
        t = torch.cat([spread, shell])
        yield {"q": k + (t * eps.sqrt())[:, None] * u, "k": k, "eps": eps}


def point_strategy(ctx):
    """One pair (q, k) in d ∈ [1, 4]: k in [−10, 10]^d, q = k + t√ε·u, t ∈ [1e-6, 1e3], any ε."""
    import numpy as np
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    def for_dim(d):
        coords = st.floats(-10, 10, allow_nan=False, width=64)
        direction = arrays(np.float64, (d,), elements=st.floats(-1, 1, width=64)).filter(
            lambda v: np.linalg.norm(v) > 1e-3)
        return st.tuples(arrays(np.float64, (d,), elements=coords), direction,
                         st.floats(1e-6, 1e3, allow_nan=False),
                         sampling.log_uniform_floats(1e-10, 1e4))

    def build(drawn):
        k, u, t, eps = drawn
        kt, ut = ctx.tensor(k)[None], ctx.tensor(u)[None]
        ut = ut / torch.linalg.vector_norm(ut, dim=-1, keepdim=True)
        et = ctx.tensor([eps])
        return {"q": kt + (t * et.sqrt())[:, None] * ut, "k": kt, "eps": et}

    return st.integers(1, 4).flatmap(for_dim).map(build)


TAU = "64·u·(1 + (‖q‖+‖k‖)/‖q−k‖) relative (the backward's 2(Gq − Gk) cancels when ‖q−k‖ ≪ ‖k‖)"

MAX_VALUE = Relation(
    name="max-value",
    lhs="max_a ‖∂S/∂q‖ along q = k + a·u",
    rel="==",
    rhs="(18/(16√3)) ε^(−3/2)",
    evaluate=max_value_gap(PAPER_CONSTANT),
    sample=sample_rays,
    tolerance=TAU + "; the located maximum is flat, so bracketing adds ¾η², far below it",
    sampler="rays: k ~ N(0, I_d), u uniform on S^(d−1), d ∈ {1, 3, 16}; ε log-uniform in "
            "[1e-8, 1e4]; maximum by a 97-point grid in a/√ε ∈ {0} ∪ [1e-4, 1e4], then 72 "
            "golden-section steps",
)

ARGMAX = Relation(
    name="argmax",
    lhs="a*² (the maximiser along the ray)",
    rel="==",
    rhs="ε/3",
    evaluate=argmax_gap(1.0 / 3.0),
    sample=sample_rays,
    tolerance="2·(√(2τ/¾) + bracket half-width) relative, τ the value round-off above: two values "
              "within 2τ of each other can be mis-ordered, and g(a*(1+η)) = g*(1 − ¾η²)",
    sampler=MAX_VALUE.sampler,
)

NORM_FORMULA = Relation(
    name="gradient-norm",
    lhs="‖∂S/∂q‖ (autograd through squared_distances)",
    rel="==",
    rhs="2a/(a²+ε)², a = ‖q−k‖",
    evaluate=norm_formula_gap,
    sample=sample_points,
    strategy=point_strategy,
    tolerance=TAU,
    sampler="pairs q = k + t√ε·u: k ~ N(0, I_d), d ∈ {1, 3, 16}; t log-uniform in [1e-4, 1e4] "
            "(half) or within ±3 % of 1/√3 (half); ε log-uniform in [1e-8, 1e4]",
    max_examples=150,
)

BOUND = Relation(
    name="bound",
    lhs="‖∂S/∂q‖",
    rel="<=",
    rhs="(18/(16√3)) ε^(−3/2)",
    evaluate=bound_gap(PAPER_CONSTANT),
    sample=sample_points,
    strategy=point_strategy,
    tolerance=TAU,
    sampler=NORM_FORMULA.sampler,
    max_examples=150,
)

SCORE_GRADIENT_MAX = Claim(
        id="georesolver/lemma-2.4/score-gradient-max",
        label="Lemma 2.4, proof Step 1 (maximum of the score gradient)",
        section="§2.4",
        statement=STATEMENT,
        reading=(
            "For S(q) = (‖q−k‖²+ε)⁻¹ with q, k ∈ R^d and ε > 0: ‖∂S/∂q‖ = 2a/(a²+ε)² with "
            "a = ‖q−k‖; as a function of a ≥ 0 it attains its maximum exactly at a² = ε/3, with "
            "value (18/(16√3)) ε^(−3/2); hence ‖∂S/∂q‖ ≤ (18/(16√3)) ε^(−3/2) for all q, k."
        ),
        kind=Kind.IDENTITY,
        derivation=derivation,
        checks=(NORM_FORMULA, MAX_VALUE, ARGMAX, BOUND),
        notes=("Kind identity: the step asserts the exact maximum and its location; the bound "
               "used by Steps 3–4 is the 'bound' relation. 18/(16√3) = 3√3/8 ≈ 0.6495."),
)


# ══════════════════════════════════════════════════════════════════════════════════════════════
# The lemma itself: Lipschitz scaling of the attention output (ida-general, ida-clustered, softmax)
# ══════════════════════════════════════════════════════════════════════════════════════════════
#
# The quantity the proof measures ("the proof's reading"): the spectral norm of ∂o_i/∂q_i for
# o_i = Σ_j W_ij v_j, one query, keys and values fixed, sup over inputs with ‖q_i − k_m‖ ≤ R
# (IDA; the proof's "bounded inputs") or ‖q_i‖, ‖k_m‖ ≤ R (softmax) and ‖v_j‖ ≤ L_V. Below R = 1,
# L_V = 1: the exponents in n, ε and d do not depend on them.
#
# The suite's supremum (derived here, checked as relations): ∂o/∂q = Σ_j W_j (v_j − v̄)(g_j − ḡ)ᵀ,
# a W-weighted covariance, with g_j = ∂ log S_j/∂q = 2(k_j − q)/(‖q−k_j‖²+ε) for IDA and
# g_j = k_j/√d for softmax. Cauchy–Schwarz gives ‖∂o/∂q‖ ≤ L_V · max_j ‖g_j − c‖ for any c, so
#   IDA:     ‖∂o/∂q‖ ≤ L_V · max_{0≤a≤R} 2a/(a²+ε) = L_V/√ε (R ≥ √ε), 2RL_V/(R²+ε) (R < √ε);
#   softmax: ‖∂o/∂q‖ ≤ L_V · R/√d;
# both attained for every even n by two groups of keys at q ± a·e₁ (a = min(√ε, R)) resp. ±R·e₁
# with values ±L_V·e₁: the supremum does not depend on n at all.


R_BOUND = 1.0  # R: ‖q_i − k_m‖ ≤ R (IDA), ‖q‖, ‖k‖ ≤ R (softmax)
V_BOUND = 1.0  # L_V: ‖v_j‖ ≤ L_V
D_IDA = 2  # key/query dimension of the IDA searches (IDA's bound has no d)
D_SOFT = 4  # key/query dimension of the softmax n-sweep
D_VALUE = 2  # values: the worst case over any d_v is attained at d_v = 1 (‖J‖ = max_u ‖uᵀJ‖)
EPS_N_SWEEP = 1e-2  # ε held fixed along the n-sweeps (√ε = 0.1 < R)

LEMMA_PREAMBLE = (
    r"\text{For a single attention layer with residual connection, assuming bounded weights and"
    r" inputs, and additionally assuming the key distribution has effective rank }"
    r" r_{\mathrm{eff}}=\Theta(1) \text{ or exhibits a clustering structure with } C=\Theta(1)"
    r" \text{ clusters, then: } L_{\mathrm{IDA}}=O(1+\log n\cdot L_W^2R^2),\;"
    r" L_{\mathrm{soft}}=O(n\cdot L_W^2R^2/\sqrt{d})."
)


def ida_attend(eps):
    return lambda q, k, v: operators.ida_attention(q, k, v, eps=eps)


def softmax_attend(q, k, v):
    return operators.softmax_attention(q, k, v)


def ida_supremum(eps, radius=R_BOUND, value_bound=V_BOUND):
    """L_V · max_{0≤a≤R} 2a/(a²+ε): the suite's supremum of ‖∂o_i/∂q_i‖ for IDA (any n ≥ 2)."""
    eps = torch.as_tensor(eps, dtype=torch.float64)
    radius = torch.as_tensor(radius, dtype=eps.dtype)
    a = torch.minimum(eps.sqrt(), radius)
    return value_bound * 2 * a / (a.square() + eps)


def _weight_jacobian(weights, q, k):
    """∂W_ij/∂q_i per instance ``(B, n, d)`` by ``vmap(jacrev(...))`` through a weight operator."""
    from torch.func import jacrev, vmap

    return vmap(jacrev(lambda qi, ki: weights(qi[None, :], ki)[0]))(q, k)


def _ball_points(ctx, gen, batch, count, dim, low, high):
    """Points with directions uniform on S^(d−1) and radii log-uniform in [low, high]."""
    radius = sampling.log_uniform(ctx, gen, batch, count, 1, low=low, high=high)
    return sampling.unit_vectors(ctx, gen, batch, count, dim) * radius


def _values(ctx, gen, batch, count, dim=D_VALUE, bound=V_BOUND):
    """Values in the ball of radius L_V: Gaussian directions, radii uniform in [0, L_V]."""
    u = torch.rand(batch, count, 1, generator=gen, dtype=ctx.dtype, device=ctx.device)
    return sampling.unit_vectors(ctx, gen, batch, count, dim) * u * bound


def _exact_law_bias(grid, law) -> float:
    return abs(closed_form_bias(grid, [law(x) for x in grid], 0.0))


# ── IDA: the worst-case search of ‖∂o_i/∂q_i‖ (translation invariance: q = 0) ──


def _ida_project(radius, value_bound):
    def project(q, k, v):
        return q, jac.project_ball(k, radius), jac.project_ball(v, value_bound)

    return project


@functools.lru_cache(maxsize=64)
def ida_worst(ctx, n: int, eps: float):
    """Searched worst case of ‖∂o/∂q‖ over ‖q−k_m‖ ≤ R, ‖v_j‖ ≤ L_V at (n, ε).

    Returns ``(case, searched, constructed)``: the searched instances (a relation case),
    their norms, and the norms of the two constructions (a = min(√ε, R), and the Step 1
    maximiser a² = ε/3 of ‖∂S/∂q‖).
    """
    gen = ctx.generator(f"ida-search:n={n}:eps={eps:.3e}")
    batch = ctx.pick(quick=8, full=32)
    scale = min(math.sqrt(eps), R_BOUND)
    k = _ball_points(ctx, gen, batch, n, D_IDA, scale / 30, R_BOUND)
    v = _values(ctx, gen, batch, n)
    q = torch.zeros(batch, D_IDA, dtype=ctx.dtype, device=ctx.device)
    attend = ida_attend(eps)
    q, k, v, searched = jac.ascend(
        attend, q, k, v, project=_ida_project(R_BOUND, V_BOUND),
        steps=ctx.pick(quick=30, full=80), lr=(0.0, 0.5 * scale, 0.1), free_query=False)
    constructed = []
    for a in (scale, math.sqrt(eps / 3)):
        built = jac.two_group_construction(1, n, D_IDA, D_VALUE, min(a, R_BOUND), V_BOUND,
                                           dtype=ctx.dtype, device=ctx.device)
        constructed.append(float(jac.query_jacobian_norm(attend, *built)[0]))
    eps_t = torch.full((batch,), eps, dtype=ctx.dtype, device=ctx.device)
    case = {"q": q, "k": k, "v": v, "eps": eps_t}
    return case, searched, tuple(constructed)


def _ida_n_grid(ctx):
    """n = 2 … 2048 (quick, ×4 steps) or 2 … 8192 (full, ×2 steps): even n, ≥ 3 decades."""
    top = ctx.pick(quick=11, full=13)
    step = ctx.pick(quick=2, full=1)
    return np.array([2.0**e for e in range(1, top + 1, step)])


def _inverse_eps_grid(ctx):
    """1/ε = 1 … 10⁶: one point per two decades (quick) or per half decade (full)."""
    per_decade = ctx.pick(quick=0.5, full=2)
    return np.logspace(0, 6, int(6 * per_decade) + 1)


N_FOR_EPS_SWEEP = 16


def ida_worst_norm_vs_n(ctx, grid):
    """max(searched, constructed) ‖∂o/∂q‖ at each n, ε fixed."""
    out = []
    for n in grid:
        _, searched, constructed = ida_worst(ctx, int(n), EPS_N_SWEEP)
        out.append(max(float(searched.max()), *constructed))
    return np.array(out)


def ida_worst_norm_vs_inverse_eps(ctx, grid):
    """max(searched, constructed) ‖∂o/∂q‖ at each ε = 1/x, n = 16 fixed."""
    out = []
    for inv in grid:
        _, searched, constructed = ida_worst(ctx, N_FOR_EPS_SWEEP, float(1.0 / inv))
        out.append(max(float(searched.max()), *constructed))
    return np.array(out)


def _jacobian_roundoff(norm, n):
    """64·u·(n + 10)·scale: a weighted sum of n terms, each a few roundings (plus the SVD)."""
    return tolerances.roundoff(norm.dtype, n + 10)


def ida_supremum_gap(case):
    """‖∂o/∂q‖ (torch.func through ida_attention) against the suite's supremum
    L_V·max_{a≤R} 2a/(a²+ε), with R = max_m ‖q−k_m‖ and L_V = max_j ‖v_j‖ of the case."""
    q, k, v, eps = case["q"], case["k"], case["v"], case["eps"]
    # One ε per batch (the samplers draw it so): the operator takes it as a float.
    norms = jac.query_jacobian_norm(ida_attend(float(eps[0])), q, k, v)
    radius = torch.linalg.vector_norm(k - q[:, None, :], dim=-1).amax(-1)
    value_bound = torch.linalg.vector_norm(v, dim=-1).amax(-1)
    a = torch.minimum(eps.sqrt(), radius)
    rhs = value_bound * 2 * a / (a.square() + eps)
    return norms, rhs, _jacobian_roundoff(norms, k.shape[-2]) * rhs


def sample_ida_searched(ctx, gen):
    """The instances the n-sweep's search ended on (ε = 10⁻², n over the grid), then random
    instances: n ∈ {1, 2, 3, 8, 64}, keys at log-uniform radii in [10⁻³√ε, 10], ε log-uniform in
    [10⁻⁶, 10²] (one ε per batch)."""
    for n in _ida_n_grid(ctx):
        yield ida_worst(ctx, int(n), EPS_N_SWEEP)[0]
    batch = ctx.pick(quick=64, full=512)
    for count in (1, 2, 3, 8, 64):
        eps = float(sampling.log_uniform(ctx, gen, 1, low=1e-6, high=1e2)[0])
        k = _ball_points(ctx, gen, batch, count, D_IDA, 1e-3 * math.sqrt(eps), 10.0)
        yield {"q": torch.zeros(batch, D_IDA, dtype=ctx.dtype, device=ctx.device), "k": k,
               "v": _values(ctx, gen, batch, count),
               "eps": torch.full((batch,), eps, dtype=ctx.dtype, device=ctx.device)}


def ida_construction_gap(case):
    """The construction's ‖∂o/∂q‖ against L_V·2a/(a²+ε) (its closed form): the supremum attained."""
    n = int(case["n"])
    eps, a = case["eps"], case["a"]
    built = jac.two_group_construction(eps.shape[0], n, D_IDA, D_VALUE, a, V_BOUND, dtype=eps.dtype,
                                       device=eps.device)
    with single_thread():
        lhs = jac.query_jacobian_norm(
            lambda q, k, v, e: operators.ida_attention(q, k, v, eps=e), *built, eps)
    rhs = V_BOUND * 2 * a / (a.square() + eps)
    return lhs, rhs, _jacobian_roundoff(lhs, n) * rhs


def sample_ida_constructions(ctx, gen):
    """Two-group constructions, n ∈ {2, 64, 1024}; ε log-uniform in [10⁻⁶, 10²]; a = √ε·t with
    t log-uniform in [10⁻², 10]."""
    batch = ctx.pick(quick=6, full=24)
    for n in (2, 64, 1024):
        eps = sampling.log_uniform(ctx, gen, batch, low=1e-6, high=1e2)
        a = eps.sqrt() * sampling.log_uniform(ctx, gen, batch, low=1e-2, high=10.0)
        yield {"n": n, "eps": eps, "a": a}


# ── IDA: the proof's Steps 1–3 intermediates, numerically ──


def _ida_weight_figures(case):
    """Per instance: ‖∂W_ij/∂q_i‖ summed over j (torch.func through ida_weights), the closed-form
    ‖∂S_im/∂q_i‖ = 2a/(a²+ε)² summed over m, Z_i, R = max_m ‖q−k_m‖ and n."""
    from torch.func import jacrev, vmap

    q, k, eps = case["q"], case["k"], case["eps"]
    with single_thread():
        dw = vmap(jacrev(lambda qi, ki, ei: operators.ida_weights(qi[None, :], ki, eps=ei)[0]))(q, k, eps)
    weight_sum = torch.linalg.vector_norm(dw, dim=-1).sum(-1)
    a2 = operators.squared_distances(q[:, None, :], k)[:, 0, :]
    score = 1.0 / (a2 + eps[:, None])
    score_grad_sum = (2 * a2.sqrt() * score.square()).sum(-1)
    return weight_sum, score_grad_sum, score.sum(-1), a2.amax(-1).sqrt(), k.shape[-2]


def _weight_roundoff(value, n, q, k):
    """64·u·(n + 1 + (‖q‖+‖k‖)/‖q−k‖)·value: n-term sums, and 2(Gq − Gk) in the backward."""
    a = torch.linalg.vector_norm(k - q[:, None, :], dim=-1).amin(-1).clamp_min(1e-300)
    scale = torch.linalg.vector_norm(q, dim=-1) + torch.linalg.vector_norm(k, dim=-1).amax(-1)
    return tolerances.roundoff(value.dtype, n + 1 + scale / a) * value


def step2_gap(case):
    """Σ_j ‖∂W_ij/∂q_i‖ <= (2/Z_i) Σ_m ‖∂S_im/∂q_i‖ (the proof's Step 2)."""
    weight_sum, score_grad_sum, z, _, n = _ida_weight_figures(case)
    rhs = 2 * score_grad_sum / z
    return weight_sum, rhs, _weight_roundoff(rhs, n, case["q"], case["k"])


def step3_sum_gap(case):
    """Σ_j ‖∂W_ij/∂q_i‖ <= 4nR/ε with R = max_m ‖q_i − k_m‖ (the proof's Step 3 result)."""
    weight_sum, _, _, radius, n = _ida_weight_figures(case)
    rhs = 4 * n * radius / case["eps"]
    return weight_sum, rhs, _weight_roundoff(rhs, n, case["q"], case["k"])


def normaliser_gap(case):
    """Z_i = Σ_m (‖q_i−k_m‖²+ε)⁻¹ >= 1/ε (the proof's Step 3, "at least the diagonal term")."""
    _, _, z, _, n = _ida_weight_figures(case)
    rhs = 1.0 / case["eps"]
    return z, rhs, tolerances.roundoff(z.dtype, n + 2) * rhs


def step3_score_gap(case):
    """‖∂S_im/∂q_i‖ (autograd) <= 2R/ε² for ‖q_i − k_m‖ <= R, with R = ‖q_i − k_m‖ (the tightest R)."""
    q, k, eps = case["q"], case["k"], case["eps"]
    lhs = score_gradient_norm(q[:, None, :], k[:, None, :], eps)[:, 0]
    rhs = 2 * torch.linalg.vector_norm(q - k, dim=-1) / eps.square()
    return lhs, rhs, _relative_roundoff(q, k) * rhs


def chain_gap(case):
    """‖∂o_i/∂q_i‖ <= Σ_j ‖v_j‖ ‖∂W_ij/∂q_i‖ (<= ‖V‖_F Σ_j ‖∂W_ij/∂q_i‖), the proof's Step 3."""
    from torch.func import jacrev, vmap

    q, k, v, eps = case["q"], case["k"], case["v"], case["eps"]
    with single_thread():
        dw = vmap(jacrev(lambda qi, ki, ei: operators.ida_weights(qi[None, :], ki, eps=ei)[0]))(q, k, eps)
        do = vmap(jacrev(lambda qi, ki, vi, ei: operators.ida_attention(qi[None, :], ki, vi, eps=ei)[0]))(
            q, k, v, eps)
    rhs = (torch.linalg.vector_norm(v, dim=-1) * torch.linalg.vector_norm(dw, dim=-1)).sum(-1)
    lhs = torch.linalg.matrix_norm(do, ord=2)
    # Scale of the entries: L_V·max_j ‖∂log S_ij/∂q_i‖ (also when W is constant, n = 1, and rhs = 0).
    a = torch.linalg.vector_norm(k - q[:, None, :], dim=-1)
    scale = torch.linalg.vector_norm(v, dim=-1).amax(-1) * (2 * a / (a.square() + eps[:, None])).amax(-1)
    return lhs, rhs, _weight_roundoff(rhs + scale, k.shape[-2], q, k)


def sample_points_light(ctx, gen):
    """sample_points' pairs, the first quarter of each batch (half spread, half near the shell
    t ≈ 1/√3 is kept by taking a quarter from each half)."""
    for case in sample_points(ctx, gen):
        size = case["q"].shape[0]
        half, quarter = size // 2, size // 8
        keep = torch.cat([torch.arange(quarter), half + torch.arange(quarter)])
        yield {key: value[keep] for key, value in case.items()}


KEY_COUNTS = (1, 2, 3, 8, 64)


def sample_key_sets(ctx, gen, own_key: bool = False):
    """q ~ N(0, I_2); n ∈ {1, 2, 3, 8, 64} keys at q + (radius log-uniform in [10⁻³√ε, 10³√ε])·u;
    ε log-uniform in [10⁻⁶, 10²] per instance; values in the L_V-ball. ``own_key``: k_1 = q (the
    "diagonal term" the proof assumes)."""
    batch = ctx.pick(quick=256, full=2048)
    for count in KEY_COUNTS:
        eps = sampling.log_uniform(ctx, gen, batch, low=1e-6, high=1e2)
        q = sampling.gaussian(ctx, gen, batch, D_IDA)
        t = sampling.log_uniform(ctx, gen, batch, count, 1, low=1e-3, high=1e3)
        offsets = sampling.unit_vectors(ctx, gen, batch, count, D_IDA) * t * eps.sqrt()[:, None, None]
        k = q[:, None, :] + offsets
        if own_key:
            k[:, 0, :] = q
        yield {"q": q, "k": k, "v": _values(ctx, gen, batch, count), "eps": eps}


def sample_own_key_sets(ctx, gen):
    return sample_key_sets(ctx, gen, own_key=True)


def key_set_strategy(ctx):
    """One query and n ∈ [1, 4] keys in d ∈ [1, 3]: coordinates in [−10, 10], ε ∈ [10⁻⁶, 10²]."""
    from hypothesis import strategies as st

    def build(drawn):
        points, eps = drawn
        x = ctx.tensor(points)
        return {"q": x[:1], "k": x[None, 1:], "v": torch.zeros(1, x.shape[0] - 1, D_VALUE, dtype=x.dtype),
                "eps": ctx.tensor([eps])}

    return st.tuples(sampling.point_sets(n=(2, 5), d=(1, 3)),
                     sampling.log_uniform_floats(1e-6, 1e2)).map(build)


KEY_SET_SAMPLER = ("q ~ N(0, I_2); n ∈ {1, 2, 3, 8, 64} keys at q + t√ε·u, t log-uniform in "
                   "[10⁻³, 10³], u uniform on S¹; ε log-uniform in [10⁻⁶, 10²]")


# ── derivations ──

n_sym, R_sym, LV_sym, eps_sym = sp.symbols("n R L_V epsilon", positive=True)


def _nonnegative(expr) -> sp.Basic:
    """``sympy.true`` when SymPy proves ``expr >= 0`` (as one fraction over positive symbols)."""
    num, den = sp.fraction(sp.together(sp.simplify(expr)))
    num, den = sp.expand(num), sp.expand(den)
    if (num.is_nonnegative is True) and (den.is_positive is True):
        return sp.true
    if (num.is_negative is True) and (den.is_positive is True):
        return sp.false
    raise ValueError(f"SymPy cannot decide the sign of {expr}")


def ida_general_derivation():
    # The quotient rule for any scores: S_m(q) abstract functions of one coordinate of q, n = 3.
    qx = sp.Symbol("q_x", real=True)
    scores = [sp.Function(f"S_{m}")(qx) for m in (1, 2, 3)]
    z = sum(scores)
    ds = [sp.diff(s_m, qx) for s_m in scores]
    dw1 = sp.diff(scores[0] / z, qx)
    a, t, s_ = sp.symbols("a t s", positive=True)
    w1, w2 = sp.symbols("W_1 W_2", positive=True)
    norms = sp.symbols("N_1:4", nonnegative=True)  # ‖∂S_im/∂q_i‖, m = 1..3
    weights = (w1, w2, 1 - w1 - w2)  # Σ_j W_ij = 1
    chain_product = (n_sym * LV_sym) * (4 * n_sym * R_sym / eps_sym)
    return [
        symbolic.exact("Step 1: ∂W_ij/∂q_i = (∂S_ij/∂q_i)/Z_i − S_ij/Z_i² Σ_m ∂S_im/∂q_i "
                       "(one coordinate of q, n = 3, any differentiable S_im)",
                       ds[0] / z - scores[0] / z**2 * sum(ds), dw1),
        symbolic.exact("Step 1: = (1/Z_i)(∂S_ij/∂q_i − W_ij Σ_m ∂S_im/∂q_i)",
                       (ds[0] - scores[0] / z * sum(ds)) / z, dw1),
        symbolic.exact("Step 2: Σ_j W_ij Σ_m ‖∂S_im/∂q_i‖ = Σ_m ‖∂S_im/∂q_i‖ (Σ_j W_ij = 1, n = 3)",
                       sum(norms), sum(w * sum(norms) for w in weights)),
        symbolic.exact("Step 2: (1/Z_i)Σ_j‖∂S_ij/∂q_i‖ + (1/Z_i)Σ_m‖∂S_im/∂q_i‖ = (2/Z_i)Σ_m‖∂S_im/∂q_i‖",
                       2 * sum(norms) / sp.Symbol("Z_i", positive=True),
                       (sum(norms) + sum(norms)) / sp.Symbol("Z_i", positive=True)),
        symbolic.holds("Step 3: ‖∂S_im/∂q_i‖ = 2a/(a²+ε)² ≤ 2R/ε² for 0 < a ≤ R (R = a + t)",
                       sp.LessThan(2 * a / (a**2 + eps_sym) ** 2, 2 * R_sym / eps_sym**2),
                       _nonnegative(2 * (a + t) / eps_sym**2 - 2 * a / (a**2 + eps_sym) ** 2)),
        symbolic.exact("Step 3: (2/ε⁻¹)·(2nR/ε²) = 4nR/ε",
                       4 * n_sym * R_sym / eps_sym,
                       (2 / eps_sym**-1) * (2 * n_sym * R_sym / eps_sym**2),
                       note="the rendered source reads '2ε−1⋅2nRε2': fraction bars are lost throughout "
                            "(e.g. '1Zi' for 1/Z_i), and 1/Z_i ≤ ε from Z_i ≥ 1/ε makes "
                            "\\frac{2}{\\varepsilon^{-1}} the reading; the literal 2ε⁻¹·2nR/ε² would "
                            "be 4nR/ε³"),
        symbolic.holds("Step 3: ‖V‖_F = (Σ_j‖v_j‖²)^(1/2) ≤ √n·L_V ≤ n·L_V (n = (1+s)²)",
                       sp.LessThan(sp.sqrt(n_sym) * LV_sym, n_sym * LV_sym),
                       _nonnegative(((1 + s_) ** 2 - (1 + s_)) * LV_sym)),
        symbolic.leading_order(
            "Step 3 conclusion: ‖V‖_F·Σ_j‖∂W_ij/∂q_i‖ ≤ nL_V·4nR/ε gives L_IDA = O(nRL_V/ε)",
            chain_product, n_sym, n_sym * R_sym * LV_sym / eps_sym,
            note="the product of the proof's own two bounds is 4n²RL_V/ε (4n^(3/2)RL_V/ε with the "
                 "sharper ‖V‖_F ≤ √n L_V): the stated O(nRL_V/ε) does not follow from them"),
    ]


# ── ida-general: the claim ──

IDA_GENERAL_STATEMENT = LEMMA_PREAMBLE + (
    r"\; \text{Without the low-rank/clustering assumption, the general bound is: }"
    r" L_{\mathrm{IDA}}=O(n\cdot L_W^2R^2/\varepsilon^2). \;\text{(Proof, Step 3: }"
    r" \sum_j\|\partial W_{ij}/\partial q_i\|_2\le\frac{2}{\varepsilon^{-1}}\cdot\frac{2nR}{\varepsilon^2}"
    r"=\frac{4nR}{\varepsilon},\ \|V\|_F\le nL_V, \text{ this gives } L_{\mathrm{IDA}}=O(nRL_V/\varepsilon)"
    r"\text{ in the general case.)}"
)

SEARCH_FAMILY = (
    "worst case: at each grid point the larger of (a) a batched projected-Adam ascent on ‖∂o/∂q‖ "
    "from {restarts} restarts ({steps} steps; keys at log-uniform radii in [√ε/30, R] about q = 0, "
    "values in the L_V-ball) and (b) the two-group construction (keys at q ± a·e₁, values ±L_V·e₁) "
    "at a = min(√ε, R) and at the Step 1 maximiser a² = ε/3; R = L_V = 1, d = 2, d_v = 2. The "
    "'suite-supremum' relation bounds every searched instance by the closed-form supremum, which "
    "(b) attains"
)
FLAT_TOLERANCE = ("0.05 (the engine's default): the measured worst values are the closed-form "
                  "supremum, constant in n (closed_form_bias 0 on the grid) resp. exactly ∝ ε^(−1/2) "
                  "(bias 0), to round-off; no pre-asymptotic curvature to absorb")


def _search_family(ctx_free: str = "") -> str:
    return SEARCH_FAMILY.format(restarts="8 (quick) / 32 (full)", steps="30 / 80") + ctx_free


def ida_general_correction(evidence):
    fits = {e["name"]: e["fit"] for e in evidence if e["type"] == "scaling"}
    n_fit = fits.get("jacobian-norm-vs-n")
    text = ("sup ‖∂o_i/∂q_i‖ over ‖q_i−k_m‖ ≤ R, ‖v_j‖ ≤ L_V equals L_V·max_{0≤a≤R} 2a/(a²+ε) "
            "= L_V/√ε for R ≥ √ε, for every even n ≥ 2 (attained by two key groups at q ± √ε·e₁): "
            "O(L_V ε^(−1/2)), independent of n. The statement's O(nL_W²R²/ε²) and the proof's "
            "O(nRL_V/ε) hold as upper bounds but are loose by a factor n and by ε^(−3/2) resp. "
            "ε^(−1/2); the proof's chain does not give them (Z_i ≥ 1/ε needs a key at q_i, and its "
            "two bounds multiply to O(n²RL_V/ε)).")
    if n_fit is not None:
        text += (f" Measured worst-case exponent in n: {n_fit['exponent']:.3g} "
                 f"(95% CI [{n_fit['ci'][0]:.3g}, {n_fit['ci'][1]:.3g}]).")
    return text


IDA_GENERAL = Claim(
    id="georesolver/lemma-2.4/ida-general",
    label="Lemma 2.4 (Lipschitz Scaling under Low Effective Rank), general case",
    section="§2.4",
    statement=IDA_GENERAL_STATEMENT,
    reading=(
        "Quantity (the proof's reading): L = sup ‖∂o_i/∂q_i‖₂ for IDA, o_i = Σ_j W_ij v_j, one "
        "query, keys and values held fixed, over n keys with ‖q_i − k_m‖ ≤ R and values ‖v_j‖ ≤ L_V "
        "(the residual connection adds 1 to a Lipschitz constant and is left out; with v = xW_V, "
        "L_V = L_W R). Readings tested: (S) the statement, L = O(n L_W²R²/ε²): as n → ∞ the "
        "worst-case norm grows at most like n¹ (ε fixed), and as ε → 0 at most like ε⁻² (n "
        "fixed); (P) the proof's conclusion, L = O(nRL_V/ε): at most n¹ and ε⁻¹. Both are "
        "confirmed by the worst-case fits (measured n⁰ and ε^(−1/2); the closed-form supremum "
        "L_V/√ε is derived and attained). The proof's chain is also tested step by step: the "
        "inequality Z_i ≥ 1/ε ('at least the diagonal term') is refuted for a general layer "
        "(queries and keys are different projections; witness) and holds when the query's own "
        "key is present (k_i = q_i); the conclusion O(nRL_V/ε) does not follow from the chain's "
        "two bounds (their product is O(n²RL_V/ε)). Hence the claim is refuted as proved and "
        "confirmed as stated. The layer reading (Jacobian of x ↦ x + Attn(xW_Q, xW_K, xW_V) "
        "with respect to all inputs) is not measured here: see notes."
    ),
    kind=Kind.ASYMPTOTIC,
    derivation=ida_general_derivation,
    checks=(
        ScalingLaw(
            name="jacobian-norm-vs-n",
            quantity="worst-case ‖∂o_i/∂q_i‖₂ (IDA, ε = 10⁻²)",
            variable="n",
            exponent=1.0,
            order="O",
            grid=_ida_n_grid,
            measure=ida_worst_norm_vs_n,
            family=_search_family(),
            tolerance=FLAT_TOLERANCE,
            predicted="O(n) (statement O(n L_W²R²/ε²) and proof O(nRL_V/ε) alike)",
            reading="(S) and (P) in n: the worst-case norm grows no faster than n",
        ),
        ScalingLaw(
            name="jacobian-norm-vs-inverse-eps",
            quantity="worst-case ‖∂o_i/∂q_i‖₂ (IDA, n = 16)",
            variable="1/ε",
            exponent=2.0,
            order="O",
            grid=_inverse_eps_grid,
            measure=ida_worst_norm_vs_inverse_eps,
            family=_search_family(),
            tolerance=FLAT_TOLERANCE,
            predicted="O(ε^-2) (the statement)",
            reading="(S) in ε: as ε → 0 the worst-case norm grows no faster than ε⁻²",
        ),
        ScalingLaw(
            name="jacobian-norm-vs-inverse-eps-proof",
            quantity="worst-case ‖∂o_i/∂q_i‖₂ (IDA, n = 16)",
            variable="1/ε",
            exponent=1.0,
            order="O",
            grid=_inverse_eps_grid,
            measure=ida_worst_norm_vs_inverse_eps,
            family=_search_family(),
            tolerance=FLAT_TOLERANCE,
            predicted="O(ε^-1) (the proof's O(nRL_V/ε))",
            reading="(P) in ε: as ε → 0 the worst-case norm grows no faster than ε⁻¹",
        ),
        Relation(
            name="suite-supremum",
            lhs="‖∂o_i/∂q_i‖₂ (torch.func through ida_attention)",
            rel="<=",
            rhs="L_V·max_{0≤a≤R} 2a/(a²+ε), R = max_m‖q_i−k_m‖, L_V = max_j‖v_j‖",
            evaluate=ida_supremum_gap,
            sample=sample_ida_searched,
            tolerance="64·u·(n+10) relative: n-term weighted sums and the 2×2 SVD",
            sampler="the instances the n-sweep's search ended on (ε = 10⁻², R = L_V = 1), then "
                    "random ones: n ∈ {1, 2, 3, 8, 64}, keys at radii log-uniform in [10⁻³√ε, 10], "
                    "ε log-uniform in [10⁻⁶, 10²]",
            reading="the suite's bound (Cauchy–Schwarz on the W-weighted covariance of v and "
                    "∂log S/∂q): it caps every searched value, so the search cannot have missed "
                    "larger norms",
        ),
        Relation(
            name="construction-attains",
            lhs="‖∂o_i/∂q_i‖₂ of the two-group construction",
            rel="==",
            rhs="L_V·2a/(a²+ε)",
            evaluate=ida_construction_gap,
            sample=sample_ida_constructions,
            tolerance="64·u·(n+10) relative",
            sampler="keys n/2 at q + a·e₁, n/2 at q − a·e₁, values ±L_V·e₁; n ∈ {2, 64, 1024}, "
                    "ε log-uniform in [10⁻⁶, 10²], a = t√ε with t log-uniform in [10⁻², 10]",
            reading="the supremum is attained for every even n (at a = √ε it is L_V/√ε)",
        ),
        Relation(
            name="step3-score-gradient",
            lhs="‖∂S_im/∂q_i‖ (autograd)",
            rel="<=",
            rhs="2R/ε² with R = ‖q_i−k_m‖",
            evaluate=step3_score_gap,
            sample=sample_points_light,
            strategy=point_strategy,
            tolerance=TAU,
            sampler=NORM_FORMULA.sampler + " (a quarter of each half of score-gradient-max's batches)",
            max_examples=40,
        ),
        Relation(
            name="normaliser-lower-bound",
            lhs="Z_i = Σ_m (‖q_i−k_m‖²+ε)⁻¹",
            rel=">=",
            rhs="1/ε",
            evaluate=normaliser_gap,
            sample=sample_key_sets,
            strategy=key_set_strategy,
            tolerance="64·u·(n+2) relative: an n-term sum of reciprocals",
            sampler=KEY_SET_SAMPLER,
            reading="Step 3's 'Z_i ≥ ε⁻¹ (at least the diagonal term)' for a general layer: "
                    "queries and keys are different projections, no key need sit at q_i",
            max_examples=60,
        ),
        Relation(
            name="normaliser-own-key",
            lhs="Z_i = Σ_m (‖q_i−k_m‖²+ε)⁻¹",
            rel=">=",
            rhs="1/ε",
            evaluate=normaliser_gap,
            sample=sample_own_key_sets,
            tolerance="64·u·(n+2) relative: an n-term sum of reciprocals",
            sampler=KEY_SET_SAMPLER + "; k_1 = q_i",
            reading="the same with the query's own key present (k_i = q_i, e.g. W_Q = W_K): "
                    "the diagonal term is 1/ε",
        ),
        Relation(
            name="step2-weight-gradient-sum",
            lhs="Σ_j ‖∂W_ij/∂q_i‖ (torch.func through ida_weights)",
            rel="<=",
            rhs="(2/Z_i) Σ_m ‖∂S_im/∂q_i‖",
            evaluate=step2_gap,
            sample=sample_key_sets,
            tolerance="64·u·(n + 1 + (‖q‖+‖k‖)/min‖q−k‖) relative: n-term sums and the backward's "
                      "2(Gq − Gk)",
            sampler=KEY_SET_SAMPLER,
        ),
        Relation(
            name="step3-weight-gradient-sum",
            lhs="Σ_j ‖∂W_ij/∂q_i‖ (torch.func through ida_weights)",
            rel="<=",
            rhs="4nR/ε, R = max_m ‖q_i−k_m‖",
            evaluate=step3_sum_gap,
            sample=sample_key_sets,
            tolerance="as step2-weight-gradient-sum",
            sampler=KEY_SET_SAMPLER,
            reading="Step 3's result, tested directly (it holds even where Z_i ≥ 1/ε fails)",
        ),
        Relation(
            name="output-jacobian-chain",
            lhs="‖∂o_i/∂q_i‖₂ (torch.func through ida_attention)",
            rel="<=",
            rhs="Σ_j ‖v_j‖‖∂W_ij/∂q_i‖ (≤ ‖V‖_F Σ_j ‖∂W_ij/∂q_i‖)",
            evaluate=chain_gap,
            sample=sample_key_sets,
            tolerance="as step2-weight-gradient-sum",
            sampler=KEY_SET_SAMPLER + "; values in the L_V-ball",
        ),
    ),
    correction=ida_general_correction,
    time_limit_s=30.0,
    notes=(
        "The statement's bound O(nL_W²R²/ε²) and the proof's conclusion O(nRL_V/ε) differ (ε⁻² vs "
        "ε⁻¹, L_W² vs L_W once L_V = L_W R); both are tested. The per-query Jacobian is the "
        "W-weighted covariance of v_j and ∂log S_ij/∂q_i, so its supremum L_V·max_a 2a/(a²+ε) "
        "does not grow with n: the factor n is an artefact of bounding a weighted average by a "
        "sum. Step 3's 'Z_i ≥ ε⁻¹ (at least the diagonal term)' presumes a key at the query "
        "(self-attention with W_Q = W_K); the rendered '2ε−1⋅2nRε2' is read as (2/ε⁻¹)(2nR/ε²). "
        "Layer reading (x ↦ x + Attn(xW_Q, xW_K, xW_V), Jacobian in all inputs) not measured: a "
        "worst-case search of an (nd × nd) spectral norm over 3 decades of n does not fit the quick "
        "budget. Argument only (not a measurement): the blocks ∂o_i/∂k_j = W_ij(v_j − o_i)hᵀ, "
        "‖h‖ ≤ 1/√ε, and ∂o_i/∂v_j = W_ij I give row sums O(1), and bounded inputs force "
        "W_ij ≤ (D²+ε)/(nε) (D = 2L_W R), so column sums are O(1) too; the Schur test then bounds "
        "the layer's constant independently of n (growing at most like √n while n < D²/ε)."
    ),
)


# ══ ida-clustered ══

CLUSTERS = 4  # C = Θ(1): centres at the corners of a square of side Δ_c
CLUSTER_GAP = 1.0  # Δ_c, the distance between neighbouring centres
CLUSTER_RADIUS = 0.2  # r_c of the fixed-radius family (> √ε = 0.1: a cluster holds the extremal pair)
QUERY_BOUND = 1.0  # ‖q_i‖ ≤ 1 (the square's corners are at distance Δ_c/√2 ≈ 0.71)
LOW_RANK_RADIUS = 0.1  # low-rank family: r_c = 0.1·√ε·√(8/n)


def cluster_centres(ctx) -> torch.Tensor:
    half = CLUSTER_GAP / 2
    return ctx.tensor([[half, half], [-half, half], [-half, -half], [half, -half]])


def cluster_radius(family: str, n: int) -> float:
    if family == "fixed":
        return CLUSTER_RADIUS
    return LOW_RANK_RADIUS * math.sqrt(EPS_N_SWEEP) * math.sqrt(8.0 / n)


def _cluster_project(centres_of_keys, radius):
    def project(q, k, v):
        return (jac.project_ball(q, QUERY_BOUND), jac.project_ball(k, radius, centres_of_keys),
                jac.project_ball(v, V_BOUND))

    return project


def cluster_constructions(ctx, n: int, radius: float):
    """Two starting points, stacked ``(2, ...)``: (i) q at centre 0, its cluster's n/C keys in two
    groups at q ± a·e₁ (a = min(√ε, r_c)), values ±L_V·e₁, the other keys at their centres with
    value 0; (ii) q at the midpoint of the edge between centres 2 and 3, every key at its centre,
    values L_V·sign(e₁·(g_j − ḡ))·e₁ with g_j = ∂log S_ij/∂q_i (for this q and direction e₁ the
    best values: sup_v ‖Σ_j W_j (v_j−v̄)(g_j−ḡ)ᵀ‖ = L_V·max_w Σ_j W_j |w·(g_j−ḡ)|)."""
    centres = cluster_centres(ctx)
    per = n // CLUSTERS
    a = min(math.sqrt(EPS_N_SWEEP), radius)
    q1, k0, v0 = jac.two_group_construction(1, per, D_IDA, D_VALUE, a, V_BOUND, dtype=ctx.dtype,
                                            device=ctx.device, center=centres[:1])
    rest = centres[1:].repeat_interleave(per, dim=0)[None]
    k1 = torch.cat([k0, rest], dim=1)
    v1 = torch.cat([v0, torch.zeros(1, rest.shape[1], D_VALUE, dtype=ctx.dtype, device=ctx.device)],
                   dim=1)
    q2 = (centres[2:3] + centres[3:4]) / 2
    k2 = centres.repeat_interleave(per, dim=0)[None]
    weights = operators.ida_weights(q2[:, None, :], k2, eps=EPS_N_SWEEP)[:, 0, :]
    offsets = k2 - q2[:, None, :]
    g1 = 2 * offsets[..., 0] / (offsets.square().sum(-1) + EPS_N_SWEEP)
    sign = torch.sign(g1 - (weights * g1).sum(-1, keepdim=True))
    v2 = torch.zeros(1, n, D_VALUE, dtype=ctx.dtype, device=ctx.device)
    v2[..., 0] = V_BOUND * sign
    return torch.cat([q1, q2]), torch.cat([k1, k2]), torch.cat([v1, v2])


@functools.lru_cache(maxsize=64)
def clustered_worst(ctx, n: int, family: str):
    """Searched worst case of ‖∂o/∂q‖ over the clustered family at n (ε = 10⁻²): the query moves
    in the ball ‖q‖ ≤ 1, each key in its cluster's ball, values in the L_V-ball; restarts from
    the two constructions and from random points. Returns ``(case, searched, constructed)``."""
    gen = ctx.generator(f"cluster-search:{family}:n={n}")
    batch = ctx.pick(quick=4, full=30)
    radius = cluster_radius(family, n)
    centres = cluster_centres(ctx)
    per = n // CLUSTERS
    key_centres = centres.repeat_interleave(per, dim=0).expand(batch + 2, -1, -1)
    spread = torch.rand(batch, n, 1, generator=gen, dtype=ctx.dtype, device=ctx.device)
    k = key_centres[:batch] + sampling.unit_vectors(ctx, gen, batch, n, D_IDA) * spread * radius
    home = torch.randint(0, CLUSTERS, (batch,), generator=gen, device=ctx.device)
    q = centres[home] + sampling.unit_vectors(ctx, gen, batch, D_IDA) * (2 * radius)
    v = _values(ctx, gen, batch, n)
    built = cluster_constructions(ctx, n, radius)
    attend = ida_attend(EPS_N_SWEEP)
    constructed = float(jac.query_jacobian_norm(attend, *built).max())
    scale = min(math.sqrt(EPS_N_SWEEP), radius)
    q, k, v, searched = jac.ascend(
        attend, torch.cat([built[0], q]), torch.cat([built[1], k]), torch.cat([built[2], v]),
        project=_cluster_project(key_centres, radius), steps=ctx.pick(quick=15, full=80),
        lr=(0.5 * math.sqrt(EPS_N_SWEEP), 0.5 * scale, 0.1))
    eps_t = torch.full((batch + 2,), EPS_N_SWEEP, dtype=ctx.dtype, device=ctx.device)
    return {"q": q, "k": k, "v": v, "eps": eps_t}, searched, constructed


def _cluster_n_grid(ctx):
    """n = 8 … 8192 keys (×4 steps, quick) or ×2 steps (full): n/C even, 3.01 decades."""
    step = ctx.pick(quick=2, full=1)
    return np.array([2.0**e for e in range(3, 14, step)])


def _clustered_measure(family: str):
    def measure(ctx, grid):
        out = []
        for n in grid:
            _, searched, constructed = clustered_worst(ctx, int(n), family)
            out.append(max(float(searched.max()), constructed))
        return np.array(out)

    return measure


def sample_clustered_searched(ctx, gen):
    """The instances the two families' searches ended on, n ≤ 2048 of the grid (the largest n
    would double the cost and adds no new geometry)."""
    for family in ("fixed", "low-rank"):
        for n in _cluster_n_grid(ctx):
            if n <= 2048:
                yield clustered_worst(ctx, int(n), family)[0]


def effective_rank_gap(case):
    """eff-rank of the keys' IDA kernel K_jm = (‖k_j−k_m‖²+ε)⁻¹ against C(1 + 4r_c²/ε)²: within a
    cluster K_jm ≥ 1/(4r_c²+ε), so tr(K²) ≥ C(n/C)²/(4r_c²+ε)² while tr K = n/ε."""
    k, eps, radius = case["k"], case["eps"], case["radius"]
    rank = operators.effective_rank(operators.ida_kernel(k, eps=eps))
    rhs = CLUSTERS * (1 + 4 * radius.square() / eps) ** 2
    return rank, rhs, tolerances.roundoff(rank.dtype, k.shape[-2] ** 2) * rank


def sample_low_rank_keys(ctx, gen):
    """The low-rank family's keys: n ∈ {8, 32, 128, 512}, n/C keys uniform in each cluster ball of
    radius r_c = 0.1√ε√(8/n), ε = 10⁻²."""
    batch = ctx.pick(quick=4, full=16)
    centres = cluster_centres(ctx)
    for n in (8, 32, 128, 512):
        radius = cluster_radius("low-rank", n)
        key_centres = centres.repeat_interleave(n // CLUSTERS, dim=0).expand(batch, -1, -1)
        spread = torch.rand(batch, n, 1, generator=gen, dtype=ctx.dtype, device=ctx.device)
        k = key_centres + sampling.unit_vectors(ctx, gen, batch, n, D_IDA) * spread * radius
        yield {"k": k, "eps": torch.full((batch,), EPS_N_SWEEP, dtype=ctx.dtype, device=ctx.device),
               "radius": torch.full((batch,), radius, dtype=ctx.dtype, device=ctx.device)}


def _log_n_bias() -> float:
    """Fitted power-law exponent of c·log n over the n grids (quick and full; the larger): what a
    true log n growth would measure as an exponent, so the tolerance that admits it."""
    from checks import Context

    grids = [_cluster_n_grid(Context("x", seed=0, profile=p)) for p in ("quick", "full")]
    return max(_exact_law_bias(g, math.log) for g in grids)


LOG_N_BIAS = _log_n_bias()

r_c_sym, gap_sym, clusters_sym = sp.symbols("r_c Delta_c C", positive=True)


def ida_clustered_derivation():
    a, t = sp.symbols("a t", positive=True)
    per_cluster = n_sym / clusters_sym
    decomposition = clusters_sym * (per_cluster * 2 * r_c_sym / eps_sym**2
                                    + per_cluster * 2 * gap_sym / (gap_sym**2 + eps_sym) ** 2)
    far_ratio = sp.limit(gap_sym**2 * 2 * gap_sym / (gap_sym**2 + eps_sym) ** 2, gap_sym, sp.oo)
    return [
        symbolic.holds(
            "Step 4, same cluster: ‖∂S_im/∂q_i‖ = 2a/(a²+ε)² ≤ 2r_c/ε² for a ≤ r_c, so the "
            "cluster contributes O(n_c r_c/ε²) (r_c = a + t)",
            sp.LessThan(2 * a / (a**2 + eps_sym) ** 2, 2 * r_c_sym / eps_sym**2),
            _nonnegative(2 * (a + t) / eps_sym**2 - 2 * a / (a**2 + eps_sym) ** 2)),
        symbolic.holds(
            "Step 4, other clusters: max_{a ≥ Δ_c} 2a/(a²+ε)² = 2Δ_c/(Δ_c²+ε)² = O(1/Δ_c²) as "
            "Δ_c → ∞ (for Δ_c² ≥ ε/3, where it decreases)",
            # An unevaluated Limit, so that the step prints (and renders) as the bound it states.
            sp.StrictLessThan(sp.Limit(gap_sym**2 * 2 * gap_sym / (gap_sym**2 + eps_sym) ** 2,
                                       gap_sym, sp.oo), sp.oo, evaluate=False),
            sp.true if far_ratio.is_finite else sp.false,
            note=f"the limit of Δ_c²·2Δ_c/(Δ_c²+ε)² is {far_ratio}: the order is in fact Δ_c⁻³"),
        symbolic.leading_order(
            "Step 4 conclusion: the decomposition Σ_c [O(n_c r_c/ε²) + O(n_c/Δ_c²)] over "
            "C = Θ(1) clusters (n_c = n/C) yields O(log n)",
            decomposition, n_sym, sp.log(n_sym),
            note="the decomposition's own bounds sum to n(2r_c/ε² + 2Δ_c/(Δ_c²+ε)²) = Θ(n) for "
                 "fixed r_c, Δ_c, ε; 'the number of non-negligible distance scales is O(log n)' is "
                 "not derived, and with Step 2's 2/Z_i the proof's bound stays O(n)"),
    ]


IDA_CLUSTERED_STATEMENT = LEMMA_PREAMBLE + (
    r"\;\text{(Proof, Step 4: for keys in the same cluster as } q_i \text{ the contribution is }"
    r" O(n_cr_c/\varepsilon^2)\text{; for keys in other clusters } O(n_c/\Delta_c^2)\text{. The"
    r" number of non-negligible distance scales is } O(\log n)\text{, yielding the } O(\log n)"
    r"\text{ scaling.)}"
)

LOG_TOLERANCE = (f"{LOG_N_BIAS:.3f} = closed_form_bias of c·log n on the n grid (quick and full, the "
                 "larger; 1 + log n fits less): a worst case growing exactly like c·log n fits this "
                 "exponent, so it is never refuted (its bootstrap interval reaches ≈ 0.27, which "
                 "leaves it undecided: 3 decades cannot tell log n from n^0.2), a flat worst case is "
                 "confirmed, and n^p is refuted once p − tolerance clears the interval")


def _cluster_family(radius_text: str) -> str:
    return (
        f"worst case over a clustered key family: C = {CLUSTERS} clusters centred at the corners of a "
        f"square of side Δ_c = {CLUSTER_GAP:g}, n/C keys each within radius {radius_text}, ε = 10⁻² "
        "fixed; the larger of (a) a projected-Adam ascent on ‖∂o/∂q‖ (q moves in ‖q‖ ≤ 1, each key "
        "in its cluster ball, values in the L_V-ball; 15 steps quick, 80 full) from the two "
        "constructions and 4 (quick) / 30 (full) random restarts, and (b) the constructions: q at a "
        "centre with its cluster's keys in two groups at q ± min(√ε, r_c)·e₁ (values ±L_V·e₁, other "
        "keys at their centres, value 0), and q at an edge midpoint with every key at its centre "
        "and the best values for the direction e₁"
    )


def ida_clustered_correction(evidence):
    fits = {e["name"]: e["fit"] for e in evidence if e["type"] == "scaling"}
    parts = [f"{name}: exponent {f['exponent']:.3g}, 95% CI [{f['ci'][0]:.3g}, {f['ci'][1]:.3g}]"
             for name, f in fits.items()]
    return ("L_IDA = O(1) in n (for fixed ε, r_c, Δ_c and also without clustering: sup ‖∂o_i/∂q_i‖ "
            "≤ L_V/√ε for every key configuration), which is within the stated O(1 + log n·L_W²R²); "
            "but the proof's Step 4 does not establish it: its own decomposition sums to Θ(n). "
            + "; ".join(parts))


IDA_CLUSTERED = Claim(
    id="georesolver/lemma-2.4/ida-clustered",
    label="Lemma 2.4 (Lipschitz Scaling under Low Effective Rank), clustered / low-rank keys",
    section="§2.4",
    statement=IDA_CLUSTERED_STATEMENT,
    reading=(
        "Quantity as in ida-general (the proof's reading): worst-case ‖∂o_i/∂q_i‖₂ for IDA, keys and "
        "values fixed, ‖v_j‖ ≤ L_V = 1. Hypothesis realised by two families, ε = 10⁻² fixed (the "
        "statement hides ε; the bound L_V/√ε shows how it enters): (A) clustering, C = 4 clusters "
        "of fixed radius r_c = 0.2 at fixed separation Δ_c = 1; (B) effective rank Θ(1), the same "
        "clusters with radius r_c = 0.1√ε√(8/n) shrinking in n, whose kernel's effective rank is "
        "≤ C(1 + 4r_c²/ε)² ≤ 1.082·C (checked). Claim tested: L = O(1 + log n) as n → ∞. Decided "
        "by a power-law fit of the worst-case norm over n (≥ 3 decades) with order O, exponent 0 "
        "and exponent tolerance equal to the exponent that c·log n itself fits on the grid: log n "
        "growth is never refuted (undecided at worst), power growth n^p beyond the tolerance is. "
        "Both families are confirmed (the measured exponent is ≈ 0: no growth at all). The "
        "proof's Step 4 is tested step by step: its two contribution bounds hold, but they sum to "
        "Θ(n), so its conclusion O(log n) does not follow (refuted as proved, confirmed as "
        "stated)."
    ),
    kind=Kind.ASYMPTOTIC,
    derivation=ida_clustered_derivation,
    checks=(
        ScalingLaw(
            name="jacobian-norm-vs-n",
            quantity="worst-case ‖∂o_i/∂q_i‖₂ (IDA, clustered keys, fixed r_c)",
            variable="n",
            exponent=0.0,
            order="O",
            grid=_cluster_n_grid,
            measure=_clustered_measure("fixed"),
            family=_cluster_family(f"r_c = {CLUSTER_RADIUS:g}"),
            tolerance=LOG_TOLERANCE,
            exponent_tolerance=LOG_N_BIAS,
            predicted="O(1 + log n)",
            reading="(A) clustering with fixed r_c, Δ_c, ε",
        ),
        ScalingLaw(
            name="jacobian-norm-vs-n-low-rank",
            quantity="worst-case ‖∂o_i/∂q_i‖₂ (IDA, clustered keys, shrinking r_c)",
            variable="n",
            exponent=0.0,
            order="O",
            grid=_cluster_n_grid,
            measure=_clustered_measure("low-rank"),
            family=_cluster_family("r_c = 0.1√ε√(8/n)"),
            tolerance=LOG_TOLERANCE,
            exponent_tolerance=LOG_N_BIAS,
            predicted="O(1 + log n)",
            reading="(B) effective rank Θ(1): clusters shrinking with n",
        ),
        Relation(
            name="suite-supremum",
            lhs="‖∂o_i/∂q_i‖₂ (torch.func through ida_attention)",
            rel="<=",
            rhs="L_V·max_{0≤a≤R} 2a/(a²+ε), R = max_m‖q_i−k_m‖, L_V = max_j‖v_j‖",
            evaluate=ida_supremum_gap,
            sample=sample_clustered_searched,
            tolerance="64·u·(n+10) relative: n-term weighted sums and the 2×2 SVD",
            sampler="the instances both families' searches ended on, n ≤ 2048 of the grid",
            reading="the n-free bound caps every searched value in both families",
        ),
        Relation(
            name="effective-rank-of-low-rank-family",
            lhs="eff-rank of the keys' kernel (‖k_j−k_m‖²+ε)⁻¹",
            rel="<=",
            rhs="C(1 + 4r_c²/ε)²",
            evaluate=effective_rank_gap,
            sample=sample_low_rank_keys,
            tolerance="64·u·n²·eff-rank: tr(K²) sums n² squares",
            sampler="family (B)'s keys, n ∈ {8, 32, 128, 512}, uniform in the cluster balls",
            reading="family (B) satisfies the lemma's 'effective rank Θ(1)'",
        ),
    ),
    correction=ida_clustered_correction,
    time_limit_s=30.0,
    notes=(
        "The statement leaves ε, r_c and Δ_c implicit; at fixed ε the per-query Lipschitz constant "
        "is at most L_V/√ε for any keys, so clustering is not needed for n-independence. Step 4's "
        "'other clusters' bound O(n_c/Δ_c²) holds but the order is Δ_c⁻³; 'the number of "
        "non-negligible distance scales is O(log n)' has no derivation to check. No log n growth "
        "is seen: the fitted exponents are ≈ 0 (a log n law would fit ≈ the tolerance)."
    ),
)


# ══ softmax ══


def softmax_supremum(dim, radius=R_BOUND, value_bound=V_BOUND):
    """L_V·R/√d: the suite's supremum of ‖∂o_i/∂q_i‖ for softmax attention (any even n ≥ 2)."""
    return value_bound * radius / math.sqrt(dim)


def _softmax_project(q, k, v):
    return jac.project_ball(q, R_BOUND), jac.project_ball(k, R_BOUND), jac.project_ball(v, V_BOUND)


@functools.lru_cache(maxsize=64)
def softmax_worst(ctx, n: int, dim: int):
    """Searched worst case of ‖∂o/∂q‖ over ‖q‖, ‖k_m‖ ≤ R, ‖v_j‖ ≤ L_V at (n, d).
    Returns ``(case, searched, constructed)``."""
    gen = ctx.generator(f"softmax-search:n={n}:d={dim}")
    batch = ctx.pick(quick=6, full=32)
    unit = lambda *shape: sampling.unit_vectors(ctx, gen, *shape)  # noqa: E731
    radii = lambda *shape: torch.rand(*shape, 1, generator=gen, dtype=ctx.dtype,  # noqa: E731
                                      device=ctx.device)
    q = unit(batch, dim) * radii(batch) * R_BOUND
    k = unit(batch, n, dim) * radii(batch, n).sqrt() * R_BOUND
    v = _values(ctx, gen, batch, n)
    q, k, v, searched = jac.ascend(softmax_attend, q, k, v, project=_softmax_project,
                                   steps=ctx.pick(quick=20, full=80), lr=(0.2, 0.2, 0.1))
    built = jac.two_group_construction(1, n, dim, D_VALUE, R_BOUND, V_BOUND, dtype=ctx.dtype,
                                       device=ctx.device)
    constructed = float(jac.query_jacobian_norm(softmax_attend, *built)[0])
    return {"q": q, "k": k, "v": v}, searched, constructed


def _softmax_n_grid(ctx):
    return _ida_n_grid(ctx)


def _d_grid(ctx):
    """d = 1 … 1000: the four decades' ends (quick) or half-decade steps (full), rounded."""
    per_decade = ctx.pick(quick=1, full=2)
    return np.unique(np.round(np.logspace(0, 3, 3 * per_decade + 1)))


N_FOR_D_SWEEP = 8


def softmax_worst_norm_vs_n(ctx, grid):
    out = []
    for n in grid:
        _, searched, constructed = softmax_worst(ctx, int(n), D_SOFT)
        out.append(max(float(searched.max()), constructed))
    return np.array(out)


def softmax_worst_norm_vs_d(ctx, grid):
    out = []
    for dim in grid:
        _, searched, constructed = softmax_worst(ctx, N_FOR_D_SWEEP, int(dim))
        out.append(max(float(searched.max()), constructed))
    return np.array(out)


def softmax_supremum_gap(case):
    """‖∂o/∂q‖ (torch.func through softmax_attention) <= L_V·R/√d, R = max_m ‖k_m‖, L_V = max_j ‖v_j‖."""
    q, k, v = case["q"], case["k"], case["v"]
    with single_thread():
        norms = jac.query_jacobian_norm(softmax_attend, q, k, v)
    radius = torch.linalg.vector_norm(k, dim=-1).amax(-1)
    value_bound = torch.linalg.vector_norm(v, dim=-1).amax(-1)
    rhs = value_bound * radius / math.sqrt(k.shape[-1])
    return norms, rhs, _jacobian_roundoff(norms, k.shape[-2]) * rhs


def softmax_construction_gap(case):
    """The two-group construction's ‖∂o/∂q‖ == L_V·R/√d."""
    n, dim, radius = int(case["n"]), int(case["d"]), case["radius"]
    built = jac.two_group_construction(radius.shape[0], n, dim, D_VALUE, radius, V_BOUND,
                                       dtype=radius.dtype, device=radius.device)
    with single_thread():
        lhs = jac.query_jacobian_norm(softmax_attend, *built)
    rhs = V_BOUND * radius / math.sqrt(dim)
    return lhs, rhs, _jacobian_roundoff(lhs, n) * rhs


def sample_softmax_constructions(ctx, gen):
    """Two-group constructions: (n, d) ∈ {(2, 1), (64, 4), (1024, 16), (8, 1000)}; R log-uniform
    in [10⁻², 10²]."""
    batch = ctx.pick(quick=4, full=16)
    for n, dim in ((2, 1), (64, 4), (1024, 16), (8, 1000)):
        yield {"n": n, "d": dim, "radius": sampling.log_uniform(ctx, gen, batch, low=1e-2, high=1e2)}


def sample_softmax_searched(ctx, gen):
    """The instances the n- and d-sweeps' searches ended on (n ≤ 2048), then random instances:
    n ∈ {1, 2, 3, 8, 64}, d ∈ {1, 4, 32}, q, keys Gaussian with scale log-uniform in [10⁻², 10²]
    per instance, values in the L_V-ball."""
    for n in _softmax_n_grid(ctx):
        if n <= 2048:
            yield softmax_worst(ctx, int(n), D_SOFT)[0]
    for dim in _d_grid(ctx):
        yield softmax_worst(ctx, N_FOR_D_SWEEP, int(dim))[0]
    yield from sample_softmax_random(ctx, gen)


def sample_softmax_random(ctx, gen):
    batch = ctx.pick(quick=64, full=512)
    for count in (1, 2, 3, 8, 64):
        for dim in (1, 4, 32):
            scale = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-2, high=1e2)
            yield {"q": sampling.gaussian(ctx, gen, batch, dim) * scale[:, 0],
                   "k": sampling.gaussian(ctx, gen, batch, count, dim) * scale,
                   "v": _values(ctx, gen, batch, count)}


def _softmax_weight_figures(case):
    """∂W_ij/∂q_i ``(B, n, d)`` by torch.func through softmax_weights, the weights, k̄_i."""
    q, k = case["q"], case["k"]
    with single_thread():
        dw = _weight_jacobian(operators.softmax_weights, q, k)
    weights = operators.softmax_weights(q[:, None, :], k)[:, 0, :]
    mean_key = (weights[..., None] * k).sum(-2)
    return dw, weights, mean_key


def _softmax_tol(case, value):
    """64·u·(n + 1 + max|logit|)·value: softmax's exp amplifies a logit's rounding by its size."""
    q, k = case["q"], case["k"]
    logits = (torch.linalg.vector_norm(q, dim=-1) * torch.linalg.vector_norm(k, dim=-1).amax(-1)
              / math.sqrt(k.shape[-1]))
    return tolerances.roundoff(value.dtype, k.shape[-2] + 1 + logits) * value


def softmax_weight_gradient_gap(case):
    """⟨U, ∂W_ij/∂q_i⟩ (torch.func) == ⟨U, (1/√d) W_ij (k_j − Σ_m W_im k_m)⟩ for a fixed probe U."""
    dw, weights, mean_key = _softmax_weight_figures(case)
    k, probe = case["k"], case["probe"]
    formula = weights[..., None] * (k - mean_key[:, None, :]) / math.sqrt(k.shape[-1])
    lhs, rhs = (dw * probe).sum((-1, -2)), (formula * probe).sum((-1, -2))
    # k_j − k̄_i cancels when one weight dominates: the error scale is W_ij(|k_j| + |k̄_i|)/√d.
    magnitude = weights[..., None] * (k.abs() + mean_key.abs()[:, None, :]) / math.sqrt(k.shape[-1])
    return lhs, rhs, _softmax_tol(case, (magnitude * probe.abs()).sum((-1, -2)))


def softmax_step5_first_gap(case):
    """Σ_j ‖∂W_ij/∂q_i‖ <= (1/√d) Σ_j W_ij ‖k_j − k̄_i‖ (Step 5; equality holds)."""
    dw, weights, mean_key = _softmax_weight_figures(case)
    k = case["k"]
    lhs = torch.linalg.vector_norm(dw, dim=-1).sum(-1)
    rhs = (weights * torch.linalg.vector_norm(k - mean_key[:, None, :], dim=-1)).sum(-1)
    rhs = rhs / math.sqrt(k.shape[-1])
    spread = torch.linalg.vector_norm(k, dim=-1).amax(-1) / math.sqrt(k.shape[-1])
    return lhs, rhs, _softmax_tol(case, rhs + spread)


def softmax_step5_spread_gap(case):
    """(1/√d) Σ_j W_ij ‖k_j − k̄_i‖ <= (2R/√d) Σ_j W_ij, R = max_m ‖k_m‖ (Step 5)."""
    _, weights, mean_key = _softmax_weight_figures(case)
    k = case["k"]
    lhs = (weights * torch.linalg.vector_norm(k - mean_key[:, None, :], dim=-1)).sum(-1)
    lhs = lhs / math.sqrt(k.shape[-1])
    rhs = 2 * torch.linalg.vector_norm(k, dim=-1).amax(-1) * weights.sum(-1) / math.sqrt(k.shape[-1])
    return lhs, rhs, _softmax_tol(case, rhs)


def sample_softmax_weights(ctx, gen):
    """sample_softmax_random's instances with a Gaussian probe U of the weight Jacobian's shape."""
    for case in sample_softmax_random(ctx, gen):
        case["probe"] = sampling.gaussian(ctx, gen, *case["k"].shape)
        yield case


d_sym = sp.Symbol("d_h", positive=True)


def softmax_derivation():
    qx, qy = sp.symbols("q_x q_y", real=True)
    keys = [sp.symbols(f"k_{m}x k_{m}y", real=True) for m in (1, 2, 3)]
    exps = [sp.exp((qx * kx + qy * ky) / sp.sqrt(d_sym)) for kx, ky in keys]
    weights = [e / sum(exps) for e in exps]
    mean_kx = sum(w * kx for w, (kx, _) in zip(weights, keys, strict=True))
    weight_sum = sp.Symbol("Σ_j W_ij", positive=True)
    corrected_sum = (2 * R_sym / sp.sqrt(d_sym)) * weight_sum
    return [
        symbolic.exact("Step 5: ∂W_ij/∂q_i = (1/√d_h) W_ij (k_j − Σ_m W_im k_m) (x-coordinate, "
                       "n = 3, d = 2 symbolic keys)",
                       weights[0] * (keys[0][0] - mean_kx) / sp.sqrt(d_sym), sp.diff(weights[0], qx)),
        symbolic.exact("Step 5: Σ_j W_ij = 1 (n = 3)", sp.Integer(1), sp.simplify(sum(weights))),
        symbolic.exact("Step 5: (2R/√d_h) Σ_j W_ij = 2nR/√d_h",
                       2 * n_sym * R_sym / sp.sqrt(d_sym), corrected_sum.subs(weight_sum, 1),
                       note="softmax rows sum to 1, so the sum is 2R/√d_h; 2nR/√d_h would need every "
                            "W_ij = 1"),
        symbolic.leading_order("Step 5: 'this gives the linear n scaling for softmax'",
                               corrected_sum.subs(weight_sum, 1), n_sym, n_sym,
                               note="with the sum corrected the bound 2R/√d_h has no n at all"),
    ]


SOFTMAX_STATEMENT = LEMMA_PREAMBLE + (
    r"\;\text{(Proof, Step 5: } \frac{\partial W_{ij}}{\partial q_i}=\frac{1}{\sqrt{d_h}}W_{ij}"
    r"\big(k_j-\sum_mW_{im}k_m\big)\text{; thus } \sum_j\|\partial W_{ij}/\partial q_i\|_2\le"
    r"\frac{1}{\sqrt{d_h}}\sum_jW_{ij}\|k_j-\bar k_i\|_2\le\frac{2R}{\sqrt{d_h}}\sum_jW_{ij}"
    r"=\frac{2nR}{\sqrt{d_h}}. \text{ This gives the linear } n \text{ scaling for softmax.)}"
)

SOFTMAX_FAMILY = (
    "worst case: at each grid point the larger of (a) a batched projected-Adam ascent on ‖∂o/∂q‖ "
    "(6 restarts × 20 steps quick, 32 × 80 full; q and keys in the R-ball, values in the "
    "L_V-ball, random starts) and (b) the two-group construction q = 0, keys ±R·e₁, values "
    "±L_V·e₁; R = L_V = 1, d_v = 2. The 'suite-supremum' relation bounds every searched instance "
    "by L_V·R/√d, which (b) attains"
)


def softmax_correction(evidence):
    fits = {e["name"]: e["fit"] for e in evidence if e["type"] == "scaling"}
    n_fit = fits.get("jacobian-norm-vs-n-linear")
    text = ("Step 5's sum is (2R/√d_h)Σ_j W_ij = 2R/√d_h, not 2nR/√d_h; the exact supremum of "
            "‖∂o_i/∂q_i‖ over ‖q‖, ‖k_m‖ ≤ R, ‖v_j‖ ≤ L_V is L_V·R/√d for every even n (a W-weighted "
            "covariance of values and keys): Θ(1) in n, not linear. L_soft = O(nL_W²R²/√d) holds "
            "only as a bound loose by the factor n.")
    if n_fit is not None:
        text += (f" Measured worst-case exponent in n: {n_fit['exponent']:.3g} "
                 f"(95% CI [{n_fit['ci'][0]:.3g}, {n_fit['ci'][1]:.3g}]).")
    return text


SOFTMAX = Claim(
    id="georesolver/lemma-2.4/softmax",
    label="Lemma 2.4 (Lipschitz Scaling under Low Effective Rank), softmax; proof Step 5",
    section="§2.4",
    statement=SOFTMAX_STATEMENT,
    reading=(
        "Quantity (the proof's reading): L_soft = sup ‖∂o_i/∂q_i‖₂ for softmax attention with "
        "scale 1/√d, one query, keys and values held fixed, over ‖q_i‖, ‖k_m‖ ≤ R and ‖v_j‖ ≤ L_V "
        "(R = L_V = 1; the residual's +1 left out). Readings tested: (S) the statement "
        "L_soft = O(nL_W²R²/√d): the worst case grows at most like n (d fixed) and decays at least "
        "like d^(−1/2) (n fixed) — confirmed (measured n⁰ and d^(−1/2); the supremum L_V·R/√d is "
        "derived and attained); (P) Step 5's 'linear n scaling', read as Θ(n) growth of the "
        "worst case — refuted by the fit (exponent ≈ 0); Step 5's chain is checked step by step "
        "and its last equality (2R/√d_h)Σ_j W_ij = 2nR/√d_h is false (Σ_j W_ij = 1). The "
        "statement's L_W² and R² are not separated from L_V and R here."
    ),
    kind=Kind.ASYMPTOTIC,
    derivation=softmax_derivation,
    checks=(
        ScalingLaw(
            name="jacobian-norm-vs-n",
            quantity="worst-case ‖∂o_i/∂q_i‖₂ (softmax, d = 4)",
            variable="n",
            exponent=1.0,
            order="O",
            grid=_softmax_n_grid,
            measure=softmax_worst_norm_vs_n,
            family=SOFTMAX_FAMILY,
            tolerance=FLAT_TOLERANCE,
            predicted="O(n) (the statement)",
            reading="(S) in n",
        ),
        ScalingLaw(
            name="jacobian-norm-vs-n-linear",
            quantity="worst-case ‖∂o_i/∂q_i‖₂ (softmax, d = 4)",
            variable="n",
            exponent=1.0,
            order="Θ",
            grid=_softmax_n_grid,
            measure=softmax_worst_norm_vs_n,
            family=SOFTMAX_FAMILY,
            tolerance=FLAT_TOLERANCE,
            predicted="Θ(n) (Step 5: 'the linear n scaling for softmax')",
            reading="(P): the worst case grows linearly in n",
        ),
        ScalingLaw(
            name="jacobian-norm-vs-d",
            quantity="worst-case ‖∂o_i/∂q_i‖₂ (softmax, n = 8)",
            variable="d",
            exponent=-0.5,
            order="O",
            grid=_d_grid,
            measure=softmax_worst_norm_vs_d,
            family=SOFTMAX_FAMILY,
            tolerance="0.05 (the engine's default): the measured worst values are the closed-form "
                      "supremum L_V·R/√d to round-off (closed_form_bias 0 on the grid)",
            predicted="O(d^-1/2) (the statement)",
            reading="(S) in d: the worst case decays at least like d^(−1/2)",
        ),
        Relation(
            name="suite-supremum",
            lhs="‖∂o_i/∂q_i‖₂ (torch.func through softmax_attention)",
            rel="<=",
            rhs="L_V·R/√d, R = max_m‖k_m‖, L_V = max_j‖v_j‖",
            evaluate=softmax_supremum_gap,
            sample=sample_softmax_searched,
            tolerance="64·u·(n+10) relative: n-term weighted sums and the SVD",
            sampler="the instances the n- and d-sweeps' searches ended on (n ≤ 2048), then random: "
                    "n ∈ {1, 2, 3, 8, 64}, d ∈ {1, 4, 32}, q and keys Gaussian × a log-uniform "
                    "scale in [10⁻², 10²], values in the L_V-ball",
            reading="the suite's bound (Cauchy–Schwarz on the W-weighted covariance of v and k/√d) "
                    "caps every searched value",
        ),
        Relation(
            name="construction-attains",
            lhs="‖∂o_i/∂q_i‖₂ of the two-group construction",
            rel="==",
            rhs="L_V·R/√d",
            evaluate=softmax_construction_gap,
            sample=sample_softmax_constructions,
            tolerance="64·u·(n+10) relative",
            sampler="q = 0, keys n/2 at +R·e₁ and n/2 at −R·e₁, values ±L_V·e₁; (n, d) ∈ {(2, 1), "
                    "(64, 4), (1024, 16), (8, 1000)}, R log-uniform in [10⁻², 10²]",
        ),
        Relation(
            name="weight-gradient-formula",
            lhs="⟨U, ∂W_ij/∂q_i⟩ (torch.func through softmax_weights)",
            rel="==",
            rhs="⟨U, (1/√d) W_ij (k_j − Σ_m W_im k_m)⟩",
            evaluate=softmax_weight_gradient_gap,
            sample=sample_softmax_weights,
            tolerance="64·u·(n + 1 + max|q·k|/√d)·Σ|U|W_ij(|k_j|+|k̄_i|)/√d: exp amplifies logit "
                      "rounding, and k_j − k̄_i cancels when one weight dominates",
            sampler="n ∈ {1, 2, 3, 8, 64}, d ∈ {1, 4, 32}, q and keys Gaussian × a log-uniform "
                    "scale in [10⁻², 10²]; U Gaussian",
        ),
        Relation(
            name="step5-first-inequality",
            lhs="Σ_j ‖∂W_ij/∂q_i‖ (torch.func)",
            rel="<=",
            rhs="(1/√d) Σ_j W_ij ‖k_j − k̄_i‖",
            evaluate=softmax_step5_first_gap,
            sample=sample_softmax_random,
            tolerance="64·u·(n + 1 + max|q·k|/√d)·(rhs + R/√d)",
            sampler="as weight-gradient-formula",
        ),
        Relation(
            name="step5-spread-bound",
            lhs="(1/√d) Σ_j W_ij ‖k_j − k̄_i‖",
            rel="<=",
            rhs="(2R/√d) Σ_j W_ij, R = max_m ‖k_m‖",
            evaluate=softmax_step5_spread_gap,
            sample=sample_softmax_random,
            tolerance="64·u·(n + 1 + max|q·k|/√d) relative",
            sampler="as weight-gradient-formula",
        ),
    ),
    correction=softmax_correction,
    time_limit_s=30.0,
    notes=(
        "Step 5's derivative and its first two inequalities are right; its last equality replaces "
        "Σ_j W_ij = 1 by n, which is where 'the linear n scaling for softmax' comes from. With "
        "bounded inputs the per-query Jacobian is the W-weighted covariance of values and keys "
        "divided by √d, at most L_V·R/√d for every n: the statement's O(nL_W²R²/√d) holds only "
        "because O is an upper bound. Table 3's 'Softmax O(n)' entry is the statement's bound. "
        "Layer reading (Jacobian in all inputs) not measured; argument only: with ‖q‖, ‖k‖ ≤ R "
        "every W_ij ≤ e^(2R²/√d)/n, so the Schur test bounds it independently of n as well, with a "
        "constant exponential in R²/√d."
    ),
)


CLAIMS = (SCORE_GRADIENT_MAX, IDA_GENERAL, IDA_CLUSTERED, SOFTMAX)
