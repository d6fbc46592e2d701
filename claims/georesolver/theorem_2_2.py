"""GeoResolver §2.3, Theorem 2.2 (Theorem 1: Softmax Lower Bound), the IDA analysis.

Only the IDA half lives here (id ``georesolver/theorem-2.2/ida``); the softmax half is the
separate catalogue id ``georesolver/theorem-2.2/softmax``.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

import operators
from checks import Claim, Kind, Relation, ScalingLaw, sampling, symbolic, tolerances
from checks.fitting import closed_form_bias

STATEMENT = (
    r"\text{Set } k_j=Re_j \text{ for some } R>0, \text{ and set } q=k_1=Re_1. \ldots\ "
    r"W_{11}^{IDA}=\frac{1/\varepsilon}{1/\varepsilon+(n-1)/(2R^2+\varepsilon)}"
    r"=\frac{1}{1+\varepsilon(n-1)/(2R^2+\varepsilon)}. \ldots \text{ for any } \varepsilon>0, "
    r"\text{ the weight is within } \delta \text{ of } 1 \text{ whenever } "
    r"\varepsilon(n-1)/(2R^2+\varepsilon)<\delta/(1-\delta). \text{ Thus IDA achieves "
    r"}\delta\text{-approximation with } \varepsilon=O(\delta R^2/n)."
)

# Squared distance from q = Re_1 to k_j = Re_j (j ≠ 1) in units of R², as the paper states it;
# a module constant so that the tests can build a false closed form and see it refuted.
SQ_DIST = 2
N_GRID = tuple(4 * 2**k for k in range(11))  # 4 … 4096: 3.01 decades; the instance is n×n
N_LAW_DELTA, N_LAW_R = 0.01, 1.0
SWEEP_N = 64  # n of the R- and δ-sweeps
DELTA_RANGE = (1e-6, 1e-2)  # "small δ": ε* ∝ δ up to the factor 1/((n−1)(1−δ)−δ)
R_RANGE = (1e-3, 1e3)
# Bisection bracket for ε (covers ε* ≈ 2R²δ/n over the sweeps with many decades to spare) and
# its refinement: (K+1)^rounds = 256⁴ subintervals of the ln ε range (138): width 3e-8.
BRACKET = (1e-40, 1e20)
CANDIDATES, ROUNDS = 255, 4


def eps_star(n, delta, r):
    """The largest ε with W₁₁ >= 1 − δ, from the derivation (for (n−1)(1−δ) > δ)."""
    return 2 * r**2 * delta / ((n - 1) * (1 - delta) - delta)


_N_BIAS = closed_form_bias(np.array(N_GRID, float),
                            eps_star(np.array(N_GRID, float), N_LAW_DELTA, N_LAW_R), -1.0)
DELTA_POINTS = {"quick": 9, "full": 41}
_DELTA_BIAS = max(
    (closed_form_bias(g, eps_star(SWEEP_N, g, 1.0), 1.0) for g in (
        np.logspace(math.log10(DELTA_RANGE[0]), math.log10(DELTA_RANGE[1]), p)
        for p in DELTA_POINTS.values())),
    key=abs)


def derivation():
    n = sp.Symbol("n", positive=True, integer=True)
    m = sp.Symbol("m", positive=True)  # m = n − 1 > 0
    j = sp.Symbol("j", positive=True, integer=True)
    r, eps, delta, x, s = sp.symbols("R epsilon delta x s", positive=True)
    e = [sp.Matrix([1 if i == c else 0 for i in range(4)]) for c in range(4)]
    sq = lambda v: (v.T * v)[0]  # noqa: E731
    paper_w = 1 / (1 + eps * (n - 1) / (2 * r**2 + eps))
    dist = sq(r * e[0] - r * e[1])
    # Kernel on the instance: D₁₁ = 0 + ε and D₁ⱼ = ‖Re₁ − Reⱼ‖² + ε for j = 2 … n.
    derived_w = (1 / eps) / (1 / eps + sp.summation(1 / (dist + eps), (j, 2, n)))
    w4 = (1 / (sq(r * e[0] - r * e[0]) + eps)) / sum(1 / (sq(r * e[0] - r * ek) + eps) for ek in e)
    x_of_eps = eps * m / (2 * r**2 + eps)
    eps_solved = sp.solve(sp.Eq(x_of_eps.subs(m, n - 1), delta / (1 - delta)), eps)
    star = eps_star(n, delta, r)
    return [
        symbolic.exact("‖q − k_j‖² = 2R² for j ≠ 1", 2 * r**2, dist),
        symbolic.exact("W₁₁ from the kernel on the instance", paper_w, derived_w),
        symbolic.exact("W₁₁ on the explicit instance n = 4 (vectors Re_j in R⁴)",
                       paper_w.subs(n, 4), w4),
        symbolic.limit("lim_{ε→0⁺} W₁₁ = 1", paper_w, eps, 0, sp.Integer(1)),
        symbolic.exact("1/(1+x) = 1 − δ at x = δ/(1−δ)", delta / (1 - delta),
                       sp.solve(sp.Eq(1 / (1 + x), 1 - delta), x)[0]),
        symbolic.holds("1/(1+x) decreases in x, so W₁₁ >= 1 − δ ⇔ x <= δ/(1−δ)",
                       sp.StrictLessThan(sp.diff(1 / (1 + x), x), 0, evaluate=False),
                       sp.true if (-sp.diff(1 / (1 + x), x)).is_positive else sp.false),
        symbolic.holds("x(ε) = ε(n−1)/(2R²+ε) increases in ε (n − 1 = m > 0)",
                       sp.StrictGreaterThan(sp.diff(x_of_eps, eps), 0, evaluate=False),
                       sp.true if sp.factor(sp.diff(x_of_eps, eps)).is_positive else sp.false),
        symbolic.exact("largest admissible ε* = 2R²δ/((n−1)(1−δ)−δ) (derived by the suite)",
                       star, eps_solved[0] if len(eps_solved) == 1 else sp.nan),
        # δ ∈ (0, 1) is written δ = s/(1+s), s > 0, so that SymPy knows 1 − δ > 0.
        symbolic.leading_order("ε* = Θ(δR²/n) as n → ∞", star.subs(delta, s / (1 + s)), n,
                               (delta * r**2 / n).subs(delta, s / (1 + s)),
                               note="δ = s/(1+s), s > 0; ε*·n/(δR²) → 2/(1−δ)"),
    ]


# ── (a) the operator's W₁₁ on the instance against the closed form ──


def _instance(r, n):
    """q = R e₁ (batch, 1, n) and k_j = R e_j (batch, n, n), built with torch.eye (d = n)."""
    k = r[:, None, None] * torch.eye(n, dtype=r.dtype, device=r.device)
    return k[:, :1, :], k


def w11_gap(case, *, sq_dist: float = SQ_DIST):
    """W₁₁ of the operator and the closed form 1/(1 + ε(n−1)/(sq_dist·R² + ε)), with tolerance."""
    r, eps, n = case["R"], case["eps"], int(case["n"])
    q, k = _instance(r, n)
    w11 = operators.ida_weights(q, k, eps=eps)[:, 0, 0]
    closed = 1 / (1 + eps * (n - 1) / (sq_dist * r**2 + eps))
    # Error model: D₁₁ = ε exactly (zero distance), so the operator's r₁ = 1 exactly; each
    # r_j = ε/(2R²+ε) carries ~4 roundings (cdist's sqrt/square, the sum, the division), their
    # n-term sum at most n more, and 1/Σ one: (n + 8)·u relative, and W₁₁ <= 1. The closed form
    # costs 5 roundings, inside the same budget.
    tol = tolerances.roundoff(r.dtype, n + 8)
    return w11, closed, torch.full_like(w11, tol)


def _sample_instances(ctx, gen):
    scale = ctx.pick(quick=1, full=10)
    for n, batch in ((2, 2000), (3, 2000), (8, 2000), (64, 500), (512, 16)):
        yield {"R": sampling.log_uniform(ctx, gen, batch * scale, low=1e-3, high=1e3),
               "eps": sampling.log_uniform(ctx, gen, batch * scale, low=1e-12, high=1e4),
               "n": n}


def _strategy(ctx):
    from hypothesis import strategies as st

    return st.tuples(st.integers(2, 64), sampling.log_uniform_floats(1e-3, 1e3),
                     sampling.log_uniform_floats(1e-12, 1e4)).map(
        lambda t: {"R": ctx.tensor([t[1]]), "eps": ctx.tensor([t[2]]), "n": t[0]})


# ── (b) ε* by bisection on the operator's W₁₁ ──


def bisect_eps_star(ctx, n, delta, r):
    """Largest ε with 1 − W₁₁ <= δ for each (δ, R) pair, by a batched (K+1)-ary bisection in ln ε.

    1 − W₁₁ is taken as the sum of the other weights (no cancellation). The predicate must hold at
    the bracket's lower end and fail at its upper end; otherwise the bracket is a defect.
    """
    delta, r = ctx.tensor(delta), ctx.tensor(r)
    q, k = _instance(r, n)
    q, k = q[:, None], k[:, None]  # (P, 1, 1, n), (P, 1, n, n): one ε per candidate

    def admissible(log_eps):  # (P, K) → bool (P, K)
        w = operators.ida_weights(q, k, eps=log_eps.exp())[..., 0, :]
        return w[..., 1:].sum(dim=-1) <= delta[:, None]

    lo = torch.full_like(r, math.log(BRACKET[0]))
    hi = torch.full_like(r, math.log(BRACKET[1]))
    ends = admissible(torch.stack([lo, hi], dim=-1))
    if not bool(ends[:, 0].all()) or bool(ends[:, 1].any()):
        raise ValueError(f"ε bracket {BRACKET} does not straddle ε* for n = {n}")
    frac = torch.arange(1, CANDIDATES + 1, dtype=r.dtype, device=r.device) / (CANDIDATES + 1)
    for _ in range(ROUNDS):
        cand = lo[:, None] + (hi - lo)[:, None] * frac
        n_ok = admissible(cand).sum(dim=-1)  # monotone predicate: the first n_ok candidates hold
        below = cand.gather(-1, (n_ok - 1).clamp(min=0)[:, None])[:, 0]
        above = cand.gather(-1, n_ok.clamp(max=CANDIDATES - 1)[:, None])[:, 0]
        lo, hi = torch.where(n_ok > 0, below, lo), torch.where(n_ok < CANDIDATES, above, hi)
    return ((lo + hi) / 2).exp()


def _measure_n(ctx, grid):
    return np.array([float(bisect_eps_star(ctx, int(n), [N_LAW_DELTA], [N_LAW_R])[0])
                     for n in grid])


def _delta_grid(ctx):
    return np.logspace(math.log10(DELTA_RANGE[0]), math.log10(DELTA_RANGE[1]),
                       ctx.pick(**DELTA_POINTS))


def _r_grid(ctx):
    return np.logspace(math.log10(R_RANGE[0]), math.log10(R_RANGE[1]), ctx.pick(quick=13, full=61))


def _measure_delta(ctx, grid):
    return bisect_eps_star(ctx, SWEEP_N, grid, np.ones_like(grid)).cpu().numpy()


def _measure_r(ctx, grid):
    return bisect_eps_star(ctx, SWEEP_N, np.full_like(grid, N_LAW_DELTA), grid).cpu().numpy()


_BISECTION = ("bisection resolves ln ε* to 138/256⁴ ≈ 3e-8, and the operator's 1 − W₁₁ is "
              "exact to ~n·u relative, so the measured points carry < 1e-7 relative error")

CLAIMS = (
    Claim(
        id="georesolver/theorem-2.2/ida",
        label="Theorem 2.2 (Theorem 1), IDA analysis",
        section="§2.3",
        statement=STATEMENT,
        reading=(
            "On the orthogonal-keys instance k_j = R e_j (j = 1 … n, d = n), q = k_1, with ε > 0: "
            "(i) W₁₁ = 1/(1 + ε(n−1)/(2R²+ε)) exactly; (ii) W₁₁ >= 1 − δ iff ε <= ε*(n, δ, R) = "
            "2R²δ/((n−1)(1−δ)−δ) (for (n−1)(1−δ) > δ; the paper's strict '<' differs only at "
            "equality); (iii) 'ε = O(δR²/n)' read as: the largest admissible ε* is Θ(δR²/n) as "
            "n → ∞ (so any ε <= c·δR²/n with c <= 2 suffices, and ε must shrink like 1/n), "
            "measured on the operator by bisection: ε* ∝ n⁻¹, ∝ R², and ∝ δ for small δ. The "
            "theorem's headline says 'ε-approximation' but its proof uses δ for the accuracy and "
            "ε for IDA's regulariser; the proof's reading is tested. 'O(1) resources' is not "
            "tested here: the instance itself needs d >= n."
        ),
        kind=Kind.ASYMPTOTIC,
        derivation=derivation,
        checks=(
            Relation(
                name="w11-closed-form",
                lhs="W₁₁ (operator, on the instance)",
                rel="==",
                rhs="1/(1 + ε(n−1)/(2R²+ε))",
                evaluate=w11_gap,
                sample=_sample_instances,
                strategy=_strategy,
                tolerance="float64 round-off: 64·u·(n + 8) (n-term normalising sum, a few "
                          "divisions; D₁₁ = ε is exact)",
                sampler=("orthogonal-keys instance R·I (d = n) for n ∈ {2, 3, 8, 64, 512}; R "
                         "log-uniform in [1e-3, 1e3]; ε log-uniform in [1e-12, 1e4]"),
            ),
            ScalingLaw(
                name="eps-star-vs-n",
                quantity="ε*",
                variable="n",
                exponent=-1.0,
                order="Θ",
                grid=lambda ctx: np.array(N_GRID, float),
                measure=_measure_n,
                family=f"orthogonal-keys instance, δ = {N_LAW_DELTA:g}, R = {N_LAW_R:g}, "
                       "n = 4 … 4096 (doubling)",
                tolerance=(
                    "pre-asymptotic curvature: the exact ε* = 2R²δ/((n−1)(1−δ)−δ) has local "
                    "log-slope −n/(n − 1/(1−δ)), and its least-squares slope over this grid is "
                    f"{-1 + _N_BIAS:.4f} (bias {_N_BIAS:+.4f}); the tolerance 0.05 sits above "
                    f"that bias; {_BISECTION}"
                ),
                exponent_tolerance=0.05,
                predicted="Θ(δR²/n): exponent −1 in n",
            ),
            ScalingLaw(
                name="eps-star-vs-r",
                quantity="ε*",
                variable="R",
                exponent=2.0,
                order="Θ",
                grid=_r_grid,
                measure=_measure_r,
                family=f"orthogonal-keys instance, n = {SWEEP_N}, δ = {N_LAW_DELTA:g}, "
                       "R log-spaced in [1e-3, 1e3]",
                tolerance=(f"ε* ∝ R² exactly (no curvature); {_BISECTION}, i.e. a slope error "
                           "< 1e-8: the tolerance 1e-3 is far above it"),
                exponent_tolerance=1e-3,
                predicted="Θ(δR²/n): exponent 2 in R",
            ),
            ScalingLaw(
                name="eps-star-vs-delta",
                quantity="ε*",
                variable="δ",
                exponent=1.0,
                order="Θ",
                grid=_delta_grid,
                measure=_measure_delta,
                family=f"orthogonal-keys instance, n = {SWEEP_N}, R = 1, δ log-spaced in "
                       "[1e-6, 1e-2]",
                tolerance=(
                    "curvature of the factor 1/((n−1)(1−δ)−δ): the exact ε*'s least-squares "
                    f"slope over the δ grid (either profile) is at most {1 + _DELTA_BIAS:.5f} (bias "
                    f"{_DELTA_BIAS:+.5f}); the tolerance 0.01 sits above it; {_BISECTION}"
                ),
                exponent_tolerance=0.01,
                predicted="Θ(δR²/n): exponent 1 in δ (small δ)",
            ),
        ),
    ),
)
