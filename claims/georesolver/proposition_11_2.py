"""GeoResolver §11.4, Proposition 2 (Information-Theoretic Justification): the routing bound
I(q_S; c_e) ≤ log K_pool, by plug-in mutual information of routing laws, and the storage relation
I(k; c_e) ∝ log 1/(1 − ‖c_e‖²), undefined as written; alternatives test the proof's log-volume instead."""

from __future__ import annotations

import mpmath
import numpy as np
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
    grids,
    symbolic,
    tolerances,
)

STATEMENT = (r"I(q_S; c_e^S) \le \log K_{\mathrm{pool}}, \qquad I(k; c_e) \propto \log\frac{1}{1-\|c_e\|^2}. "
             r"\text{ Proof. The mutual information bound for spherical routing follows from the entropy "
             r"bound } H(c_e^S) \le \log K_{\mathrm{pool}}. \text{ For hyperbolic storage, the volume growth "
             r"} V_{\mathbb H}(R) \propto e^{(d_h-1)R} \text{ gives the divergence as } \|c_e\| \to 1^-.")

CLAUSES = (
    Clause("routing", "I(S;e)≤logKpool"),
    Clause("storage", "I(;e)∝log11−‖e‖2",
           undefined=("a joint law of the key k and the prototype c_e, and the variable in which I(k; c_e) "
                      "is proportional to log 1/(1 − ‖c_e‖²): as written a mutual information is one "
                      "number, not a function of one prototype's norm")),
)
PROOF_STEPS = (
    ProofStep("entropy-bound", "The mutual information bound for spherical routing follows from the entropy "
                               "bound H(e)≤logKpoolH(c_e^S)≤ K_pool."),
    ProofStep("volume-growth", "For hyperbolic storage, the volume growth Vℍ(R)∝e(dh−1)RV_H(R) e^(d_h-1)R "
                               "gives the divergence as ‖e‖→1−\\|c_e\\|→ 1^-."),
)

READING = ("(routing) For any joint law of a query and a routing variable c_e with K_pool values, I(q; c_e) "
           "≤ log K_pool (checked by plug-in mutual information of random, SIDA-hard, SIDA-soft and balanced "
           "routing laws). (storage) I(k; c_e) ∝ log 1/(1 − ‖c_e‖²) is not defined as written (no joint law "
           "of k and c_e; a mutual information is not a function of one prototype's norm): unverifiable.")
READING_WHY = "the routing clause is the entropy bound the proof cites; the storage clause as written"
ALTERNATIVES = (
    Reading("log-volume", "The proof's quantity in place of the mutual information: log V_ℍ(d_ℍ(0, c_e)) ∝ "
                          "log 1/(1 − ‖c_e‖²), the ratio the same at every ‖c_e‖ near 1 (ℍ³, ℍ⁸).",
            "the volume-growth argument is the proof's only computable content for the storage clause"),
    Reading("log-volume-asymptotic", "log V_ℍ(d_ℍ(0, c_e))/log(1/(1 − ‖c_e‖²)) → d_h − 1 as ‖c_e‖ → 1 (ℍ³, "
                                     "closed form).",
            "'∝' weakened to asymptotic proportionality, the most the volume growth gives"),
)

VOL_DIM = 3  # V_ℍ(R) = π(sinh 2R − 2R) in ℍ³ (curvature −1): a closed form, evaluated in mpmath
MI_TOL = tolerances.Roundoff(condition="Q·K·(1 + max|log p|): the plug-in sum's terms and their logs")
PROP_DIMS = (3, 8)  # ℍ³ and ℍ⁸ for the proportionality alternative
PROP_NORMS = (0.99, 0.999, 0.9999, 0.99999, 1 - 1e-8)
PROP_TOL = tolerances.Roundoff(condition="4 (mpmath quadrature at 40 digits, rounded once to float64)")
RATE_TOL = tolerances.Systematic(0.02, "the O(e^{−L}) parts of R − L and of log V_ℍ, and the 1/L² "
                                       "term of the gap, across L ∈ [10, 1e4]")


def derivation():
    p1, p2, u, R = sp.symbols("p_1 p_2 u R", positive=True)
    r = u / (1 + u)  # ‖c_e‖ ∈ (0, 1), written so that 1 − r = 1/(1 + u) is positive
    pmf = (p1, p2, 1 - p1 - p2)
    P, S = "proof", "statement"
    return [
        symbolic.exact("Gibbs: H(p) − log K = Σ p_e log(1/(K p_e)) ≤ Σ p_e(1/(K p_e) − 1) = 0 (K = 3)",
                       sp.Integer(0), sp.simplify(sum(pe * (1 / (3 * pe) - 1) for pe in pmf)), role=P,
                       step="entropy-bound",
                       note="with log x ≤ x − 1; so I(q; e) ≤ H(e) ≤ log K_pool for any law of (q, e)"),
        symbolic.exact("d_ℍ(0, c) = 2 artanh‖c‖ = log 1/(1 − ‖c‖²) + 2 log(1 + ‖c‖), i.e. "
                       "e^{d_ℍ(0, c)} = (1 + ‖c‖)²/(1 − ‖c‖²)",
                       (1 + r) ** 2 / (1 - r**2), sp.simplify(sp.exp((2 * sp.atanh(r)).rewrite(sp.log))),
                       role=S, reading="log-volume-asymptotic",
                       note="log 1/(1 − ‖c‖²) is the hyperbolic radius of c up to 2 log 2 + o(1)"),
        symbolic.limit(f"volume growth: log V_ℍ(R)/R → d_h − 1 (d_h = {VOL_DIM}, V = π(sinh 2R − 2R))",
                       sp.log(sp.pi * (sp.sinh(2 * R) - 2 * R)) / R, R, sp.oo, sp.Integer(VOL_DIM - 1),
                       role=P, step="volume-growth"),
    ]


def mi_sides(case, shrink=1.0):
    """Plug-in I(q_S; c_e) = Σ p log(p/(p_q p_e)) of joint tables p (B, Q, K), 0·log 0 = 0, against
    log K_pool (or, with ``shrink=2``, log(K_pool/2): false for routing that uses the whole pool evenly)."""
    p = case["p"]
    q, k = p.shape[-2], p.shape[-1]
    pq, pe = p.sum(-1, keepdim=True), p.sum(-2, keepdim=True)
    mi = (p * torch.where(p > 0, p / (pq * pe), torch.ones_like(p)).log()).sum((-2, -1))
    logs = torch.where(p > 0, p.log().abs(), torch.zeros_like(p)).amax((-2, -1))
    bound = torch.full_like(logs, float(k)).log() - torch.full_like(logs, float(shrink)).log()
    return mi, bound, MI_TOL(q * k * (1 + logs), p.dtype)


def sample_routing(ctx, gen):
    """Joint laws of (query, prototype) for K_pool ∈ {2, 4, 16, 64}: Dirichlet(1) and sparse
    Dirichlet(0.05) tables over 8 query cells; SIDA routing of 32 equiprobable queries on S² to K_pool
    random prototypes, hard (top-1 by SIDA weight, §8.3) and soft (p(e|q) = SIDA weights, ε = 1e-3);
    balanced deterministic routing (each prototype takes Q/K_pool queries: I = log K_pool)."""
    batch = ctx.pick(quick=64, full=512)
    for k in (2, 4, 16, 64):
        for alpha in (1.0, 0.05):
            g = torch._standard_gamma(torch.full((batch, 8 * k), alpha, dtype=ctx.dtype, device=ctx.device),
                                      generator=gen)
            yield {"p": (g / g.sum(-1, keepdim=True)).reshape(batch, 8, k)}
        q = torch.randn(batch, 32, 3, generator=gen, dtype=ctx.dtype, device=ctx.device)
        c = torch.randn(batch, k, 3, generator=gen, dtype=ctx.dtype, device=ctx.device)
        eye = torch.eye(k, dtype=ctx.dtype, device=ctx.device).expand(batch, k, k)
        w = operators.sida_attention(q, c, eye, eps=1e-3)  # (B, 32, K): the SIDA weights
        hard = torch.nn.functional.one_hot(w.argmax(-1), k).to(ctx.dtype)
        yield {"p": hard / 32}
        yield {"p": w / 32}
        cells = max(k, 8)
        balanced = torch.nn.functional.one_hot(torch.arange(cells, device=ctx.device) % k, k).to(ctx.dtype)
        yield {"p": (balanced / cells).expand(batch, cells, k).contiguous()}


def _volume_gap(euclidean=False):
    def gap(ctx, grid):
        out = []
        with mpmath.workdps(50):
            for L in grid:
                L = mpmath.mpf(float(L))
                r = mpmath.sqrt(-mpmath.expm1(-L))  # ‖c‖ with 1 − ‖c‖² = e^{−L}
                if euclidean:
                    log_v = mpmath.log(4 * mpmath.pi / 3 * r**3)
                else:
                    big_r = L + 2 * mpmath.log1p(r)  # d_ℍ(0, c) = L + 2 log(1 + ‖c‖)
                    log_v = mpmath.log(mpmath.pi * (mpmath.sinh(2 * big_r) - 2 * big_r))
                out.append(float(abs(log_v / L - (VOL_DIM - 1))))
        return np.asarray(out)

    return gap


def _log_ball_volume(n: int, radius):
    """log V_ℍⁿ(R), V = |S^{n−1}|·∫₀^R sinh^{n−1} t dt (curvature −1), in mpmath."""
    sphere = 2 * mpmath.pi ** (mpmath.mpf(n) / 2) / mpmath.gamma(mpmath.mpf(n) / 2)
    return mpmath.log(sphere * mpmath.quad(lambda t: mpmath.sinh(t) ** (n - 1), [0, radius]))


def sample_ratios(ctx, gen):  # noqa: ARG001 - a deterministic grid
    """log V_ℍⁿ(d_ℍ(0, c))/log(1/(1 − ‖c‖²)) in ℍ³ and ℍ⁸ at ‖c‖ ∈ {0.99, …, 1 − 1e-8} (mpmath, 40
    digits), each beside the same ratio at the largest ‖c‖."""
    for n in PROP_DIMS:
        ratios = []
        with mpmath.workdps(40):
            for r in PROP_NORMS:
                r = mpmath.mpf(r)
                big_l = -mpmath.log1p(-r**2)
                ratios.append(float(_log_ball_volume(n, 2 * mpmath.atanh(r)) / big_l))
        yield {"ratio": ctx.tensor(ratios), "last": ctx.tensor([ratios[-1]] * len(ratios)),
               "n": ctx.tensor([float(n)] * len(ratios))}


def proportional_gap(case):
    """log V/L at ‖c‖ against log V/L at the largest ‖c‖: equal at every ‖c‖ if log V ∝ L."""
    return case["ratio"], case["last"], PROP_TOL(4, case["ratio"].dtype) * case["last"].abs()


CLAIM = Claim(
    id="georesolver/proposition-11.2",
    label="Proposition 11.2 (Proposition 2: Information-Theoretic Justification)", section="§11.4",
    statement=STATEMENT, clauses=CLAUSES, proof_steps=PROOF_STEPS, reading=READING, reading_why=READING_WHY,
    alternatives=ALTERNATIVES, kind="inequality", derivation=derivation, time_limit_s=30.0,
    uses=(Use("georesolver/section-5.2/volume-growth", "For hyperbolic storage, the volume growth"),),
    proof_gap=("the volume growth gives the divergence of a log-volume, not of a mutual information: no "
               "joint law of k and c_e is given, so nothing connects V_ℍ to I(k; c_e)"),
    identity=("I(q; c_e) ≤ H(c_e) ≤ log K_pool holds for every joint law with K_pool routing values (Gibbs' "
              "inequality): no routing operator can violate it"),
    checks=(
        Relation(name="routing-mi-below-log-kpool", lhs="plug-in I(q; c_e)", rel="<=", rhs="log K_pool",
                 evaluate=mi_sides, sample=sample_routing, tolerance=MI_TOL, sampler=sample_routing.__doc__,
                 clause="routing",
                 controls=(control("log(K_pool/2) in place of log K_pool", contrast="prediction",
                                   evaluate=lambda case: mi_sides(case, shrink=2.0)),)),
        Relation(name="log-volume-proportional", lhs="log V_ℍ(d_ℍ(0, c))/L at ‖c‖", rel="==",
                 rhs="the same ratio at ‖c‖ = 1 − 1e-8", evaluate=proportional_gap, sample=sample_ratios,
                 tolerance=PROP_TOL, sampler=sample_ratios.__doc__, reading="log-volume"),
        Limit(name="log-volume-over-l", quantity="log V_ℍ(d_ℍ(0, c_e)) / log(1/(1 − ‖c_e‖²))",
              variable="L = log 1/(1 − ‖c_e‖²)", value=str(VOL_DIM - 1), point="oo", rate=1.0,
              grid=grids.log_grid(10, 1e4, quick=7, full=13), gap=_volume_gap(), tolerance=RATE_TOL,
              reading="log-volume-asymptotic",
              family=f"ℍ³ (d_h = {VOL_DIM}, curvature −1), L ∈ [10, 1e4], mpmath at 50 digits",
              controls=(control("the Euclidean volume (4π/3)‖c_e‖³ in place of V_ℍ", contrast="operator",
                                gap=_volume_gap(euclidean=True)),)),
    ),
    notes=("The routing bound is tight: balanced deterministic routing attains log K_pool; it is Gibbs' "
           "inequality, true of every routing law. The storage clause is undefined as written. Even the "
           "proof's substitute, the log-volume, is not proportional to log 1/(1 − ‖c_e‖²): log V = "
           "(d_h − 1)L + O(1), so the ratio drifts (ℍ⁸: about 8.6 at ‖c‖ = 0.99, 7.6 at 0.99999, → 7); "
           "only the asymptotic ratio d_h − 1 holds."),
)
CLAIMS = (CLAIM,)
