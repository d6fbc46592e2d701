"""GeoResolver §9.1, Lemma 9.1 (Adaptive Threshold Regret Bound under Sub-Gaussian Loss): the DMG
detector's expected surprise count E[S_T] under a sub-Gaussian null (``operators.dmg``, ``_dmg``)."""

from __future__ import annotations

import sympy as sp

from attnaudit.checks import Claim, Clause, ProofStep, Reading, ScalingLaw, control, symbolic, tolerances
from attnaudit.claims.georesolver import _dmg

STATEMENT = (
    r"\text{Assume the loss } \ell_t \text{ is sub-Gaussian with mean } \mu_0 \text{ and variance proxy } "
    r"\sigma_0^2 \text{ under the null model. For } \tau_t=\tau_{\mathrm{base}}+\kappa\sigma_t+\gamma\cdot"
    r"\tfrac1t\sum_{i=1}^t\mathbb 1_{\mathrm{surprise}}(i) \text{ with } \tau_{\mathrm{base}}>\mu_0,\ "
    r"\mathbb E[T_s(T)]\le O(\log T).")

CLAUSES = (Clause("log-count", "we have [Ts(T)]≤(logT)E[T_s(T)] ( T)."),)
PROOF_STEPS = (
    ProofStep("define-m", "Define the supermartingale: Mt=St+1γ∑i=1t(τi−τbase−κσi)."),
    ProofStep("null-moments", "Under the null model, [ℓt]=μ0E[ _t]= _0 and [σt]=σ0E[ _t]= _0."),
    ProofStep("negative-drift", "The adaptive term γ⋅St/tγ· S_t/t penalizes frequent surprises, creating a "
                                "negative drift."),
    ProofStep("summing", "Summing yields [ST]=(logT)E[S_T]=O( T)."),
)
NULL = "ℓ_t ~ N(0, 1) i.i.d. (μ₀ = 0, σ₀² = 1: Gaussian, the canonical sub-Gaussian law)"
READING = ("T_s(T) = S_T, the number of surprises in t ≤ T, surprise(t) = 1[μ_t > τ_t] (the proof's trigger "
           "condition) with τ_t as defined (count of the surprises before t, decisions from t = W on; "
           "operators.dmg). For every sub-Gaussian null and every τ_base > μ₀, κ, γ ≥ 0, W ≥ 1: E[S_T] = "
           "O(log T); tested on " + NULL + " for three (τ_base, κ, γ, W), T from 1e2 to 1e5.")
READING_WHY = ("the lemma quantifies over the parameters with only τ_base > μ₀; the surprise indicator is "
               "defined nowhere but in the proof's trigger condition μ_t > τ_t")
ALTERNATIVES = (
    Reading("loss-trigger", "The same with surprise(t) = 1[ℓ_t > τ_t].",
            "the proof glosses its trigger as 'the loss exceeds the threshold'"),
    Reading("suite-corrected", "E[S_T] = Θ(T) (a positive per-step surprise rate).",
            "so that the corrected statement rests on a measurement"),
)
REPLICATES = 3  # independent batches of runs per horizon (the engine's error bars)

# (τ_base, κ, γ, W) under the null ℓ_t ~ N(0, 1): τ_base > μ₀ = 0 in every set; each parameter varies.
MEAN_SETS = {
    "a": {"tau_base": 0.8, "kappa": 0.5, "gamma": 1.0, "window": 4},
    "b": {"tau_base": 0.65, "kappa": 0.25, "gamma": 2.0, "window": 8},
    "c": {"tau_base": 0.12, "kappa": 0.5, "gamma": 0.5, "window": 16},
}
LOSS_SET = {"tau_base": 1.8, "kappa": 0.5, "gamma": 1.0, "window": 8}

POLYLOG_TOL = tolerances.Systematic(0.25, "an additive constant or a log log factor in E[S_T], which "
                                          "moves a (log T)^p fit over T ∈ [1e2, 1e5] by less than this")
# A linear count is not a (log T)^p law: the fit's residuals are systematic and its bootstrap interval
# is wide (~0.5–1). Any width below 1.5 still separates p <= 1 from the p ≈ 7 a linear count fits.
LOG_CI_WIDTH = 1.5
POWER_TOL = tolerances.Systematic(0.05, "the transient before the rate settles (no decision for t < W, "
                                        "S_{t−1}/t far from its limit at small t) at the grid's low end")


def derivation():
    t, gamma, S, T, p, W, sigma0 = sp.symbols("t gamma S_t T p W sigma_0", positive=True)
    s = sp.Symbol("s_t", nonnegative=True)  # 1_surprise(t) ∈ {0, 1}
    tau_i, tau_b, kappa, sig, z = sp.symbols("tau_i tau_base kappa sigma_i z", real=True)
    pdf = sp.exp(-z**2 / (4 * sigma0**2)) / sp.sqrt(4 * sp.pi * sigma0**2)  # ℓ₁ − ℓ₂ ~ N(0, 2σ₀²)
    mean_sigma_w2 = sp.integrate(2 * (z / 2) * pdf, (z, 0, sp.oo))  # σ_t = |ℓ₁ − ℓ₂|/2 at W = 2
    P, St = "proof", "statement"
    return [
        symbolic.exact("τ_i − τ_base − κσ_i = γS_i/i, so M_t = S_t + Σ_{i≤t} S_i/i",
                       gamma * S / t, (tau_b + kappa * sig + gamma * S / t) - tau_b - kappa * sig, role=P,
                       step="define-m"),
        symbolic.holds("M_t is a supermartingale: M_t − M_{t−1} = 1_surprise(t) + S_t/t ≤ 0",
                       sp.LessThan(s + S / t, 0, evaluate=False), role=P, step="define-m",
                       note="both terms are ≥ 0 and S_t/t > 0 once a surprise occurred: M_t increases"),
        symbolic.exact("under the null E[σ_t] = σ₀ (shown at W = 2, Gaussian ℓ)", sigma0,
                       sp.simplify(mean_sigma_w2), role=P, step="null-moments",
                       note="σ_t = |ℓ₁ − ℓ₂|/2 has mean σ₀/√π; E[σ_t] < σ₀ for every W (Jensen)"),
        symbolic.holds("S_{t−1} ≤ t − 1, so the adaptive term γS_{t−1}/t < γ: surprise(t) ≥ "
                       "1[μ_t − κσ_t > τ_base + γ] pointwise",
                       sp.StrictLessThan(gamma * (t - 1) / t, gamma, evaluate=False), role=St),
        symbolic.bounded_by("E[S_T] ≥ (T − W + 1)·p, p = P(μ_t − κσ_t > τ_base + γ) > 0 (stationary for "
                            "t ≥ W; positive for a Gaussian null), is O(log T)", (T - W + 1) * p, T,
                            sp.log(T), role=St, note="a positive per-step rate makes E[S_T] grow linearly"),
    ]


def _law(tag, params, trigger="mean", **kw):
    full = params | {"trigger": trigger}
    x = "μ_t" if trigger == "mean" else "ℓ_t"
    return ScalingLaw(quantity="E[S_T]", variable="T", exponent=1.0, grid=_dmg.T_GRID, replicates=REPLICATES,
                      measure=lambda ctx, grid: _dmg.detector_counts(ctx, tag, full, grid),
                      family=(f"{NULL}; trigger {x} > τ_t; τ_base = {params['tau_base']:g}, κ = "
                              f"{params['kappa']:g}, γ = {params['gamma']:g}, W = {params['window']}; "
                              "T ∈ [1e2, 1e5]"), **kw)


def _correction(evidence):
    fits = {e["name"]: e["fit"] for e in evidence if e["type"] == "scaling"}
    power = fits.get("count-vs-t-a")
    logs = [f"{n.removeprefix('count-vs-log-t-')}: (log T)^{f['exponent']:.3g}" for n, f in fits.items()
            if n.startswith("count-vs-log-t")]
    text = ("Under a Gaussian null the detector surprises at a positive rate: E[S_T] = Θ(T), not O(log T)"
            f" (fitted (log T)-exponents {', '.join(logs)})")
    if power is not None:
        text += (f"; E[S_T] ~ T^{power['exponent']:.3g} (95% CI [{power['ci'][0]:.3g}, "
                 f"{power['ci'][1]:.3g}]) on set a")
    return text + "."


CLAIM = Claim(
    id="georesolver/lemma-9.1", label="Lemma 9.1 (Adaptive Threshold Regret Bound under Sub-Gaussian Loss)",
    section="§9.1", statement=STATEMENT, clauses=CLAUSES, proof_steps=PROOF_STEPS, reading=READING,
    reading_why=READING_WHY, alternatives=ALTERNATIVES, kind="asymptotic", derivation=derivation,
    checks=(
        *(_law(tag, params, name=f"count-vs-log-t-{tag}", order="O", law="polylog", tolerance=POLYLOG_TOL,
               max_ci_width=LOG_CI_WIDTH) for tag, params in MEAN_SETS.items()),
        _law("loss", LOSS_SET, "loss", name="count-vs-log-t-loss", order="O", law="polylog",
             tolerance=POLYLOG_TOL, max_ci_width=LOG_CI_WIDTH, reading="loss-trigger"),
        _law("a", MEAN_SETS["a"], name="count-vs-t-a", order="Θ", tolerance=POWER_TOL,
             predicted="Θ(T): a positive surprise rate", reading="suite-corrected",
             controls=(control("the exponent moved to 1/2", exponent=0.5),)),
    ),
    correction=_correction, time_limit_s=60.0,
    notes=("The adaptive term γS_t/t is at most γ, so it cannot push a stationary exceedance probability to "
           "0: the rate settles near the r > 0 that solves r ≈ P(μ_t − κσ_t > τ_base + γr). The proof's M_t "
           "increases (it is a submartingale), and E[σ_t] < σ₀. Horizons are batched over independent runs; "
           "the sequential count S is advanced event by event (operators.dmg_surprises)."),
)
CLAIMS = (CLAIM,)
