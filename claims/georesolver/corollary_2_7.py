"""GeoResolver §2.6, Corollary 2.7: no spurious local minima and linear convergence of gradient
descent for the IDA loss of Theorem 2.6, L(q) = (W₁v₁ + W₂v₂ − y)² = r²(W₁ − w*)², keys 0 and Δ
(n keys on a line for the n-key reading). Numerics: ``_two_key``.
"""

from __future__ import annotations

import math

import sympy as sp
import torch

from attnaudit import sampling, symbolic, tolerances
from attnaudit.checks import Claim, Clause, ProofStep, Reading, Relation, Use, control
from attnaudit.claims.georesolver import _two_key as tk

# ══ the statement, as the paper gives it, and the readings tested ══

STATEMENT = (
    r"\text{Since } \mu_{\mathrm{IDA}}>0, \text{ the PL inequality implies that every stationary "
    r"point of the IDA loss is either a global minimum or a strict saddle (i.e., no spurious local "
    r"minima). Gradient descent converges linearly as } \mathcal{L}(t)-\mathcal{L}^*\le "
    r"e^{-\mu t}(\mathcal{L}(0)-\mathcal{L}^*)."
)
CLAUSES_SPURIOUS = (Clause("stationary-points", "every stationary point of the IDA loss is either a "
                                                "global minimum or a strict saddle (i.e., no spurious "
                                                "local minima)"),)
READING_SPURIOUS = ("The two-key IDA loss, keys 0 and Δ, any ε > 0, v₁ ≠ v₂, y, on q ∈ ℝ (the segment's "
                    "stationary points are among them): every local minimum has L = L* = inf L, and "
                    "every other stationary point is a strict saddle, in 1D a strict local maximum (L″ < 0).")
CLAUSES_LINEAR = (Clause("linear-rate", "Gradient descent converges linearly as ℒ(t)−ℒ∗≤e−μt(ℒ(0)−ℒ∗)"),)
READING_LINEAR = (
    "Two keys 0 and Δ; gradient descent q_{k+1} = q_k − ηL′(q_k), η ≤ 1/sup|L″|, from q₀ in the segment "
    "[0, Δ] toward a target attained there (L* = 0; GD stays in the segment); t = ηk (μ has the units "
    "of 1/η); μ = μ_IDA > 0 of Theorem 2.6 on the segment, 8r²Δ²ε²/(Δ²+2ε)⁴: L(q_K) − L* ≤ "
    "e^{−μηK}(L(q₀) − L*).")
# The corollary's argument: the premise (Theorem 2.6's constant) and the PL inequality it invokes.
PROOF = (ProofStep("premise", "Since μIDA>0"), ProofStep("pl-implies", "the PL inequality implies"))

# ══ the mathematics ══

q, eps, delta, r, mu, gap = sp.symbols("q epsilon Delta r mu g", positive=True)
w_star, e_ = sp.symbols("w_star e", real=True)
N_, M_ = q**2 + eps, (q - delta) ** 2 + eps
W1 = M_ / (N_ + M_)
Q_MINUS = (delta - sp.sqrt(delta**2 + 4 * eps)) / 2
Q_PLUS = (delta + sp.sqrt(delta**2 + 4 * eps)) / 2


def _at(expr, point):
    return sp.factor(sp.cancel(sp.expand(expr.subs(q, point))))


def _premise_on_line(**tags):  # the corollary's premise on the loss's domain ℝ
    slope = 2 * e_ * r * _at(sp.diff(W1, q), Q_PLUS)
    return symbolic.holds(
        "premise: μ_IDA > 0 on ℝ, with μ ≤ |L′(q₊)|²/(2(L(q₊) − L*)) at q₊ = (Δ + √(Δ²+4ε))/2",
        sp.StrictGreaterThan(slope**2 / (2 * gap), 0, evaluate=False), **tags,
        note="W₁′(q₊) = 0 while, for y = v₁, L(q₊) − L* = g > 0 (L* = L(q₋)): μ_ℝ = 0")


def spurious_derivation():
    dw1, d2w1, wf = sp.diff(W1, q), sp.diff(W1, q, 2), sp.Function("W_1")(q)
    S = "statement"
    return [
        _premise_on_line(role="proof", step="premise"),
        symbolic.holds("PL with μ > 0 at a stationary point: 0 = |L′|² ≥ 2μ(L − L*) forces L = L*",
                       sp.StrictLessThan(0, 2 * mu * gap, evaluate=False), role="proof", step="pl-implies",
                       note="where PL holds every stationary point is a global minimum: the 'or a "
                            "strict saddle' alternative never occurs"),
        # The statement for two keys on ℝ, derived by the suite without PL:
        symbolic.exact("W₁′(q) = −2Δ(ε + Δq − q²)/S², S = N + M",
                       -2 * delta * (eps + delta * q - q**2) / (N_ + M_) ** 2, dw1, role=S),
        symbolic.exact("W₁′(q₋) = 0, q₋ = (Δ − √(Δ²+4ε))/2", sp.Integer(0), _at(dw1, Q_MINUS), role=S),
        symbolic.exact("W₁′(q₊) = 0, q₊ = (Δ + √(Δ²+4ε))/2", sp.Integer(0), _at(dw1, Q_PLUS), role=S),
        symbolic.exact("L″ = 2r²W₁′² + 2r²(W₁ − w*)W₁″, so L″(q±) = 2r²(W₁(q±) − w*)W₁″(q±)",
                       2 * r**2 * wf.diff(q) ** 2 + 2 * r**2 * (wf - w_star) * wf.diff(q, 2),
                       sp.diff(r**2 * (wf - w_star) ** 2, q, 2), role=S),
        symbolic.holds("W₁″(q₋) < 0: q₋ is W₁'s maximum; L″(q₋) > 0 only if w* > W₁(q₋), i.e. "
                       "exactly when q₋ is L's global minimiser",
                       sp.StrictLessThan(_at(d2w1, Q_MINUS), 0, evaluate=False), role=S),
        symbolic.holds("W₁″(q₊) > 0: q₊ is W₁'s minimum; L″(q₊) > 0 only if w* < W₁(q₊), i.e. "
                       "exactly when q₊ is L's global minimiser",
                       sp.StrictGreaterThan(_at(d2w1, Q_PLUS), 0, evaluate=False), role=S,
                       note="other stationary points solve W₁ = w* (L = 0 = L*): no spurious minima"),
    ]


# ── the stationary points of L on ℝ, for n keys on a line ──

LOSS_TOL = tolerances.Roundoff(
    condition="n·(max_j |v_j − y|)²: each loss is the square of a residual Σ_j W_j(v_j − y) of "
              "that size, formed from n terms (the bisected point lies within an ulp of the "
              "stationary point, a second-order change)")
CURVATURE_TOL = tolerances.Roundoff(
    condition="2S² + 2|e|·Σ|terms of S′| (L″ = 2S² + 2eS′ at the point), placed on the right-hand "
              "side: L″ must be negative beyond it (a strict maximum)")


def _figures(case):
    """(instance, is_local_min, L, L* per instance, its tolerance, stationary q) with L* = min
    over the local minima and the tails q → ±∞ (where L → (mean v − y)²)."""
    inst, qs, is_min = tk.stationary_points(case)
    values, y = case["values"], case["y"]
    e = tk.line_terms(qs[:, None], case["keys"][inst], values[inst], y[inst], case["eps"][inst])[0]
    loss = e[:, 0].square()
    l_star = (values.mean(1) - y).square().scatter_reduce(0, inst[is_min], loss[is_min], reduce="amin")
    scale = (values - y[:, None]).abs().amax(1)
    return inst, is_min, loss, l_star, LOSS_TOL(values.shape[1] * scale.square(), y.dtype), qs


def _per_instance(like, inst, values, how, fill):
    return like.new_full(like.shape, fill).scatter_reduce(0, inst, values, reduce=how)


def local_minima_gap(case):
    """max over local minima of L(q) − L* per instance (0 where there is none)."""
    inst, is_min, loss, l_star, tol, _ = _figures(case)
    worst = _per_instance(tol, inst[is_min], (loss - l_star[inst])[is_min], "amax", -math.inf).clamp(min=0)
    return worst, 0 * worst, tol


def global_minimum_found(case):
    """min over local minima of |L(q) − L*| with the two-key L* = r²·dist(w*, [W₁(q₊), W₁(q₋)])²
    (W₁'s range over ℝ): the enumeration must reach it (r² where no local minimum was found)."""
    inst, is_min, loss, _, tol, _ = _figures(case)
    eps_, delta_, values = case["eps"], case["keys"][:, 1], case["values"]
    r_ = values[:, 0] - values[:, 1]
    target = (case["y"] - values[:, 1]) / r_
    q_minus, q_plus = tk.ida_stationary_points(eps_, delta_)
    outside = ((target - tk.ida_w1(q_minus, eps_, delta_)).clamp(min=0)
               + (tk.ida_w1(q_plus, eps_, delta_) - target).clamp(min=0))
    miss = (loss - (r_ * outside).square()[inst]).abs()[is_min]
    best = _per_instance(tol, inst[is_min], miss, "amin", math.inf)
    return best.where(best.isfinite(), r_.square()), 0 * best, tol


def non_minima_are_strict_maxima(case):
    """max over stationary points with L − L* > tol of L″ + its round-off bound, as (L″, −bound)
    at the worst point per instance; (−(value spread/key spread)², 0) where there is none."""
    inst, _, loss, l_star, tol, qs = _figures(case)
    keys, values = case["keys"], case["values"]
    e, s, ds, size = (t[:, 0] for t in tk.line_terms(qs[:, None], keys[inst], values[inst],
                                                     case["y"][inst], case["eps"][inst], second=True))
    curvature = 2 * s.square() + 2 * e * ds
    bound = CURVATURE_TOL(2 * s.square() + 2 * e.abs() * size, qs.dtype)
    above = loss - l_star[inst] > tol[inst]
    margin = (curvature + bound).where(above, -math.inf)
    pick = (above & (margin == _per_instance(tol, inst, margin, "amax", -math.inf)[inst])).nonzero()[:, 0]
    lhs = -((values.amax(1) - values.amin(1)) / (keys.amax(1) - keys.amin(1))).square()
    rhs = 0 * lhs
    lhs[inst[pick]], rhs[inst[pick]] = curvature[pick], -bound[pick]
    return lhs, rhs, 0 * lhs


def _sample(n_keys: int):  # the two-key family of the reading, or with more keys, spaced Δ
    def sample(ctx, gen):
        """Δ log-uniform in [0.1, 10], ε/Δ² log-uniform in [1e-6, 1], keys {keys}, values and y
        i.i.d. N(0, 1); stationary points: sign changes of L′ on a grid (uniform across the keys
        plus ±10^k key spans around each key, k ∈ [−10, 8]), bisected."""
        batch = ctx.pick(quick=512, full=4096)
        d = sampling.log_uniform(ctx, gen, batch, low=0.1, high=10.0)
        case = {"eps": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=1.0) * d.square(),
                "values": sampling.gaussian(ctx, gen, batch, 2), "y": sampling.gaussian(ctx, gen, batch),
                "points": ctx.pick(quick=400, full=2000) // (n_keys - 1),  # coarser: hides violations only
                "keys": d[:, None] * torch.arange(n_keys, dtype=d.dtype, device=d.device)}
        if n_keys > 2:
            case["values"] = torch.cat([case["values"], sampling.gaussian(ctx, gen, batch, n_keys - 2)], 1)
        yield case

    sample.__doc__ = sample.__doc__.format(keys=", ".join(["0", "Δ"] + [f"{k}Δ" for k in range(2, n_keys)]))
    return sample


def _relation(name, lhs, rhs, evaluate, tolerance, n_keys=2, **extra):
    return Relation(name=name, lhs=lhs, rel="<=", rhs=rhs, evaluate=evaluate, sample=_sample(n_keys),
                    tolerance=tolerance, **extra)


NO_SPURIOUS = Claim(
    id="georesolver/corollary-2.7/no-spurious-minima", label="Corollary 2.7, no spurious minima",
    section="§2.6", statement=STATEMENT, clauses=CLAUSES_SPURIOUS, reading=READING_SPURIOUS,
    reading_why=("the setting of the paper's argument: Theorem 2.6's two-key loss; stationary points "
                 "are those of the loss on its domain ℝ"),
    alternatives=(Reading("n-keys", "The same for n ≥ 3 keys on a line (tested: keys 0, Δ, 2Δ): "
                                    "every local minimum of L(q) = (Σ_j W_j(q)v_j − y)² is global.",
                          "the corollary's next sentence speaks of n keys (softmax's O(n²) escape)"),),
    kind="inequality", derivation=spurious_derivation, proof_steps=PROOF,
    uses=(Use("georesolver/theorem-2.6/ida", "the PL inequality implies that every stationary point of the "
              "IDA loss is either a global minimum or a strict saddle"),),
    checks=(
        _relation("local-minima-are-global", "max over local minima q of L(q) − L*", "0", local_minima_gap,
                  LOSS_TOL, controls=(control("a third key at 2Δ with its own value (n = 3)",
                                              contrast="hypothesis", sample=_sample(3),
                                              hypothesis="two fixed keys (the loss of Theorem 2.6)"),)),
        _relation("global-minimum-found", "min over local minima q of |L(q) − L*(closed form)|", "0",
                  global_minimum_found, LOSS_TOL),
        _relation("non-minima-are-strict-maxima", "max over stationary points with L − L* > tol of "
                  "L″(q)", "−(round-off bound of L″ there)", non_minima_are_strict_maxima, CURVATURE_TOL),
        _relation("local-minima-are-global-n-keys", "max over local minima q of L(q) − L*", "0",
                  local_minima_gap, LOSS_TOL, n_keys=3, reading="n-keys"),
    ),
    time_limit_s=30.0,
    notes=("For two keys the conclusion holds on ℝ, but not by the stated argument: on ℝ μ_IDA = 0, and "
           "where PL holds it excludes strict saddles altogether. For three keys the conclusion fails: "
           "a local minimum sits near each key whose value is an extremum of the output."),
)


# ══ linear convergence: batched gradient descent ══

GD_STEPS = {"quick": 1000, "full": 6000}
STEP_SAFETY = 1.5  # η = 1/(1.5·max|L″| on a dense grid): the grid maximum may undershoot sup|L″|
FLOOR = 1e-6  # per-step ratios only while |q − q*| ≳ FLOOR·Δ (then q − q* keeps enough digits)


def run_gradient_descent(case, *, line: bool, track: bool = False):
    """GD q ← q − ηL′(q) from q₀, all instances at once, η = 1/(STEP_SAFETY·max|L″|) over a grid of
    [0, Δ] (or of ℝ, where |L″| decays like |q|⁻⁴); returns (η, μ, L₀, L_K, max step ratio, the
    loss floor 4(rW₁′(q*)·2u(|q*|+Δ)(1 + 1/(ηL″(q*))))² below which floating-point GD cannot descend)."""
    p = [case[k][:, None] for k in ("eps", "delta", "r", "q_star")]
    t = tk.unit_grid(200, p[1])  # L″ varies on the scale √ε ≥ Δ/10 here
    if line:
        far = torch.logspace(-2, 3, 50, dtype=t.dtype, device=t.device)
        t = torch.cat([t, -far, 1 + far])
    grid = p[1] * t
    e = p[2] * tk.ida_w1_difference(grid, p[3], p[0], p[1])
    curv = 2 * (p[2] * tk.ida_dw1(grid, p[0], p[1])).square() + 2 * e * p[2] * tk.ida_d2w1(grid, p[0], p[1])
    eta = 1 / (STEP_SAFETY * curv.abs().amax(dim=1))
    eps_, delta_, r_, q_star = (x[:, 0] for x in p)
    slope_star = r_ * tk.ida_dw1(q_star, eps_, delta_)
    # e = r(W₁(q) − W₁(q*)) and W₁′(q): the _two_key closed forms, sharing S(q) (fewer kernels).
    k1, k2 = 2 * q_star - delta_, delta_ * q_star + 2 * eps_
    k3 = r_ * delta_ / (q_star.square() + (q_star - delta_).square() + 2 * eps_)

    def terms(qs):
        s = qs.square() + (qs - delta_).square() + 2 * eps_
        return k3 * (qs - q_star) * (qs * k1 - k2) / s, -2 * delta_ * (eps_ + qs * (delta_ - qs)) / s.square()

    qk, c = case["q0"].clone(), 2 * eta * r_
    ek, dw = terms(qk)
    lk = l0 = ek.square()
    worst, floor = 0 * l0, (slope_star * FLOOR * delta_).square()
    for _ in range(int(case["steps"])):
        qk = qk - c * ek * dw
        ek, dw = terms(qk)
        if track:  # the per-step ratio, only while q − q* is above the floor
            worst = torch.maximum(worst, torch.where(lk > floor, ek.square() / lk, 0 * lk))
            lk = ek.square()
    lk = ek.square()
    mu_ = 8 * r_.square() * delta_.square() * eps_.square() / (delta_.square() + 2 * eps_).pow(4)
    distance = 2 * tolerances.unit_roundoff(delta_.dtype) * (q_star.abs() + delta_) * (
        1 + 1 / (eta * 2 * slope_star.square()))
    return eta, mu_, l0, lk, worst, 4 * (slope_star * distance).square()


GD_TOL = tolerances.Roundoff(
    condition="L_K (a squared residual formed without cancellation); the loss floor of "
              "floating-point GD (the rounding of q against the contraction 1 − ηL″(q*)) replaces "
              "a bound below it")
RATE_TOL = tolerances.Roundoff(
    condition=f"(2/{FLOOR:g})²: while |q − q*| ≥ {FLOOR:g}·Δ the residual W₁(q) − W₁(q*) keeps a "
              "relative error ≲ u(|q| + Δ)/|q − q*|, and the ratio divides two of them")


def _gd_bound(case, line: bool, rate: float = 1.0):
    """L_K against e^{−rate·μηK}L₀ (rate 1: the statement; μ = 8r²Δ²ε²/(Δ²+2ε)⁴ of the segment), or
    against the loss floor of floating-point GD where the bound lies below it (GD cannot go lower)."""
    eta, mu_, l0, lk, _, floor = run_gradient_descent(case, line=line)
    bound = (-rate * mu_ * eta * case["steps"]).exp() * l0
    return lk, torch.maximum(bound, floor), GD_TOL(lk, lk.dtype)


def per_step_rate(case):
    """The worst per-step loss ratio of GD on the segment against PL's contraction 1 − ημ."""
    eta, mu_, _, _, worst, _ = run_gradient_descent(case, line=False, track=True)
    return worst, 1 - eta * mu_, RATE_TOL((2 / FLOOR) ** 2, worst.dtype)


def _sample_gd(line: bool):
    def sample(ctx, gen):
        """Δ log-uniform in [0.1, 10], ε/Δ² log-uniform in [{low}, 1], r = v₁ − v₂ = ±[0.5, 2]
        log-uniform, target attained at q* ~ U[0, Δ] (L* = 0), q₀ ~ U{start}; η = 1/({safety}·max|L″|)
        over a dense grid of {where}."""
        batch = ctx.pick(quick=1024, full=8192)
        d = sampling.log_uniform(ctx, gen, batch, low=0.1, high=10.0)
        u = torch.rand(3, batch, generator=gen, dtype=ctx.dtype, device=ctx.device)
        yield {"eps": sampling.log_uniform(ctx, gen, batch, low=0.1 if line else 0.01, high=1.0) * d.square(),
               "delta": d, "r": torch.where(u[0] < 0.5, -1.0, 1.0) * sampling.log_uniform(
                   ctx, gen, batch, low=0.5, high=2.0),
               "q_star": d * u[1], "q0": d * (5 * u[2] - 2 if line else u[2]), "steps": ctx.pick(**GD_STEPS)}

    where = ("[−2Δ, 3Δ]", "ℝ", "0.1") if line else ("[0, Δ]", "[0, Δ]", "0.01")
    sample.__doc__ = sample.__doc__.format(start=where[0], where=where[1], low=where[2], safety=STEP_SAFETY)
    return sample


def linear_derivation():  # the premise on the segment (the primary), then why ℝ is no reading for any kernel
    dim = sp.Symbol("d", positive=True)
    soft = (1 / (1 + sp.exp(delta * q / sp.sqrt(dim))) - sp.Rational(1, 2)) ** 2  # w* = 1/2: L* = 0
    return [
        symbolic.holds("q₋ < 0 < Δ < q₊: W₁′ ≠ 0 on [0, Δ], so μ_IDA > 0 on the segment",
                       sp.StrictLessThan(delta**2, delta**2 + 4 * eps), role="proof", step="premise",
                       note="q₋ < 0 and q₊ > Δ both say Δ < √(Δ²+4ε)"),
        _premise_on_line(role="derivation", reading="real-line"),
        symbolic.limit("softmax too: its PL ratio |L′|²/(2(L − L*)) → 0 as q → ∞ (y = (v₁+v₂)/2)",
                       sp.diff(soft, q) ** 2 / (2 * soft), q, sp.oo, sp.Integer(0), role="derivation",
                       reading="real-line",
                       note="a normalised weight tends to a limit at ±∞ where L > L*: no kernel has a "
                            "global μ > 0, so the real-line reading is one no operator can satisfy"),
    ]


GD_BOUND = {"lhs": "L(q_K) − L*", "rel": "<=", "tolerance": GD_TOL,
            "rhs": "e^{−μηK}(L(q₀) − L*) (or the floating-point floor of GD, where larger)"}
LINEAR = Claim(
    id="georesolver/corollary-2.7/linear-convergence", label="Corollary 2.7, linear convergence",
    section="§2.6", statement=STATEMENT, clauses=CLAUSES_LINEAR, reading=READING_LINEAR,
    reading_why=("the statement does not say where gradient descent starts; the μ_IDA > 0 it invokes is "
                 "Theorem 2.6's, on the segment between the keys (on ℝ no kernel has μ > 0)"),
    alternatives=(Reading("real-line", "The same from any start q₀ ∈ ℝ (tested: [−2Δ, 3Δ]), the loss "
                                       "being defined on ℝ.",
                          "the statement puts no restriction on where gradient descent starts"),),
    kind="inequality", derivation=linear_derivation, proof_steps=PROOF,
    uses=(Use("georesolver/theorem-2.6/ida",
              "Gradient descent converges linearly as ℒ(t)−ℒ∗≤e−μt(ℒ(0)−ℒ∗)"),),
    proof_gap=("the rate is stated, not derived: that GD with η ≤ 1/sup|L″| contracts L − L* by "
               "1 − ημ per step under PL (t = ηk) is the standard argument, not given"),
    checks=(
        Relation(name="gd-bound-line", evaluate=lambda case: _gd_bound(case, True), sample=_sample_gd(True),
                 reading="real-line", **GD_BOUND),
        Relation(name="gd-bound-time", evaluate=lambda case: _gd_bound(case, False), sample=_sample_gd(False),
                 controls=(control("rate 3μ in place of μ", contrast="prediction",
                                   evaluate=lambda case: _gd_bound(case, False, rate=3.0)),), **GD_BOUND),
        Relation(name="gd-per-step-rate", lhs="max_k (L_{k+1} − L*)/(L_k − L*) (while |q_k − q*| is "
                 "above the floor)", rel="<=", rhs="1 − ημ", evaluate=per_step_rate,
                 sample=_sample_gd(line=False), tolerance=RATE_TOL, role="proof", step="pl-implies"),
    ),
    time_limit_s=30.0,
    notes=("On the segment the argument is valid and the bound holds with room (near q* the step "
           "factor is about 1 − 2ηL″(q*), L″(q*) ≥ μ); for ε ≪ Δ² the rate ημ ~ (ε/Δ²)² is negligible. "
           "On ℝ there is no μ > 0 (for IDA or any normalised kernel): GD started beyond the local "
           "maximum of L runs off to infinity."),
)

CLAIMS = (NO_SPURIOUS, LINEAR)
