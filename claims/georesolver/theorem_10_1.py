"""GeoResolver §10.2, Theorem 10.1 (GSR Routing Quality): the Top-K routing error bound, and its
limit as ε → 0⁺; o is Top-K with pool-normalised weights as §10.1 defines it, o* SIDA over the pool."""

from __future__ import annotations

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
    sampling,
    symbolic,
    tolerances,
)
from attnaudit.checks.fitting import closed_form_bias

BOUND_STATEMENT = (
    r"\|o(q)-o^*(q)\|_2\le 2\|V\|_F\cdot\frac{\sum_{e>K}w_{(e)}}{\sum_{e\le K}w_{(e)}}\cdot"
    r"\Bigl(\max_{e\le K}\|v_e\|_2\Bigr),\quad o(q)=\sum_{e\in S(q)}w_ev_e,\ "
    r"o^*(q)=\sum_{e=1}^{K_{pool}}w_ev_e")
LIMIT_STATEMENT = (
    r"\text{as } \varepsilon\to0^+ \text{: for any } \delta>0 \text{ there is } \varepsilon_0>0 "
    r"\text{ with } \|o(q)-o^*(q)\|_2\le\delta \text{ for all } \varepsilon<\varepsilon_0, "
    r"\text{ provided the query has a unique nearest prototype and } \|v_e\|_2 \text{ is bounded.}")

BOUND_CLAUSES = (Clause("bound", "‖()−∗()‖2≤2‖F⋅∑e>Kw(e)∑e≤Kw(e)⋅(maxe≤K‖e‖2)"),)
BOUND_STEPS = (
    ProofStep("difference", "Then the difference is: ‖∗−‖2=‖∑e>Kwee‖2."),
    ProofStep("triangle", "By the triangle inequality: ‖∗−‖2≤∑e>Kwe‖e‖2."),
    ProofStep("frobenius", "Since ‖e‖2≤‖F\\|v_e\\|_2≤\\|V\\|_F for all e, we have: ‖∗−‖2≤‖F∑e>Kwe."),
    ProofStep("ratio", "The ratio bound follows by observing that ∑e>Kwe≤∑e>Kwe∑e≤Kwe"),
)
LIMIT_CLAUSES = (Clause("limit", "Moreover, as ε→0+ → 0^+, the SIDA weights concentrate on the nearest "
                                 "prototype, so for any δ>0δ>0, there exists ε0>0 _0>0 such that for all "
                                 "ε<ε0 < _0: ‖()−∗()‖2≤δ\\|o(q)-o^*(q)\\|_2≤δ provided the query has a "
                                 "unique nearest prototype and ‖e‖2\\|v_e\\|_2 is bounded."),)
LIMIT_STEPS = (
    ProofStep("exact-retrieval", "For the second part, recall from the exact retrieval property (Lemma 0, "
                                 "Part (a)) that if =e∗q=c_e^* for a unique nearest prototype, then "
                                 "limε→0+we∗=1"),
    ProofStep("concentrates", "Hence limε→0+∑e>Kwe=0 _ → 0^+ _e>Kw_e=0 for any K≥1K≥ 1 (since all weight "
                              "concentrates on the single nearest prototype)."),
)

BOUND_READING = ("For every query and prototypes on S^{d−1}, values v_e ∈ ℝ^{d_v}, ε > 0 and 1 ≤ K < K_pool: "
                 "with w the SIDA weights over the pool sorted descending, o = Σ_{e ≤ K} w_(e) v_(e) (not "
                 "renormalised, §10.1) and o* = Σ_e w_e v_e, ‖o − o*‖₂ ≤ 2‖V‖_F·(Σ_{e>K} w_(e)/Σ_{e≤K} "
                 "w_(e))·max_{e≤K}‖v_(e)‖₂, ‖V‖_F the Frobenius norm of the pool's value matrix.")
BOUND_ALTERNATIVES = (Reading("proof-bound", "‖o − o*‖₂ ≤ ‖V‖_F·Σ_{e>K} w_(e)/Σ_{e≤K} w_(e): the bound the "
                                             "proof's chain actually reaches.",
                              "the proof ends there; the statement's extra 2·max‖v_e‖ is not derived"),)
LIMIT_READING = ("For a query q ∈ S^{d−1} whose nearest prototype is unique (q generic: not on a prototype), "
                 "any fixed 1 ≤ K < K_pool and bounded values, ‖o(q) − o*(q)‖₂ → 0 as ε → 0⁺; tested through "
                 "the rate ε¹ that the suite derives where the limit holds (q on a prototype).")
LIMIT_ALTERNATIVES = (Reading("on-prototype", "The same with q = c_{e*} for one prototype (the proof's "
                                              "setting, Lemma 2.1): ‖o − o*‖₂ → 0, like ε.",
                              "the proof applies exact retrieval, which assumes q = c_{e*}"),)

# (K_pool, d, K) of the random families; K < K_pool (at K = K_pool both sides are 0).
SHAPES = ((4, 3, 1), (4, 3, 3), (16, 3, 4), (16, 8, 1), (64, 8, 8), (64, 4, 32))
# o and o* are K_pool-term sums of weights ≤ 1 times values: each off by ~K_pool·u·max‖v‖ (the
# weights to a few ulps, sphere_sqdist's 32 ulps), and ‖·‖ of their difference adds d_v terms.
ERR_TOL = tolerances.Roundoff(condition="K_pool + d_v + 32 (the two K_pool-term sums, the weights' "
                                        "own error, the norm)", scale="max_e ‖v_e‖")


def bound_sides(case, bound="paper"):
    """‖o − o*‖ against the paper's bound 2‖V‖_F·(tail/head)·max_{e≤K}‖v_e‖, the proof's ‖V‖_F·tail/head,
    or (the control) tail/head; tail Σ_{e>K} w, head Σ_{e≤K} w."""
    q, c, v, eps, k = case["q"], case["c"], case["v"], case["eps"], int(case["k"])
    err = (operators.gsr_attention(q, c, v, eps=eps, k=k)
           - operators.gsr_exact(q, c, v, eps=eps))[:, 0, :].norm(dim=-1)
    w, idx = torch.sort(operators.gsr_weights(q, c, eps=eps)[:, 0, :], dim=-1, descending=True)
    tail = w[:, k:].flip(-1).sum(dim=-1)  # smallest first: the tail is summed without cancellation
    head = w[:, :k].sum(dim=-1)
    norms = v.norm(dim=-1)
    frob = v.flatten(1).norm(dim=-1)
    tol = ERR_TOL(torch.full_like(err, float(c.shape[-2] + v.shape[-1] + 32)), err.dtype) * norms.amax(dim=-1)
    if bound == "paper":
        return err, 2 * frob * tail / head * torch.gather(norms, 1, idx[:, :k]).amax(dim=-1), tol
    return err, (frob * tail / head if bound == "proof" else tail / head), tol


def sample_routing(ctx, gen):
    """Per (K_pool, d, K) in SHAPES: q and prototypes uniform on S^{d−1}, values N(0, s²I) with s
    log-uniform in [1e-3, 1e3], ε log-uniform in [1e-6, 10], d_v = 4."""
    batch = ctx.pick(quick=128, full=2048)
    for pool, d, k in SHAPES:
        yield {"q": sampling.unit_vectors(ctx, gen, batch, 1, d),
               "c": sampling.unit_vectors(ctx, gen, batch, pool, d),
               "v": sampling.gaussian(ctx, gen, batch, pool, 4)
               * sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-3, high=1e3),
               "eps": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=10.0), "k": k}


def _strategy(ctx):
    """Hypothesis: K_pool ≤ 12, d ≤ 5, d_v ≤ 3, K < K_pool, ε and the value scale log-uniform; the
    points are Gaussian from a drawn seed (the replayed witness holds the points themselves)."""
    from hypothesis import strategies as st

    def build(drawn):
        pool, d, dv, k, eps, scale, seed = drawn
        rng = np.random.default_rng(seed)
        q, c = rng.standard_normal((1, 1, d)), rng.standard_normal((1, pool, d))
        v = scale * rng.standard_normal((1, pool, dv))
        return {"q": ctx.tensor(q), "c": ctx.tensor(c), "v": ctx.tensor(v), "eps": ctx.tensor([eps]),
                "k": min(k, pool - 1)}

    return st.tuples(st.integers(2, 12), st.integers(2, 5), st.integers(1, 3), st.integers(1, 11),
                     sampling.log_uniform_floats(1e-8, 1e2), sampling.log_uniform_floats(1e-4, 1e4),
                     st.integers(0, 2**32 - 1)).map(build)


def bound_derivation():
    t, s, f, m, lam = sp.symbols("T s F m lambda", positive=True)
    w1, w2, w3 = sp.symbols("w_1:4", positive=True)
    v1, v2, v3 = sp.symbols("v_1:4", real=True)
    h = 1 / (1 + s)  # Σ_{e≤K} w ∈ (0, 1]
    paper = 2 * f * t / h * m  # ‖V‖_F = F, tail T, head H, max_{e≤K}‖v_e‖ = m
    return [
        symbolic.exact("o* − o = Σ_{e>K} w_e v_e (K_pool = 3, K = 1)", w2 * v2 + w3 * v3,
                       (w1 * v1 + w2 * v2 + w3 * v3) - w1 * v1, role="proof", step="difference"),
        symbolic.holds("Σ_{e>K} w_e ≤ Σ_{e>K} w_e / Σ_{e≤K} w_e as Σ_{e≤K} w_e = 1/(1+s) ≤ 1",
                       sp.LessThan(t, t / h), role="proof", step="ratio"),
        symbolic.exact("the stated bound is the proof's last line ‖V‖_F·T/H", paper, f * t / h, role="proof",
                       step="ratio", note="the factor 2·max_{e≤K}‖v_e‖ appears only in the statement"),
        symbolic.exact("the bound scales like the error under V → λV (degree 1), as it must to hold "
                       "for every V", lam * paper, paper.subs({f: lam * f, m: lam * m}), role="statement",
                       note="the bound is quadratic in V, the error linear: it fails for small V"),
        symbolic.exact("the proof's bound ‖V‖_F·T/H is of degree 1 in V", lam * f * t / h,
                       (f * t / h).subs(f, lam * f), role="statement", reading="proof-bound"),
    ]


ROUTING_FAMILY = ("q, prototypes uniform on S^{d−1}, (K_pool, d, K) ∈ {(4,3,1), (4,3,3), (16,3,4), "
                  "(16,8,1), (64,8,8), (64,4,32)}, values N(0, s²) with s log-uniform in [1e-3, 1e3], "
                  "ε log-uniform in [1e-6, 10]; Hypothesis over K_pool ≤ 12, d ≤ 5, s ∈ [1e-4, 1e4]")

BOUND_CLAIM = Claim(
    id="georesolver/theorem-10.1/bound", label="Theorem 10.1 (GSR Routing Quality), error bound",
    section="§10.2", statement=BOUND_STATEMENT, clauses=BOUND_CLAUSES, proof_steps=BOUND_STEPS,
    reading=BOUND_READING, reading_why="the literal statement; o and o* exactly as §10.1 defines them",
    alternatives=BOUND_ALTERNATIVES, kind="inequality", derivation=bound_derivation, time_limit_s=30.0,
    checks=(
        Relation(name="paper-bound", lhs="‖o(q) − o*(q)‖₂", rel="<=",
                 rhs="2‖V‖_F·(Σ_{e>K}w_(e)/Σ_{e≤K}w_(e))·max_{e≤K}‖v_e‖₂", evaluate=bound_sides,
                 sample=sample_routing, strategy=_strategy, tolerance=ERR_TOL, sampler=ROUTING_FAMILY,
                 max_examples=30),
        Relation(name="proof-bound", lhs="‖o(q) − o*(q)‖₂", rel="<=", rhs="‖V‖_F·Σ_{e>K}w_(e)/Σ_{e≤K}w_(e)",
                 evaluate=lambda case: bound_sides(case, "proof"), sample=sample_routing, strategy=_strategy,
                 tolerance=ERR_TOL, sampler=ROUTING_FAMILY, reading="proof-bound", max_examples=60,
                 controls=(control("the bound without its ‖V‖_F factor", contrast="prediction",
                                   evaluate=lambda case: bound_sides(case, "bare")),)),
    ),
    correction=lambda evidence: (
        "‖o − o*‖₂ ≤ Σ_{e>K} w_(e)‖v_(e)‖₂ ≤ ‖V‖_F·Σ_{e>K}w_(e)/Σ_{e≤K}w_(e) (linear in V); the stated "
        "bound is quadratic in V and fails whenever 2·max_{e≤K}‖v_e‖₂ < 1 on enough tail weight. "
        + next((e["summary"] for e in evidence if e["name"] == "paper-bound"), "")),
    notes=("The proof's chain (triangle inequality, ‖v_e‖ ≤ ‖V‖_F, Σ_{e≤K} w ≤ 1) is right and ends at "
           "‖V‖_F·tail/head; the statement multiplies that by 2·max_{e≤K}‖v_e‖₂ without derivation, "
           "which makes it dimensionally inconsistent (quadratic in V)."),
)


# ══ the limit ε → 0⁺ ══

EPS_GRID = tuple(10.0 ** -e for e in range(2, 11))
RATE_TOL = tolerances.Systematic(0.02, "the O(ε²) terms of the tail weight at ε/d_min² ≤ 1e-2 over a "
                                       "decade-spaced grid (a fit tilt below 1e-2)")
LIMIT_SHAPES = ((4, 3, 1), (16, 3, 4), (64, 8, 8))
# The tail at q = c_{e*} is S·t/(1 + S·t), t = ε/d_min², S = Σ_{e≠e*} d_min²/d_e² ≤ K_pool − 1: its fit
# bias on the grid at the largest S of the family.
_T, _S = np.asarray(EPS_GRID), max(p for p, _, _ in LIMIT_SHAPES) - 1
ON_PROTOTYPE_TOL = tolerances.FitBias(lambda: closed_form_bias(_T, _S * _T / (1 + _S * _T), 1.0),
                                      "the tail S·t/(1 + S·t) at S = K_pool − 1 = 63 on the ε grid")


def _limit_instances(ctx, pool, d, k, on_prototype):
    gen = ctx.generator(f"limit:{pool}x{d}x{k}")
    batch = ctx.pick(quick=256, full=2048)
    c = sampling.unit_vectors(ctx, gen, batch, pool, d)
    v = sampling.gaussian(ctx, gen, batch, pool, 4)
    if on_prototype:
        pick = torch.randint(pool, (batch,), generator=gen, device=c.device)
        return c[torch.arange(batch, device=c.device), pick][:, None, :].clone(), c, v
    return sampling.unit_vectors(ctx, gen, batch, 1, d), c, v


def routing_error_gap(ctx, grid, on_prototype=False):
    """max over instances of ‖o − o*‖₂/max_e‖v_e‖₂ at each ε (ε in units of d_min² per instance)."""
    t = ctx.tensor(grid)
    worst = torch.zeros_like(t)
    for pool, d, k in LIMIT_SHAPES:
        q, c, v = ctx.cached(("limit", pool, d, k, on_prototype),
                             lambda pool=pool, d=d, k=k: _limit_instances(ctx, pool, d, k, on_prototype))
        d2 = operators.sphere_sqdist(q, c)[:, 0, :]
        eps = t[:, None] * d2.masked_fill(d2 == 0, torch.inf).amin(dim=-1)[None, :]
        err = (operators.gsr_attention(q[None], c[None], v[None], eps=eps, k=k)
               - operators.gsr_exact(q[None], c[None], v[None], eps=eps))[..., 0, :].norm(dim=-1)
        worst = torch.maximum(worst, (err / v.norm(dim=-1).amax(dim=-1)).amax(dim=-1))
    return worst


def limit_derivation():
    eps, d1, d2, s = sp.symbols("epsilon d_1 d_2 s", positive=True)
    w1 = (1 / (d1**2 + eps)) / (1 / (d1**2 + eps) + 1 / ((d1 + s) ** 2 + eps))  # d₂ = d₁ + s > d₁
    w_star = (1 / eps) / (1 / eps + 1 / (d2**2 + eps))
    return [
        symbolic.limit("q = c_{e*}: lim_{ε→0} w_{e*} = 1 (Lemma 2.1's exact retrieval)", w_star, eps, 0,
                       sp.Integer(1), role="proof", step="exact-retrieval"),
        symbolic.limit("the proof's 'all weight concentrates on the single nearest prototype' for a "
                       "query at distance d₁ > 0 from it (next d₁ + s)", w1, eps, 0, sp.Integer(1),
                       role="proof", step="concentrates"),
        symbolic.limit("unique nearest prototype at distance d₁ > 0 (next d₁ + s): lim_{ε→0} w_1 = 1",
                       w1, eps, 0, sp.Integer(1), role="statement",
                       note="the limit is d₁⁻²/(d₁⁻² + (d₁+s)⁻²): the weights do not concentrate"),
        symbolic.series("q = c_{e*}: the tail Σ_{e≠e*} w_e = ε·d⁻² + O(ε²) (the rate the check tests)",
                        eps / d2**2, 1 - w_star, eps, 0, 2, role="statement", reading="on-prototype"),
    ]


def _limit_check(name, on_prototype, reading=None, controls=(), tolerance=RATE_TOL):
    where = "q = c_{e*} exactly (a random prototype)" if on_prototype else "q uniform on S^{d−1}"
    return Limit(
        name=name, quantity="max ‖o − o*‖₂/max_e‖v_e‖₂", variable="ε/d_min²", value="0", point="0",
        rate=1.0, grid=grids.fixed(EPS_GRID),
        gap=lambda ctx, grid: routing_error_gap(ctx, grid, on_prototype),
        family=(f"worst case over 256 instances per (K_pool, d, K) ∈ {{(4,3,1), (16,3,4), (64,8,8)}}, "
                f"prototypes uniform on S^{{d−1}}, {where}, values N(0, I₄); ε = t·d_min² (d_min the "
                "nearest non-zero distance), t = 1e-2 … 1e-10"),
        tolerance=tolerance, reading=reading, controls=controls)


LIMIT_CLAIM = Claim(
    id="georesolver/theorem-10.1/limit", label="Theorem 10.1 (GSR Routing Quality), limit ε → 0⁺",
    section="§10.2", statement=LIMIT_STATEMENT, clauses=LIMIT_CLAUSES, proof_steps=LIMIT_STEPS,
    reading=LIMIT_READING, reading_why="the literal hypothesis: 'a unique nearest prototype' (not 'q equal "
                                       "to a prototype')",
    alternatives=LIMIT_ALTERNATIVES, kind="limit", derivation=limit_derivation, time_limit_s=30.0,
    uses=(Use("georesolver/lemma-5.1/a", "recall from the exact retrieval property (Lemma 0, Part (a))"),),
    checks=(
        _limit_check("error-to-zero-generic-query", False),
        _limit_check("error-to-zero-on-prototype", True, reading="on-prototype", tolerance=ON_PROTOTYPE_TOL,
                     controls=(control("a generic query (the hypothesis as stated) in place of q = c_{e*}",
                                       contrast="hypothesis", hypothesis="q = c_{e*}",
                                       gap=lambda ctx, grid: routing_error_gap(ctx, grid, False)),)),
    ),
    correction=lambda evidence: (
        "For q not on a prototype the SIDA weights tend to d_e⁻²/Σ_l d_l⁻² as ε → 0⁺, so the error "
        "tends to ‖Σ_{e>K} w_e⁰ v_e‖₂ > 0; it vanishes (like ε) only when q coincides with a prototype. "
        + next((e["summary"] for e in evidence if e["name"] == "error-to-zero-generic-query"), "")),
    notes=("The proof cites exact retrieval (Lemma 2.1), whose hypothesis is q = c_{e*}; 'a unique "
           "nearest prototype' does not make the inverse-distance weights concentrate."),
)

CLAIMS = (BOUND_CLAIM, LIMIT_CLAIM)
