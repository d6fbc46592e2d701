"""GeoResolver §2.8 "Implications for practice" (``georesolver/section-2.8/degradation``): the recommendation
ε ≈ 0.01·E‖q−k‖² and the degradation regime ρ = ε(n−1)/d_min² >= 1/2 it is meant to avoid. Retrieval is
exact-match (q = k_{j*}, §2.2–§2.3); d_min is the smallest pairwise key distance (Theorem 2.8, Lemma 5.1)."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import (
    Claim,
    Clause,
    Reading,
    Relation,
    ScalingLaw,
    control,
    grids,
    sampling,
    symbolic,
    tolerances,
)
from attnaudit.checks.bisection import bisect_monotone
from attnaudit.checks.fitting import closed_form_bias

# ══ the statement, as the paper gives it, and the reading tested ══
STATEMENT = (r"\text{We recommend initializing } \varepsilon \text{ to a small fraction of the typical "
             r"squared distance (e.g., } \varepsilon\approx 0.01\cdot\mathbb{E}[\|q_i-k_j\|_2^2]\text{) to "
             r"avoid the degradation regime } \varepsilon(n-1)/d_{\min}^2\ge 1/2.")
CLAUSES = (Clause("recommendation", r"we recommend initializing ε to a small fraction of the typical squared "
                                    r"distance (e.g., ε≈0.01⋅[‖i−j‖22] ≈ 0.01·E[\|q_i-k_j\|_2^2]) to avoid "
                                    r"the degradation regime ε(n−1)/dmin2≥1/2"),)
READING = ("For exact-match retrieval (q = k_{j*}), the recommended ε = 0.01·E‖q−k‖² keeps ρ = "
           "ε(n−1)/d_min² below 1/2, i.e. out of the degradation regime, for key sets of every size n "
           "and dimension d. E‖q−k‖² is the typical squared distance: 2dσ² for N(0, σ²I_d) keys "
           "(numerical checks), the mean over key pairs for any key set (the derivation).")
ALTERNATIVES = (
    Reading("below-half-retrieves", "Outside the regime retrieval holds: for every key set and target, ρ < "
            "1/2 gives W_{j*j*} >= 1/2 (majority, hence argmax), and W_{j*j*} >= 1/(1+ρ(n−1)/(n−1+ρ)) for "
            "every ρ, attained when every other key sits at d_min.",
            "calling ρ >= 1/2 the degradation regime says retrieval holds below it"),
    Reading("onset", "ρ = 1/2 is where degradation sets in: the worst case (every other key at d_min) falls "
            "to W_{j*j*} = c at ρ_c = x(n−1)/(n−1−x), x = (1−c)/c (for c = 2/3 this tends to 1/2; majority "
            "is lost only at (n−1)/(n−2)), and below it the loss is gradual: 1 − W_{j*j*} = Θ(ρ) as ρ → 0, "
            "in the worst case and on Gaussian keys.",
            "the text does not say what degrades; the operator shows where and how"),
)

# ══ the mathematics ══
THRESHOLD, FRACTION = 0.5, 0.01  # the paper's ρ threshold and recommended fraction
CRITERIA = (0.5, 2 / 3, 0.9, 0.99)  # criteria W_{j*j*} >= c of the worst-case onset
LAW_GAUSSIAN, REC_D = (64, 8), 64  # (n, d) of the Gaussian deficit law; d of the ρ-vs-n law
ONSET_BRACKET, ONSET_SPLIT = (1e-4, 1e3), (31, 4)  # ρ bracket, split (31 + 1)⁴ ways in ln ρ
ONSET_N = (3, 4, 8, 16, 64, 128)  # regular simplices n = d
REC_SIZES = tuple((n, d) for n in (2, 8, 32, 128, 512) for d in (1, 4, 16, 64))
W_TOL = tolerances.Roundoff(condition="n + 2d + 16: the n-term normalising sum and the d-term squared "
                                      "distances of W_{j*j*} and of d_min²")
ONSET_TOL = tolerances.Roundoff(condition="the bisection's half interval (relative) plus W's round-off 3n + "
                                          "16 over the slope (1 − c)/2 of ln W")
RHO_TOL = tolerances.Roundoff(condition="d + 8: d_min² from d-term direct differences, a few products and a "
                                        "division")


def worst_weight(rho, n):
    """W_{j*j*} when every other key sits at d_min (regular simplex): 1/(1+ρ(n−1)/(n−1+ρ))."""
    return 1 / (1 + rho * (n - 1) / (n - 1 + rho))


def worst_onset(c, n):
    """The ρ at which the worst case reaches W_{j*j*} = c (for (1−c)/c < n − 1), suite-derived."""
    return (1 - c) / c * (n - 1) / (n - 1 - (1 - c) / c)


def derivation():
    from sympy.stats import E, Normal  # noqa: PLC0415 - sympy.stats is slow to import; only here

    n = sp.Symbol("n", positive=True, integer=True)
    eps, dmin2, rho, delta, sigma, a1, a2, g, s = sp.symbols(
        "epsilon d_min2 rho delta sigma a1 a2 g s", positive=True)
    k, h = sp.symbols("k h", nonnegative=True)
    w_two = 1 / (1 + eps * (1 / (a1 + eps) + 1 / (a2 + eps)))  # two other keys stand for n − 1
    worst = worst_weight(rho, n)
    one = lambda c: (lambda r: r[0] if len(r) == 1 else sp.nan)(sp.solve(sp.Eq(worst, c), rho))  # noqa: E731
    x, y = Normal("x", 0, sigma), Normal("y", 0, sigma)
    st, below, onset = "statement", "below-half-retrieves", "onset"
    return [
        symbolic.exact("E‖q−k‖² = 2dσ² for independent q, k ~ N(0, σ²I_d) (2σ² per coordinate)",
                       2 * sigma**2, E(x**2) - 2 * E(x) * E(y) + E(y**2), role=st,
                       note="E(q_c − k_c)² expanded, with E(q_c k_c) = E q_c·E k_c (independence)"),
        symbolic.holds(
            "ε = 0.01·E‖q−k‖² keeps ρ = ε(n−1)/d_min² < 1/2, with E the mean over key pairs (shown for every "
            "n = 51 + k, k >= 0)", sp.StrictLessThan(FRACTION * (50 + k) * (1 + h), THRESHOLD, evaluate=0),
            role=st,
            note="the mean squared distance over key pairs is d_min²(1 + h), h >= 0, so ρ >= 0.01(n−1) >= "
                 "1/2 for every key set once n >= 51, in any dimension"),
        symbolic.holds("W_{j*j*} = 1/(1 + ε Σ_{m≠j*} (a_m+ε)⁻¹) increases in each a_m = ‖k_{j*} − k_m‖²",
                       sp.StrictGreaterThan(sp.diff(w_two, a1), 0, evaluate=0), role=st, reading=below,
                       note="so a_m >= d_min² bounds W_{j*j*} below by its value at a_m = d_min²"),
        symbolic.exact("W_{j*j*} >= 1/(1+ε(n−1)/(d_min²+ε)) = 1/(1+ρ(n−1)/(n−1+ρ)) at ε = ρ·d_min²/(n−1)",
                       worst, (1 / (1 + eps * (n - 1) / (dmin2 + eps))).subs(eps, rho * dmin2 / (n - 1)),
                       role=st, reading=below),
        symbolic.holds("ρ(n−1)/(n−1+ρ) <= ρ, so W_{j*j*} >= 1/(1+ρ)", sp.LessThan(rho * g / (g + rho), rho,
                       evaluate=0), role=st, reading=below, note="g = n − 1 > 0"),
        symbolic.holds("ρ < 1/2 ⇒ W_{j*j*} >= 1/(1+ρ) > 2/3 > 1/2 (majority, hence argmax)",
                       sp.StrictGreaterThan(1 / (1 + s / (2 * (1 + s))), sp.Rational(2, 3), evaluate=0),
                       role=st, reading=below, note="ρ = s/(2(1+s)) ∈ (0, 1/2)"),
        symbolic.exact("the worst case loses majority (W = 1/2) at ρ = (n−1)/(n−2)", (n - 1) / (n - 2),
                       one(sp.Rational(1, 2)), role=st, reading=onset,
                       note="> 1 for every n >= 3: twice the paper's 1/2"),
        symbolic.exact("the worst case reaches W = 2/3 at ρ = (n−1)/(2n−3)", (n - 1) / (2 * n - 3),
                       one(sp.Rational(2, 3)), role=st, reading=onset),
        symbolic.limit("(n−1)/(2n−3) → 1/2 as n → ∞: the paper's threshold is the large-n onset of W < 2/3",
                       (n - 1) / (2 * n - 3), n, sp.oo, sp.Rational(1, 2), role=st, reading=onset),
        symbolic.leading_order("W >= 1 − δ in the worst case needs ρ <= ρ_δ = Θ(δ) as δ → 0", one(1 - delta),
                               delta, delta, point=0, role=st, reading=onset,
                               note="so ρ < 1/2 does not give W >= 1 − δ for δ < 1/3"),
    ]


# ── retrieval across ρ: the operator's W_{j*j*} on key families ──
def weight_sides(case, rho_factor=1.0):
    """W_{j*j*} for q = k_{j*} at ε = ρ·d_min²/(n−1) against the worst-case weight at ρ' = rho_factor·ρ
    (tight on simplices and stars), or with rho_factor None against 1/2 (majority retrieval)."""
    k, rho, star = case["k"], case["rho"], case["star"]
    n, d = k.shape[-2], k.shape[-1]
    q = (k * star[..., None]).sum(dim=-2, keepdim=True)  # k_{j*}, exactly (one nonzero term)
    w = operators.ida_weights(q, k, eps=rho * sampling.min_pairwise_squared_distance(k) / (n - 1))[:, 0]
    w, rel = w.masked_fill(star == 0, 0.0).sum(dim=-1), W_TOL(n + 2 * d + 16)
    if rho_factor is None:
        return w, w.new_full(w.shape, 0.5), rel
    bound = worst_weight(rho_factor * rho, n)
    return w, bound, rel * bound


def _regular_simplex(ctx, gen, batch, n):
    """n equidistant points in R^n: e_1…e_n times s/√2 (side s log-uniform), a random Householder reflection
    (the simplex stays regular) and a translation."""
    side = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-3, high=1e3)
    basis = torch.eye(n, dtype=ctx.dtype, device=ctx.device) * side / 2**0.5
    v = sampling.unit_vectors(ctx, gen, batch, 1, n)
    offset = sampling.gaussian(ctx, gen, batch, 1, n, scale=10.0)
    return basis - 2 * (basis * v).sum(dim=-1, keepdim=True) * v + offset


def _key_families(ctx, gen, batch):
    """(keys, star): Gaussian, clustered, regular simplices (exact and jittered) and stars (the target at 0,
    every other key at distance r on an axis: all at d_min from the target)."""
    def target(b, n, first=False):
        j = torch.zeros(b, dtype=torch.long, device=ctx.device) if first else torch.randint(
            n, (b,), generator=gen, device=ctx.device)
        return torch.nn.functional.one_hot(j, n).to(ctx.dtype)

    for n, d in ((2, 1), (8, 2), (32, 3), (128, 16)):
        yield sampling.gaussian(ctx, gen, batch, n, d), target(batch, n)
    for n, d, c in ((8, 2, 2), (64, 8, 4)):
        centres = sampling.gaussian(ctx, gen, batch, c, d, scale=10.0)
        spread = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-6, high=1e-1)
        yield (centres[:, torch.arange(n, device=ctx.device) % c]
               + spread * sampling.gaussian(ctx, gen, batch, n, d), target(batch, n))
    b = batch // 4
    for n in (3, 4, 16, 64):
        k = _regular_simplex(ctx, gen, b, n)
        jitter = sampling.log_uniform(ctx, gen, b, 1, 1, low=1e-12, high=1e-2) * k.std((1, 2), keepdim=True)
        yield k, target(b, n)
        yield k + jitter * sampling.gaussian(ctx, gen, b, n, n), target(b, n)
    for n, d in ((3, 2), (16, 15), (64, 80)):
        axes = torch.eye(n, d, dtype=ctx.dtype, device=ctx.device).roll(1, dims=0)
        axes[0] = 0.0  # the target k_1 at the origin, k_j = r·e_{j−1}
        yield axes * sampling.log_uniform(ctx, gen, b, 1, 1, low=1e-3, high=1e3), target(b, n, first=True)


def _sampler(rho_low, rho_high):
    def sample(ctx, gen):
        for k, star in _key_families(ctx, gen, ctx.pick(quick=200, full=2000)):
            rho = sampling.log_uniform(ctx, gen, len(k), low=rho_low, high=rho_high)
            yield {"k": k, "star": star, "rho": rho}
    return sample


def _strategy(rho_low, rho_high):
    def strategy(ctx):
        from hypothesis import strategies as st

        def build(drawn):
            keys, j, rho = drawn
            star = np.eye(len(keys))[j % len(keys)]
            return {"k": ctx.tensor(keys)[None], "star": ctx.tensor(star)[None], "rho": ctx.tensor([rho])}

        def separated(x):
            return np.sqrt(((x[:, None] - x[None]) ** 2).sum(-1))[~np.eye(len(x), dtype=bool)].min() >= 1e-3

        points = sampling.point_sets(n=(2, 8), d=(1, 4), bound=10.0).filter(separated)
        return st.tuples(points, st.integers(0, 7), sampling.log_uniform_floats(rho_low, rho_high)).map(build)
    return strategy


# ── where the worst case degrades: the onset of each criterion, bisected on the operator ──
def onset_sides(case, formula=worst_onset):
    """The ρ at which W_11 of a regular simplex falls to c (bisection on the operator) against the closed form
    ρ_c(n) = x(n−1)/(n−1−x), x = (1−c)/c (or ``formula``, for the control)."""
    k, c = case["k"], case["c"]
    n = k.shape[-2]
    scale = (sampling.min_pairwise_squared_distance(k) / (n - 1))[:, None]

    def holds(log_rho):  # (B, K) → W_11 >= c (the target k_1: all keys are alike on a simplex)
        w = operators.ida_weights(k[:, None, :1], k[:, None], eps=log_rho.exp() * scale)
        return w[..., 0, 0] >= c[:, None]

    lo, hi = bisect_monotone(holds, *(c.new_full(c.shape, math.log(b)) for b in ONSET_BRACKET),
                             candidates=ONSET_SPLIT[0], rounds=ONSET_SPLIT[1], what="onset")
    # Half a final interval; W's round-off over the slope (1 − c)/2 of ln W in ln ρ near the onset.
    resolution = math.expm1(math.log(ONSET_BRACKET[1] / ONSET_BRACKET[0]) / 2 / 32**4)  # (K + 1)^rounds
    expected = formula(c, n)
    return ((lo + hi) / 2).exp(), expected, (resolution + W_TOL(3 * n + 16) * 2 / (1 - c)) * expected


def _sample_onset(ctx, gen):
    """regular simplices n = d ∈ (3, 4, 8, 16, 64, 128), random side, reflection and offset; criteria c ∈
    {1/2, 2/3, 0.9, 0.99}"""
    for n in ONSET_N:
        yield {"k": _regular_simplex(ctx, gen, 4 * ctx.pick(quick=4, full=40), n),
               "c": ctx.tensor(CRITERIA).repeat(ctx.pick(quick=4, full=40))}


# ── how it degrades: 1 − W_{j*j*} across small ρ ──
def _worst_deficit(ctx, grid):
    n = 64
    k = _regular_simplex(ctx, ctx.generator("worst-deficit"), 1, n)
    eps = ctx.tensor(grid) * sampling.min_pairwise_squared_distance(k) / (n - 1)
    w = operators.ida_weights(k[:, :1].expand(len(grid), 1, n), k.expand(len(grid), n, n), eps=eps)
    return w[:, 0, 1:].sum(dim=-1)


def _gaussian_deficit(ctx, grid):
    n, d = LAW_GAUSSIAN
    k = sampling.gaussian(ctx, ctx.generator("gaussian-deficit"), ctx.pick(quick=8, full=40), n, d)
    eps = ctx.tensor(grid)[:, None] * sampling.min_pairwise_squared_distance(k) / (n - 1)
    w = operators.ida_weights(k[None], k[None], eps=eps)  # (ρ, sets, n, n)
    return (1 - w.diagonal(dim1=-2, dim2=-1)).mean(dim=(-1, -2)).cpu().numpy()


DEFICIT_GRID = grids.log_grid(1e-5, 1e-2, quick=7, full=31)


def _deficit_law(name, quantity, measure, family, what, **kw):
    """1 − W = Θ(ρ) as ρ → 0, within the fit bias of the worst case's exact deficit ρ'/(1+ρ'),
    ρ' = 63ρ/(63+ρ), on either profile's grid."""
    def bias():
        rhos = [(g, g * 63 / (63 + g)) for g in DEFICIT_GRID.profiles]
        return max((closed_form_bias(g, r / (1 + r), 1.0) for g, r in rhos), key=abs)

    return ScalingLaw(
        name=name, quantity=quantity, variable="ρ", exponent=1.0, order="Θ", grid=DEFICIT_GRID,
        measure=measure, family=f"{family}; ρ log-spaced in [1e-5, 1e-2]", reading="onset",
        tolerance=tolerances.FitBias(bias, f"{what}: the worst case's exact deficit ρ'/(1+ρ') (ρ' <= ρ <= "
                                           "1e-2) on the grid"),
        controls=(control("a quadratic onset (exponent 2)", exponent=2.0),), **kw)


# ── the recommendation ε = 0.01·E‖q−k‖² = 0.02·d·σ² on Gaussian keys ──
def recommendation_sides(case):
    k, sigma = case["k"], case["sigma"]
    n, d = k.shape[-2], k.shape[-1]
    rho = FRACTION * 2 * d * sigma**2 * (n - 1) / sampling.min_pairwise_squared_distance(k)
    return rho, rho.new_full(rho.shape, THRESHOLD), RHO_TOL(k.shape[-1] + 8) * rho


def _sample_recommendation(ctx, gen):
    """Gaussian keys N(0, σ²I_d), σ log-uniform in [1e-3, 1e3], (n, d) ∈ {2, 8, 32, 128, 512} × {1, 4, 16,
    64}"""
    for n, d in REC_SIZES:
        batch = ctx.pick(quick=1, full=10) * max(2, 1024 // n)
        sigma = sampling.log_uniform(ctx, gen, batch, low=1e-3, high=1e3)
        yield {"k": sampling.gaussian(ctx, gen, batch, n, d) * sigma[:, None, None], "sigma": sigma}


def _measure_recommendation(ctx, grid):
    gen, medians = ctx.generator("recommendation-law"), []
    for n in grid:
        k = sampling.gaussian(ctx, gen, ctx.pick(quick=1, full=4) * max(2, int(1024 // n)), int(n), REC_D)
        # d_min² by the Gram expansion (one GEMM; it errs by ~u·‖k‖², far below d_min² of these sets)
        d2 = (sq := k.square().sum(-1))[:, :, None] + sq[:, None, :] - 2 * k @ k.mT
        d2.diagonal(dim1=-2, dim2=-1).fill_(math.inf)
        medians.append(np.median((FRACTION * 2 * REC_D * (n - 1) / d2.amin((-1, -2))).cpu().numpy()))
    return np.array(medians)


def correction(evidence):
    lo, hi = next(e for e in evidence if e["name"] == "rho-at-recommended-eps-vs-n")["fit"]["ci"]
    return ("ε = 0.01·E‖q−k‖² does not keep ρ = ε(n−1)/d_min² below 1/2: with E the mean squared distance "
            "over key pairs (>= d_min²), ρ >= 0.01(n−1) >= 1/2 for every key set once n >= 51; for Gaussian "
            f"keys at d = {REC_D} the median ρ grows like n^p, 95% CI [{lo:.3f}, {hi:.3f}], as d_min shrinks "
            "with n. Keeping ρ < 1/2 needs ε < d_min²/(2(n−1)): a fraction shrinking like 1/n, not 0.01.")


FAMILIES = ("Gaussian keys (n, d) ∈ {(2,1), (8,2), (32,3), (128,16)}; clustered keys (2 or 4 centres, spread "
            "1e-6 … 1e-1); regular simplices (n = d ∈ {3, 4, 16, 64}), exact and jittered; stars (all others "
            "at d_min from the target); random target; ε = ρ·d_min²/(n−1)")
CLAIMS = (
    Claim(
        id="georesolver/section-2.8/degradation",
        label="§2.8 Implications for practice (degradation regime and ε recommendation)", section="§2.8",
        statement=STATEMENT, clauses=CLAUSES, reading=READING, alternatives=ALTERNATIVES,
        reading_why="the literal recommendation: it names ε and the regime it avoids",
        proof_absent="§2.8 states the recommendation without argument ('based on the theoretical analysis')",
        kind="inequality", derivation=derivation, correction=correction, time_limit_s=30.0,
        checks=(
            Relation(name="recommended-eps-below-half", lhs="ρ = ε(n−1)/d_min² at ε = 0.01·2dσ²", rel="<=",
                     rhs="1/2", evaluate=recommendation_sides, sample=_sample_recommendation,
                     tolerance=RHO_TOL),
            ScalingLaw(
                name="rho-at-recommended-eps-vs-n", quantity=f"median ρ at ε = 0.01·2dσ² (Gaussian keys, d = "
                f"{REC_D})", variable="n", exponent=0.0, order="O", measure=_measure_recommendation,
                grid=grids.per_profile(quick=grids.geometric(2, 2, 11),
                                       full=[2 * 2 ** (k / 2) for k in range(21)]),
                family=(f"Gaussian key sets N(0, I_d), d = {REC_D}, max(2, 1024/n) sets per n (full ×4), "
                        "n = 2 … 2048 doubling (full ×√2)"),
                tolerance=tolerances.Systematic(0.05, "the drift of a bounded but not constant median over "
                                                      "the grid; the replicates' spread enters"),
                replicates=4, predicted="ρ < 1/2 for all n: bounded, O(n⁰)"),
            Relation(name="majority-retrieval-below-half", lhs="W_{j*j*}", rel=">=", rhs="1/2",
                     evaluate=lambda case: weight_sides(case, None), sample=_sampler(1e-6, THRESHOLD),
                     strategy=_strategy(1e-6, THRESHOLD), tolerance=W_TOL, reading="below-half-retrieves",
                     sampler=f"{FAMILIES}; ρ log-uniform in [1e-6, 1/2)", max_examples=60,
                     controls=(control("ρ drawn from [1/2, 4) instead (the hypothesis moved)",
                                       contrast="hypothesis", hypothesis="ρ = ε(n−1)/d_min² < 1/2",
                                       sample=_sampler(THRESHOLD, 4.0)),)),
            Relation(name="weight-lower-bound-in-rho", lhs="W_{j*j*}", rel=">=", rhs="1/(1 + ρ(n−1)/(n−1+ρ))",
                     evaluate=weight_sides, sample=_sampler(1e-4, 1e3), strategy=_strategy(1e-4, 1e3),
                     tolerance=W_TOL, sampler=f"{FAMILIES}; ρ log-uniform in [1e-4, 1e3]",
                     reading="below-half-retrieves", max_examples=30,
                     controls=(control("the bound at ρ/2 (its constant moved)", contrast="prediction",
                                       evaluate=lambda case: weight_sides(case, 0.5)),)),
            Relation(name="worst-case-onset", lhs="ρ where W_11 of a regular simplex falls to c (bisection "
                     "on the operator)", rel="==", rhs="x(n−1)/(n−1−x), x = (1−c)/c", reading="onset",
                     evaluate=onset_sides, sample=_sample_onset, tolerance=ONSET_TOL,
                     controls=(control("the paper's 1/2 as the onset of every criterion",
                                       contrast="prediction",
                                       evaluate=lambda case: onset_sides(case, lambda c, n: c * 0 + 0.5)),)),
            _deficit_law("deficit-vs-rho-worst-case", "1 − W_{j*j*} (regular simplex, n = 64)",
                         _worst_deficit, "worst case: regular simplex n = d = 64 (all other keys at d_min)",
                         "worst case", predicted="1 − W = Θ(ρ) as ρ → 0: no threshold at ρ = 1/2"),
            _deficit_law("deficit-vs-rho-gaussian", "mean 1 − W_{j*j*} (Gaussian keys, every target)",
                         _gaussian_deficit, f"typical: Gaussian key sets n = {LAW_GAUSSIAN[0]}, d = "
                         f"{LAW_GAUSSIAN[1]} (8 sets, full 40, per replicate), every key as target",
                         "1 − W = εS/(1+εS), S = Σ_m (a_m+ε)⁻¹, εS <= ρ", predicted="1 − W = Θ(ρ) as ρ → 0",
                         replicates=4),
        ),
        notes=("The recommendation contradicts the threshold it is meant to respect: d_min² <= E‖q−k‖², so "
               "ε = 0.01·E‖q−k‖² gives ρ >= 0.01(n−1), >= 1/2 for n >= 51 whatever the keys; for Gaussian "
               "keys d_min shrinks with n. The threshold itself is a sound sufficient condition (ρ < 1/2 ⇒ "
               "W_{j*j*} > 2/3 for every key set), far from where majority is lost ((n−1)/(n−2) in the worst "
               "case) and too loose for W >= 1 − δ (ρ = Θ(δ)); degradation is gradual from ρ = 0."),
    ),
)
