"""GeoResolver §2.7, Theorem 2.10 (IDA Noise Robustness).

Model (the proof's): n training inputs x_i ~ N(0, I_{d_h}) with random clean labels y_i = ±1;
symmetric noise flips each label w.p. η; IDA attends over the n training keys x_j with the noisy
labels ỹ_j as values; the test query is a training input at exact match (q_i = x_i), the test
target its clean label y_i; E_test = (1/n)Σ_i (y_i − ŷ_i)², the proof's E[(y_i − ŷ_i)²]
(the 0-1 error of sign ŷ_i is measured beside it). Second reading: a fresh query x_i + √ε·u (a
perturbed copy of a training input at the kernel's own scale). ε = c·d_min²/n with c = 0.01
(εn/d_min² = c ≪ 1, as the proof needs: α_i ≤ εn/d_min²).
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np
import sympy as sp
import torch

import operators
from checks import Claim, Kind, Relation, ScalingLaw, symbolic
from checks.context import single_thread
from checks.fitting import closed_form_bias

STATEMENT = (
    r"\text{For IDA, test error under symmetric noise rate } \eta \text{ satisfies } "
    r"\mathcal{E}_{\text{test}}^{\text{IDA}}\le C\eta^2+O(1/\sqrt{n}), \text{ independent of } d_h."
)

C_EPS = 0.01  # ε n/d_min² = c: the proof's regime ε n/d_min² ≪ 1
ETA_GRID = (3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1)  # 3 decades of small η
ETA_LAW_N, ETA_LAW_DH = 128, 64
DH_LAW_N, DH_LAW_ETA = 32, 0.1
N_LAW_DH = 64
N_LAW_QUERIES = 64  # queries per geometry for the n law (all n when n ≤ 64)
FWER = 1e-3




# ── derivation ──

eps, s_sum, alpha, eta, p, q, n, mu, c, kappa = sp.symbols(
    "epsilon S alpha eta p q n mu c kappa", positive=True)


def _expected_sq_error(weights: list, clean: list, target) -> sp.Expr:
    """E[(target − Σ_j w_j ỹ_j)²] over independent flips ỹ_j = ±y_j (w.p. η), by enumeration."""
    total = sp.Integer(0)
    count = len(weights)
    for mask in range(2**count):
        prob, pred = sp.Integer(1), sp.Integer(0)
        for j in range(count):
            flipped = (mask >> j) & 1
            prob *= eta if flipped else 1 - eta
            pred += weights[j] * (-clean[j] if flipped else clean[j])
        total += prob * (target - pred) ** 2
    return sp.expand(total)


def equidistant_error(alpha_, eta_, count, mean_clean):
    """Exact E[(y_i − ŷ_i)²] for equidistant keys (W_ii = 1/(1+α), W_ij = α/((n−1)(1+α))), y_i = 1,
    neighbours' clean mean μ: (1 − (1−2η)(1+αμ)/(1+α))² + 4η(1−η)(1 + α²/(n−1))/(1+α)²."""
    bias = (1 - (1 - 2 * eta_) * (1 + alpha_ * mean_clean) / (1 + alpha_)) ** 2
    return bias + 4 * eta_ * (1 - eta_) * (1 + alpha_**2 / (count - 1)) / (1 + alpha_) ** 2


def derivation():
    w_ii = (1 / eps) / (1 / eps + s_sum)
    # Three keys, squared distances p, q from key 1 (distinct in general).
    w12 = (1 / (p + eps)) / (1 / eps + 1 / (p + eps) + 1 / (q + eps))
    alpha_1 = eps * (1 / (p + eps) + 1 / (q + eps))
    # Equidistant n keys: the exact prediction and its expectation.
    ytil_i, ybar = sp.symbols("ytilde_i ybar_-i", real=True)
    y_hat = (ytil_i + alpha * ybar) / (1 + alpha)
    exact_e = equidistant_error(alpha, eta, n, mu)
    e_large_n = sp.limit(exact_e, n, sp.oo)
    paper_self_clean = (1 - (1 + alpha * (1 - 2 * eta)) / (1 + alpha)) ** 2 + \
        4 * eta * (1 - eta) * alpha**2 / ((n - 1) * (1 + alpha) ** 2)
    w = sp.symbols("w0:3", positive=True)
    ys = [sp.Integer(1), sp.Integer(-1), sp.Integer(1)]
    m_i = sum(wj * yj for wj, yj in zip(w, ys, strict=True))
    formula = (1 - (1 - 2 * eta) * m_i) ** 2 + 4 * eta * (1 - eta) * sum(wj**2 for wj in w)
    d_big = sp.Symbol("D", positive=True)  # any off-diagonal squared distance ≥ d_min²
    return [
        symbolic.exact("W_ii = 1/(1+α_i), α_i = εΣ_{j≠i}(d_ij²+ε)⁻¹", 1 / (1 + eps * s_sum), w_ii),
        symbolic.series("W_ii = 1 − α_i + O(α_i²)", 1 - alpha, 1 / (1 + alpha), alpha, 0, 2),
        symbolic.leading_order(
            "W_ij = α_i/(n−1) + O(ε²n/d_min⁴) (three keys, squared distances p ≠ q)",
            w12 - alpha_1 / 2, eps, eps**2, point=0,
            note="the difference is ε(1/p − 1/q)/2 + O(ε²): first order in ε unless all "
                 "distances from x_i are equal; the weights follow 1/d_ij², not α_i/(n−1)"),
        symbolic.leading_order(
            "… which holds for equidistant keys (p = q)",
            (w12 - alpha_1 / 2).subs(q, p), eps, eps**2, point=0),
        symbolic.series(
            "ŷ_i = (1−α_i)y_i + α_iȳ_{−i} + O(α²) (equidistant keys; y_i read as the stored, "
            "noisy label ỹ_i)", (1 - alpha) * ytil_i + alpha * ybar, y_hat, alpha, 0, 2,
            note="the values are the noisy labels, so the matched key contributes ỹ_i, not y_i"),
        symbolic.exact(
            "exact E[(y_i − Σ_jW_ijỹ_j)²] = (y_i − (1−2η)(Wy)_i)² + 4η(1−η)Σ_jW_ij² (n = 3, "
            "enumerated over the 8 flip patterns)",
            formula, _expected_sq_error(list(w), ys, 1),
            note="the suite's formula, used by the exact-expectation check"),
        symbolic.exact(
            "equidistant keys: E[(y_i−ŷ_i)²] = (1−(1−2η)(1+αμ)/(1+α))² + 4η(1−η)(1+α²/(n−1))/(1+α)² "
            "(checked by enumeration at n = 3, μ = 0)",
            exact_e.subs({n: 3, mu: 0}), _expected_sq_error(
                [1 / (1 + alpha), alpha / (2 * (1 + alpha)), alpha / (2 * (1 + alpha))],
                [sp.Integer(1), sp.Integer(1), sp.Integer(-1)], 1)),
        symbolic.limit(
            "E[(y_i−ŷ_i)²] ≤ 4α_i²η² + O(ε²n²/d_min⁴) + O(1/n): the right side → 0 as α → 0, "
            "n → ∞; the exact value (n → ∞) tends to",
            e_large_n, alpha, 0, sp.Integer(0),
            note="memorisation: at α → 0 the prediction is the noisy label itself and "
                 "E[(y_i − ỹ_i)²] = 4η, first order in η"),
        symbolic.leading_order(
            "order in η of the noise-induced error (n → ∞, fixed α): paper 4α²η², i.e. Θ(η²)",
            sp.simplify(e_large_n - e_large_n.subs(eta, 0)), eta, eta**2, point=0,
            note="the leading term is 4η(1 + α − αμ + α²μ(1−μ))/(1+α)², positive for α < 1 and "
                 "every μ ∈ [−1, 1] (4η/(1+α) at μ = 0): Θ(η)"),
        symbolic.exact(
            "where 4α²η² comes from: self value clean, all neighbours labelled y_i (μ = 1)",
            4 * alpha**2 * eta**2 / (1 + alpha) ** 2
            + 4 * alpha**2 * eta * (1 - eta) / ((n - 1) * (1 + alpha) ** 2),
            sp.simplify(paper_self_clean),
            note="the proof's algebra matches a model whose matched key stores the clean label, "
                 "which is not IDA over noisy labels"),
        symbolic.holds("α_i ≤ ε(n−1)/(d_min²+ε) ≤ εn/d_min² (each d_ij² ≥ d_min²)",
                       sp.LessThan((n - 1) / (d_big + eps), n / d_big),
                       sp.true if sp.simplify(n / d_big - (n - 1) / (d_big + eps)).is_positive
                       else sp.false,
                       note="n/D − (n−1)/(D+ε) = (D + nε)/(D(D+ε)) > 0"),
        symbolic.leading_order(
            "final step drops O(ε²n²/d_min⁴): with εn/d_min² = c fixed that term is κc², "
            "claimed O(1/√n)", kappa * c**2 + 1 / n, n, n ** sp.Rational(-1, 2),
            note="the per-point bound keeps a term that does not vanish as n → ∞ unless c → 0; "
                 "ratio to n^(−1/2) diverges"),
    ]


# ── the model, batched over trials ──


def min_sq_distance(x: torch.Tensor) -> torch.Tensor:
    """Smallest off-diagonal ‖x_i − x_j‖² per set, by the Gram form (one matmul; ε only needs
    d_min² to a few digits, and the Gram form's absolute error ~u·‖x‖² is far below d_min²)."""
    sq = x.square().sum(-1)
    d2 = (sq[..., :, None] + sq[..., None, :] - 2 * x @ x.transpose(-1, -2)).clamp_min(0)
    eye = torch.eye(x.shape[-2], dtype=torch.bool, device=x.device)
    return d2.masked_fill(eye, math.inf).amin(dim=(-1, -2))


@functools.lru_cache(maxsize=64)
@single_thread()
def simulate(count: int, width: int, trials: int, reps: int, seed: int, etas: tuple,
             device: str, dtype_name: str, extras: bool = True, queries: int = 0
             ) -> dict[str, torch.Tensor]:
    """IDA at exact match over noisy labels: per-trial (trials, E) figures for each η.

    Each trial draws x_1..x_n ~ N(0, I_{d_h}), clean labels ±1, ε = c·d_min²/n, and ``reps``
    independent noise draws per η (common random numbers across η: a label flips when its
    uniform draw is < η). Returns per-trial means over inputs and noise draws of the squared
    error (``sq``), its excess over the clean-label error (``sq_excess``), the 0-1 error (``zo``,
    ``zo_excess``), and with ``extras`` the fresh-query squared excess and the exact conditional
    expectation (y − (1−2η)Wy)² + 4η(1−η)ΣW² (``exact``) on the same geometries.
    ``queries`` > 0 evaluates only the first that many training inputs as queries (an unbiased
    estimate of the mean over i: the inputs are exchangeable), for large n.
    """
    dtype = getattr(torch, dtype_name)
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    x = torch.randn(trials, count, width, generator=gen, dtype=dtype, device=device)
    clean = 1 - 2 * torch.randint(0, 2, (trials, count), generator=gen, device=device).to(dtype)
    uniforms = torch.rand(trials, count, reps, generator=gen, dtype=dtype, device=device)
    eps_ = C_EPS * min_sq_distance(x) / count
    eta_t = torch.tensor(etas, dtype=dtype, device=device)
    noisy = torch.where(uniforms[..., None] < eta_t, -clean[..., None, None], clean[..., None, None])
    values = torch.cat([clean[..., None], noisy.flatten(-2)], dim=-1)  # (T, n, 1 + R·E)

    used = queries or count
    target = clean[:, :used, None]

    def figures(query):
        out = operators.ida_attention(query[:, :used], x, values, eps=eps_)
        sq = (target - out).square()
        zo = (out * target <= 0).to(dtype)  # 0-1 error of sign(ŷ); a tie counts wrong

        def split(err):
            per = err[..., 1:].unflatten(-1, (reps, len(etas))).mean(dim=(1, 2))
            return per, per - err[..., 0].mean(dim=1, keepdim=True)

        return split(sq), split(zo)

    (sq, sq_excess), (zo, zo_excess) = figures(x)
    result = {"sq": sq, "sq_excess": sq_excess, "zo": zo, "zo_excess": zo_excess}
    if extras:
        direction = torch.randn(trials, count, width, generator=gen, dtype=dtype, device=device)
        direction = direction / torch.linalg.vector_norm(direction, dim=-1, keepdim=True)
        (_, result["fresh_sq_excess"]), _ = figures(x + eps_.sqrt()[:, None, None] * direction)
        weights = operators.ida_weights(x, x, eps=eps_)
        mean_label = (weights @ clean[..., None])[..., 0]
        spread = weights.square().sum(dim=-1)
        result["exact"] = ((clean[..., None] - (1 - 2 * eta_t) * mean_label[..., None]).square()
                           + 4 * eta_t * (1 - eta_t) * spread[..., None]).mean(dim=1)
    return result


def _mean_se(per_trial: torch.Tensor):
    return per_trial.mean(dim=0), per_trial.std(dim=0) / math.sqrt(per_trial.shape[0])


def _dtype_device(ctx):
    return ctx.device, ctx.dtype_name


def _eta_law_run(ctx, grid):
    trials = ctx.pick(quick=32, full=128)
    return simulate(ETA_LAW_N, ETA_LAW_DH, trials, ctx.pick(quick=64, full=128),
                    ctx.seed_for("eta-law"), tuple(float(g) for g in grid), *_dtype_device(ctx))


def _eta_grid(ctx):
    return np.array(ETA_GRID)


def measure_vs_eta(figure: str):
    def measure(ctx, grid):
        mean, se = _mean_se(_eta_law_run(ctx, grid)[figure])
        return mean, se

    measure.__name__ = f"{figure}_vs_eta"
    return measure


def _dh_grid(ctx):
    per_octave = ctx.pick(quick=1, full=2)
    return np.unique(np.round(2.0 ** np.linspace(1, 11, 10 * per_octave + 1)))


def measure_vs_dh(ctx, grid):
    """E_test (squared, exact match) at η = 0.1, n = 32, per d_h."""
    means, ses = [], []
    for width in grid.astype(int):
        run = simulate(DH_LAW_N, int(width), ctx.pick(quick=64, full=256), 64,
                       ctx.seed_for(f"dh-law:{width}"), (DH_LAW_ETA,), *_dtype_device(ctx), False)
        mean, se = _mean_se(run["sq"][:, 0])
        means.append(float(mean))
        ses.append(float(se))
    return np.array(means), np.array(ses)


def _n_grid(ctx):
    per_octave = ctx.pick(quick=1, full=2)
    return np.unique(np.round(2.0 ** np.linspace(1, 11, 10 * per_octave + 1)))


def measure_vs_n(ctx, grid):
    """E_test at η = 0 (clean labels; the statement's O(1/√n) term), d_h = 64, per n."""
    means, ses = [], []
    for count in grid.astype(int):
        trials = max(4, ctx.pick(quick=2048, full=16384) // int(count))
        run = simulate(int(count), N_LAW_DH, trials, 1, ctx.seed_for(f"n-law:{count}"), (0.0,),
                       *_dtype_device(ctx), False, min(int(count), N_LAW_QUERIES))
        mean, se = _mean_se(run["sq"][:, 0])  # η = 0: no label flips
        means.append(float(mean))
        ses.append(float(se))
    return np.array(means), np.array(ses)


# ── exact expectation against the Monte-Carlo measurement ──

EXACT_CONFIGS = ((8, 4), (32, 64), (ETA_LAW_N, ETA_LAW_DH))


def sample_configs(ctx, gen):  # noqa: ARG001 - the tasks come from the laws' shared streams
    cases = len(EXACT_CONFIGS) * len(ETA_GRID)
    z = NormalDist().inv_cdf(1 - FWER / (2 * cases))
    for count, width in EXACT_CONFIGS:
        law = (count, width) == (ETA_LAW_N, ETA_LAW_DH)
        yield {"eta": ctx.tensor(ETA_GRID), "n": count, "d_h": width,
               "trials": ctx.pick(quick=32, full=128) if law else ctx.pick(quick=64, full=256),
               "reps": ctx.pick(quick=64, full=128) if law else 64,
               "seed": ctx.seed_for("eta-law") if law else ctx.seed_for(f"exact:{count}:{width}"),
               "z": z}


def exact_expectation_gap(case):
    """MC squared test error against the exact conditional expectation on the same geometries."""
    eta_t = case["eta"]
    run = simulate(case["n"], case["d_h"], case["trials"], case["reps"], case["seed"],
                   tuple(eta_t.tolist()), str(eta_t.device), str(eta_t.dtype).removeprefix("torch."))
    mc, exact = run["sq"], run["exact"]
    _, se = _mean_se(mc - exact)  # the geometry is common: only the label noise is Monte Carlo
    return mc.mean(dim=0), exact.mean(dim=0), case["z"] * se


# ── tolerances ──

# The exact law of the excess in η for equidistant keys at α = c, μ = 0, n = 128: its fitted
# exponent on the η grid differs from the asymptotic 1 by this much (the Ω(η²) prediction is
# compared with intervals widened by it).
_EXCESS = [equidistant_error(C_EPS, e, ETA_LAW_N, 0.0) - equidistant_error(C_EPS, 0.0, ETA_LAW_N, 0.0)
           for e in ETA_GRID]
ETA_BIAS = closed_form_bias(np.array(ETA_GRID), np.array(_EXCESS), 1.0)
ETA_TOLERANCE = max(0.01, math.ceil(abs(ETA_BIAS) * 100) / 100)
# d_h: under ε = c·d_min²/n, α_i ∈ (0, c), so E_test moves by at most a factor (1+c)² over any
# d_h range: a log-slope of at most 2ln(1+c)/ln(1024) = 0.0029 over the grid; "independent of
# d_h" is read as an exponent ≤ 0.01 (a change < 7% over the three decades).
DH_TOLERANCE = 0.01
# n at η = 0: the measured decay comes from the geometry (d_min²/E d² shrinking with n), not a
# closed form; 0.05 covers the curvature of a fit over 3 decades, far from the gap to −1/2.
N_TOLERANCE = 0.05


def _law_text(figure):
    return {
        "sq_excess": "E_test(η) − E_test(0), squared error, query = training input (exact match)",
        "zo_excess": "0-1 error of sign ŷ, excess over η = 0, exact match",
        "fresh_sq_excess": "E_test(η) − E_test(0), squared error, fresh query x_i + √ε·u",
    }[figure]


def _eta_law(name, figure):
    return ScalingLaw(
        name=name,
        quantity=_law_text(figure),
        variable="η",
        exponent=2.0,
        order="Ω",
        grid=_eta_grid,
        measure=measure_vs_eta(figure),
        family=(f"typical random instances: n = {ETA_LAW_N}, d_h = {ETA_LAW_DH}, x_i ~ N(0, I), random "
                f"±1 labels, ε = {C_EPS}·d_min²/n; 32 (full 128) geometries × 64 (128) noise draws "
                "per η (common random numbers across η); error bars: SE over geometries"),
        tolerance=(f"closed_form_bias of the exact equidistant law (α = c, μ = 0) on the η grid: "
                   f"{ETA_BIAS:.2g}, rounded up (at least 0.01)"),
        exponent_tolerance=ETA_TOLERANCE,
        predicted="O(η²) as η → 0 (bound Cη²): exponent ≥ 2",
        reading="as η → 0 a bound Cη² means the η-dependent error falls at least like η², i.e. "
                "a fitted exponent ≥ 2 (the engine's Ω order, for a variable tending to 0)",
    )


def correction(evidence):
    def fit(name):
        e = next((x for x in evidence if x["name"] == name), None)
        if e is None:
            return "not measured"
        f = e["fit"]
        return f"exponent {f['exponent']:.3f}, 95% CI [{f['ci'][0]:.3f}, {f['ci'][1]:.3f}]"

    return (
        "In the proof's regime (εn/d_min² ≪ 1, so W ≈ I) IDA at an exact match returns the stored "
        "noisy label: E[(y_i − ŷ_i)²] = (y_i − (1−2η)(Wy)_i)² + 4η(1−η)Σ_jW_ij², whose "
        "η-dependent part is 4η/(1+α) + O(η²) for random labels — first order in η (squared excess "
        f"{fit('test-error-vs-eta')}; 0-1 error ≈ η, {fit('test-01-error-vs-eta')}). Then "
        "E_test ≤ Cη² + g(n) forces g(n) ≥ 4/C for every n: no bound of the stated form holds. "
        f"At η = 0 the error does not fall like n^(−1/2) either ({fit('test-error-vs-n')}, "
        "ε = c·d_min²/n, d_h = 64). What survives: the error does not grow with d_h "
        f"({fit('test-error-vs-dh')})."
    )


CLAIMS = (
    Claim(
        id="georesolver/theorem-2.10",
        label="Theorem 2.10 (IDA Noise Robustness)",
        section="§2.7",
        statement=STATEMENT,
        reading=(
            "Model: x_1..x_n ~ N(0, I_{d_h}), random clean labels y_i = ±1, symmetric noise (each "
            "label flipped w.p. η), IDA over the n training keys with the noisy labels as values, "
            "ε = c·d_min²/n with c = 0.01 (the proof's εn/d_min² ≪ 1). E_test is the proof's "
            "E[(y_i − ŷ_i)²] averaged over i: squared error against the clean label at an exact "
            "match q_i = x_i (the 0-1 error of sign ŷ_i is measured too; a second reading uses "
            "fresh queries x_i + √ε·u). Tested: (1) as η → 0 the η-dependent part E_test(η) − "
            "E_test(0) is O(η²) (fitted exponent ≥ 2) — refuted in all three readings (exponent "
            "1: memorisation of the noisy label); since the slope 4 does not shrink with n, no "
            "Cη² + O(n^(−1/2)) bound can hold; (2) at η = 0 E_test = O(n^(−1/2)) (d_h = 64) — "
            "refuted (the proof's own O(ε²n²/d_min⁴) = O(c²) term does not vanish); (3) E_test does "
            "not grow with d_h (exponent ≤ 0 within 0.01) — confirmed; (4) the suite's exact "
            "expectation matches the Monte-Carlo measurement — confirmed."
        ),
        kind=Kind.INEQUALITY,
        derivation=derivation,
        checks=(
            _eta_law("test-error-vs-eta", "sq_excess"),
            _eta_law("test-01-error-vs-eta", "zo_excess"),
            _eta_law("fresh-test-error-vs-eta", "fresh_sq_excess"),
            ScalingLaw(
                name="test-error-vs-n",
                quantity="E_test at η = 0 (squared error, exact match)",
                variable="n",
                exponent=-0.5,
                order="O",
                grid=_n_grid,
                measure=measure_vs_n,
                family=(f"typical random instances: d_h = {N_LAW_DH}, x_i ~ N(0, I), random ±1 labels, "
                        f"ε = {C_EPS}·d_min²/n, n = 2 … 2048; 2048/n (full 16384/n) geometries, "
                        "at least 4, 64 queries each"),
                tolerance=f"{N_TOLERANCE}: curvature of a fit over 3 decades of a non-closed-form "
                          "decay (set by d_min²/E‖x_i−x_j‖² shrinking with n)",
                exponent_tolerance=N_TOLERANCE,
                predicted="O(n^(-1/2)) (the statement at η = 0)",
                reading="the statement at η = 0: E_test ≤ O(1/√n)",
            ),
            ScalingLaw(
                name="test-error-vs-dh",
                quantity=f"E_test at η = {DH_LAW_ETA} (squared error, exact match)",
                variable="d_h",
                exponent=0.0,
                order="O",
                grid=_dh_grid,
                measure=measure_vs_dh,
                family=(f"typical random instances: n = {DH_LAW_N}, x_i ~ N(0, I_{{d_h}}), random ±1 "
                        f"labels, ε = {C_EPS}·d_min²/n, d_h = 2 … 2048; 64 (full 256) geometries × 64 "
                        "noise draws"),
                tolerance="independence read as exponent ≤ 0.01 (< 7% change over 3 decades); the "
                          "ε-policy alone moves E_test by ≤ (1+c)², a log-slope ≤ 0.003",
                exponent_tolerance=DH_TOLERANCE,
                predicted="independent of d_h: O(d_h^0)",
            ),
            Relation(
                name="exact-expectation",
                lhs="E_test (Monte Carlo over label noise)",
                rel="==",
                rhs="mean_i[(y_i − (1−2η)(Wy)_i)² + 4η(1−η)Σ_jW_ij²] (same geometries)",
                evaluate=exact_expectation_gap,
                sample=sample_configs,
                tolerance=(f"z·SE of the per-geometry difference (label-noise Monte Carlo only), z = "
                           f"Φ⁻¹(1 − {FWER:g}/(2·cases)), Bonferroni over the cases"),
                sampler=("(n, d_h) ∈ {(8,4), (32,64), (128,64)}, η ∈ " + str(ETA_GRID)
                         + f", ε = {C_EPS}·d_min²/n; the (128, 64) runs are those of the η laws"),
                reading="the suite's exact expectation under symmetric noise (derivation) holds",
            ),
        ),
        correction=correction,
        time_limit_s=60.0,
        notes=(
            "The proof's W_ij = α_i/(n−1) + O(ε²n/d_min⁴) holds only for equidistant keys (in "
            "general W_ij − α_i/(n−1) is first order in ε). Its ŷ_i = (1−α_i)y_i + α_iȳ_{−i} puts "
            "the clean label on the matched key; with the noisy labels as values (the setting of "
            "the theorem) the matched key returns ỹ_i and E[(y_i − ŷ_i)²] = 4η + O(α), not "
            "4α_i²η² + …: the proof's algebra is that of a model whose own label is noise-free and "
            "whose neighbours share it. The final bound also drops the O(ε²n²/d_min⁴) term, which "
            "is Θ(c²) when εn/d_min² = c. In the regime the proof requires (W ≈ I), IDA memorises "
            "label noise just as the softmax construction of Theorem 2.9 does."
        ),
    ),
)
