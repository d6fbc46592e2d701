"""GeoResolver §5.3, Theorem 5.2 (Circuit Separation and Rank Bound) for Dense-HIDA on the Poincaré
ball: (1) exact retrieval as ε → 0, (2) eff-rank(K^H) ≤ 1 + nε²/d_min⁴ with d_min ≥ 2δ/(1−ρ²), and
the proof's distance lower bound d_H(x, y) ≥ ‖x − y‖/(1 − ρ²). Numerics: ``_geometric`` (lazily)."""

from __future__ import annotations

import math

import mpmath
import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import (
    Claim,
    Clause,
    Limit,
    ProofStep,
    Reading,
    Relation,
    Use,
    control,
    sampling,
    symbolic,
    tolerances,
)
from attnaudit.claims.georesolver import _geometric as G

LABEL = "Theorem 5.2 (Circuit Separation and Rank Bound), "

# ══ (1) retrieval ══
CLAUSES_RETRIEVAL = (Clause("retrieval", "(1) limε→0Wj∗=1 _ → 0W_j^*=1 for exact retrieval"),)
PROOF_RETRIEVAL = (ProofStep("lemma-a", "Claim (1) follows directly from Lemma 0 Part (a) with d=dℍd=d_H."),)
READING_RETRIEVAL = (
    "For n pairwise-distinct keys k_1..k_n in the Poincaré ball with ‖k_j‖ ≤ ρ < 1 and the query q = "
    "k_{j*}: the Dense-HIDA weight W_{j*}(ε) → 1 as ε → 0⁺. Tested through its rate: the suite derives "
    "1 − W_{j*} = ε·Σ_{j≠j*} d_H(q,k_j)⁻² + O(ε²), so the worst gap over random key sets must close like "
    "ε¹, ε measured in units of d_min,H² = min_{j≠j*} d_H(q, k_j)²; and 0 ≤ W_j ≤ ε/(d_H(q,k_j)² + ε) for "
    "every ε > 0.")

# ══ (2) rank ══
CLAUSES_RANK = (
    Clause("rank", "(2) eff-rank(ℍ)≤1+nε2dmin4eff -rank(K^H)≤ 1+ n ^2d_ ^4"),
    Clause("separation", "with dmin≥2δ/(1−ρ2)d_ ≥ 2δ/(1-ρ^2)"),
)
PROOF_RANK = (
    ProofStep("lemma-b", "Claim (2) follows from Lemma 0 Part (b)."),
    ProofStep("distance", "The lower bound on dmind_ follows from the hyperbolic distance lower bound: "
                          "dℍ(,)≥‖−‖21−ρ2."),
)
READING_RANK = (
    "For n ≥ 2 pairwise-distinct points of the Poincaré ball with ‖x_i‖ ≤ ρ < 1, K_ij = (d_H(x_i,x_j)² + "
    "ε)⁻¹, d_min = min_{i≠j} d_H(x_i,x_j), and ε within Lemma 5.1 (b)'s hypothesis ε(n−1)/d_min² ≤ 1/2 (the "
    "proof invokes it): (tr K)²/tr(K²) ≤ 1 + nε²/d_min⁴; and d_min ≥ 2δ/(1−ρ²) with δ half the minimum "
    "Euclidean separation and ρ = max ‖x_i‖ (δ is undefined in the text; this is the value the proof's "
    "distance bound would give).")

# ══ the proof's distance lower bound ══
CLAUSE_DISTANCE = Clause("bound", "dℍ(,)≥‖−‖21−ρ2.d_H(x,y)≥ \\|x-y\\|_21-ρ^2. This inequality holds for any "
                                  ",∈dhx,y ^d_h with ‖,‖≤ρ\\|x\\|,\\|y\\|≤ρ.")
READING_DISTANCE = (
    "For every ρ ∈ [0, 1) and all x, y in R^d with ‖x‖, ‖y‖ ≤ ρ: d_H(x, y) ≥ ‖x − y‖/(1 − ρ²), d_H the "
    "Poincaré distance of §4 (curvature −1), evaluated with operators.poincare_distance (double-double, "
    "checked against mpmath at 50 digits).")
ALTERNATIVES_DISTANCE = (
    Reading("tight-radius", "The same with ρ = max(‖x‖, ‖y‖) (the most favourable ρ).",
            "ρ is the radius of the key set; the tightest value makes the bound weakest"),
    Reading("conformal-floor", "d_H(x, y) ≥ 2‖x − y‖ for all x, y in the ball (the suite's form).",
            "the bound the conformal factor λ ≥ 2 does give; so that the correction rests on a check"),
    Reading("small-radius", "The paper's bound for ρ ≤ 1/√2 only.", "the range of ρ where the suite's form "
            "implies it"),
)

eps, t, u, w = sp.symbols("epsilon t u w", positive=True)
RHO9 = sp.Rational(9, 10)


# ══ (1) retrieval ══
SHAPES = ((2, 2), (8, 2), (32, 3), (64, 16))
RATE_TOL = G.worst_rate_tol(max(c for c, _ in SHAPES), "the gap (n − 1)t/(1 + nt) of n − 1 = 63 keys at "
                            "d_min,H (the largest shape, every other key at the minimum distance) on t = "
                            "1e-4 … 1e-14")
BOUND_TOL = tolerances.Roundoff(condition="n + 2d + 16 (n-term sum, double-double d_H², a few "
                                          "divisions), relative to the ratio ≤ 1")


def retrieval_derivation():
    a, b, c = sp.symbols("a b c", positive=True)  # ‖x−y‖², 1−‖x‖², 1−‖y‖²
    d = sp.symbols("d1:3", positive=True)  # hyperbolic distances from q = k_{j*} to two other keys
    w_star = eps**-1 / (eps**-1 + sum(1 / (dj**2 + eps) for dj in d))
    return [
        symbolic.exact("d_H(x, x) = arcosh(1 + 0) = 0 (hypothesis (i) of Lemma 5.1)", sp.Integer(0),
                       sp.acosh(1 + 2 * 0 / (b * c)), role="proof", step="lemma-a"),
        symbolic.holds("d_H(x, y) = 2 asinh √δ > 0 for x ≠ y: δ = ‖x−y‖²/((1−‖x‖²)(1−‖y‖²)) > 0 "
                       "(asinh increasing, asinh 0 = 0)", sp.StrictGreaterThan(a / (b * c), 0),
                       role="proof", step="lemma-a"),
        symbolic.limit("lim_{ε→0} ε⁻¹/(ε⁻¹ + Σ_{j≠j*}(d_H(q,k_j)² + ε)⁻¹) = 1", w_star, eps, 0,
                       sp.Integer(1), role="statement"),
        symbolic.series("rate: 1 − W_{j*} = ε·Σ_{j≠j*} d_H(q,k_j)⁻² + O(ε²)", eps * sum(dj**-2 for dj in d),
                        1 - w_star, eps, 0, 2, role="derivation",
                        note="derived by the suite (the paper states no rate): the rate the limit check "
                             "tests"),
    ]


def _hida_weights(q, k, e):
    eye = torch.eye(k.shape[-2], dtype=k.dtype, device=k.device).expand(*k.shape[:-1], k.shape[-2])
    return operators.hida_attention(q, k, eye, eps=e, path="exact")


def _softmax_weights(q, k, e):
    return operators.softmax_weights(q, k).expand(*e.shape, *q.shape[-2:-1], k.shape[-2])


def _keys(ctx, gen, batch, n, d):
    """Keys ‖x‖ ≤ ρ = 1 − 10^{−s}, s uniform in [0.3, 6]: from ρ ≈ 0.5 to within 1e-6 of the boundary."""
    return G.ball_points(ctx, gen, batch, n, d, G.radii(ctx, gen, batch, 6.0))


def retrieval_gap(weights):
    return G.retrieval_gap("retrieval", "hyperbolic", SHAPES, (400, 4000), _keys,
                           lambda q, k, e: weights(q[None], k[None], e)[..., 0, :])


def bound_ratio(case, weights=_hida_weights):
    """max_{j≠j*} W_j/(ε/(d_H(q,k_j)² + ε)) per instance: ≤ 1 is the suite's bound."""
    q, k, e, star = case["q"], case["k"], case["eps"], case["star"].bool()
    wts = weights(q, k, e)[:, 0, :]
    d2 = operators.poincare_sqdist(q, k)[:, 0, :]
    ratio = (wts / (e[:, None] / (d2 + e[:, None]))).masked_fill(star, 0.0).amax(dim=-1)
    n, d = k.shape[-2], k.shape[-1]
    return ratio, torch.ones_like(ratio), BOUND_TOL(n + 2 * d + 16, q.dtype)


def _sample_bound(ctx, gen):
    batch = ctx.pick(quick=500, full=5000)
    for n, d in SHAPES:
        q, k, star, _ = G.matched(_keys(ctx, gen, batch, n, d), gen, "hyperbolic")
        yield {"q": q, "k": k, "eps": sampling.log_uniform(ctx, gen, batch, low=1e-14, high=1e2),
               "star": star.to(ctx.dtype)}


KEYS_TEXT = ("keys x = ρ·tanh(‖z‖)z/‖z‖, z ~ N(0, σ²I) with σ log-uniform in [0.05, 20] and ρ = 1 − "
             "10^{−s}, s uniform in [0.3, 6] (‖x‖ ≤ ρ < 1), (n, d) ∈ {(2,2), (8,2), (32,3), (64,16)}")
SOFTMAX = "softmax attention on the ball coordinates (no ε) in place of Dense-HIDA"

RETRIEVAL = Claim(
    id="georesolver/theorem-5.2/retrieval", label=LABEL + "(1) exact retrieval", section="§5.3",
    statement=(r"\text{For pairwise distinct keys in a compact subset with } \|x\|\le\rho<1,\ "
               r"\text{Dense-HIDA satisfies (1) } \lim_{\varepsilon\to 0} W_{j^*}=1 "
               r"\text{ for exact retrieval.}"),
    reading=READING_RETRIEVAL, reading_why="the literal statement (exact retrieval at the query q = k_{j*})",
    kind="limit", derivation=retrieval_derivation, clauses=CLAUSES_RETRIEVAL, proof_steps=PROOF_RETRIEVAL,
    uses=(Use("georesolver/lemma-5.1/a", "Claim (1) follows directly from Lemma 0 Part (a)"),),
    checks=(
        Limit(name="matched-weight-to-one", quantity="W_{j*} (Dense-HIDA)", variable="ε/d_min,H²",
              value="1", point="0", rate=1.0, grid=G.T_GRID, gap=retrieval_gap(_hida_weights),
              family=f"worst case over 400 (full 4000) key sets per shape, {KEYS_TEXT}; random j*, "
                     "q = k_{j*} exactly, ε = t·d_min,H² for t = 1e-4 … 1e-14",
              tolerance=RATE_TOL,
              controls=(control(SOFTMAX, contrast="operator", gap=retrieval_gap(_softmax_weights)),)),
        Relation(name="other-weights-bound", lhs="max_{j≠j*} W_j·(d_H²+ε)/ε", rel="<=", rhs="1",
                 evaluate=bound_ratio, sample=_sample_bound, tolerance=BOUND_TOL,
                 sampler=f"{KEYS_TEXT}; random j*, q = k_{{j*}}; ε log-uniform in [1e-14, 1e2]",
                 controls=(control(SOFTMAX, contrast="operator",
                                   evaluate=lambda case: bound_ratio(case, _softmax_weights)),)),
    ),
    time_limit_s=30.0,
    notes=("The proof reduces (1) to Lemma 5.1 (a) with d = d_H: d_H(x, x) = 0 and d_H > 0 between "
           "distinct keys are all it needs, and both hold; the keys' radius ρ plays no part."),
)


# ══ (2) rank ══
SEP_TOL = tolerances.Roundoff(condition="d + 16 (double-double d_H, the norms, one division)",
                              scale="max(d_min,H, 2δ/(1−ρ²))")


def rank_derivation():
    a = eps * (2 + t)  # d_min² ≥ 2ε(n−1) with n = 2: the hypothesis ε(n−1)/d_min² ≤ 1/2
    two_point_rank = lambda a: 2 / (1 + eps**2 / (a + eps) ** 2)  # noqa: E731 - eff-rank of two keys
    return [
        symbolic.exact("eff-rank of two keys: (2/ε)²/(2/ε² + 2/(a+ε)²) = 2/(1 + ε²/(a+ε)²)",
                       two_point_rank(u), (2 / eps) ** 2 / (2 / eps**2 + 2 / (u + eps) ** 2),
                       role="derivation"),
        symbolic.holds("n = 2 under the hypothesis (d_min² = ε(2+t)): 2/(1+ε²/(d_min²+ε)²) ≤ 1 + "
                       "2ε²/d_min⁴", G.le(two_point_rank(a), 1 + 2 * eps**2 / a**2), role="statement",
                       clause="rank", note="false for every t > 0: two keys already break the bound"),
        symbolic.holds("the proof's distance bound at ρ = 9/10 for x = 0, y = e₁/10: d_H ≥ ‖x−y‖/(1−ρ²)",
                       sp.GreaterThan(2 * sp.atanh(sp.Rational(1, 10)), sp.Rational(1, 10) / (1 - RHO9**2)),
                       role="proof", step="distance", note="see theorem-5.2/distance-lower-bound"),
        symbolic.holds("d_min ≥ 2δ/(1−ρ²) for the two keys ±(9/10)e₁ (2δ = 9/5 their separation, ρ = 9/10)",
                       sp.GreaterThan(2 * sp.log(19), sp.Rational(9, 5) / (1 - RHO9**2)),
                       role="statement", clause="separation", note="d_H = 2 ln 19 ≈ 5.89 < 9.47"),
    ]


def separation_gap(rhs="paper"):
    def evaluate(case):
        """d_min,H against 2δ/(1−ρ²) ("paper") or 2·(2δ) ("floor"), 2δ = min_{i≠j}‖k_i − k_j‖,
        ρ = max_j ‖k_j‖ (1 − ρ² = 2/max λ, λ the conformal factor in double-double)."""
        x = case["x"]
        dmin = G.min_offdiagonal(operators.poincare_sqdist(x, x)).sqrt()
        sep = sampling.min_pairwise_distance(x)
        right = (sep / (2.0 / operators.poincare_conformal_factor(x).amax(dim=-1)) if rhs == "paper"
                 else 2 * sep)
        return dmin, right, SEP_TOL(x.shape[-1] + 16) * dmin.maximum(right)

    return evaluate


def _separation_sampler(ctx, gen):
    batch = ctx.pick(quick=300, full=3000)
    for count, dim in G.RANK_SHAPES:
        yield {"x": _keys(ctx, gen, batch, count, dim)}


def _witness(evidence, name, pair=False):
    """`` (name: the witness's two sides)``, or nothing when the check left no witness."""
    w = next((e for e in evidence if e["name"] == name), {}).get("witness")
    if not w:
        return ""
    if pair:
        return f" ({name}: d_H = {w['lhs']:.6g} < {w['rhs']:.6g})"
    return f" ({name}: {w['lhs']:.6g} vs {w['rhs']:.6g}, n = {w['inputs']['x']['shape'][-2]})"


RANK = Claim(
    id="georesolver/theorem-5.2/rank", label=LABEL + "(2) rank bound", section="§5.3",
    statement=(r"\text{(2) } \operatorname{eff-rank}(\mathbf K^{\mathbb H})\le 1+\frac{n\varepsilon^2}"
               r"{d_{\min}^4}, \text{ with } d_{\min}\ge 2\delta/(1-\rho^2) \quad (\|x\|\le\rho<1)."),
    reading=READING_RANK,
    reading_why="the literal statement with Lemma 5.1 (b)'s hypothesis, which its proof cites",
    alternatives=(Reading("suite-corrected", "eff-rank(K^H) ≥ n/(1 + ε²(n−1)/(d_min²+ε)²) and d_min,H ≥ "
                          "2·(2δ) = 4δ (the suite's forms)", "so that the correction rests on checks"),),
    kind="inequality", derivation=rank_derivation, clauses=CLAUSES_RANK, proof_steps=PROOF_RANK,
    uses=(
        Use("georesolver/lemma-5.1/b", "Claim (2) follows from Lemma 0 Part (b)"),
        Use("georesolver/theorem-5.2/distance-lower-bound",
            "follows from the hyperbolic distance lower bound"),
    ),
    checks=(
        Relation(name="paper-bound", lhs="eff-rank(K)", rel="<=", rhs="1 + nε²/d_min⁴",
                 evaluate=G.rank_gap("hyperbolic", "small"), sample=G.rank_sampler("hyperbolic", 0.5),
                 strategy=G.rank_strategy("hyperbolic", 0.5), tolerance=G.RANK_TOL, max_examples=60,
                 clause="rank",
                 sampler=("points of the ball x = 0.9·tanh(‖z‖)z/‖z‖ (the paper's projection), (n, d) ∈ "
                          "{(2,2), (3,2), (8,3), (32,8)}, spread σ log-uniform in [0.05, 20]; d_min = the "
                          "minimum off-diagonal geodesic distance, ε = c·d_min²/(n−1), c log-uniform in "
                          "[1e-6, 1/2] (the hypothesis); Hypothesis: n ∈ [2, 5] points with coordinates in "
                          "[−1/2, 1/2]")),
        Relation(name="dmin-separation-bound", lhs="d_min,H", rel=">=", rhs="2δ/(1−ρ²)",
                 evaluate=separation_gap(), sample=_separation_sampler, tolerance=SEP_TOL,
                 sampler=("points of the ball x = ρ·tanh(‖z‖)z/‖z‖, ρ = 1 − 10^{−s}, s uniform in "
                          "[0.3, 6], (n, d) ∈ {(2,2), (3,2), (8,3), (32,8)}; 2δ = the minimum "
                          "Euclidean separation, ρ = the largest norm of the set"),
                 max_examples=60, clause="separation"),
        Relation(name="corrected-lower-bound", lhs="eff-rank(K^H)", rel=">=",
                 rhs="n/(1 + ε²(n−1)/(d_min²+ε)²)", evaluate=G.rank_gap("hyperbolic", "lower"),
                 sample=G.rank_sampler("hyperbolic", 0.5), tolerance=G.RANK_TOL, reading="suite-corrected",
                 sampler="as paper-bound",
                 controls=(control("the kernel (d_H² + ε)^{−1/4} in place of (d_H² + ε)^{−1}",
                                   contrast="operator", evaluate=G.rank_gap("hyperbolic", "lower", 0.25)),)),
        Relation(name="corrected-separation", lhs="d_min,H", rel=">=", rhs="2·(2δ)",
                 evaluate=separation_gap("floor"), sample=_separation_sampler, tolerance=SEP_TOL,
                 reading="suite-corrected", sampler="as dmin-separation-bound",
                 controls=(control("the paper's 2δ/(1−ρ²) in place of 2·(2δ)", contrast="prediction",
                                   evaluate=separation_gap()),)),
    ),
    correction=lambda evidence: (
        "eff-rank(K^H) ≥ n/(1 + ε²(n−1)/(d_min²+ε)²) > n − 1/2 under the hypothesis (the Frobenius "
        "estimate read in the right direction; any metric): the hyperbolic kernel is essentially "
        "full rank, as in Theorem 2.8. The separation holds in the form d_min,H ≥ 2·(2δ) = 4δ, from the "
        "conformal factor λ ≥ 2 (see theorem-5.2/distance-lower-bound), not 2δ/(1−ρ²)."
        + _witness(evidence, "paper-bound") + _witness(evidence, "dmin-separation-bound")),
    time_limit_s=30.0,
    notes=("The proof cites Lemma 5.1 (b), whose small-ε bound is false for every metric (see "
           "lemma-5.1/b and theorem-2.8/small-eps), and the distance bound d_H ≥ ‖x−y‖/(1−ρ²), false "
           "for ρ > 1/√2. With it, d_min ≥ 2δ/(1−ρ²) would follow; without it, it fails for keys "
           "near the origin of a set whose other keys reach radius ρ."),
)


# ══ the proof's distance lower bound ══
DIST_TOL = tolerances.Roundoff(condition="d + 16 (double-double d_H, ‖x − y‖, 1 − ρ² = s(2 − s))",
                               scale="max(lhs, rhs)")
MP_TOL = tolerances.Roundoff(condition="d + 16 (poincare_distance's stated few-ulp accuracy)", scale="d_H")
DIMS = (2, 3, 16)


def distance_gap(rhs="paper"):
    def evaluate(case):
        x, y, s = case["x"], case["y"], case["s"]
        lhs = operators.poincare_distance(x, y)
        sep = torch.linalg.vector_norm(x - y, dim=-1)
        right = sep / (s * (2 - s)) if rhs == "paper" else 2 * sep
        return lhs, right, DIST_TOL(x.shape[-1] + 16) * lhs.maximum(right)

    return evaluate


def _in_ball(ctx, gen, batch, dim, s, tight=False, central=False):
    """x, y with ‖x‖, ‖y‖ ≤ ρ = 1 − s: radii ρ·t (t uniform, or with ``central`` t ≤ 1e-2:
    near the origin); with ``tight`` x on the sphere of radius ρ."""
    rho = 1 - s
    t1 = torch.rand(batch, generator=gen, dtype=ctx.dtype, device=ctx.device)
    t2 = torch.rand(batch, generator=gen, dtype=ctx.dtype, device=ctx.device)
    if tight:
        t1 = torch.ones_like(t1)
    elif central:
        t1, t2 = t1 * 1e-2, t2 * 1e-2
    ux = sampling.unit_vectors(ctx, gen, batch, dim)
    uy = sampling.unit_vectors(ctx, gen, batch, dim)
    return (rho * t1)[:, None] * ux, (rho * t2)[:, None] * uy


def _distance_sampler(s_low, s_high, tight=False, dims=DIMS, batch=(1000, 10000)):
    def sample(ctx, gen):
        sets = ctx.pick(quick=batch[0], full=batch[1])
        for dim in dims:
            for central in ((False,) if tight else (False, True)):
                s = sampling.log_uniform(ctx, gen, sets, low=s_low, high=s_high)
                x, y = _in_ball(ctx, gen, sets, dim, s, tight, central)
                yield {"x": x, "y": y, "s": s}

    return sample


def _distance_strategy(tight=False):
    def strategy(ctx):
        from hypothesis import strategies as st

        unit, angle = st.floats(0.0, 1.0, allow_nan=False), st.floats(0.0, 2 * math.pi, allow_nan=False)

        def build(drawn):
            t1, t2, a1, a2, s = drawn
            rho, t1 = 1 - s, 1.0 if tight else t1
            x = ctx.tensor([[rho * t1 * math.cos(a1), rho * t1 * math.sin(a1)]])
            y = ctx.tensor([[rho * t2 * math.cos(a2), rho * t2 * math.sin(a2)]])
            return {"x": x, "y": y, "s": ctx.tensor([s])}

        return st.tuples(unit, unit, angle, angle, sampling.log_uniform_floats(1e-12, 1.0)).map(build)

    return strategy


def mpmath_gap(case, naive=False):
    """poincare_distance (or the naive float64 arcosh formula) against mpmath at 50 digits on the
    same float64 coordinates."""
    x, y = case["x"], case["y"]
    if naive:
        n2 = (x - y).square().sum(-1)
        lhs = torch.acosh(1 + 2 * n2 / ((1 - x.square().sum(-1)) * (1 - y.square().sum(-1))))
    else:
        lhs = operators.poincare_distance(x, y)
    ref = []
    with mpmath.workdps(50):
        for xi, yi in zip(x.tolist(), y.tolist(), strict=True):
            xs, ys = [mpmath.mpf(v) for v in xi], [mpmath.mpf(v) for v in yi]
            n2 = sum((a - b) ** 2 for a, b in zip(xs, ys, strict=True))
            ax, ay = 1 - sum(a * a for a in xs), 1 - sum(b * b for b in ys)
            ref.append(float(mpmath.acosh(1 + 2 * n2 / (ax * ay))))
    rhs = torch.tensor(ref, dtype=x.dtype, device=x.device)
    return lhs, rhs, MP_TOL(x.shape[-1] + 16) * rhs.abs()


def distance_derivation():
    r2 = sp.Rational(1, 2) / (1 + w)  # ρ² = 1/(2(1+w)) < 1/2
    lam = 2 * (1 + u)  # λ = 2/(1−r²) with r² = u/(1+u)
    return [
        symbolic.limit("short pairs at the origin: d_H(0, t e₁)/‖t e₁‖ = 2 artanh(t)/t → 2 (t → 0)",
                       2 * sp.atanh(t) / t, t, 0, sp.Integer(2), role="statement"),
        symbolic.holds("at ρ = 9/10, x = 0, y = e₁/10: 2 artanh(1/10) ≥ (1/10)/(1 − 81/100)",
                       sp.GreaterThan(2 * sp.atanh(sp.Rational(1, 10)), sp.Rational(1, 10) / (1 - RHO9**2)),
                       role="statement", note="0.2007 < 0.5263: the bound fails for any ρ² > 1/2"),
        symbolic.holds("tight radius: d_H(ρe₁, 0) = ln((1+ρ)/(1−ρ)) ≥ ρ/(1−ρ²) at ρ = 9/10",
                       sp.GreaterThan(sp.log(19), RHO9 / (1 - RHO9**2)), role="statement",
                       reading="tight-radius", note="ln 19 ≈ 2.94 < 4.74"),
        symbolic.holds("conformal factor λ = 2/(1 − r²) ≥ 2 on the ball (r² = u/(1+u)): every path is at "
                       "least twice as long hyperbolically, so d_H ≥ 2‖x − y‖", sp.GreaterThan(lam, 2),
                       role="statement", reading="conformal-floor"),
        symbolic.holds("for ρ² ≤ 1/2: 2 ≥ 1/(1 − ρ²), so d_H ≥ 2‖x−y‖ ≥ ‖x−y‖/(1−ρ²)",
                       G.le(1 / (1 - r2), sp.Integer(2)), role="statement", reading="small-radius"),
    ]


PAIRS_TEXT = ("pairs x, y ∈ R^d, d ∈ {2, 3, 16}, uniform directions, radii ρ·t with t uniform in "
              "[0, 1] (and, for half the batches, in [0, 1e-2]: near the origin)")
DISTANCE = Claim(
    id="georesolver/theorem-5.2/distance-lower-bound", label=LABEL + "proof: distance lower bound",
    section="§5.3",
    statement=(r"d_{\mathbb H}(x,y)\ge \frac{\|x-y\|_2}{1-\rho^2} \quad\text{``This inequality holds for "
               r"any } x,y\in\mathbb R^{d_h} \text{ with } \|x\|,\|y\|\le\rho\text{.''}"),
    reading=READING_DISTANCE,
    reading_why="the literal statement, with its quantifier ('for any x, y with ‖x‖, ‖y‖ ≤ ρ')",
    alternatives=ALTERNATIVES_DISTANCE, kind="inequality", derivation=distance_derivation,
    clauses=(CLAUSE_DISTANCE,), proof_absent="asserted without argument inside the proof of Theorem 5.2",
    checks=(
        Relation(name="paper-bound", lhs="d_H(x, y)", rel=">=", rhs="‖x − y‖/(1 − ρ²)",
                 evaluate=distance_gap(), sample=_distance_sampler(1e-12, 1.0),
                 strategy=_distance_strategy(), tolerance=DIST_TOL, max_examples=100,
                 sampler=f"{PAIRS_TEXT}; ρ = 1 − s, s log-uniform in [1e-12, 1]; Hypothesis: d = 2, "
                         "radii ρ·t, angles, s shrunk"),
        Relation(name="paper-bound-tight-radius", lhs="d_H(x, y)", rel=">=", rhs="‖x − y‖/(1 − ρ²)",
                 evaluate=distance_gap(), sample=_distance_sampler(1e-12, 1.0, tight=True),
                 strategy=_distance_strategy(tight=True), tolerance=DIST_TOL, reading="tight-radius",
                 max_examples=100,
                 sampler="as paper-bound with ‖x‖ = ρ exactly (x on the sphere of radius ρ)"),
        Relation(name="conformal-floor", lhs="d_H(x, y)", rel=">=", rhs="2‖x − y‖",
                 evaluate=distance_gap("floor"), sample=_distance_sampler(1e-12, 1.0),
                 tolerance=DIST_TOL, reading="conformal-floor", sampler="as paper-bound",
                 controls=(control("the paper's ‖x − y‖/(1 − ρ²) in place of 2‖x − y‖", contrast="prediction",
                                   evaluate=distance_gap()),)),
        Relation(name="paper-bound-small-radius", lhs="d_H(x, y)", rel=">=", rhs="‖x − y‖/(1 − ρ²)",
                 evaluate=distance_gap(), sample=_distance_sampler(1 - 1 / math.sqrt(2.0), 1.0),
                 tolerance=DIST_TOL, reading="small-radius",
                 sampler=f"{PAIRS_TEXT}; ρ = 1 − s, s log-uniform in [1 − 1/√2, 1]",
                 controls=(control("ρ beyond 1/√2 (s log-uniform in [1e-12, 0.25])", contrast="hypothesis",
                                   hypothesis="ρ ≤ 1/√2", sample=_distance_sampler(1e-12, 0.25)),)),
        Relation(name="distance-matches-mpmath", lhs="operators.poincare_distance(x, y)", rel="==",
                 rhs="arcosh(1 + 2‖x−y‖²/((1−‖x‖²)(1−‖y‖²))) at 50 digits (mpmath)", evaluate=mpmath_gap,
                 sample=_distance_sampler(1e-12, 1.0, True, (2, 16), (150, 1500)), tolerance=MP_TOL,
                 sampler="150 (full 1500) pairs per d ∈ {2, 16}, ‖x‖ = ρ, ‖y‖ = ρ·t, ρ = 1 − s with s "
                         "log-uniform in [1e-12, 1] (down to 1e-12 from the boundary)",
                 controls=(control("the naive float64 arcosh formula in place of the double-double one",
                                   contrast="operator",
                                   evaluate=lambda case: mpmath_gap(case, naive=True)),)),
    ),
    correction=lambda evidence: (
        "d_H(x, y) ≥ 2‖x − y‖ for all x, y in the ball (the conformal factor 2/(1 − ‖x‖²) is at least "
        "2), sharp for short pairs at the origin; hence ‖x − y‖/(1 − ρ²) is a lower bound exactly when "
        "ρ ≤ 1/√2, and fails for every ρ > 1/√2 (pairs near the origin), also with ρ = max(‖x‖, ‖y‖) "
        "near the boundary, where d_H grows like ln(1/(1−ρ)) but the bound like 1/(1−ρ)."
        + _witness(evidence, "paper-bound", True) + _witness(evidence, "paper-bound-tight-radius", True)),
    time_limit_s=30.0,
    notes=("The bound replaces the conformal factor 2/(1 − ‖x‖²), which ranges over [2, 2/(1 − ρ²)] "
           "on the ρ-ball, by its largest value without the 2: a lower bound needs the smallest."),
)

CLAIMS = (RETRIEVAL, RANK, DISTANCE)
