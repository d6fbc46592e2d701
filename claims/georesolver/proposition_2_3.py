"""GeoResolver §2.3, Proposition 2.3 (Dense-Key Degradation): the separation bound, and Gaussian keys."""

from __future__ import annotations

import numpy as np
import sympy as sp
import torch

from attnaudit import sampling, symbolic, tolerances
from attnaudit.checks import Claim, Clause, ProofStep, Reading, Relation, ScalingLaw, control, grids
from attnaudit.claims.georesolver import property_2_2_4

STATEMENT = (
    r"\text{If keys have covering radius } r \text{ from } k_j \text{ (i.e., } "
    r"\|k_j-k_m\|\geq r \text{ for all } m\neq j\text{), then } "
    r"W_{jj}\geq\frac{1}{1+\varepsilon(n-1)/(r^2+\varepsilon)}."
)
CLAUSES = (Clause("separation-bound", "If keys have covering radius r from jk_j (i.e., ‖j−m‖≥r\\|k_j-k_m\\|≥ "
                                      "r for all m≠jm≠ j), then Wjj≥11+ε(n−1)/(r2+ε)."),)
PROOF_STEPS = (
    ProofStep("inverse-bound", "Therefore: jm−1=(djm2+ε)−1≤(r2+ε)−1."),
    ProofStep("chain", "The attention weight for the exact match is: Wjj=ε−1ε−1+∑m≠jm−1≥ε−1ε−1+(n−1)"
                       "(r2+ε)−1=11+ε(n−1)/(r2+ε)."),
)
READING = (
    "For n keys k_1…k_n in R^d, the query q = k_j (the proof's exact match, D_jj = ε; "
    "the statement names no query), every ε > 0 and every r with ‖k_j − k_m‖ ≥ r for "
    "all m ≠ j: W_jj ≥ 1/(1 + ε(n−1)/(r² + ε)). The bound grows with r, so it is "
    "tested at the largest admissible r = min_{m≠j} ‖k_j − k_m‖. The paper calls r a "
    "'covering radius'; the condition it states is a separation (packing) radius."
)

GAUSSIAN_STATEMENT = (r"\text{For Gaussian keys with covariance } \sigma^2 I, \quad "
                      r"r^2 = \Theta\left(d_h\sigma^2 n^{-2/d_h}\right).")
GAUSSIAN_CLAUSES = (Clause("gaussian-radius", "For Gaussian keys with covariance σ2Iσ^2I, r2=Θ(dhσ2n−2/dh)"),)
GAUSSIAN_PROOF_STEPS = (
    ProofStep("ball", "the keys are distributed in a ball of radius O(dhσ)O( d_hσ) with high probability"),
    ProofStep("covering", "The covering radius of n points in dimension dhd_h scales as r=O(σdhn−1/dh)"),
    ProofStep("squaring", "Squaring gives r2=Θ(dhσ2n−2/dh)"),
)
GAUSSIAN_READING = (
    "Keys k_1…k_n i.i.d. N(0, σ²I_{d_h}), d_h fixed, n → ∞; r = r_j, key k_j's separation "
    "radius as the first part defines it (‖k_j − k_m‖ ≥ r for all m ≠ j, largest such r: the "
    "nearest-neighbour distance of k_j), for a typical key (the median over keys). Θ in n (the "
    "factor d_hσ² is a constant at fixed d_h; r² ∝ σ² exactly by scaling). Tested for "
    "d_h ∈ {1, 2, 3, 4}."
)
GLOBAL = "global-separation"
GAUSSIAN_ALTERNATIVES = (
    Reading(GLOBAL, "r = min_{j≠m}‖k_j − k_m‖, the minimum separation of the whole key set "
                    "(the largest r for which the first part's hypothesis holds for every j).",
            "the proof's packing step (n disjoint balls of radius r/2) needs ‖k_j − k_m‖ ≥ r for "
            "every pair, and it speaks of 'the covering radius of n points', a property of the set"),
)

# D_jm to (d+3)·u, each ratio ε/D_jm one more, their sum n·u, 1/Σ one; W_jj = 1/(1 + x) amplifies a
# relative error of x by x/(1+x) ≤ 1. The bound: r² to d·u, then four roundings.
BOUND_TOL = tolerances.Roundoff(condition="n + 2d + 16 (n-term normalising sum, d-term squared "
                                          "distances, a few divisions)", scale="the bound")


def derivation():
    eps, r, d = sp.symbols("epsilon r d_jm", positive=True)
    g = sp.symbols("g1:3", positive=True)  # d_jm² − r² > 0 for two other keys (any n − 1)
    w_jj = lambda gs: eps**-1 / (eps**-1 + sum(1 / (r**2 + gm + eps) for gm in gs))  # noqa: E731
    paper_chain = eps**-1 / (eps**-1 + 2 / (r**2 + eps))
    y = sp.Symbol("y", positive=True)
    return [
        symbolic.exact("D_jj = ε (q = k_j, zero distance)", eps, (d - d) ** 2 + eps, role="derivation"),
        symbolic.holds("D_jm⁻¹ = (d_jm²+ε)⁻¹ ≤ (r²+ε)⁻¹ for d_jm² = r² + g, g > 0 (g = 0: equality)",
                       sp.LessThan(1 / (r**2 + g[0] + eps), 1 / (r**2 + eps), evaluate=False),
                       role="proof", step="inverse-bound"),
        symbolic.holds("W_jj = ε⁻¹/(ε⁻¹ + y) decreases in y = Σ_{m≠j} D_jm⁻¹",
                       sp.StrictLessThan(sp.diff(eps**-1 / (eps**-1 + y), y), 0, evaluate=False),
                       role="proof", step="chain"),
        symbolic.exact("ε⁻¹/(ε⁻¹ + (n−1)(r²+ε)⁻¹) = 1/(1 + ε(n−1)/(r²+ε)) (n = 3)",
                       1 / (1 + eps * 2 / (r**2 + eps)), paper_chain, role="proof", step="chain"),
        symbolic.holds("W_jj ≥ 1/(1 + ε(n−1)/(r²+ε)) for d_jm² = r² + g_m, g_m > 0 (n = 3)",
                       # the difference as one fraction, whose sign SymPy decides
                       sp.GreaterThan(sp.together(w_jj(g) - paper_chain), 0, evaluate=False),
                       role="statement"),
        symbolic.exact("W_jj at d_jm = r for all m: the bound is attained by equidistant keys",
                       paper_chain, w_jj((0, 0)), role="statement"),
    ]


def bound_sides(case, power=1.0):
    """W_jj (query q = k_j) of the kernel D^(−power) (IDA for power 1, through the operator) and
    the bound with r = min_{m≠j} ‖k_j − k_m‖ (the largest admissible r: the bound grows with r)."""
    k, eps, star = case["k"], case["eps"], case["star"].bool()
    n, d = k.shape[-2], k.shape[-1]
    q = (k * star[..., None]).sum(dim=-2, keepdim=True)  # k_j, exactly (one nonzero term)
    w_jj = property_2_2_4.kernel_weights(q, k, eps, power)[:, 0, :].masked_fill(~star, 0.0).sum(dim=-1)
    r2 = (k - q).square().sum(dim=-1).masked_fill(star, float("inf")).amin(dim=-1)
    bound = 1 / (1 + eps * (n - 1) / (r2 + eps))
    return w_jj, bound, BOUND_TOL(n + 2 * d + 16, k.dtype) * bound


def _sample(ctx, gen):
    """Gaussian keys (n, d) ∈ {(2,1), (8,2), (32,3), (128,16)}; clustered keys (2 or 4 centres, spread 1e-6 …
    1e-1); regular simplices (n, d) ∈ {(2,2), (4,4), (16,16), (64,64), (16,40)}, exact and with relative
    jitter 1e-12 … 1e-2; random j; ε log-uniform in [1e-10, 1e4]"""
    batch = ctx.pick(quick=2000, full=20000)

    def case(k):
        b, n = k.shape[0], k.shape[1]
        j = torch.randint(n, (b,), generator=gen, device=ctx.device)
        return {"k": k, "eps": sampling.log_uniform(ctx, gen, b, low=1e-10, high=1e4),
                "star": torch.nn.functional.one_hot(j, n).to(ctx.dtype)}

    for n, d in ((2, 1), (8, 2), (32, 3), (128, 16)):  # Gaussian keys: typical separations
        yield case(sampling.gaussian(ctx, gen, batch, n, d))
    # Clustered keys: members at spread 1e-6 … 1e-1 around c centres (a very close neighbour).
    for n, d, c in ((8, 2, 2), (64, 8, 4)):
        centres = sampling.gaussian(ctx, gen, batch, c, d, scale=10.0)
        member = torch.arange(n, device=ctx.device) % c
        spread = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-6, high=1e-1)
        yield case(centres[:, member] + spread * sampling.gaussian(ctx, gen, batch, n, d))
    # Regular simplices (every d_jm = r, pairwise distance s log-uniform, in R^d, d ≥ n, reflected and
    # moved) attain the bound; a relative jitter 1e-12 … 1e-2 approaches it from the admissible side.
    for n, d in ((2, 2), (4, 4), (16, 16), (64, 64), (16, 40)):
        side = sampling.log_uniform(ctx, gen, batch // 4, 1, 1, low=1e-3, high=1e3)
        basis = torch.eye(n, d, dtype=ctx.dtype, device=ctx.device) * side / 2**0.5
        v = sampling.unit_vectors(ctx, gen, batch // 4, 1, d)
        k = basis - 2 * (basis * v).sum(dim=-1, keepdim=True) * v + sampling.gaussian(
            ctx, gen, batch // 4, 1, d, scale=10.0)
        yield case(k)
        jitter = sampling.log_uniform(ctx, gen, batch // 4, 1, 1, low=1e-12, high=1e-2)
        yield case(k + jitter * k.std(dim=(-1, -2), keepdim=True)
                   * sampling.gaussian(ctx, gen, batch // 4, n, d))


def _strategy(ctx):
    from hypothesis import strategies as st

    def build(drawn):
        keys, j, eps = drawn
        k = ctx.tensor(keys)[None]
        star = ctx.tensor([[float(m == j % k.shape[1]) for m in range(k.shape[1])]])
        return {"k": k, "eps": ctx.tensor([eps]), "star": star}

    return st.tuples(sampling.point_sets(n=(2, 8), d=(1, 4), bound=10.0), st.integers(0, 7),
                     sampling.log_uniform_floats(1e-10, 1e4)).map(build)


def gaussian_derivation():
    """The proof's steps, then the order of r² under both readings, from the Poisson (small-ball)
    limit P(r² > s) ≈ exp(−M s^(d/2)): M ∝ n(n−1)/2 pairs (minimum separation), n−1 (one key)."""
    sig, n, dim, s, y, big_r, rr, m, area = sp.symbols("sigma n d_h s y R r M A", positive=True)
    phi = sp.exp(-(y**2) / (2 * sig**2)) / sp.sqrt(2 * sp.pi * sig**2)
    # d = 2: ‖k‖²/σ² ~ χ²₂; the largest of n keys sits near the (1 − 1/n)-quantile (n·P = 1).
    (top_quantile,) = sp.solve(sp.Eq(n * sp.exp(-s / (2 * sig**2)), 1), s)
    (packing,) = sp.solve(sp.Eq(rr / 2 * n ** (1 / dim), big_r + rr / 2), rr)
    poisson = sp.simplify(sp.integrate(sp.exp(-m * s ** (dim / 2)), (s, 0, sp.oo)))
    min_separation = poisson.subs(m, area * n * (n - 1) / 2)  # A: small-ball constant
    order_of = lambda expr: sp.limit(sp.log(expr) / sp.log(n), n, sp.oo)  # noqa: E731
    paper_order = -2 / dim
    return [
        symbolic.exact("per key: E‖k‖² = d_hσ² (a key lies at radius ~ √d_hσ)", (sp.sqrt(dim) * sig) ** 2,
                       dim * sp.integrate(y**2 * phi, (y, -sp.oo, sp.oo)), role="proof", step="ball"),
        symbolic.leading_order(
            "all n keys lie in a ball of radius O(√d_hσ) w.h.p. (d_h = 2, n → ∞)", top_quantile, n,
            (sp.sqrt(2) * sig) ** 2, role="proof", step="ball",
            note="'O(d_hσ)' read as O(√d_hσ) (the squaring step needs it). The largest of n keys has "
                 "‖k‖² ≈ 2σ² ln n; the packing bound survives for the keys inside such a ball"),
        symbolic.exact(
            "packing: n disjoint balls of radius r/2 inside radius R + r/2 give r ≤ 2R/(n^(1/d_h)−1)",
            2 * big_r / (n ** (1 / dim) - 1), packing, role="derivation"),
        symbolic.leading_order(
            "r = O(σ√d_h n^(−1/d_h)) (packing bound with R = √d_hσ)", packing.subs(big_r, sp.sqrt(dim) * sig),
            n, sig * sp.sqrt(dim) * n ** (-1 / dim), role="proof", step="covering",
            note="an upper bound on a separation that holds for every pair of keys"),
        symbolic.exact(
            "squaring gives r² = Θ(d_hσ²n^(−2/d_h)) for the packing argument's r: exponent of n",
            paper_order, order_of(min_separation), role="proof", step="squaring",
            note="the packing needs ‖k_j − k_m‖ ≥ r for every pair (the minimum separation): "
                 "E[r_min²] ∝ (n(n−1)/2)^(−2/d_h) ∝ n^(−4/d_h). Squaring an O-bound gives O, not Θ"),
        symbolic.exact("Poisson limit: ∫₀^∞ exp(−M s^(d_h/2)) ds = Γ(1+2/d_h) M^(−2/d_h)",
                       sp.gamma(1 + 2 / dim) * m ** (-2 / dim), poisson, role="derivation"),
        symbolic.exact(
            "r = k_j's nearest-neighbour distance: exponent of n in E[r_j² | k_j]", paper_order,
            order_of(poisson.subs(m, area * (n - 1))), role="statement",
            note="E[r_j² | k_j = x] = Γ(1+2/d_h)((n−1) f(x) V_d)^(−2/d_h), f the Gaussian density"),
        symbolic.holds(
            "r = min_{j≠m}‖k_j−k_m‖: r² = O(d_hσ²n^(−2/d_h)) (exponent of E[r²] ≤ −2/d_h)",
            sp.LessThan(order_of(min_separation), paper_order, evaluate=False), role="statement",
            reading=GLOBAL),
    ]


GAUSSIAN_DIMS = (1, 2, 3, 4)
SEPARATION_GROUPS = 8  # groups of repetitions, one median each (their mean has a standard error)
# Each group's median is taken over at least this many distances. A sample median of a skewed
# distribution is biased by O(1/size): with the 3 repetitions a group once held, at n = 10 it
# overstated the median of r_j² by 15 % (5 % at n = 32, 2 % at n = 100; d_h = 1, 4000 trials),
# which steepened the fitted d_h = 1 exponent by ~0.017 beyond MEDIAN_TOL's curvature bias: mean
# −2.031 (sd 0.026) over seeds 0–19, failing on 3 of 20 (attnaudit stability). With 1000 values
# a group the bias is under 0.6 % at every n of the grid.
MIN_GROUP_VALUES = 1000
# closed_form_bias on the quick grid (the full grid's is smaller), largest over d_h ∈ {1,…,4}; the
# test recomputes both closed forms.
MEDIAN_TOL = tolerances.FitBias(-0.0143, "the population median of r_j² (non-central χ² quadrature) "
                                         "on the quick grid, largest over d_h ∈ {1,…,4}")
MIN_SEP_TOL = tolerances.FitBias(-0.0244, "the Poisson-limit E[min_{j≠m}‖k_j−k_m‖²] on the quick "
                                          "grid, largest over d_h ∈ {1,…,4}")

# n from 10 to 10⁴ (quick) or 10^4.5 (full), two points a decade.
SEPARATION_N_GRID = grids.per_profile(quick=grids.log_spaced_integers(10, 1e4, 7),
                                      full=grids.log_spaced_integers(10, 10**4.5, 8))


def _nn_statistics(ctx, d_h: int):
    """One replicate (one group of repetitions; the engine draws SEPARATION_GROUPS of them, each with
    its own generator): per n of the grid, n keys ~ N(0, I_d) (σ = 1; r² ∝ σ² exactly), r_j being key
    j's nearest-neighbour distance from a KD-tree (exact): the mean over the group's repetitions of
    min_j r_j² (global reading) and the median of the group's r_j² (per-key reading)."""
    from scipy.spatial import cKDTree

    rng = ctx.numpy_rng(f"gaussian-keys-d{d_h}")
    smallest, medians = [], []
    for count in SEPARATION_N_GRID(ctx).astype(int):
        per_group = max(ctx.pick(quick=3, full=8), -(-MIN_GROUP_VALUES // count))
        keys = rng.standard_normal((per_group, count, d_h))
        nn2 = np.stack([cKDTree(x).query(x, k=2)[0][:, 1] ** 2 for x in keys])
        smallest.append(nn2.min(axis=1).mean())
        medians.append(np.median(nn2))
    return {"min": np.array(smallest), "median": np.array(medians)}


def _separation_law(d_h: int, per_key: bool) -> ScalingLaw:
    what = ("median over keys of the squared nearest-neighbour distances, averaged over "
            f"{SEPARATION_GROUPS} groups of repetitions of ≥ {MIN_GROUP_VALUES} distances each" if per_key
            else "mean over repetitions of the minimum squared separation")
    return ScalingLaw(
        name=f"nearest-neighbour-d{d_h}" if per_key else f"min-separation-d{d_h}",
        quantity=("median_j r_j² (r_j: k_j's nearest-neighbour distance)" if per_key
                  else "E[min_{j≠m}‖k_j − k_m‖²]"),
        variable="n", exponent=-2.0 / d_h, order="Θ", grid=SEPARATION_N_GRID,
        measure=lambda ctx, grid: ctx.cached(("nn", d_h), lambda: _nn_statistics(ctx, d_h))[
            "median" if per_key else "min"],
        family=f"typical: n keys ~ N(0, I_{d_h}), {what}; σ = 1 (r² ∝ σ² exactly); KD-tree",
        tolerance=MEDIAN_TOL if per_key else MIN_SEP_TOL, predicted=f"Θ(n^(-2/{d_h}))",
        replicates=SEPARATION_GROUPS, reading=None if per_key else GLOBAL,
        controls=(control(f"exponent −4/{d_h} (the minimum separation's) in place of −2/{d_h}",
                          exponent=-4.0 / d_h),) if per_key else ())


def gaussian_correction(evidence):
    parts = [f"d_h = {e['name'][-1]}: fitted {e['fit']['exponent']:.3f} [{e['fit']['ci'][0]:.3f}, "
             f"{e['fit']['ci'][1]:.3f}]" for e in evidence if e["name"].startswith("min-separation")]
    return ("Under the global reading (r = minimum separation, the r of the proof's packing "
            "argument), r² = Θ(n^(−4/d_h)) at fixed d_h, not Θ(n^(−2/d_h)): n(n−1)/2 pairs compete "
            f"for the minimum ({'; '.join(parts)}).")


CLAIMS = (
    Claim(id="georesolver/proposition-2.3/bound", section="§2.3", kind="inequality",
          label="Proposition 2.3 (Dense-Key Degradation), first part", statement=STATEMENT, reading=READING,
          reading_why="the literal condition ‖k_j − k_m‖ ≥ r, with the query of the paper's own proof",
          clauses=CLAUSES, proof_steps=PROOF_STEPS, derivation=derivation,
          checks=(Relation(name="separation-bound", lhs="W_jj", rel=">=", rhs="1/(1 + ε(n−1)/(r²+ε))",
                           evaluate=bound_sides, sample=_sample, strategy=_strategy, tolerance=BOUND_TOL,
                           controls=(control(property_2_2_4.HEAVY, contrast="operator",
                                             evaluate=lambda case: bound_sides(case, 0.5)),)),)),
    Claim(id="georesolver/proposition-2.3/gaussian", section="§2.3", kind="asymptotic",
          label="Proposition 2.3 (Dense-Key Degradation), Gaussian part", statement=GAUSSIAN_STATEMENT,
          reading=GAUSSIAN_READING, clauses=GAUSSIAN_CLAUSES, proof_steps=GAUSSIAN_PROOF_STEPS,
          reading_why="the proposition defines r 'from k_j', per key; the Gaussian part names no other r",
          alternatives=GAUSSIAN_ALTERNATIVES, derivation=gaussian_derivation, correction=gaussian_correction,
          checks=tuple(_separation_law(d_h, per_key) for per_key in (True, False) for d_h in GAUSSIAN_DIMS),
          time_limit_s=30.0,
          notes=("The proof's packing bound r = O(σ√d_h n^(−1/d_h)) is right but only an upper bound, on "
                 "the minimum separation, whose square is Θ(n^(−4/d_h)); n^(−2/d_h) is the per-key "
                 "nearest-neighbour scale. The d_h-dependence of the constant is not tested.")),
)
