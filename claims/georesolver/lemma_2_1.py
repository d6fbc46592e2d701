"""GeoResolver §2.3, Lemma 2.1 (Exact Retrieval Property): W_{j*} → 1 and W_j → 0 as ε → 0⁺."""

from __future__ import annotations

import numpy as np
import sympy as sp
import torch

from attnaudit import operators, sampling, symbolic, tolerances
from attnaudit.checks import Claim, Clause, Limit, ProofStep, Relation, control, grids
from attnaudit.checks.fitting import closed_form_bias

STATEMENT = (
    r"\text{For pairwise distinct keys and } q=k_{j^*},\quad "
    r"\lim_{\varepsilon\to 0}W_{j^*}=1,\qquad \lim_{\varepsilon\to 0}W_j=0\ (j\neq j^*)."
)
CLAUSES = (Clause("matched", "For pairwise distinct keys and =j∗q=k_j^*, limε→0Wj∗=1"),
           Clause("others", "limε→0Wj=0(j≠j∗)"))
PROOF = (
    ProofStep("matched-distance", "When i=j∗q_i=k_j^*, we have d(i,j∗)=0d(q_i,k_j^*)=0, so ij∗=εD_ij^*= ."),
    ProofStep("other-distances", "Therefore ij>εD_ij> for j≠j∗j≠ j^*, which implies ij−1<ε−1D_ij^-1< ^-1."),
    ProofStep("limit", "The limit follows immediately: limε→0ε−1ε−1+∑j≠j∗ij−1=1."),
)
READING = (
    "For n pairwise-distinct keys k_1..k_n in R^d and the query q = k_{j*}: W_{j*}(ε) → 1 and W_j(ε) → 0 for "
    "every j ≠ j* as ε → 0⁺. The limit is tested through its rate: the suite derives 1 − W_{j*} = ε·Σ_{j≠j*} "
    "d_j⁻² + O(ε²) (d_j = ‖k_j − k_{j*}‖), so the worst gap over thousands of random key sets must close "
    "like ε¹; ε is measured per key set in units of d_min² = min_{j≠j*} d_j². W_j → 0 is tested through the "
    "derived bound 0 ≤ W_j ≤ ε/(d_j² + ε), valid for every ε > 0."
)

# (n keys, dimension d) of the random key sets; Gaussian keys are pairwise distinct a.s.
SHAPES = ((2, 1), (8, 2), (32, 3), (64, 16))
# t = ε/d_min²: the gap Σ_{j≠j*} W_j (never formed as 1 − W_{j*}) is within a factor 1 − n·t of its
# linear term, so every grid point is asymptotic, and it is exact to ~n·u relative.
T_GRID = tuple(10.0 ** -e for e in range(4, 15))


def _rate_bias():
    """Fit bias of the most curved gap: n = 64 keys all at d_min, 1 − W_{j*} = x/(1+x), x = (n−1)t/(1+t)."""
    t = np.array(T_GRID)
    x = (max(n for n, _ in SHAPES) - 1) * t / (1 + t)
    return closed_form_bias(t, x / (1 + x), 1.0)


RATE_TOL = tolerances.FitBias(_rate_bias, "1 − W_{j*} for the most curved key set (n = 64 keys all at d_min) "
                                          "on the t grid; the gap is otherwise exact to ~n·u")
# D_j to (d+3)·u (cdist, and the sum of squares here); W_j: the n-term sum and two divisions.
BOUND_TOL = tolerances.Roundoff(condition="n + 2d + 10 (n-term sum, d-term squared distances, "
                                          "a few divisions), relative to the ratio ≤ 1")


def derivation():
    eps = sp.Symbol("epsilon", positive=True)
    d = sp.symbols("d1:3", positive=True)  # distances from q = k_{j*} to two other keys (any n − 1)
    k = sp.Matrix(sp.symbols("k1:4", real=True))
    inv_d = [1 / (dj**2 + eps) for dj in d]  # D_{ij}^{-1}, j ≠ j*
    w_star = eps**-1 / (eps**-1 + sum(inv_d))
    w_1 = inv_d[0] / (eps**-1 + sum(inv_d))
    return [
        symbolic.exact("D_{ij*} = ‖k_{j*} − k_{j*}‖² + ε = ε", eps, (k - k).dot(k - k) + eps, role="proof",
                       step="matched-distance"),
        symbolic.holds("D_{ij}⁻¹ < ε⁻¹ for j ≠ j* (d_j > 0)",
                       sp.StrictLessThan(inv_d[0], 1 / eps, evaluate=False), role="proof",
                       step="other-distances"),
        symbolic.limit("lim ε⁻¹/(ε⁻¹ + Σ_{j≠j*} D_{ij}⁻¹) = 1", w_star, eps, 0, sp.Integer(1),
                       role="statement", clause="matched"),
        symbolic.limit("the proof: lim ε⁻¹/(ε⁻¹ + Σ_{j≠j*} D_{ij}⁻¹) = 1", w_star, eps, 0, sp.Integer(1),
                       role="proof", step="limit"),
        symbolic.limit("lim W_j = 0 for j ≠ j*", w_1, eps, 0, sp.Integer(0), role="statement",
                       clause="others"),
        symbolic.series(
            "rate: 1 − W_{j*} = ε·Σ_{j≠j*} d_j⁻² + O(ε²)", eps * sum(dj**-2 for dj in d),
            1 - w_star, eps, 0, 2, role="derivation",
            note="derived by the suite (the paper states no rate): the rate the limit check tests"),
        symbolic.holds(
            "W_j ≤ ε/(d_j² + ε) for j ≠ j* (suite-derived bound, → 0 like ε)",
            # as one fraction: SymPy decides its sign, not that of the raw difference
            sp.GreaterThan(sp.factor(sp.together(eps / (d[0] ** 2 + eps) - w_1)), 0, evaluate=False),
            role="derivation",
            note="ε/(d_j²+ε) − W_j = ε·S·D_j⁻¹/(ε⁻¹+S) ≥ 0 with S = Σ_{m≠j*} D_m⁻¹; the "
                 "numerical relation checks this bound"),
    ]


def _weights(q, k, eps, operator):
    if operator == "softmax":  # the contrasted operator: no ε, so nothing moves as ε → 0
        return operators.softmax_weights(q, k).expand(*eps.shape, *q.shape[-2:-1], k.shape[-2])
    return operators.ida_weights(q, k, eps=eps)


def _retrieval_instances(ctx, gen, batch, n, d):
    """Gaussian keys, a random j* per set, q = k_{j*} exactly, and ‖q − k_j‖² summed here."""
    k = sampling.gaussian(ctx, gen, batch, n, d)
    j = torch.randint(n, (batch,), generator=gen, device=ctx.device)
    q = k[torch.arange(batch, device=ctx.device), j][:, None, :]
    star = torch.nn.functional.one_hot(j, n).bool()
    return q, k, star, (k - q).square().sum(dim=-1)


def other_weights_gap(ctx, grid, operator="ida"):
    """Worst case over the key sets of 1 − W_{j*} = Σ_{j≠j*} W_j at ε = t·d_min², per t in grid."""
    t = ctx.tensor(grid)
    batch = ctx.pick(quick=2000, full=20000)
    worst = torch.zeros_like(t)
    for n, d in SHAPES:
        q, k, star, d2 = ctx.cached(("instances", n, d), lambda n=n, d=d: _retrieval_instances(
            ctx, ctx.generator(f"limit:{n}x{d}"), batch, n, d))
        eps = t[:, None] * d2.masked_fill(star, torch.inf).amin(dim=-1)[None, :]  # (T, batch)
        w = _weights(q[None], k[None], eps, operator)[..., 0, :]
        worst = torch.maximum(worst, w.masked_fill(star, 0.0).sum(dim=-1).amax(dim=-1))
    return worst


def bound_ratio(case, operator="ida"):
    """max_{j≠j*} W_j / (ε/(d_j²+ε)) per instance: ≤ 1 is the suite's bound."""
    q, k, eps, star = case["q"], case["k"], case["eps"], case["star"].bool()
    w = _weights(q, k, eps, operator)[:, 0, :]
    d2 = (k - q).square().sum(dim=-1)
    ratio = (w / (eps[:, None] / (d2 + eps[:, None]))).masked_fill(star, 0.0).amax(dim=-1)
    n, d = k.shape[-2], k.shape[-1]
    return ratio, torch.ones_like(ratio), torch.full_like(ratio, BOUND_TOL(n + 2 * d + 10, q.dtype))


def _sample_bound(ctx, gen):
    batch = ctx.pick(quick=2000, full=20000)
    for n, d in SHAPES:
        q, k, star, _ = _retrieval_instances(ctx, gen, batch, n, d)
        eps = sampling.log_uniform(ctx, gen, batch, low=1e-14, high=1e2)
        yield {"q": q, "k": k, "eps": eps, "star": star.to(ctx.dtype)}


def _strategy(ctx):
    from hypothesis import strategies as st

    def build(drawn):
        keys, j, eps = drawn
        k = ctx.tensor(keys)[None]
        j = j % k.shape[1]
        star = ctx.tensor([[float(m == j) for m in range(k.shape[1])]])
        return {"q": k[:, j : j + 1, :].clone(), "k": k, "eps": ctx.tensor([eps]), "star": star}

    return st.tuples(sampling.point_sets(n=(2, 8), d=(1, 4), bound=10.0),
                     st.integers(0, 7), sampling.log_uniform_floats(1e-12, 1e2)).map(build)


SHAPE_TEXT = "(n, d) ∈ {(2,1), (8,2), (32,3), (64,16)}"
SOFTMAX = "softmax attention (no ε: W_{j*} stays a weighted average) in place of IDA"

CLAIMS = (
    Claim(
        id="georesolver/lemma-2.1", label="Lemma 2.1 (Exact Retrieval Property)", section="§2.3",
        statement=STATEMENT, kind="limit", derivation=derivation, reading=READING,
        reading_why="the literal statement (two limits at the exact match q = k_{j*})", clauses=CLAUSES,
        proof_steps=PROOF,
        identity=("IDA's kernel is built so: D_{ij*} = ε at the exact match and D_{ij} = d_j² + ε > ε "
                  "elsewhere, so its weights concentrate on j* as ε → 0"),
        checks=(
            Limit(
                name="matched-weight-to-one", quantity="W_{j*}", variable="ε/d_min²", value="1",
                point="0", rate=1.0, grid=grids.fixed(T_GRID), gap=other_weights_gap,
                tolerance=RATE_TOL, clause="matched",
                family=f"worst case over Gaussian key sets, {SHAPE_TEXT}, random j*, q = k_{{j*}} "
                       "exactly, ε = t·d_min² for t = 1e-4 … 1e-14",
                controls=(control(SOFTMAX, contrast="operator",
                                  gap=lambda ctx, grid: other_weights_gap(ctx, grid, "softmax")),)),
            Relation(
                name="other-weights-bound", lhs="max_{j≠j*} W_j·(d_j²+ε)/ε", rel="<=", rhs="1",
                evaluate=bound_ratio, sample=_sample_bound, strategy=_strategy, tolerance=BOUND_TOL,
                clause="others", sampler=f"Gaussian key sets, {SHAPE_TEXT}, random j*, q = k_{{j*}}; ε "
                                         "log-uniform in [1e-14, 1e2]",
                controls=(control(SOFTMAX, contrast="operator",
                                  evaluate=lambda case: bound_ratio(case, "softmax")),)),
        ),
    ),
)
