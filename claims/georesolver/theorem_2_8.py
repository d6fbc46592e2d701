"""GeoResolver §2.7, Theorem 2.8 (Theorem 3: IDA effective rank bound), small-ε case.

``small-eps``: for embeddings with off-diagonal distances ≥ d_min > 0 and
ε(n−1)/d_min² ≤ 1/2, eff-rank(K) = (tr K)²/tr(K²) ≤ 1 + nε²/d_min⁴ for the kernel
K_ij = (‖x_i − x_j‖² + ε)⁻¹.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

import operators
from checks import Claim, Kind, Relation, ScalingLaw, sampling, symbolic, tolerances

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


def _proof_steps():
    """The proof's steps shared by both cases; ``a`` stands for ‖x_i − x_j‖² (i ≠ j), ``F`` for
    ‖E‖_F²."""
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
    return steps


def derivation():
    """The shared proof steps, then the small-ε case's refined bound and its compatibility."""
    steps = _proof_steps()
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


def dmax_upper_bound_gap(case):
    """eff-rank(K) against n/(1 + ε²(n−1)/(d_max²+ε)²): every off-diagonal K_ij ≥ (d_max²+ε)⁻¹, so
    tr(K²) ≥ n/ε² + n(n−1)/(d_max²+ε)² while tr K = n/ε. A d_h-free upper bound below n."""
    rank, _, eps_, count = _kernel_figures(case)
    d2_max = operators.squared_distances(case["x"], case["x"]).flatten(-2).amax(dim=-1)
    rhs = count / (1 + eps_.square() * (count - 1) / (d2_max + eps_) ** 2)
    return rank, rhs, _roundoff(rank, count)


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


SMALL_EPS = (
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
    )
)


# ══ general case ══

GENERAL_STATEMENT = (
    r"\text{In the general case: } \operatorname{eff-rank}(\mathbf{K})\le"
    r" n\left(1-\epsilon(n-1)/d_{\min}^2\right)^2"
    r" \quad\text{(as rendered; the LaTeX copy reads ``n(1-ε(n-1)/d_ ^2)^2'')}."
)

c = sp.Symbol("c", positive=True)  # c = ε(n−1)/d_min², the numerics' "c"


def general_derivation():
    """The shared proof steps, then what the eigenvalue interval and Lemma 0's Frobenius estimate
    give, and each reading of the garbled general bound against them (n = m + 2 ≥ 2)."""
    steps = _proof_steps()
    count = m + 2
    steps.append(symbolic.holds(
        "Gershgorin: |λ_m(E)| ≤ max_i Σ_{j≠i}|E_ij| ≤ (n−1)/d_min²",
        sp.LessThan((count - 1) / (dmin**2 + t + eps), (count - 1) / dmin**2),
        _sign_truth((count - 1) / (dmin**2 + t + eps) - (count - 1) / dmin**2),
        note="holds with the true E_ij = K_ij = 1/(a+ε), a = d_min² + t ≥ d_min²"))
    e12, e13, e23, mu = sp.symbols("e12 e13 e23 mu", real=True)
    E = sp.Matrix([[0, e12, e13], [e12, 0, e23], [e13, e23, 0]])
    steps.append(symbolic.exact(
        "λ_m(K) = ε⁻¹ + λ_m(E): det(K − (ε⁻¹+μ)I) = det(E − μI) (n = 3), so λ_m(K) ∈ "
        "[1/ε − (n−1)/d_min², 1/ε + (n−1)/d_min²]",
        (E - mu * sp.eye(3)).det(), (sp.eye(3) / eps + E - (1 / eps + mu) * sp.eye(3)).det()))
    steps.append(symbolic.holds(
        "Lemma 0 (§5): ‖E‖_F² ≤ n(n−1)/(d_min²+ε)²",
        sp.LessThan(1 / (dmin**2 + t + eps) ** 2, 1 / (dmin**2 + eps) ** 2),
        _sign_truth(1 / (dmin**2 + t + eps) ** 2 - 1 / (dmin**2 + eps) ** 2),
        note="each of the n(n−1) off-diagonal K_ij² is ≤ 1/(d_min²+ε)²; with eff-rank = "
             "n/(1+ε²‖E‖_F²/n) this gives eff-rank ≥ n/(1+ε²(n−1)/(d_min²+ε)²), a lower bound"))
    lower_exact = count / (1 + eps**2 * (count - 1) / (dmin**2 + eps) ** 2)
    lower_c = count / (1 + c**2 / (count - 1))
    steps.append(symbolic.holds(
        "ε²(n−1)/(d_min²+ε)² ≤ c²/(n−1) with c = ε(n−1)/d_min², so eff-rank ≥ n/(1+c²/(n−1))",
        sp.LessThan(eps**2 * (count - 1) / (dmin**2 + eps) ** 2, c**2 / (count - 1)),
        _sign_truth((eps**2 * (count - 1) / (dmin**2 + eps) ** 2 - c**2 / (count - 1))
                    .subs(eps, c * dmin**2 / (count - 1)))))
    in_unit = {c: 1 / (1 + t)}  # 0 < c < 1, the domain where (1 − c)² is below 1
    steps.append(symbolic.holds(
        "reading (a): 'the general bound follows from the effective rank formula': "
        "eff-rank ≤ n(1−c)² is compatible with eff-rank ≥ n/(1+c²/(n−1)) (0 < c < 1)",
        sp.LessThan(lower_c, count * (1 - c) ** 2),
        _sign_truth((lower_c - count * (1 - c) ** 2).subs(in_unit)),
        note="false: n/(1+c²/(n−1)) > n(1−c)² for every 0 < c < 1, n ≥ 2, so every admissible "
             "configuration violates reading (a)"))
    steps.append(symbolic.holds(
        "reading (b): the proof's eff-rank ≤ n/(1+ε²(n−1)/d_min⁴) is compatible with "
        "eff-rank ≥ n/(1+ε²(n−1)/(d_min²+ε)²)",
        sp.LessThan(lower_exact, count / (1 + eps**2 * (count - 1) / dmin**4)),
        _sign_truth(lower_exact - count / (1 + eps**2 * (count - 1) / dmin**4)),
        note="false for every ε > 0: the lower bound exceeds the proof's upper bound"))
    steps.append(symbolic.holds(
        "reading (c), n/(1−c)² (a lost fraction bar; what λ_m(K) ≥ (1−c)/ε gives): "
        "eff-rank ≤ n ≤ n/(1−c)² (0 < c < 1)",
        sp.LessThan(count, count / (1 - c) ** 2),
        _sign_truth((count - count / (1 - c) ** 2).subs(in_unit)),
        note="true, and vacuous: it never goes below the Cauchy–Schwarz bound n"))
    steps.append(symbolic.holds(
        "reading (d), the direction reversed: n(1−c)² ≤ n/(1+c²/(n−1)) ≤ eff-rank (0 < c < 1)",
        sp.LessThan(count * (1 - c) ** 2, lower_c),
        _sign_truth((count * (1 - c) ** 2 - lower_c).subs(in_unit))))
    steps.append(symbolic.holds(
        "the Gershgorin interval's own lower bound n/(1+c)² (from |λ_m(K)| ≤ (1+c)/ε) is "
        "weaker than n/(1+c²/(n−1))",
        sp.LessThan(count / (1 + c) ** 2, lower_c),
        _sign_truth(count / (1 + c) ** 2 - lower_c)))
    return steps


def literal_bound_gap(case):
    """eff-rank(K) against n(1 − c)², c = ε(n−1)/d_min² (reading (a), as rendered)."""
    rank, _, _, count = _kernel_figures(case)
    return rank, count * (1 - case["c"]) ** 2, _roundoff(rank, count)


def proof_intermediate_gap(case):
    """eff-rank(K) against n/(1 + ε²(n−1)/d_min⁴) (reading (b), the proof's intermediate)."""
    rank, d2_min, eps_, count = _kernel_figures(case)
    return rank, count / (1 + eps_.square() * (count - 1) / d2_min.square()), _roundoff(rank, count)


def fraction_bound_gap(case):
    """eff-rank(K) against n/(1 − c)² (reading (c), a lost fraction bar)."""
    rank, _, _, count = _kernel_figures(case)
    return rank, count / (1 - case["c"]) ** 2, _roundoff(rank, count)


SIMPLEX_SIZES = (2, 3, 8, 32)


def _general_sampler(c_high):
    def sample(ctx, gen):
        """Gaussian point sets as for small-eps, and regular simplices (all off-diagonal distances
        equal to d_min: the smallest eff-rank a given d_min allows, the extreme case of every lower
        bound); c = ε(n−1)/d_min² log-uniform in [1e-6, c_high]."""
        batch = ctx.pick(quick=100, full=1000)
        for count, dim in SIZES:
            scale = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-3, high=1e3)
            x = sampling.gaussian(ctx, gen, batch, count, dim) * scale
            yield {"x": x, "c": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=c_high)}
        for count in SIMPLEX_SIZES:
            scale = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-3, high=1e3)
            corners = torch.eye(count, dtype=ctx.dtype, device=ctx.device) / math.sqrt(2.0)
            yield {"x": corners * scale,
                   "c": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=c_high)}

    return sample


def _general_strategy(c_high):
    def strategy(ctx):
        """One point set (n ∈ [2, 6], d ∈ [1, 3], coordinates in [−10, 10], distances ≥ 1e-3),
        c ∈ [1e-6, c_high]."""
        import numpy as np
        from hypothesis import strategies as st

        def separated(x):
            dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
            return dist[~np.eye(len(x), dtype=bool)].min() >= 1e-3

        points = sampling.point_sets(n=(2, 6), d=(1, 3)).filter(separated)
        return st.tuples(points, sampling.log_uniform_floats(1e-6, c_high)).map(
            lambda pc: {"x": ctx.tensor(pc[0])[None], "c": ctx.tensor([pc[1]])})

    return strategy


C_BELOW_ONE = 0.999  # reading (a)'s domain 0 < c < 1 (at c = 1 its right-hand side is 0)
C_ANY = 1e3  # the general case: no hypothesis on ε
GENERAL_SAMPLER = ("Gaussian point sets, (n, d) ∈ {(2,1), (3,2), (8,3), (32,16), (128,64)}, and "
                   "regular simplices with n ∈ {2, 3, 8, 32}, scaled by a log-uniform factor in "
                   "[1e-3, 1e3]; d_min = their minimum distance; ε = c·d_min²/(n−1) with c "
                   "log-uniform in [1e-6, C_HIGH]")


def general_correction(evidence):
    def found(name):
        e = next((e for e in evidence if e["name"] == name), None)
        w = None if e is None else e["witness"]
        if w is None:
            return ""
        shape = w["inputs"]["x"]["shape"]
        return (f" ({name}: n = {shape[-2]}, d = {shape[-1]}, eff-rank = {w['lhs']:.6g} > "
                f"{w['rhs']:.6g})")

    return (
        "In general n/(1 + ε²(n−1)/(d_min²+ε)²) ≤ eff-rank(K) ≤ n (Lemma 0's Frobenius estimate, "
        "used in the right direction, and Cauchy–Schwarz). With c = ε(n−1)/d_min² < 1, n(1−c)² is "
        "a lower bound on eff-rank, not an upper bound, and so is the Gershgorin interval's "
        "n/(1+c)²; the only upper bound of this shape that holds, n/(1−c)², is never below n. "
        "No upper bound below n holds in general." + found("literal-upper-bound")
        + found("proof-intermediate-upper-bound")
    )


GENERAL = Claim(
    id="georesolver/theorem-2.8/general",
    label="Theorem 2.8 (Theorem 3: IDA effective rank bound), general case; Lemma 0 (§5) restates it",
    section="§2.7",
    statement=GENERAL_STATEMENT,
    reading=(
        "K_ij = (‖x_i−x_j‖²+ε)⁻¹ on n ≥ 2 points with off-diagonal distances ≥ d_min > 0 (tested "
        "with d_min the minimum distance), any ε > 0, c = ε(n−1)/d_min². The rendered formula "
        "lost its structure; four readings are tested. (a) as rendered: eff-rank(K) ≤ n(1−c)², on "
        "its domain 0 < c < 1 (for c ≥ 1 the factor (1−c)² is 0 at c = 1 and ≥ 1 beyond c = 2, so "
        "the bound is nonsensical or vacuous there) — REFUTED, every configuration violates it. "
        "(b) the proof's intermediate eff-rank(K) ≤ n/(1+ε²(n−1)/d_min⁴), every ε > 0 — REFUTED, "
        "every configuration violates it. (c) a lost fraction bar, eff-rank(K) ≤ n/(1−c)² for "
        "0 < c < 1 (what the proof's Gershgorin interval λ_m(K) ≥ (1−c)/ε gives) — CONFIRMED, but "
        "vacuous: it is ≥ n, and eff-rank ≤ n always. (d) the direction reversed, eff-rank(K) ≥ "
        "n(1−c)² for 0 < c < 1 — CONFIRMED (it follows from the suite's corrected lower bound "
        "n/(1+ε²(n−1)/(d_min²+ε)²), also tested here for every ε)."
    ),
    kind=Kind.INEQUALITY,
    derivation=general_derivation,
    checks=(
        Relation(
            name="literal-upper-bound",
            lhs="eff-rank(K)",
            rel="<=",
            rhs="n(1 − ε(n−1)/d_min²)²",
            evaluate=literal_bound_gap,
            sample=_general_sampler(C_BELOW_ONE),
            strategy=_general_strategy(C_BELOW_ONE),
            tolerance=TOLERANCE,
            sampler=GENERAL_SAMPLER.replace("C_HIGH", f"{C_BELOW_ONE:g}"),
            reading="(a) as rendered, on its domain 0 < c < 1",
        ),
        Relation(
            name="proof-intermediate-upper-bound",
            lhs="eff-rank(K)",
            rel="<=",
            rhs="n/(1 + ε²(n−1)/d_min⁴)",
            evaluate=proof_intermediate_gap,
            sample=_general_sampler(C_ANY),
            strategy=_general_strategy(C_ANY),
            tolerance=TOLERANCE,
            sampler=GENERAL_SAMPLER.replace("C_HIGH", f"{C_ANY:g}"),
            reading="(b) the proof's intermediate bound, every ε > 0",
        ),
        Relation(
            name="fraction-upper-bound",
            lhs="eff-rank(K)",
            rel="<=",
            rhs="n/(1 − ε(n−1)/d_min²)²",
            evaluate=fraction_bound_gap,
            sample=_general_sampler(C_BELOW_ONE),
            strategy=_general_strategy(C_BELOW_ONE),
            tolerance=TOLERANCE,
            sampler=GENERAL_SAMPLER.replace("C_HIGH", f"{C_BELOW_ONE:g}"),
            reading="(c) a lost fraction bar, 0 < c < 1: true and vacuous (≥ n)",
            max_examples=50,
        ),
        Relation(
            name="reversed-lower-bound",
            lhs="eff-rank(K)",
            rel=">=",
            rhs="n(1 − ε(n−1)/d_min²)²",
            evaluate=literal_bound_gap,
            sample=_general_sampler(C_BELOW_ONE),
            strategy=_general_strategy(C_BELOW_ONE),
            tolerance=TOLERANCE,
            sampler=GENERAL_SAMPLER.replace("C_HIGH", f"{C_BELOW_ONE:g}"),
            reading="(d) the rendered formula with the inequality reversed, 0 < c < 1",
            max_examples=50,
        ),
        Relation(
            name="corrected-lower-bound",
            lhs="eff-rank(K)",
            rel=">=",
            rhs="n/(1 + ε²(n−1)/(d_min²+ε)²)",
            evaluate=corrected_bound_gap,
            sample=_general_sampler(C_ANY),
            strategy=_general_strategy(C_ANY),
            tolerance=TOLERANCE,
            sampler=GENERAL_SAMPLER.replace("C_HIGH", f"{C_ANY:g}"),
            reading="the suite's correction, every ε > 0 (attained by the regular simplex)",
            max_examples=50,
        ),
    ),
    correction=general_correction,
    time_limit_s=30,
    notes=(
        "The rendered text and the LaTeX copy both read n(1−ε(n−1)/d_min²)², in the theorem and "
        "again in Lemma 0 (§5); elsewhere this rendering drops fraction bars (the proof's "
        "n/(1+ε²(n−1)/d_min⁴) renders as 'n1+ε2(n−1)/dmin4'), so n/(1−c)² is a plausible source. "
        "Neither proof derives the general bound: Theorem 2.8's proof computes the Gershgorin "
        "interval λ_m(K) ∈ [1/ε − (n−1)/d_min², 1/ε + (n−1)/d_min²] and never uses it, and Lemma "
        "0 says it 'follows from the effective rank formula', which with its own Frobenius "
        "estimate gives a lower bound. Read as an upper bound below n, the statement is false for "
        "every configuration."
    ),
)


# ══ width independence ══

WIDTH_STATEMENT = (
    r"\operatorname{eff-rank}(\mathbf{K}) \text{ is bounded } \ldots"
    r" \text{ independent of hidden width } d_h"
    r" \quad\text{(Theorem 2.8; §2.8: ``In high dimensions, this bound becomes tighter because the"
    r" off-diagonal distances } d_{\min} \text{ increase with dimension'')}."
)

WIDTH_COUNT = 32  # n, fixed
WIDTH_GRID = tuple(2**k for k in range(1, 12))  # d_h = 2 … 2048: 3.01 decades
RELATION_WIDTHS = (2, 8, 32, 128, 512, 2048)
TYPICAL_EPS = 0.1  # ε against a typical squared distance of 1
DMIN_EPS = 1.0  # ε against d_min² = 1 (c = ε(n−1)/d_min² = 31: the general case)


def gaussian_points_in_width(ctx, gen, tag, batch: int, count: int, width: int) -> torch.Tensor:
    """``count`` i.i.d. N(0, I_width) points, up to a rotation, as a ``(batch, count, m)`` tensor,
    m = min(count, width): the columns of R in Z = QR for a Gaussian width × count matrix Z
    (Bartlett: R_ii ~ χ_(width−i), R_ij ~ N(0, 1) above the diagonal, 0 below). The pairwise
    distances, hence K, have exactly the distribution of the width-dimensional points' at O(n²)
    cost per set; the χ variates come from the ctx's numpy generator for ``tag``."""
    m = min(count, width)
    upper = torch.randn(batch, m, count, generator=gen, dtype=ctx.dtype, device=ctx.device).triu(1)
    dof = np.broadcast_to(width - np.arange(m), (batch, m)).astype(float)
    chi = ctx.tensor(np.sqrt(ctx.numpy_rng(tag).chisquare(dof)))
    diagonal = torch.arange(m, device=ctx.device)
    upper[:, diagonal, diagonal] = chi
    return upper.transpose(-1, -2)


def sample_over_width(ctx, gen):
    """For each d_h in {2, 8, 32, 128, 512, 2048}, n = 32 Gaussian points in R^(d_h): rescaled so
    that d_min = 1 with c = ε(n−1)/d_min² log-uniform in [1e-6, 1/2] (the theorem's hypothesis),
    and unscaled-in-distance (σ² = 1/(2d_h), E‖x_i−x_j‖² = 1) with ε = 0.1 (the typical family)."""
    batch = ctx.pick(quick=100, full=1000)
    for width in RELATION_WIDTHS:
        x = gaussian_points_in_width(ctx, gen, f"relation-width:{width}", batch, WIDTH_COUNT, width)
        x = x / sampling.min_pairwise_distance(x)[:, None, None]
        yield {"x": x, "c": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=0.5)}
        y, eps_ = _typical_scale(
            gaussian_points_in_width(ctx, gen, f"relation-typical:{width}", batch, WIDTH_COUNT, width),
            width)
        # _kernel_figures takes ε as c·d_min²/(n−1): pass the c that gives ε = 0.1 for each set.
        yield {"x": y, "c": eps_ * (WIDTH_COUNT - 1) / sampling.min_pairwise_squared_distance(y)}


def _mean_rank_over_width(rescale):
    def measure(ctx, grid):
        """Mean eff-rank over the sets at each d_h, with its standard error."""
        batch = ctx.pick(quick=256, full=2048)
        gen = ctx.generator("width-law")
        means, errors = [], []
        for width in grid:
            tag = f"width-law:{int(width)}"
            x = gaussian_points_in_width(ctx, gen, tag, batch, WIDTH_COUNT, int(width))
            x, eps_ = rescale(x, int(width))
            rank = operators.effective_rank(operators.ida_kernel(x, eps=eps_))
            means.append(float(rank.mean()))
            errors.append(float(rank.std()) / math.sqrt(batch))
        return np.array(means), np.array(errors)

    return measure


def _typical_scale(x, width):
    # σ² = 1/(2 d_h): E‖x_i − x_j‖² = 2σ²d_h = 1 at every width.
    return x / math.sqrt(2.0 * width), TYPICAL_EPS


def _unit_dmin(x, width):
    return x / sampling.min_pairwise_distance(x)[:, None, None], DMIN_EPS


def equidistant_rank(count, eps_, dist2):
    """eff-rank of K when every off-diagonal squared distance equals ``dist2``."""
    return count / (1 + eps_**2 * (count - 1) / (dist2 + eps_) ** 2)


def width_derivation():
    """The width enters K only through the distances; the d_h → ∞ limit of the typical family is
    the equidistant configuration, whose eff-rank is d_h-free and ≤ n."""
    delta2 = sp.Symbol("delta2", positive=True)
    size = 4
    b = 1 / (delta2 + eps)
    K = sp.eye(size) / eps + b * (sp.ones(size, size) - sp.eye(size))
    chi_var = sp.Symbol("k", positive=True)
    steps = [
        symbolic.exact(
            "equidistant points (‖x_i−x_j‖² = δ² for i ≠ j): eff-rank = n/(1+ε²(n−1)/(δ²+ε)²) "
            "(shown for n = 4)",
            equidistant_rank(size, eps, delta2), K.trace() ** 2 / (K * K).trace()),
        symbolic.exact(
            "typical family σ² = 1/(2d_h): ‖x_i−x_j‖² ~ χ²_(d_h)/d_h has variance 2/d_h → 0, so the "
            "points become equidistant (δ² = 1) as d_h → ∞",
            2 / chi_var, sp.simplify(2 * chi_var / chi_var**2),
            note="k stands for d_h; Var χ²_k = 2k"),
        symbolic.holds(
            "that limit n/(1+ε²(n−1)/(1+ε)²) is ≤ n, independently of d_h",
            sp.LessThan(equidistant_rank(m + 2, eps, 1), m + 2),
            _sign_truth(equidistant_rank(m + 2, eps, 1) - (m + 2))),
    ]
    return steps


WIDTH = Claim(
    id="georesolver/theorem-2.8/width-independence",
    label="Theorem 2.8 (Theorem 3: IDA effective rank bound), width independence",
    section="§2.7",
    statement=WIDTH_STATEMENT,
    reading=(
        "K_ij = (‖x_i−x_j‖²+ε)⁻¹ on n = 32 points in R^(d_h), d_h = 2 … 2048. 'Bounded "
        "independently of d_h' read as: for every width, eff-rank(K) lies between two bounds that "
        "depend on n, ε and the extreme distances only, not on d_h: the suite's lower bound "
        "n/(1+ε²(n−1)/(d_min²+ε)²) and the upper bound n/(1+ε²(n−1)/(d_max²+ε)²) < n (each "
        "off-diagonal K_ij ≥ (d_max²+ε)⁻¹). Tested on two families at every width: Gaussian sets "
        "rescaled to d_min = 1 with ε(n−1)/d_min² ≤ 1/2 (the theorem's hypothesis), and the "
        "typical family σ² = 1/(2d_h) (E‖x_i−x_j‖² = 1) with ε = 0.1; and, with d_min held fixed, "
        "the mean eff-rank does not grow with d_h (O(d_h⁰) over 3 decades). Whether the theorem's "
        "own bound 1 + nε²/d_min⁴ holds is the separate claim theorem-2.8/small-eps (refuted there "
        "at every n, d and ε tested); it is not re-counted here. The trivial bound eff-rank ≤ n "
        "(Cauchy–Schwarz) is not a check: it cannot fail."
    ),
    kind=Kind.INEQUALITY,
    derivation=width_derivation,
    checks=(
        Relation(
            name="dmax-upper-bound-over-width",
            lhs="eff-rank(K)",
            rel="<=",
            rhs="n/(1 + ε²(n−1)/(d_max²+ε)²)",
            evaluate=dmax_upper_bound_gap,
            sample=sample_over_width,
            tolerance=TOLERANCE,
            sampler=("n = 32 Gaussian points in R^(d_h), d_h ∈ {2, 8, 32, 128, 512, 2048} (Bartlett "
                     "sampling of their distances): rescaled to d_min = 1 with ε = c·d_min²/(n−1), c "
                     "log-uniform in [1e-6, 1/2]; and σ² = 1/(2d_h) with ε = 0.1"),
            reading="a d_h-free upper bound below n, at every width",
        ),
        Relation(
            name="corrected-lower-bound-over-width",
            lhs="eff-rank(K)",
            rel=">=",
            rhs="n/(1 + ε²(n−1)/(d_min²+ε)²)",
            evaluate=corrected_bound_gap,
            sample=sample_over_width,
            tolerance=TOLERANCE,
            sampler="as dmax-upper-bound-over-width",
            reading="the suite's d_h-free lower bound, at every width",
        ),
        ScalingLaw(
            name="eff-rank-vs-width-dmin-fixed",
            quantity="mean eff-rank(K)",
            variable="d_h",
            exponent=0.0,
            order="O",
            grid=lambda ctx: np.array(WIDTH_GRID, dtype=float),
            measure=_mean_rank_over_width(_unit_dmin),
            family="typical: n = 32 Gaussian points in R^(d_h) rescaled to d_min = 1, ε = 1; mean "
                   "over 256 (full 2048) sets per width, with its standard error",
            tolerance="none: the O(d_h^0) bound is read on the measured interval itself (its "
                      "Monte-Carlo error enters through the standard errors)",
            exponent_tolerance=0.0,
            predicted="O(d_h^0): not growing with width",
            reading="with d_min held fixed, width does not raise the effective rank",
        ),
    ),
    time_limit_s=30,
    notes=(
        "Nothing in the proof involves d_h: its bounds are functions of n, ε and d_min, so 'independent "
        "of d_h' holds for any bound in those terms; what can fail is the bound itself (see "
        "theorem-2.8/small-eps). §2.8 adds that the bound 'becomes tighter' in high dimensions because "
        "d_min grows: for unscaled Gaussian points d_min² grows with d_h, so ε/d_min² → 0 and the "
        "suite's lower bound tends to n (full rank); at a fixed typical distance the points become "
        "equidistant as d_h → ∞ and eff-rank approaches the equidistant value n/(1+ε²(n−1)/(1+ε)²) "
        "< n from below. Either way high width does not lower the effective rank."
    ),
)

CLAIMS = (SMALL_EPS, GENERAL, WIDTH)
