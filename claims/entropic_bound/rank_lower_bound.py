"""Entropic Bound abstract: the intrinsic rank r* is a tight lower bound in a linear attention surrogate.
Models of each rank are fitted by alternating least squares on the population risk (an optimiser that knows
nothing of the SVD) and compared with the Eckart–Young–Mirsky value from the singular values of M*Σ^{1/2}."""

import sympy as sp
import torch

from attnaudit.checks import Claim, Clause, Relation, control, symbolic, tolerances
from attnaudit.claims.entropic_bound import _surrogate

STATEMENT = (r"\text{``We first prove that, in a linear attention surrogate, the intrinsic rank } r^* "
             r"\text{ of the token-mixing operator is a tight lower bound: any rank-deficient model "
             r"incurs unavoidable excess risk, and the bound is achievable at } r^*\text{.''}")
CLAUSES = (
    Clause("lower-bound", "the intrinsic rank r∗ of the token-mixing operator is a tight lower bound"),
    Clause("deficient", "any rank-deficient model incurs unavoidable excess risk"),
    Clause("achievable", "the bound is achievable at r∗"),
)
READING = (
    "Linear token mixing Y = M X with loss E‖(M − M*)x‖² (x ~ N(0, Σ), Σ ≻ 0) and rank(M*) = r*: "
    "(i) every model of rank r* − 1 has excess risk at least the Eckart–Young value "
    "Σ_{i ≥ r*} σ_i(M*Σ^{1/2})², (ii) that value is > 0, and (iii) a rank-r* model attains excess 0.")
READING_WHY = (
    "the abstract names a 'linear attention surrogate' and the intrinsic rank of its 'token-mixing "
    "operator' without formulas: the suite takes the plainest one, a linear map on the token axis with "
    "squared loss, Gaussian inputs with a non-isotropic token covariance (so the optimum is not the "
    "plain SVD of M*), " + _surrogate.TASK_FAMILY)

RANKS = (2, 4, 8)
DISTINGUISHABLE = 1e-8  # relative excess that float64 fits resolve (their round-off is ~1e-30)
# Excess risks are sums of n² squared entries of products of n×n matrices: each entry carries a
# relative error ~n·u, so a compared excess is off by ~n²·u times ‖M*Σ^{1/2}‖_F² at most.
TOL = tolerances.Roundoff(condition="n² (products of n×n matrices summed over n² entries)",
                          scale="1 (every compared excess is divided by ‖M*Σ^{1/2}‖_F²)")


def derivation():
    """2 tokens: excess risk E‖(M − M*)x‖² = ‖(M − M*)Σ^{1/2}‖_F², and a rank-1 model of
    M*Σ^{1/2} = diag(a, b), a ≥ b > 0, aligned with the top direction leaves b² (Eckart–Young says
    no rank-1 model does better; the checks test that numerically)."""
    m = sp.Matrix(2, 2, sp.symbols("m1:5", real=True))
    t = sp.Matrix(2, 2, sp.symbols("t1:5", real=True))
    s1, s2, a, b = sp.symbols("s1 s2 a b", positive=True)
    cov = sp.diag(s1, s2)
    diff = m - t
    sqrt_cov = sp.diag(sp.sqrt(s1), sp.sqrt(s2))
    u, v = sp.symbols("u v", real=True)
    rank_one = sp.Matrix([[a, 0], [0, b]]) - sp.Matrix([[u], [0]]) * sp.Matrix([[v, 0]])
    D = "derivation"
    return [
        symbolic.exact("E‖(M − M*)x‖² = tr((M − M*)Σ(M − M*)ᵀ) = ‖(M − M*)Σ^{1/2}‖_F²",
                       (diff * cov * diff.T).trace(), sum(e**2 for e in diff * sqrt_cov), role=D),
        symbolic.exact("the rank-1 model u vᵀ aligned with the top direction leaves exactly b²",
                       sum(e**2 for e in rank_one.subs(u * v, a).subs(v, a / u)), b**2, role=D),
        symbolic.holds("so the unavoidable excess at rank r* − 1 = 1 is b² > 0", sp.Gt(b**2, 0), role=D),
    ]


SAMPLER = "tasks of intrinsic rank r* ∈ {2, 4, 8}, 32 each: " + _surrogate.TASK_FAMILY


def _cases(ctx, gen):
    for rank in RANKS:
        target, s = _surrogate.sample_tasks(ctx, gen, ctx.pick(quick=32, full=256), rank)
        yield {"target": target, "s": s, "rank": rank, "seed": int(ctx.seed_for(f"als-{rank}") % 2**31)}


def _relative_excess(case, model_rank):
    """The excess of a rank-``model_rank`` ALS fit and the Eckart–Young tail at r* − 1, both relative to
    ‖M*Σ^{1/2}‖², with the round-off tolerance of comparing them."""
    target, s, rank = case["target"], case["s"], int(case["rank"])
    gen = torch.Generator(device=target.device).manual_seed(int(case["seed"]))
    fit = _surrogate.als_fit(target, s, rank + model_rank, gen, iterations=60)
    total = _surrogate.excess_risk(torch.zeros_like(fit), target, s)
    tail = _surrogate.eckart_young_tail(target, s, rank - 1)
    excess = _surrogate.excess_risk(fit, target, s)
    return excess / total, tail / total, TOL(target.shape[-1] ** 2, excess.dtype)


def _at_least_tail(model_rank_offset: int):
    """Fitted excess of a rank-(r* − 1 + offset) model against the Eckart–Young value at r* − 1."""
    return lambda case: _relative_excess(case, model_rank_offset - 1)


def _achieved(model_rank_offset: int):
    """Fitted excess of a rank-(r* + offset) model against 0."""

    def evaluate(case):
        excess, _, tol = _relative_excess(case, model_rank_offset)
        return excess, torch.zeros_like(excess), tol

    return evaluate


def _tail_positive(task_rank_offset: int):
    """Relative Eckart–Young excess at model rank r* − 1 of a task whose rank is r* + offset."""

    def evaluate(case):
        target = case["target"]
        if task_rank_offset:
            u, sv, vh = torch.linalg.svd(target)
            keep = int(case["rank"]) + task_rank_offset
            target = (u[..., :keep] * sv[..., None, :keep]) @ vh[..., :keep, :]
        total = _surrogate.excess_risk(torch.zeros_like(target), target, case["s"])
        tail = _surrogate.eckart_young_tail(target, case["s"], int(case["rank"]) - 1)
        return tail / total, torch.full_like(total, DISTINGUISHABLE), 0.0

    return evaluate


CLAIMS = (Claim(
    id="entropic-bound/rank-lower-bound", section="abstract", statement=STATEMENT, clauses=CLAUSES,
    label="Entropic Bound: r* is a tight lower bound (linear surrogate)", reading=READING,
    reading_why=READING_WHY,
    identity=("in the surrogate the excess risk is ‖(M − M*)Σ^{1/2}‖_F², so all three clauses are the "
              "Eckart–Young–Mirsky theorem for M*Σ^{1/2} (right multiplication by Σ^{1/2} ≻ 0 keeps rank)"),
    kind="inequality", derivation=derivation,
    proof_absent="only the abstract is available; it says 'we prove' but gives no argument",
    checks=(
        Relation(
            name="deficient-excess-at-least-bound", lhs="excess(rank r* − 1 model, ALS)/‖M*Σ^{1/2}‖²",
            rel=">=", rhs="Σ_{i≥r*} σ_i(M*Σ^{1/2})²/‖M*Σ^{1/2}‖² (Eckart–Young)", evaluate=_at_least_tail(0),
            sample=_cases, tolerance=TOL, sampler=SAMPLER, clause="lower-bound",
            controls=(control("a rank-r* model in place of a rank-(r* − 1) one", contrast="hypothesis",
                              hypothesis="the model is rank-deficient", evaluate=_at_least_tail(1)),)),
        Relation(
            name="unavoidable-excess-positive", lhs="Σ_{i≥r*} σ_i(M*Σ^{1/2})²/‖M*Σ^{1/2}‖²", rel=">=",
            rhs=f"{DISTINGUISHABLE:g}", evaluate=_tail_positive(0), sample=_cases,
            tolerance=tolerances.Exact("a threshold far above the fits' round-off (~1e-30)"),
            sampler=SAMPLER, clause="deficient",
            controls=(control("a task of rank r* − 1 (the model then is not deficient)",
                              contrast="hypothesis", hypothesis="rank(M*) = r* exceeds the model's rank",
                              evaluate=_tail_positive(-1)),)),
        Relation(
            name="achieved-at-intrinsic-rank", lhs="excess(rank r* model, ALS)/‖M*Σ^{1/2}‖²", rel="<=",
            rhs="0", evaluate=_achieved(0), sample=_cases, tolerance=TOL, sampler=SAMPLER,
            clause="achievable",
            controls=(control("a rank-(r* − 1) model in place of rank r*", contrast="hypothesis",
                              hypothesis="the model has rank r*", evaluate=_achieved(-1)),)),
    ),
    notes=("In this surrogate the statement is the Eckart–Young–Mirsky theorem applied to M*Σ^{1/2} (right "
           "multiplication by Σ^{1/2} ≻ 0 preserves rank); the fits reach the bound from above and never "
           "beat it."),
),)
