"""Riemannian attention, Definition 5.2 (MetricNet) and its cost in the complexity table."""

from __future__ import annotations

import torch

from attnaudit import operators, sampling, tolerances
from attnaudit.checks import Claim, Clause, Reading, Relation, ScalingLaw, control
from attnaudit.checks.measure import count_flops, meta
from attnaudit.claims.riemannian_attention._cost import per_point

STATEMENT = (r"U_t = \mathrm{reshape}\big(\mathrm{Linear}(d m, d r)(\sigma(\mathrm{Linear}(d, d m)(x_t)))"
             r"\big) \in \mathbb R^{d\times r},\ m = 1;\quad \text{cost } O(B L d r)")
CLAUSES = (Clause("metricnet", "MetricNet as specified in Definition 5.2 uses Linear(d,d*m) followed by "
                               "Linear(d*m,d*r)"),
           Clause("cost", "the O(B L d r) listed in the table"))
READING = (
    "MetricNet as the review quotes it (Linear(d, d·m) → σ → Linear(d·m, d·r), m = 1, reshaped "
    "to U_t ∈ R^{d×r}; σ = GELU, unspecified in the source and not counted) defines metrics "
    "g_t = I + U_tU_tᵀ ⪰ I, and costs O(B L d r) as the table lists: counted FLOPs with "
    "exponent ≤ 1 in d (fixed L, r), ≤ 1 in r, ≤ 1 in the number of tokens L (B = 1)."
)

R, D, N = 4, 64, 16
D_GRID = (4, 10, 25, 63, 160, 400, 1000, 2500, 6300)
R_GRID = (1, 3, 8, 20, 50, 125, 320, 800, 2000)
N_GRID = (1, 4, 16, 64, 256, 1024, 4096)
LOWER = tolerances.Systematic(0.05, "lower-order terms of exact counts on the grid (the d·m·d first "
                                    "layer beside the d·m·d·r second, at small r)")
SPD_TOL = tolerances.Roundoff(condition="1 + ‖U‖_F²: the eigenvalues of I + UUᵀ to absolute "
                                        "u·‖g‖ (symmetric eigensolver)")


def _count(n, d, r, m=1):
    return count_flops(lambda: operators.metricnet(meta(n, d), meta(d * m, d), meta(d * m),
                                                   meta(d * r, d * m), meta(d * r), r=r))


def _spd(case, sign=1.0, metricnet=True):
    """λ_min(I + U_tUᵀ_t) ≥ 1 for the MetricNet factors (a metric, as the definition needs); with
    ``sign=-1`` the form I − U_tU_tᵀ; without ``metricnet`` arbitrary Gaussian factors."""
    u = case["u_any"]
    if metricnet:
        args = (case[k] for k in ("x", "w1", "b1", "w2", "b2"))
        u = torch.vmap(lambda *a: operators.metricnet(*a, r=R))(*args)
    g = operators.metric_from_factors(u)
    if sign < 0:
        g = 2 * torch.eye(u.shape[-2], dtype=u.dtype) - g
    lam = torch.linalg.eigvalsh(g).amin(dim=-1).amin(dim=-1)
    return lam, torch.ones_like(lam), SPD_TOL(1 + u.square().sum((-1, -2)).amax(-1), u.dtype)


def _sample(ctx, gen):
    b, d, n = ctx.pick(quick=50, full=500), 6, 5
    yield {"x": sampling.gaussian(ctx, gen, b, n, d), "w1": sampling.gaussian(ctx, gen, b, d, d),
           "b1": sampling.gaussian(ctx, gen, b, d), "w2": sampling.gaussian(ctx, gen, b, d * R, d),
           "b2": sampling.gaussian(ctx, gen, b, d * R), "u_any": sampling.gaussian(ctx, gen, b, n, d, R)}


def _law(name, variable, exponent, grid, fn, family, predicted="", order="O", **kw):
    return ScalingLaw(name=name, quantity="MetricNet FLOPs", variable=variable, exponent=exponent,
                      order=order, grid=lambda ctx: grid, measure=per_point(fn), family=family,
                      predicted=predicted, tolerance=LOWER, **kw)


CLAIMS = (Claim(
    id="riemannian-attention/definition-5.2", label="Definition 5.2 (MetricNet)", section="§5.2",
    statement=STATEMENT, kind="definition-consistency", clauses=CLAUSES, reading=READING,
    no_derivation="a definition and a cost entry: checked by its output and by FLOP counts",
    proof_absent="the complexity table gives no accounting",
    reading_why="the definition as written with the table's cost entry; m = 1 is the stated choice",
    alternatives=(Reading(
        "referee", "MetricNet with m = 1 costs Θ(d² r) per token (the review's major comment 1): "
        "exponent 2 in d.", "the review's objection, stated as a proposition to test"),),
    notes=("Per token: 2·d·(d·m) + 2·(d·m)·(d·r) = 2d²m(1 + r) FLOPs: quadratic in d. The suite "
           "agrees with the review. Counts on meta tensors. That MetricNet's factors give metrics "
           "(I + U_tU_tᵀ ⪰ I) holds for any factor whatever (the vacuity check), so that clause reads "
           "vacuous."),
    checks=(
        Relation(name="metrics-are-spd", lhs="min_t λ_min(I + U_tU_tᵀ)", rel=">=", rhs="1",
                 evaluate=_spd, sample=_sample, tolerance=SPD_TOL,
                 sampler="Gaussian tokens (5 per set, d = 6) and Gaussian MetricNet weights, r = 4",
                 clause="metricnet",
                 controls=(control("I − U_tU_tᵀ in place of I + U_tU_tᵀ", contrast="operator",
                                   evaluate=lambda c: _spd(c, -1.0)),)),
        Relation(name="any-factor-gives-a-metric", lhs="min_t λ_min(I + U_tU_tᵀ), U_t Gaussian", rel=">=",
                 rhs="1", evaluate=lambda c: _spd(c, metricnet=False), sample=_sample, tolerance=SPD_TOL,
                 sampler="Gaussian U_t ∈ R^{6×4}, 5 per set (no MetricNet)", role="vacuity",
                 clause="metricnet"),
        _law("flops-vs-d", "d", 1.0, D_GRID, lambda d: _count(N, d, R), f"L = {N}, r = {R}, m = 1",
             "O(d) at fixed L, r (O(B L d r))", clause="cost"),
        _law("flops-vs-r", "r", 1.0, R_GRID, lambda r: _count(N, D, r), f"L = {N}, d = {D}, m = 1",
             controls=(control("prediction O(r⁰)", exponent=0.0),), clause="cost"),
        _law("flops-vs-l", "L", 1.0, N_GRID, lambda n: _count(n, D, R), f"d = {D}, r = {R}, m = 1",
             controls=(control("prediction O(L⁰)", exponent=0.0),), clause="cost"),
        _law("referee-flops-vs-d", "d", 2.0, D_GRID, lambda d: _count(N, d, R), f"L = {N}, r = {R}, m = 1",
             "Θ(d² r) per token: exponent 2 in d", order="Θ", reading="referee",
             controls=(control("the table's O(d r) (exponent 1)", exponent=1.0),)),
    ),
),)
