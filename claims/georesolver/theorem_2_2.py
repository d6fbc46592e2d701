"""GeoResolver §2.3, Theorem 2.2 (Theorem 1: Softmax Lower Bound) on its orthogonal-keys instance k_j = R·e_j,
q = k_1: the IDA half (``georesolver/theorem-2.2/ida``) and the softmax half (``.../softmax``), each with the
theorem's headline as its primary reading and the proof's algebra as proof steps and proof checks."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from attnaudit import operators, sampling, symbolic, tolerances
from attnaudit.checks import Claim, Clause, ProofStep, Reading, Relation, ScalingLaw, Use, control, grids
from attnaudit.checks.bisection import bisect_monotone
from attnaudit.checks.fitting import closed_form_bias

STATEMENT = (
    r"\text{There exists an orthogonal-keys instance where IDA achieves exact retrieval with }O(1)\text{ "
    r"resources} \ldots\ k_j=Re_j,\ q=k_1. \ldots\ W_{11}^{IDA}=\frac{1}{1+\varepsilon(n-1)/(2R^2+"
    r"\varepsilon)}. \ldots \text{ Thus IDA achieves }\delta\text{-approximation with } "
    r"\varepsilon=O(\delta R^2/n)."
)
SOFTMAX_STATEMENT = (
    r"\ldots\text{ while any softmax-based architecture requires } d=\Omega((\log n)^2) \text{ or } H=\Omega"
    r"(\log n) \text{ for } \varepsilon\text{-approximation. } \ldots\ \frac{R^2}{\sqrt d}\ge\log\frac{n-1}"
    r"{2\delta}. \text{ With bounded radius } R\le R_{\max}: d\ge\left(\frac{R_{\max}^2}{\log((n-1)/"
    r"(2\delta))}\right)^2=\Omega((\log n)^2). \ldots \text{ Therefore } d_h=\Omega((\log n)^2) \text{ or } "
    r"H=\Omega(\log n)."
)
IDA_CLAUSE = Clause("ida-retrieval", "There exists an orthogonal-keys instance where IDA achieves exact "
                                     "retrieval with (1)O(1) resources")
IDA_STEPS = (
    ProofStep("distances", "2R^2,&j≠ 1, cases since ‖1−j‖22=2\\|e_1-e_j\\|_2^2=2 for j≠1j≠ 1"),
    ProofStep("w11", "Thus: W11IDA=1/ε1/ε+(n−1)/(2R2+ε)=11+ε(n−1)/(2R2+ε)."),
    ProofStep("limit", "Taking ε→0+ → 0^+, we get: limε→0W11IDA=1."),
    ProofStep("within-delta", "the weight is within δ of 11 whenever ε(n−1)/(2R2+ε)<δ/(1−δ)"),
    ProofStep("eps-order", "Thus IDA achieves δ-approximation with ε=(δR2/n) =O(δ R^2/n)."),
)
IDA_READING = (
    "On the orthogonal-keys instance k_j = R e_j (j = 1 … n, width d >= n), q = k_1, with the key radius "
    "R > 0 and the accuracy δ ∈ (0, 1) fixed as n grows, one IDA head at the instance's own width (O(1) "
    "resources: H = 1, no width beyond d) reaches W₁₁ >= 1 − δ, with ε the kernel's parameter set as the "
    "proof sets it (ε = O(δR²/n), here ε = δR²/n; the paper takes ε → 0⁺). 'Exact retrieval' is the "
    "limit ε → 0⁺ and, at finite ε, the proof's δ-approximation."
)
IDA_WHY = ("the paper counts width and heads and takes ε → 0⁺ unless noted; counting R²/ε as a "
           "resource is a strawman: any normalised kernel of contrast <= B has W₁₁ <= B/(B+n−1) → 0")
SOFTMAX_CLAUSE = Clause("softmax-requirement", "any softmax-based architecture requires d=Ω((logn)2)d= "
                                               "(( n)^2) or H=Ω(logn)H= ( n) for ε -approximation")
SOFTMAX_STEPS = (
    ProofStep("inner-products", "Since ⊤1=R2q k_1=R^2 and ⊤m=0q k_m=0 for m≠1m≠ 1 (orthogonality)"),
    ProofStep("w11", "W11soft=eR2/deR2/d+(n−1)e0=11+(n−1)e−R2/d."),
    ProofStep("condition", "To achieve W11soft≥1−δW_11^soft≥ 1-δ, we need: 1+(n−1)e−R2/d≤11−δ."),
    ProofStep("two-delta", "For δ≤1/2δ≤ 1/2, we have 1/(1−δ)≤1+2δ1/(1-δ)≤ 1+2δ, so: (n−1)e−R2/d≤2δ."),
    ProofStep("logarithms", "Taking logarithms: −R2d≤log2δn−1=log(2δ)−log(n−1).- R^2 d≤ 2δn-1= (2δ)- (n-1). "
                            "Thus: R2d≥logn−12δ."),
    ProofStep("width-bound", "With bounded radius R≤RmaxR≤ R_ (the maximum norm of keys), we obtain: "
                             "d≥(Rmax2log((n−1)/(2δ)))2"),
    ProofStep("bound-order", "(Rmax2log((n−1)/(2δ)))2=Ω((logn)2)"),
    ProofStep("multi-head", "For multi-head architectures, each head independently must satisfy the same "
                            "lower bound, so the total width H⋅dhH· d_h must be at least this value."),
    ProofStep("disjunction", "Therefore any softmax-based architecture requires either dh=Ω((logn)2)d_h= "
                             "(( n)^2) or H=Ω(logn)H= ( n)."),
)
SOFTMAX_READING = (
    "The proof's setting: the instance k_j = R e_j in R^d (d >= n), q = k_1, keys of norm R <= R_max "
    "with R_max fixed as n grows, softmax with temperature 1 and scale 1/√d; H heads split the width "
    "into blocks of d_h (H·d_h = d), weights averaged; δ ∈ (0, 1/2] fixed. Claim: for large n every "
    "configuration with W₁₁ >= 1 − δ has d >= c(log n)² or H >= c log n. Tested in the form the "
    "computation shows, which implies it for every c: beyond a threshold N(R_max, δ) no width and no "
    "split reaches W₁₁ >= 1 − δ at all (relation no-retrieval-at-bounded-radius, at R_max = 8 and "
    "n >= 256), because the radius a head needs grows without bound (law min-radius-vs-n) and a split "
    "caps the weight at (n+1)/(2n). The instance itself needs d = H·d_h >= n, so max(H, d_h) >= √n for "
    "every configuration of every operator, retrieving or not (vacuity steps)."
)
SOFTMAX_WHY = ("'any softmax-based architecture' defines no class; the proof's instance, temperature and "
               "bounded radius are the setting it argues in")
SOFTMAX_ALTERNATIVES = (
    Reading("width-threshold", "'requires d = Ω((log n)²)' read as a cost: the width at which a softmax "
            "head (R = R_max) passes between failing and retrieving grows with n like (log n)².",
            "a separation names what softmax must pay; width is the resource it names"),
    Reading("free-scale", "Architectures may scale their query/key projections (not counted, as the "
            "paper does not count IDA's ε): a head of width d_h (the instance read through a projection, "
            "logit scale free) still needs d_h = Ω((log n)²) or H = Ω(log n).",
            "'any softmax-based architecture' includes learned projections"),
)

DELTA, SWEEP_N = 0.01, 64  # δ of the laws in n and R; n of the laws in R and δ
N_GRID, LAW_N = tuple(4 * 2**k for k in range(11)), tuple(2 * 2**k for k in range(11))
DELTA_GRID = grids.log_grid(1e-6, 1e-2, quick=9, full=41)
# Brackets of ε (ε* ≈ 2R²δ/n lies decades inside), ln d and ln R; each split (K + 1)^rounds ways.
EPS_BRACKET, LOG_D_BRACKET, LOG_R_BRACKET = (1e-40, 1e20), (0, 27.6), (-6.9, 6.9)
EPS_SPLIT, SPLIT = {"candidates": 15, "rounds": 8}, {"candidates": 15, "rounds": 6}
BISECTION = ("the bisection's final bracket in the log of the boundary is far narrower, and the operator's "
             "1 − W₁₁ (the other weights' sum) is exact to ~n·u relative")
IDA_TOL = tolerances.Roundoff(condition="n + 8: the n-term normalising sum, cdist's square root and square, "
                                        "a few divisions (D₁₁ = ε is exact)")
SOFT_TOL = tolerances.Roundoff(condition="n + 8 + H + 2x(1 − W₁₁), x = R²/√d: the logit's two roundings "
                                         "amplified by e^{−x}, the n-term normalising sum, a division, the "
                                         "mean over H heads")


def eps_star(n, delta, r):
    """The largest ε with W₁₁ >= 1 − δ (solved in the derivation; needs (n−1)(1−δ) > δ)."""
    return 2 * r**2 * delta / ((n - 1) * (1 - delta) - delta)


def _row1(case, kernel="softmax"):
    """Row-1 weights (B, H, n) on the instance R·eye(n, H·d) split into H heads of d coordinates (H = 1
    unless the case has "heads"; d < n reads the instance through the projection on its first d
    coordinates), softmax with its default scale 1/√d; or IDA on the whole width at the case's ε
    (default: the proof's choice δR²/n)."""
    r, n, heads, d = case["R"], int(case["n"]), int(case.get("heads", 1)), int(case["d"])
    k = r[:, None, None] * torch.eye(n, heads * d, dtype=r.dtype, device=r.device)
    if kernel == "ida":
        eps = case["eps"] if "eps" in case else case["delta"] * r**2 / n
        return operators.ida_weights(k[:, :1], k, eps=eps)[:, None, 0]
    kh = k.reshape(-1, n, heads, d).transpose(1, 2)
    return operators.softmax_weights(kh[:, :, :1], kh)[:, :, 0]


def _compact(ctx, r, n):
    """The query's view of the instance in R²: q = k₁ = R e₁ and k_j = R e₂ (j >= 2) keep the distances
    ‖q − k_j‖² (0, 2R²) and inner products q·k_j (R², 0), all that the weights of row 1 depend on: n × 2
    keys instead of n × n, for the bisections."""
    r = ctx.tensor(r)
    k = r.new_zeros(r.shape[0], n, 2)
    k[:, 0, 0], k[:, 1:, 1] = r, r[:, None]
    return k[:, :1], k


def _cases(sizes, batch, **ranges):
    """Instances (n, d) or (n, H, d), each of ``ranges`` (R, δ, ε: (low, high)) log-uniform."""
    def sample(ctx, gen):
        for size in sizes:
            n, d, heads = size[0], size[-1], size[1] if len(size) == 3 else 1
            b = min(batch, max(4, 2**22 // (n * d * heads))) * ctx.pick(quick=1, full=10)
            yield {"n": n, "d": d, "heads": heads} | {
                key: sampling.log_uniform(ctx, gen, b, low=lo, high=hi) for key, (lo, hi) in ranges.items()}
    return sample


# ══ The IDA half ══


def ida_derivation():
    n, j = sp.Symbol("n", positive=True, integer=True), sp.Symbol("j", positive=True, integer=True)
    m, r, eps, delta, x, s, big_b = sp.symbols("m R epsilon delta x s B", positive=True)  # m = n − 1
    e = sp.eye(4)
    w = 1 / (1 + eps * (n - 1) / (2 * r**2 + eps))
    dist = ((r * e[:, 0] - r * e[:, 1]).T * (r * e[:, 0] - r * e[:, 1]))[0]
    x_eps = eps * m / (2 * r**2 + eps)
    solved = sp.solve(sp.Eq(x_eps.subs(m, n - 1), delta / (1 - delta)), eps)
    star = eps_star(n, delta, r).subs(delta, s / (1 + s))  # δ = s/(1+s) ∈ (0, 1), s > 0
    p, dv = "proof", "derivation"
    return [
        symbolic.exact("‖q − k_j‖² = ‖Re₁ − Re_j‖² = 2R² for j ≠ 1", 2 * r**2, dist, role=p,
                       step="distances"),
        symbolic.exact("W₁₁ = (1/ε)/(1/ε + (n−1)/(2R²+ε)) from the kernel on the instance", w,
                       (1 / eps) / (1 / eps + sp.summation(1 / (dist + eps), (j, 2, n))), role=p, step="w11"),
        symbolic.limit("lim_{ε→0⁺} W₁₁ = 1", w, eps, 0, sp.Integer(1), role=p, step="limit"),
        symbolic.holds("W₁₁ = 1/(1+x) decreases in x, so W₁₁ >= 1 − δ ⇔ x <= δ/(1−δ)",
                       sp.StrictLessThan(sp.diff(1 / (1 + x), x), 0, evaluate=False), role=p,
                       step="within-delta"),
        symbolic.exact("1/(1+x) = 1 − δ at x = δ/(1−δ)", delta / (1 - delta),
                       sp.solve(sp.Eq(1 / (1 + x), 1 - delta), x)[0], role=p, step="within-delta"),
        symbolic.holds("x(ε) = ε(n−1)/(2R²+ε) increases in ε",
                       sp.StrictGreaterThan(sp.diff(x_eps, eps), 0, evaluate=False), role=dv),
        symbolic.exact("the largest admissible ε is ε* = 2R²δ/((n−1)(1−δ)−δ) (solved by the suite)",
                       eps_star(n, delta, r), solved[0] if len(solved) == 1 else sp.nan, role=dv),
        symbolic.leading_order("ε = O(δR²/n): ε* = Θ(δR²/n) as n → ∞", star, n,
                               (delta * r**2 / n).subs(delta, s / (1 + s)), role=p, step="eps-order",
                               note="δ = s/(1+s); ε*·n/(δR²) → 2/(1−δ)"),
        symbolic.leading_order("the inverse temperature one head needs, R²/ε*, grows like n/(2δ) (the cost "
                               "of the free ε, not a resource the theorem counts)", r**2 / star, n,
                               n * (1 + s) / (2 * s), role=dv, note="δ = s/(1+s)"),
        symbolic.limit("why R²/ε is no resource bound: any normalised kernel whose contrast s₁/s_j is at "
                       "most B (IDA: 1 + 2R²/ε) has W₁₁ <= B/(B+n−1) → 0: bounding it excludes all",
                       big_b / (big_b + n - 1), n, sp.oo, sp.Integer(0), role=dv),
    ]


def ida_w11_gap(case):
    """W₁₁ of the operator on the instance (width d >= n) against the proof's closed form."""
    r, eps, n = case["R"], case["eps"], int(case["n"])
    w11 = _row1(case, "ida")[:, 0, 0]
    return w11, 1 / (1 + eps * (n - 1) / (2 * r**2 + eps)), IDA_TOL(n + 8) * w11.new_ones(())


def deficit_sides(case, kernel="softmax"):
    """Head-averaged 1 − W₁₁ (the other weights' sum, no cancellation) against δ, with its relative
    round-off; IDA at the proof's choice ε = δR²/n."""
    deficit, n = _row1(case, kernel)[..., 1:].sum(-1).mean(-1), int(case["n"])
    x, heads = case["R"] ** 2 / case["d"] ** 0.5, int(case.get("heads", 1))
    # SOFT_TOL's condition relative to the deficit 1 − W₁₁: its 2x(1 − W₁₁) reads 2x
    tol = IDA_TOL(n + 8) if kernel == "ida" else SOFT_TOL(n + 8 + heads + 2 * x)
    return deficit, case["delta"], tol * deficit


def bisect_eps_star(ctx, n, delta, r):
    """Largest ε with 1 − W₁₁ <= δ for each (δ, R) pair, by batched bisection in ln ε."""
    delta = ctx.tensor(delta)
    q, k = (t[:, None] for t in _compact(ctx, r, n))  # one ε per candidate

    def admissible(log_eps):  # (P, K) → (P, K)
        return operators.ida_weights(q, k, eps=log_eps.exp())[..., 0, 1:].sum(-1) <= delta[:, None]

    lo, hi = bisect_monotone(admissible, *(delta.new_full(delta.shape, math.log(b)) for b in EPS_BRACKET),
                             **EPS_SPLIT, what=f"ε* for n = {n}")
    return ((lo + hi) / 2).exp().cpu().numpy()


def _eps_star_n(ctx, grid):
    return ctx.cached("eps*(n)", lambda: np.array([bisect_eps_star(ctx, int(n), [DELTA], [1.0])[0]
                                                   for n in grid]))


def _bias_n():
    """The fit bias of the closed form ε* ∝ 1/((n−1)(1−δ)−δ) on the n grid (R²/ε*: the same, negated)."""
    return closed_form_bias(np.array(N_GRID, float), eps_star(np.array(N_GRID, float), DELTA, 1.0), -1.0)


def _bias_delta():
    """The larger fit bias of the closed form ε*(δ) on either profile's δ grid."""
    return max((closed_form_bias(g, eps_star(SWEEP_N, g, 1.0), 1.0) for g in DELTA_GRID.profiles), key=abs)


def _eps_law(variable, exponent, grid, measure, family, tolerance):  # a law of the proof's ε = O(δR²/n)
    return ScalingLaw(name=f"eps-star-vs-{'delta' if variable == 'δ' else variable.lower()}", quantity="ε*",
                      variable=variable, exponent=exponent, order="Θ", grid=grid, measure=measure,
                      family=f"the instance, {family}", role="proof", step="eps-order", tolerance=tolerance,
                      predicted=f"the proof's ε = O(δR²/n): exponent {exponent:g} in {variable}")


IDA_SIZES = ((2, 2), (3, 7), (8, 8), (64, 100), (512, 512))
N_BIAS = "ε* = 2R²δ/((n−1)(1−δ)−δ) at δ = 0.01, R = 1, on the n grid"
IDA_CLAIM = Claim(
    id="georesolver/theorem-2.2/ida", label="Theorem 2.2 (Theorem 1), IDA analysis", section="§2.3",
    statement=STATEMENT, clauses=(IDA_CLAUSE,), reading=IDA_READING, reading_why=IDA_WHY, kind="asymptotic",
    derivation=ida_derivation, proof_steps=IDA_STEPS,
    uses=(Use("georesolver/property-2.2.4", "The proof of Theorem 1 exploits this property."),),
    checks=(
        ScalingLaw(
            name="inverse-temperature-vs-n",
            quantity="R²/ε* (the inverse temperature one head needs for W₁₁ >= 1 − δ)",
            variable="n", exponent=1.0, order="Θ", grid=grids.fixed(N_GRID),
            measure=lambda ctx, grid: 1.0 / _eps_star_n(ctx, grid),
            family=f"the orthogonal-keys instance (the theorem's own witness family), R = 1, δ = {DELTA:g}, "
                   "n = 4 … 4096 doubling; ε* by bisection of the operator's W₁₁",
            tolerance=tolerances.FitBias(lambda: -_bias_n(), f"R²/ε*: {N_BIAS}; {BISECTION}"),
            predicted="the suite's derivation: R²/ε* = ((n−1)(1−δ)−δ)/(2δ) grows like n (the free ε's cost)",
            role="derivation",
        ),
        Relation(
            name="retrieves-at-proof-eps", lhs="1 − W₁₁ (IDA, one head, ε = δR²/n)", rel="<=", rhs="δ",
            evaluate=lambda case: deficit_sides(case, "ida"),
            sample=_cases(IDA_SIZES, 2000, R=(1e-3, 1e2), delta=(1e-6, 0.45)), tolerance=IDA_TOL,
            sampler=f"the instance at (n, d) ∈ {IDA_SIZES}; R log-uniform in [1e-3, 1e2], δ in [1e-6, 0.45]",
            controls=(control("softmax (temperature 1, scale 1/√d) in place of IDA", contrast="operator",
                              evaluate=deficit_sides),),
        ),
        Relation(
            name="w11-closed-form", lhs="W₁₁ (operator, on the instance)", rel="==",
            rhs="1/(1 + ε(n−1)/(2R²+ε))",
            evaluate=ida_w11_gap, sample=_cases(IDA_SIZES, 2000, R=(1e-3, 1e2), eps=(1e-12, 1e4)),
            tolerance=IDA_TOL, role="proof", step="w11",
            sampler=f"the instance zero-padded to width d, (n, d) ∈ {IDA_SIZES}; R log-uniform in "
                    "[1e-3, 1e2], ε in [1e-12, 1e4]",
        ),
        _eps_law("n", -1.0, grids.fixed(N_GRID), _eps_star_n, f"δ = {DELTA:g}, R = 1, n = 4 … 4096 doubling",
                 tolerances.FitBias(_bias_n, f"{N_BIAS}; {BISECTION}")),
        _eps_law("R", 2.0, grids.log_grid(1e-3, 1e3, quick=13, full=61),
                 lambda ctx, grid: bisect_eps_star(ctx, SWEEP_N, [DELTA] * len(grid), grid),
                 f"n = {SWEEP_N}, δ = {DELTA:g}, R log-spaced in [1e-3, 1e3]",
                 tolerances.Systematic(1e-3, f"ε* ∝ R² exactly; {BISECTION}")),
        _eps_law("δ", 1.0, DELTA_GRID, lambda ctx, g: bisect_eps_star(ctx, SWEEP_N, g, [1.0] * len(g)),
                 f"n = {SWEEP_N}, R = 1, δ log-spaced in [1e-6, 1e-2]", tolerances.FitBias(
                     _bias_delta, f"ε*(δ) at n = {SWEEP_N}, R = 1, on either profile's δ grid; {BISECTION}")),
    ),
    time_limit_s=30.0,
    notes=("The proof's algebra is right: W₁₁ = 1/(1+ε(n−1)/(2R²+ε)), and δ-retrieval holds iff ε <= ε* = "
           "Θ(δR²/n), so one head at the instance's width retrieves at the proof's ε = δR²/n. The price is "
           "sharpness: the inverse temperature R²/ε* grows like n (the suite's derivation, shown), whereas "
           "softmax on the same instance needs only the logit R²/√d >= log((n−1)(1−δ)/δ). Earlier this claim "
           "was refuted on a reading that counted R²/ε as a resource; no normalised kernel whose contrast is "
           "bounded can retrieve as n grows, so that reading was a strawman."),
)


# ══ The softmax half ══

R_MAX, BOUNDARY_R = 8.0, 64.0  # the key-norm bound of the no-retrieval family; R of the d*-law
# (n, H, d_h): for R <= 8 and δ <= 0.45 every padded width d >= n fails once n >= 256
# (n·log²((n−1)(1−δ)/δ) > R_max⁴), and every split with H >= 2 fails (weight <= (n+1)/(2n)).
FAIL_SIZES = ((256, 1, 256), (256, 1, 1024), (256, 2, 128), (256, 4, 256), (1024, 1, 1024), (1024, 8, 128))
RETRIEVAL_SIZES = ((2, 2), (3, 9), (8, 8), (8, 100), (64, 64), (64, 1000), (256, 256), (256, 1024))
W11_SIZES = ((2, 2), (3, 9), (8, 3), (8, 100), (64, 1), (64, 64), (256, 16), (256, 1024))
HEAD_SIZES = ((2, 2, 1), (4, 2, 2), (8, 4, 2), (8, 2, 8), (16, 4, 4), (64, 8, 8), (64, 2, 64), (100, 5, 32))


def softmax_derivation():
    n, j = sp.Symbol("n", positive=True, integer=True), sp.Symbol("j", positive=True, integer=True)
    m, r, d, delta, s, t, w, big_l, r_max, heads, y, c, z = sp.symbols(
        "m R d delta s t w L R_max H y c z", positive=True)
    a, b = sp.symbols("a b", nonnegative=True)
    x, e, log_n = r**2 / sp.sqrt(d), sp.eye(4), sp.log(n)
    w11 = 1 / (1 + (n - 1) * sp.exp(-x))
    half = s / (2 * (1 + s))  # δ ∈ (0, 1/2)
    boundary = sp.solve(sp.Eq(1 / (1 + m * sp.exp(-y)), 1 - delta), y)
    avg = (1 + (heads - 1) / n) / heads
    lead = lambda name, expr, order, **kw: symbolic.leading_order(name, expr, n, order, **kw)  # noqa: E731
    p, st = "proof", "statement"
    return [
        symbolic.exact("q·k_j = (R², 0, 0, 0) on the instance (as Σ_j (q·k_j) z^{j−1}, in R⁴)", r**2,
                       sum(((r * e[:, 0]).T * (r * e[:, i]))[0] * z**i for i in range(4)), role=p,
                       step="inner-products"),
        symbolic.exact("W₁₁ = e^{R²/√d}/(e^{R²/√d} + (n−1)e⁰) = 1/(1+(n−1)e^{−R²/√d})", w11,
                       sp.exp(x) / (sp.exp(x) + sp.summation(sp.exp(0), (j, 2, n))), role=p, step="w11"),
        symbolic.exact("W₁₁ >= 1−δ ⇔ 1 + (n−1)e^{−R²/√d} <= 1/(1−δ) (1/W₁₁ on both sides)",
                       1 + (n - 1) * sp.exp(-x), 1 / w11, role=p, step="condition"),
        symbolic.holds("δ <= 1/2 ⇒ 1/(1−δ) <= 1+2δ", sp.LessThan(1 / (1 - half), 1 + 2 * half, evaluate=0),
                       role=p, step="two-delta"),
        symbolic.holds("so (n−1)e^{−R²/√d} <= δ/(1−δ) <= 2δ (a necessary condition)",
                       sp.LessThan(half / (1 - half), 2 * half, evaluate=False), role=p, step="two-delta"),
        symbolic.exact("taking logarithms: R²/√d >= −log(2δ/(n−1)) = log((n−1)/(2δ))",
                       sp.log(m / (2 * delta)), -(sp.log(2 * delta) - sp.log(m)), role=p, step="logarithms"),
        symbolic.holds(
            "with R <= R_max: d >= (R_max²/log((n−1)/(2δ)))²",
            sp.GreaterThan((r_max**2 / big_l) ** 2 / (1 + w), (r_max**2 / big_l) ** 2, evaluate=0), role=p,
            step="width-bound",
            note="R²/√d >= L and R <= R_max give √d <= R²/L <= R_max²/L: every admissible d is "
                 "(R_max²/L)²/(1+w) with w >= 0, bounded ABOVE; the step reverses the inequality (w > 0)"),
        lead("proof's bound (R_max²/log((n−1)/(2δ)))² = Ω((log n)²)", (r_max**2 / sp.log(c * (n - 1))) ** 2,
             log_n**2, role=p, step="bound-order",
             note="c = 1/(2δ); the proof's own bound falls like R_max⁴/(log n)²"),
        lead("H·d_h >= (log n)² ⇒ d_h = Ω((log n)²) or H = Ω(log n): d_h/(log n)² + H/log n stays of order 1",
             log_n ** sp.Rational(3, 2) / log_n**2 + sp.sqrt(log_n) / log_n, sp.Integer(1), role=p,
             step="disjunction",
             note="H = (log n)^{1/2}, d_h = (log n)^{3/2} has H·d_h = (log n)² and neither; what follows is "
                  "max(H, d_h) = Ω(log n)"),
        symbolic.exact("exact boundary: W₁₁ = 1 − δ at R²/√d = log((n−1)(1−δ)/δ), i.e. d* = "
                       "(R²/log((n−1)(1−δ)/δ))²", sp.log(m * (1 - delta) / delta),
                       boundary[0] if len(boundary) == 1 else sp.nan, role=st),
        symbolic.holds(
            "beyond N = 1 + e^{R_max²}δ/(1−δ) no head of any width d >= 1 retrieves: log((n−1)(1−δ)/δ) > "
            "R_max² >= R²/√d", sp.StrictGreaterThan(r_max**2 + t, r_max**2 / (1 + w), evaluate=0), role=st,
            note="n − 1 = e^{R_max² + t}δ/(1−δ) and R²/√d = R_max²/(1+w) (t, w > 0)"),
        symbolic.holds(
            "a split into H >= 2 heads averages W₁₁ to <= (1+(H−1)/n)/H <= (n+1)/(2n)",
            sp.LessThan(avg.subs({n: a + 2, heads: b + 2}), ((n + 1) / (2 * n)).subs(n, a + 2), evaluate=0),
            role=st, note="n = 2 + a, H = 2 + b: only the head holding coordinate 1 sees q ≠ 0, so no split "
                          "with H >= 2 reaches δ < (n−1)/(2n)"),
        lead("the smallest retrieving radius at d = n, R*² = √n·log((n−1)(1−δ)/δ), is Θ(n^{1/4}(log n)^½)",
             sp.sqrt(sp.sqrt(n) * sp.log((n - 1) * c)), n ** sp.Rational(1, 4) * sp.sqrt(log_n), role=st,
             note="c = (1−δ)/δ"),
        lead("the width at which retrieval turns, d*, grows like (log n)²", (r**2 / sp.log((n - 1) * c)) ** 2,
             log_n**2, role=st, reading="width-threshold", note="c = (1−δ)/δ; d* = Θ(R⁴/(log n)²) falls"),
        symbolic.exact("with a free logit scale x = log((n−1)(1−δ)/δ) + t, a width-1 head has (n−1)e^{−x} = "
                       "e^{−t}·δ/(1−δ) < δ/(1−δ): it retrieves, at every n",
                       m * sp.exp(-(sp.log(m * (1 - delta) / delta) + t)), sp.exp(-t) * delta / (1 - delta),
                       role=st, reading="free-scale"),
        lead("so the smallest retrieving width, 1, is Ω((log n)²)", sp.Integer(1), log_n**2, role=st,
             reading="free-scale"),
        # Vacuity: the instance needs n orthonormal keys, so every configuration has H·d_h = d >= n, and
        # the larger of H and d_h is at least √n: the clause holds for every operator, retrieving or not.
        symbolic.holds("on the instance H·d_h = d >= n, so the larger of H, d_h (d_h = H(1+a), say) has "
                       "d_h² >= H·d_h >= n", sp.GreaterThan((heads * (1 + a)) ** 2, heads * heads * (1 + a),
                                                          evaluate=False), role="vacuity"),
        symbolic.limit("a width d_h >= √n is Ω((log n)²): (log n)²/√n → 0", log_n**2 / sp.sqrt(n), n, sp.oo,
                       sp.Integer(0), role="vacuity"),
        symbolic.limit("a head count H >= √n is Ω(log n): log n/√n → 0", log_n / sp.sqrt(n), n, sp.oo,
                       sp.Integer(0), role="vacuity"),
    ]


def split_weight_sides(case):
    """Head-averaged W₁₁ of H heads of width d_h (scale 1/√d_h) against (1/(1+(n−1)e^{−R²/√d_h}) + (H−1)/n)/H;
    for H = 1 the proof's W₁₁ = 1/(1+(n−1)e^{−R²/√d})."""
    x, n, heads = case["R"] ** 2 / int(case["d"]) ** 0.5, int(case["n"]), int(case["heads"])
    one = 1 / (1 + (n - 1) * (-x).exp())
    tol = SOFT_TOL(n + 8 + heads + 2 * x * (1 - one))
    return _row1(case)[..., 0].mean(dim=-1), (one + (heads - 1) / n) / heads, tol


def _retrieval(case):  # (R, δ, n, d, 1 − W₁₁, its round-off) on the width-d instance
    r, delta, n, d = case["R"], case["delta"], int(case["n"]), int(case["d"])
    deficit = _row1(case)[..., 1:].sum(-1)[:, 0]
    return r, delta, n, d, deficit, SOFT_TOL(n + 8 + 1 + 2 * r**2 / d**0.5 * deficit)  # H = 1


def paper_condition_sides(case):
    """The proof's final inequality d >= (R_max²/log((n−1)/(2δ)))² where the operator retrieves (beyond
    round-off), with R_max = R (the smallest admissible R_max, the proof's most favourable choice);
    elsewhere the implication is vacuous and the bound is 0."""
    r, delta, n, d, deficit, tol = _retrieval(case)
    rhs = ((r**2 / ((n - 1) / (2 * delta)).log()) ** 2).where(deficit <= delta - tol, r.new_zeros(()))
    return rhs.new_full(rhs.shape, float(d)), rhs, tolerances.roundoff(r.dtype, 8) * rhs


def region_sides(case):
    """The proof's condition solved exactly, retrieval ⇔ d <= d*, as one '<=' per case: (d, d*) where the
    operator retrieves, (d*, d) where it does not."""
    r, delta, n, d, deficit, tol = _retrieval(case)
    big_l = ((n - 1) * (1 - delta) / delta).log()
    ds, dd, inside = (r**2 / big_l) ** 2, r.new_full(r.shape, float(d)), deficit <= delta
    # 1 − W₁₁ off by tol moves ln d by 2·tol/(L·δ(1−δ)) at the boundary (dW/d ln d = −L·W(1−W)/2).
    rel = 2 * tol / (big_l * delta * (1 - delta))
    return dd.where(inside, ds), ds.where(inside, dd), (rel + tolerances.roundoff(r.dtype, 8)) * ds


def _retrieval_strategy(ctx):
    from hypothesis import strategies as st

    return st.tuples(st.integers(2, 16), st.integers(0, 16), sampling.log_uniform_floats(1e-1, 1e2),
                     sampling.log_uniform_floats(1e-6, 0.45)).map(lambda t: {
                         "R": ctx.tensor([t[2]]), "delta": ctx.tensor([t[3]]), "n": t[0], "d": t[0] + t[1]})



def _boundary(ctx, grid, bracket, beyond, what):
    """Per n, the x where ``beyond(n, ln x)`` turns true (false at the bracket's low end), bisected: the
    midpoint (lo + hi)/2 of the final bracket in ln x."""
    lo, hi = ctx.tensor([bracket[0]]), ctx.tensor([bracket[1]])
    return [math.exp(float(sum(bisect_monotone(lambda lx, n=int(n): ~beyond(n, lx[0])[None], lo, hi, **SPLIT,
                                               what=f"{what} at n = {int(n)}")) / 2)) for n in grid]


def _soft_deficit(ctx, n, logit):
    """1 − W₁₁ at the instance's logits (K,) of key 1 (the others 0): the operator with scale 1 on
    q = logit·e₁ against the unit keys of the compact instance."""
    q, k = _compact(ctx, [1.0], n)
    return operators.softmax_weights(logit[:, None, None] * q[0], k[0], scale=1.0)[:, 0, 1:].sum(-1)


def _boundary_d(ctx, grid):
    """Largest d with 1 − W₁₁ <= δ at R = 64 (bisection in ln d): where retrieval turns."""
    return _boundary(ctx, grid, LOG_D_BRACKET, lambda n, ld: _soft_deficit(
        ctx, n, BOUNDARY_R**2 * (-ld / 2).exp()) > DELTA, "d*")


def _min_radius(ctx, grid, width_scale=True):
    """Smallest R with 1 − W₁₁ <= δ at d = n (scale 1/√n; without ``width_scale``, scale 1)."""
    return _boundary(ctx, grid, LOG_R_BRACKET, lambda n, lr: _soft_deficit(
        ctx, n, (2 * lr).exp() * n ** -(0.5 * width_scale)) <= DELTA, "R*")


RETRIEVAL_CASES = _cases(RETRIEVAL_SIZES, 400, R=(1e-1, 1e2), delta=(1e-6, 0.45))
SOFTMAX_CLAIM = Claim(
    id="georesolver/theorem-2.2/softmax", label="Theorem 2.2 (Theorem 1), softmax analysis", section="§2.3",
    statement=SOFTMAX_STATEMENT, clauses=(SOFTMAX_CLAUSE,), proof_steps=SOFTMAX_STEPS,
    reading=SOFTMAX_READING, reading_why=SOFTMAX_WHY, alternatives=SOFTMAX_ALTERNATIVES, kind="asymptotic",
    derivation=softmax_derivation,
    checks=(
        Relation(
            name="no-retrieval-at-bounded-radius", lhs="head-averaged 1 − W₁₁ (softmax)", rel=">=", rhs="δ",
            evaluate=deficit_sides, sample=_cases(FAIL_SIZES, 64, R=(0.1, R_MAX), delta=(1e-4, 0.45)),
            tolerance=SOFT_TOL,
            sampler=(f"R log-uniform in [0.1, R_max = {R_MAX:g}], δ in [1e-4, 0.45]; (n, H, d_h) ∈ "
                     f"{FAIL_SIZES} (single heads padded to d >= n, and splits)"),
            controls=(control("IDA at the proof's ε = δR²/n in place of softmax", contrast="operator",
                              evaluate=lambda case: deficit_sides(case, "ida")),),
        ),
        ScalingLaw(
            name="min-radius-vs-n", variable="n", exponent=0.25, order="Ω", grid=grids.fixed(LAW_N),
            quantity="R* (smallest R with W₁₁ >= 1 − δ at the instance's width d = n)", measure=_min_radius,
            family=(f"the instance at d = n (the best width: W₁₁ falls with d), δ = {DELTA:g}, n = 2 … 2048 "
                    "doubling; bisection of the operator's W₁₁ in ln R"),
            tolerance=tolerances.Systematic(0.02, "the bisection of ln R* (far finer); the factor "
                                                  "(log n)^{1/2} only steepens the slope"),
            predicted="R* = Θ(n^{1/4}(log n)^{1/2}): exponent >= 1/4, unbounded",
            controls=(control("a head whose logit scale does not shrink with width (scale 1)",
                              contrast="operator",
                              measure=lambda ctx, grid: _min_radius(ctx, grid, False)),),
        ),
        Relation(
            name="multihead-split-weight", lhs="head-averaged W₁₁ (H heads of width d_h, scale 1/√d_h)",
            rel="==", rhs="(1/(1+(n−1)e^{−R²/√d_h}) + (H−1)/n)/H", evaluate=split_weight_sides,
            sample=_cases(HEAD_SIZES, 200, R=(1e-2, 1e2)), tolerance=SOFT_TOL,
            sampler=f"(n, H, d_h) ∈ {HEAD_SIZES}; R log-uniform in [1e-2, 1e2]",
        ),
        ScalingLaw(
            name="retrieval-boundary-vs-n", quantity="d* (largest d with W₁₁ >= 1 − δ)", variable="n",
            exponent=2.0, order="Ω", law="polylog", grid=grids.fixed(LAW_N), measure=_boundary_d,
            family=(f"the instance, R = R_max = {BOUNDARY_R:g}, δ = {DELTA:g}, n = 2 … 2048 doubling (d* > n "
                    "throughout: each boundary is a valid instance); bisection in ln d"),
            tolerance=tolerances.Systematic(0.05, "the bisection of ln d* and round-off"),
            predicted="Ω((log n)²): the turning width grows like (log n)²", reading="width-threshold",
        ),
        Relation(
            name="w11-closed-form", lhs="W₁₁ (operator, default scale, width-d instance)", rel="==",
            rhs="1/(1 + (n−1)e^{−R²/√d})", evaluate=split_weight_sides,
            sample=_cases(W11_SIZES, 400, R=(1e-2, 1e2)), tolerance=SOFT_TOL, role="proof", step="w11",
            sampler=(f"R·eye(n, d), (n, d) ∈ {W11_SIZES} (d < n: the instance read through the projection on "
                     "its first d coordinates); R log-uniform in [1e-2, 1e2]"),
        ),
        Relation(
            name="retrieval-region", lhs="d where W₁₁ >= 1−δ, else d*", rel="<=",
            rhs="d* where W₁₁ >= 1−δ, else d   (d* = (R²/log((n−1)(1−δ)/δ))²)", evaluate=region_sides,
            sample=RETRIEVAL_CASES, strategy=_retrieval_strategy, role="derivation",
            tolerance=tolerances.Roundoff(condition="8 + 2·tol_W/(L·δ(1−δ)) relative to d*: near the "
                                                    "boundary a W₁₁ off by its round-off may go either way"),
            sampler=f"width-d instance, (n, d) ∈ {RETRIEVAL_SIZES}; R log-uniform in [1e-1, 1e2], δ in "
                    "[1e-6, 0.45]",
        ),
        Relation(
            name="paper-necessary-condition", lhs="d", rel=">=",
            rhs="the proof's bound (R_max²/log((n−1)/(2δ)))² where W₁₁ >= 1 − δ, else 0",
            evaluate=paper_condition_sides, sample=RETRIEVAL_CASES, strategy=_retrieval_strategy,
            tolerance=tolerances.Roundoff(condition="8: a logarithm, a square, two divisions"),
            sampler=(f"width-d instance, (n, d) ∈ {RETRIEVAL_SIZES}; R log-uniform in [1e-1, 1e2] (both sides"
                     " of the boundary), δ in [1e-6, 0.45]; R_max = R"),
            role="proof", step="width-bound",
        ),
    ),
    time_limit_s=30.0,
    notes=(
        "The stated requirement holds on the proof's instance, but vacuously: the instance needs d = H·d_h "
        ">= n, so max(H, d_h) >= √n for every configuration of every operator (IDA included), and the clause "
        "reads inconclusive. Nor does it hold for the proof's reason: with bounded "
        "radius softmax fails at every width and head count for large n, and width only hurts (W₁₁ >= 1 − δ "
        "⇔ d <= d* = (R²/log((n−1)(1−δ)/δ))², falling like (log n)^−2). The chain is right through R²/√d >= "
        "log((n−1)/(2δ)); the next step reverses the inequality, its bound is Θ((log n)^−2), and the "
        "multi-head step gives only max(H, d_h) = Ω(log n). With a free logit scale a width-1 head retrieves "
        "at every n (logit log((n−1)(1−δ)/δ)): the requirement is then false."
    ),
)

CLAIMS = (IDA_CLAIM, SOFTMAX_CLAIM)
