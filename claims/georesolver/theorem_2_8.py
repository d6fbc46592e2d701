"""GeoResolver §2.7, Theorem 2.8 (Theorem 3: IDA effective rank bound), small-ε case.

``small-eps``: for embeddings with off-diagonal distances ≥ d_min > 0 and
ε(n−1)/d_min² ≤ 1/2, eff-rank(K) = (tr K)²/tr(K²) ≤ 1 + nε²/d_min⁴ for the kernel
K_ij = (‖x_i − x_j‖² + ε)⁻¹.
"""

from __future__ import annotations

import sympy as sp
import torch

import operators
from checks import Claim, Kind, Relation, sampling, symbolic, tolerances

STATEMENT = (
    r"\text{For embeddings with off-diagonal distances } \ge d_{\min}>0, \text{ if }"
    r" \epsilon\ll d_{\min}^2 \text{ (specifically, } \epsilon(n-1)/d_{\min}^2\le 1/2\text{), then }"
    r" \operatorname{eff-rank}(\mathbf{K})\le 1+\frac{n\varepsilon^2}{d_{\min}^4},"
    r" \text{ independent of hidden width } d_h."
)

n, eps, dmin, a, t, F, m = sp.symbols("n epsilon d_min a t F m", positive=True)


def _sign_truth(difference: sp.Expr) -> sp.Basic:
    """``sympy.true`` if SymPy proves ``difference <= 0``, ``false`` if it proves it positive."""
    difference = sp.factor(sp.simplify(difference))
    if difference.is_positive:
        return sp.false
    if difference.is_nonpositive:
        return sp.true
    raise ValueError(f"SymPy cannot decide the sign of {difference}")


def derivation():
    """The proof's steps; ``a`` stands for ‖x_i − x_j‖² (i ≠ j), ``F`` for ‖E‖_F²."""
    kernel_offdiag = 1 / (a + eps)
    paper_e = 1 / (a + eps) - 1 / eps
    steps = [
        symbolic.exact("K_ii = 1/ε", 1 / eps, 1 / (sp.Integer(0) + eps)),
        symbolic.exact(
            "E = K − ε⁻¹I: for i ≠ j, E_ij = 1/(‖x_i−x_j‖²+ε) − 1/ε", paper_e,
            kernel_offdiag - 0 / eps,
            note="off the diagonal ε⁻¹I contributes nothing, so E_ij = K_ij = 1/(a+ε)"),
        symbolic.exact("the paper's algebra: 1/(a+ε) − 1/ε = −a/(ε(a+ε))", -a / (eps * (a + eps)),
                       paper_e, note="right as algebra, but it is not E_ij"),
        symbolic.holds(
            "|E_ij| = a/(ε(a+ε)) ≤ 1/(a+ε) (with the paper's E_ij)",
            sp.LessThan(a / (eps * (a + eps)), 1 / (a + eps)),
            # Under the hypothesis a ≥ d_min² ≥ 2(n−1)ε > ε: write a = ε(1+t), t > 0.
            _sign_truth((a / (eps * (a + eps)) - 1 / (a + eps)).subs(a, eps * (1 + t))),
            note="false whenever a > ε, which the hypothesis forces; with E_ij = K_ij it holds"),
    ]
    # eff-rank identity on a symbolic 3×3 case: K = ε⁻¹I + E, E symmetric with zero diagonal.
    e12, e13, e23 = sp.symbols("e12 e13 e23", real=True)
    E = sp.Matrix([[0, e12, e13], [e12, 0, e23], [e13, e23, 0]])
    K = sp.eye(3) / eps + E
    frob = sum(v**2 for v in E)
    steps.append(symbolic.exact(
        "eff-rank(K) = (tr K)²/tr(K²) = (n²/ε²)/(n/ε² + ‖E‖_F²) (shown for n = 3)",
        (3 / eps) ** 2 / (3 / eps**2 + frob), K.trace() ** 2 / (K * K).trace()))
    rank_of = lambda frob2: n / (1 + eps**2 * frob2 / n)  # noqa: E731 - the same formula
    steps.append(symbolic.holds(
        "‖E‖_F² ≤ n(n−1)/d_min⁴ ⇒ eff-rank(K) ≤ n/(1+ε²(n−1)/d_min⁴)",
        sp.LessThan(rank_of(F), rank_of(F + t)),
        _sign_truth(rank_of(F) - rank_of(F + t)),
        note="eff-rank = n/(1+ε²‖E‖_F²/n) decreases in ‖E‖_F²: an upper bound on ‖E‖_F gives a "
             "lower bound on eff-rank (F + t stands for the bound n(n−1)/d_min⁴)"))
    steps.append(symbolic.limit(
        "refined bound 1 + nε²/d_min⁴ + O(nε³/d_min⁶): eff-rank → 1 as ε → 0",
        n**2 / eps**2 / (n / eps**2 + F), eps, 0, sp.Integer(1),
        note="for a fixed point set ‖E‖_F² stays bounded as ε → 0, so eff-rank → n"))
    # Under the hypothesis: K_ij ≤ 1/(d_min²+ε) gives eff-rank ≥ n/(1+ε²(n−1)/(d_min²+ε)²), and
    # ε/(d_min²+ε) < ε/d_min² ≤ 1/(2(n−1)) makes that ≥ 4n(n−1)/(4n−3); the theorem's bound is at
    # most 1 + n/(4(n−1)²). The theorem needs the first to stay below the second somewhere.
    lower = 4 * n * (n - 1) / (4 * n - 3)
    upper = 1 + n / (4 * (n - 1) ** 2)
    steps.append(symbolic.holds(
        "theorem under its hypothesis: eff-rank ≤ 1 + nε²/d_min⁴ ≤ 1 + n/(4(n−1)²) is compatible "
        "with eff-rank ≥ 4n(n−1)/(4n−3) (n ≥ 2)",
        sp.LessThan(lower, upper),
        _sign_truth((lower - upper).subs(n, m + 2)),
        note="n = m + 2: the difference is (16m⁴+64m³+88m²+43m+2)/(4(m+1)²(4m+5)) > 0, so every "
             "admissible configuration with n ≥ 2 violates the theorem"))
    return steps


# ── numerics ──


def _kernel_figures(case):
    """eff-rank(K) through the operators, with d_min² (the minimum off-diagonal squared distance)
    and ε = c·d_min²/(n−1)."""
    x, frac = case["x"], case["c"]
    count = x.shape[-2]
    d2_min = sampling.min_pairwise_squared_distance(x)
    eps_ = frac * d2_min / (count - 1)
    rank = operators.effective_rank(operators.ida_kernel(x, eps=eps_))
    return rank, d2_min, eps_, count


def _roundoff(rank, count):
    # tr(K²) sums n² squares (worst-case summation bound n²·u), the rest is a few roundings.
    return tolerances.roundoff(rank.dtype, count**2) * rank


def paper_bound_gap(case):
    """eff-rank(K) against 1 + nε²/d_min⁴ (the theorem's bound)."""
    rank, d2_min, eps_, count = _kernel_figures(case)
    return rank, 1 + count * eps_.square() / d2_min.square(), _roundoff(rank, count)


def corrected_bound_gap(case):
    """eff-rank(K) against n/(1 + ε²(n−1)/(d_min²+ε)²) (the suite's lower bound)."""
    rank, d2_min, eps_, count = _kernel_figures(case)
    rhs = count / (1 + eps_.square() * (count - 1) / (d2_min + eps_) ** 2)
    return rank, rhs, _roundoff(rank, count)


def full_rank_gap(case):
    """eff-rank(K) against n (Cauchy–Schwarz: (tr K)² ≤ n·tr(K²)); used by the tests."""
    rank, _, _, count = _kernel_figures(case)
    return rank, torch.full_like(rank, float(count)), _roundoff(rank, count)


SIZES = ((2, 1), (3, 2), (8, 3), (32, 16), (128, 64))


def sample_point_sets(ctx, gen):
    """Gaussian point sets (n, d) ∈ {(2,1), (3,2), (8,3), (32,16), (128,64)} scaled by a factor
    log-uniform in [1e-3, 1e3]; c = ε(n−1)/d_min² log-uniform in [1e-6, 1/2]."""
    batch = ctx.pick(quick=400, full=4000)
    for count, dim in SIZES:
        scale = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-3, high=1e3)
        x = sampling.gaussian(ctx, gen, batch, count, dim) * scale
        yield {"x": x, "c": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=0.5)}


def point_set_strategy(ctx):
    """One point set (n ∈ [2, 6], d ∈ [1, 3], coordinates in [−10, 10], distances ≥ 1e-3) and
    c = ε(n−1)/d_min² ∈ [1e-6, 1/2]."""
    import numpy as np
    from hypothesis import strategies as st

    def separated(x):
        dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
        return dist[~np.eye(len(x), dtype=bool)].min() >= 1e-3

    points = sampling.point_sets(n=(2, 6), d=(1, 3)).filter(separated)
    return st.tuples(points, st.floats(1e-6, 0.5)).map(
        lambda pc: {"x": ctx.tensor(pc[0])[None], "c": ctx.tensor([pc[1]])})


TOLERANCE = "64·u·n²·eff-rank: tr(K²) is a sum of n² squares (worst-case summation bound)"
SAMPLER = ("Gaussian point sets, (n, d) ∈ {(2,1), (3,2), (8,3), (32,16), (128,64)}, scaled by a "
           "log-uniform factor in [1e-3, 1e3]; d_min = their minimum distance; "
           "ε = c·d_min²/(n−1) with c log-uniform in [1e-6, 1/2] (so the hypothesis holds)")


def correction(evidence):
    paper = next((e for e in evidence if e["name"] == "paper-bound"), None)
    witness = None if paper is None else paper["witness"]
    shown = ""
    if witness is not None:
        x = witness["inputs"]["x"]
        shown = (f" Smallest witness found: n = {x['shape'][-2]}, d = {x['shape'][-1]}, "
                 f"eff-rank = {witness['lhs']:.6g} > bound {witness['rhs']:.6g}.")
    return (
        "With E = K − ε⁻¹I (so E_ij = K_ij off the diagonal), eff-rank(K) = n/(1 + ε²‖E‖_F²/n), "
        "hence n/(1 + ε²(n−1)/(d_min²+ε)²) ≤ eff-rank(K) ≤ n; under ε(n−1)/d_min² ≤ 1/2 this "
        "gives eff-rank(K) ≥ 4n(n−1)/(4n−3) = n − n/(4n−3) > n − 1/2: the kernel is essentially "
        "full rank, and eff-rank(K) ≤ 1 + nε²/d_min⁴ fails for every admissible configuration "
        "with n ≥ 2." + shown
    )


CLAIMS = (
    Claim(
        id="georesolver/theorem-2.8/small-eps",
        label="Theorem 2.8 (Theorem 3: IDA effective rank bound), small-ε case",
        section="§2.7",
        statement=STATEMENT,
        reading=(
            "For every n ≥ 2, every point set x_1..x_n ∈ R^d whose off-diagonal distances are "
            "≥ d_min > 0, and every ε > 0 with ε(n−1)/d_min² ≤ 1/2: with K_ij = "
            "(‖x_i−x_j‖²+ε)⁻¹ (diagonal 1/ε), (tr K)²/tr(K²) ≤ 1 + nε²/d_min⁴. Tested with d_min "
            "equal to the minimum distance; a smaller admissible d_min tightens the hypothesis and "
            "the bound stays ≤ 1 + n/(4(n−1)²) under it."
        ),
        kind=Kind.INEQUALITY,
        derivation=derivation,
        checks=(
            Relation(
                name="paper-bound",
                lhs="eff-rank(K)",
                rel="<=",
                rhs="1 + nε²/d_min⁴",
                evaluate=paper_bound_gap,
                sample=sample_point_sets,
                strategy=point_set_strategy,
                tolerance=TOLERANCE,
                sampler=SAMPLER,
            ),
            Relation(
                name="corrected-lower-bound",
                lhs="eff-rank(K)",
                rel=">=",
                rhs="n/(1 + ε²(n−1)/(d_min²+ε)²)",
                evaluate=corrected_bound_gap,
                sample=sample_point_sets,
                strategy=point_set_strategy,
                tolerance=TOLERANCE,
                sampler=SAMPLER,
                reading="corrected by the suite: eff-rank(K) ≥ n/(1 + ε²(n−1)/(d_min²+ε)²) for "
                        "every ε > 0 (from K_ij ≤ 1/(d_min²+ε) off the diagonal)",
            ),
        ),
        correction=correction,
        notes=(
            "The proof defines E = K − ε⁻¹I, then uses E_ij = 1/(‖·‖²+ε) − 1/ε off the diagonal "
            "(false: E_ij = K_ij there), turns an upper bound on ‖E‖_F into an upper bound on "
            "eff-rank (the direction is reversed), and its 'refined' bound tends to 1 as ε → 0 "
            "where eff-rank tends to n."
        ),
    ),
)
