"""GeoResolver §5.1, Lemma 5.1 (Unified Kernel Spectral Properties): the inverse-distance kernel
K_ij = (d(x_i, y_j)² + ε)⁻¹ on any metric space; (a) exact retrieval as ε → 0, (b) the effective-rank
bounds of Theorem 2.8, tested on Euclidean, Poincaré-ball and spherical instances (``_geometric``)."""

from __future__ import annotations

import sympy as sp

from attnaudit import operators
from attnaudit.checks import Claim, Clause, Limit, ProofStep, Reading, Relation, control, symbolic
from attnaudit.claims.georesolver import _geometric as G

LABEL = "Lemma 5.1 (Unified Kernel Spectral Properties), "
STATEMENT = (r"K_{ij}=(d(x_i,y_j)^2+\epsilon)^{-1},\ d(x_i,x_i)=0,\ d(x_i,y_j)\ge d_{\min}>0\ (i\ne j),\ "
             r"d \text{ locally Lipschitz. }")
CLAUSES_A = (Clause("a", "(a) if xi=yj∗x_i=y_j^*, limϵ→0Kij∗/∑mKim=1 _ε→ 0K_ij^*/ _mK_im=1"),)
PROOF_A = (
    ProofStep("diagonal", "Part (a) follows from Kij∗=1/ϵK_ij^*=1/ε"),
    ProofStep("off-diagonal", "Kij≤1/(dmin2+ϵ)K_ij≤ 1/(d_ ^2+ε) for j≠j∗j≠ j^*"),
    ProofStep("weight", "so the normalized weight tends to 11 as ϵ→0ε→ 0."),
)
READING_A = ("For a metric d on a space M, points y_1..y_n with d(y_j, y_m) > 0 for j ≠ m, and x_i = "
             "y_{j*}: K_{ij*}/Σ_m K_im → 1 as ε → 0⁺; tested on three metric spaces (Euclidean R^d, the "
             "Poincaré ball with d_H, the sphere with the great-circle distance) through the rate "
             "1 − K_{ij*}/Σ_m K_im = ε·Σ_{j≠j*} d(x_i, y_j)⁻² + O(ε²) derived by the suite.")
CLAUSES_B = (
    Clause("small-eps", "(b) if ϵ≪dmin2ε d_ ^2 (specifically, ϵ(n−1)/dmin2≤1/2ε(n-1)/d_ ^2≤ 1/2), then "
                        "eff-rank()≤1+nϵ2dmin4+(nϵ3dmin6)."),
    Clause("general", "In the general case (without the small-ϵε condition), the bound is: "
                      "eff-rank()≤n(1−ϵ(n−1)/dmin2)2."),
)
PROOF_B = (
    ProofStep("frobenius", "Part (b) follows from the Frobenius norm estimate: ‖F2≤n(n−1)(dmin2+ϵ)2."),
    ProofStep("general-formula", "The general bound follows from the effective rank formula."),
    ProofStep("refined", "The refined bound requires ϵ≪dmin2ε d_ ^2 and is obtained by the sharper Frobenius "
                         "estimate."),
)
READING_B = ("For K_ij = (d(x_i,x_j)² + ε)⁻¹ on n ≥ 2 distinct points of a metric space (x = y, as "
             "eff-rank = (tr K)²/tr(K²) needs a symmetric kernel), d_min the minimum distance: if "
             "ε(n−1)/d_min² ≤ 1/2 then eff-rank(K) ≤ 1 + nε²/d_min⁴ (the O(nε³/d_min⁶) term read as "
             "absent, the most favourable reading since a positive term could only help, tested where it "
             "is negligible); and eff-rank(K) ≤ n(1−c)² for c = ε(n−1)/d_min² < 1. Tested on the "
             "Poincaré ball and the sphere.")
ALTERNATIVES_B = (
    Reading("lower-bound", "eff-rank(K) ≥ n/(1 + ε²(n−1)/(d_min²+ε)²) for every ε > 0 (the suite's form; "
            "> n − 1/2 under the hypothesis)", "what the proof's Frobenius estimate gives; so that the "
            "correction rests on a check"),
    Reading("with-remainder", "eff-rank(K) ≤ 1 + nε²/d_min⁴ + C·nε³/d_min⁶ for some constant C, as ε → 0 "
            "at fixed points", "the refined bound's O(nε³/d_min⁶) read as a remainder with an unstated "
            "constant"),
)

eps, t, a, n, F = sp.symbols("epsilon t a n F", positive=True)


# ══ (a) ══
SHAPES = ((2, 2), (8, 2), (32, 3))
RATE_TOL = G.worst_rate_tol(max(c for c, _ in SHAPES), "the gap (n − 1)t/(1 + nt) of n − 1 = 31 points at "
                            "d_min (the largest shape, every other point at the minimum distance) on t = "
                            "1e-4 … 1e-14")


def a_derivation():
    d = sp.symbols("d1:3", positive=True)
    w_star = eps**-1 / (eps**-1 + sum(1 / (dj**2 + eps) for dj in d))
    dmin = sp.Symbol("d_min", positive=True)
    return [
        symbolic.exact("K_{ij*} = (d(x_i, x_i)² + ε)⁻¹ = 1/ε", 1 / eps, 1 / (sp.Integer(0) ** 2 + eps),
                       role="proof", step="diagonal"),
        symbolic.holds("K_ij ≤ 1/(d_min² + ε) for j ≠ j* (d ≥ d_min)",
                       G.le(1 / ((dmin + t) ** 2 + eps), 1 / (dmin**2 + eps)), role="proof",
                       step="off-diagonal"),
        symbolic.limit("the two facts give K_{ij*}/Σ_m K_im ≥ ε⁻¹/(ε⁻¹ + (n−1)/(d_min² + ε)) → 1 as ε → 0",
                       (1 / eps) / (1 / eps + (n - 1) / (dmin**2 + eps)), eps, 0, sp.Integer(1),
                       role="proof", step="weight"),
        symbolic.limit("lim_{ε→0} K_{ij*}/Σ_m K_im = 1 (two other points at distances d₁, d₂)", w_star,
                       eps, 0, sp.Integer(1), role="statement"),
        symbolic.series("rate: 1 − K_{ij*}/Σ_m K_im = ε·Σ_{j≠j*} d_j⁻² + O(ε²)",
                        eps * sum(dj**-2 for dj in d), 1 - w_star, eps, 0, 2, role="derivation",
                        note="derived by the suite: the rate the limit checks test"),
    ]


def _gap(geometry, softmax=False):
    def weights(x, y, e):
        if softmax:
            return operators.softmax_weights(x, y)[:, 0, :].expand(len(e), -1, -1)
        # the distance-attention core's reference path on the geometry's distances
        return operators.distance_weights(x[None], y[None], sqdist=G.sqdist(geometry), eps=e)[..., 0, :]

    return G.retrieval_gap(f"a:{geometry}", geometry, SHAPES, (300, 3000),
                           lambda ctx, gen, b, c, d: G.points(geometry, ctx, gen, b, c, d), weights)


WHERE = {"euclidean": "Gaussian points in R^d", "hyperbolic": "points of the Poincaré ball "
         "0.9·tanh(‖z‖)z/‖z‖, z ~ N(0, σ²I)", "spherical": "points of S^d around a random centre"}


def _limit(geometry):
    return Limit(
        name=f"matched-weight-to-one-{geometry}", quantity=f"K_ij*/Σ_m K_im ({geometry})",
        variable="ε/d_min²", value="1", point="0", rate=1.0, grid=G.T_GRID, gap=_gap(geometry),
        family=(f"worst case over 300 (full 3000) sets per shape of {WHERE[geometry]} (spread σ "
                "log-uniform in [0.05, 20] off R^d), (n, d) ∈ {(2,2), (8,2), (32,3)}; x_i = y_{j*} "
                "exactly for a random j*; ε = t·d_min², t = 1e-4 … 1e-14"),
        tolerance=RATE_TOL,
        controls=(control("softmax weights on the same coordinates (no ε) in place of the kernel",
                          contrast="operator", gap=_gap(geometry, softmax=True)),))


A = Claim(
    id="georesolver/lemma-5.1/a", label=LABEL + "(a) exact retrieval", section="§5.1",
    statement=STATEMENT + r"\text{(a) if } x_i=y_{j^*},\ \lim_{\epsilon\to0}K_{ij^*}/\sum_m K_{im}=1.",
    reading=READING_A,
    reading_why=("the literal statement; a lemma about every metric space is tested on the three the "
                 "paper uses"),
    kind="limit", derivation=a_derivation, clauses=CLAUSES_A, proof_steps=PROOF_A,
    checks=tuple(_limit(g) for g in ("euclidean", "hyperbolic", "spherical")),
    time_limit_s=30.0,
    notes="Only d(x, x) = 0 and d > 0 between distinct points matter; Lipschitz continuity is unused.",
)


# ══ (b) ══
HYPOTHESIS, BELOW_ONE = 0.5, 0.999


def b_derivation():
    count = t + 2  # n > 2 written n = t + 2
    c = sp.Symbol("c", positive=True)
    unit = {c: 1 / (1 + a)}  # 0 < c < 1
    lower_c = count / (1 + c**2 / (count - 1))
    two = 2 / (1 + eps**2 / (eps * (2 + t) + eps) ** 2)  # n = 2, d_min² = ε(2 + t) ≥ 2ε
    dmin = sp.Symbol("d_min", positive=True)
    return [
        symbolic.exact("eff-rank(K) = (tr K)²/tr(K²) = n/(1 + ε²‖E‖_F²/n), E = K − ε⁻¹I (any metric)",
                       n / (1 + eps**2 * F / n), (n / eps) ** 2 / (n / eps**2 + F), role="derivation",
                       note="tr K = n/ε needs only d(x_i, x_i) = 0; ‖E‖_F² = Σ_{i≠j} K_ij²"),
        symbolic.holds("Frobenius estimate ‖E‖_F² ≤ n(n−1)/(d_min²+ε)² (each K_ij ≤ (d_min²+ε)⁻¹)",
                       G.le(1 / (a + dmin**2 + eps) ** 2, 1 / (dmin**2 + eps) ** 2), role="proof",
                       step="frobenius"),
        symbolic.holds("'(b) follows from the Frobenius estimate': an upper bound on ‖E‖_F² bounds "
                       "eff-rank above, i.e. eff-rank grows with ‖E‖_F²",
                       G.le(n / (1 + eps**2 * F / n), n / (1 + eps**2 * (F + a) / n)), role="proof",
                       step="frobenius",
                       note="eff-rank = n/(1+ε²‖E‖_F²/n) decreases in ‖E‖_F²: the estimate gives "
                            "eff-rank ≥ n/(1+ε²(n−1)/(d_min²+ε)²)"),
        symbolic.holds("small-ε bound at n = 2 under the hypothesis: 2/(1+ε²/(d_min²+ε)²) ≤ 1 + 2ε²/d_min⁴",
                       G.le(two, 1 + 2 * eps**2 / (eps * (2 + t)) ** 2), role="statement", clause="small-eps",
                       note="false for every admissible pair, in every metric space"),
        symbolic.limit("with the remainder: at fixed points eff-rank → n as ε → 0 (n = 2 shown), while "
                       "1 + nε²/d_min⁴ + C·nε³/d_min⁶ → 1 for every constant C",
                       2 / (1 + eps**2 / (a + eps) ** 2), eps, 0, sp.Integer(1), role="statement",
                       reading="with-remainder"),
        symbolic.holds("general bound n(1−c)² (c = ε(n−1)/d_min² < 1) compatible with eff-rank ≥ "
                       "n/(1 + c²/(n−1)) (n = t + 2)",
                       G.le(lower_c.subs(unit), (count * (1 - c) ** 2).subs(unit)),
                       role="statement", clause="general", note="false for every 0 < c < 1"),
    ]


def _b_relation(geometry, bound):
    c_high = BELOW_ONE if bound == "general" else HYPOTHESIS
    where = {"hyperbolic": "points of the Poincaré ball 0.9·tanh(‖z‖)z/‖z‖",
             "spherical": "points of S^d around a random centre"}[geometry]
    rhs = {"small": "1 + nε²/d_min⁴", "general": "n(1 − ε(n−1)/d_min²)²",
           "lower": "n/(1 + ε²(n−1)/(d_min²+ε)²)"}[bound]
    extra = {"clause": "small-eps" if bound == "small" else "general"} if bound != "lower" else dict(
        reading="lower-bound",
        controls=(control("the kernel (d² + ε)^{−1/4} in place of (d² + ε)^{−1}", contrast="operator",
                          evaluate=G.rank_gap(geometry, bound, power=0.25)),))
    return Relation(
        name=f"{bound if bound != 'small' else 'small-eps'}-bound-{geometry}",
        lhs=f"eff-rank(K) ({geometry})", rel=">=" if bound == "lower" else "<=", rhs=rhs,
        evaluate=G.rank_gap(geometry, bound), sample=G.rank_sampler(geometry, c_high),
        strategy=None if bound == "lower" else G.rank_strategy(geometry, c_high), tolerance=G.RANK_TOL,
        max_examples=50,
        sampler=(f"{where}, z ~ N(0, σ²I) with σ log-uniform in [0.05, 20], (n, d) ∈ {{(2,2), (3,2), "
                 "(8,3), (32,8)}}; d_min the minimum off-diagonal geodesic distance, ε = c·d_min²/(n−1), "
                 f"c log-uniform in [1e-6, {c_high:g}]; Hypothesis: n ∈ [2, 5] points, coordinates in "
                 "[−1/2, 1/2]" + (" lifted to the sphere" if geometry == "spherical" else "")), **extra)


def _witnesses(evidence):
    parts = [f"{e['name']}: eff-rank {e['witness']['lhs']:.6g} > {e['witness']['rhs']:.6g} "
             f"(n = {e['witness']['inputs']['x']['shape'][-2]})" for e in evidence
             if e.get("witness") and not e.get("reading")]
    return f" ({'; '.join(parts)})" if parts else ""


B = Claim(
    id="georesolver/lemma-5.1/b", label=LABEL + "(b) effective rank", section="§5.1",
    statement=STATEMENT + (
        r"\text{(b) if } \epsilon(n-1)/d_{\min}^2\le 1/2, \operatorname{eff-rank}(\mathbf K)\le 1+"
        r"\frac{n\epsilon^2}{d_{\min}^4}+O\!\left(\frac{n\epsilon^3}{d_{\min}^6}\right); \text{ in general "
        r"} \operatorname{eff-rank}(\mathbf K)\le n(1-\epsilon(n-1)/d_{\min}^2)^2."),
    reading=READING_B, alternatives=ALTERNATIVES_B,
    reading_why="the literal statement, on the non-Euclidean metrics Part II applies it to",
    kind="inequality", derivation=b_derivation, clauses=CLAUSES_B, proof_steps=PROOF_B,
    checks=tuple(_b_relation(g, b) for b in ("small", "general", "lower")
                 for g in ("hyperbolic", "spherical")),
    correction=lambda evidence: (
        "In any metric space, eff-rank(K) = n/(1 + ε²‖E‖_F²/n) ≥ n/(1 + ε²(n−1)/(d_min²+ε)²): under "
        "ε(n−1)/d_min² ≤ 1/2 that exceeds n − 1/2, so neither 1 + nε²/d_min⁴ nor n(1−c)² bounds it."
        + _witnesses(evidence)),
    time_limit_s=30.0,
    notes=("The proof is Theorem 2.8's (see theorem-2.8/small-eps and /general): its Frobenius "
           "estimate is right but gives a lower bound. On n = 2 the refined bound's O(nε³/d_min⁶) term "
           "cannot rescue it: at ε → 0 eff-rank → 2 while the bound → 1."),
)

CLAIMS = (A, B)
