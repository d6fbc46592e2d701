"""GeoResolver §2.2, Property 2: scaling queries and keys by λ is a rescaling of ε by λ⁻²."""

from __future__ import annotations

import sympy as sp

from attnaudit import operators
from attnaudit.checks import Claim, Clause, ProofStep, Relation, control, sampling, symbolic, tolerances

STATEMENT = (
    r"\text{Under a uniform scaling } q_i\mapsto\lambda q_i,\ k_j\mapsto\lambda k_j, \text{ the "
    r"squared distances scale as } \lambda^2. \text{ For the inverse-distance kernel with fixed "
    r"} \varepsilon: (\lambda^2\|q_i-k_j\|_2^2+\varepsilon)^{-1}"
    r"=\lambda^{-2}(\|q_i-k_j\|_2^2+\varepsilon/\lambda^2)^{-1}. "
    r"\text{ Thus scaling is equivalent to rescaling } \varepsilon."
)
CLAUSES = (Clause("rescaling", "Thus scaling is equivalent to rescaling ε ."),)
PROOF_STEPS = (
    ProofStep("distances", "Under a uniform scaling i↦λiq_i _i, j↦λjk_j _j, the squared distances "
                           "scale as λ2λ^2."),
    ProofStep("regularization", "For the inverse-distance kernel with fixed ε , this changes the "
                                "effective regularization: (λ2‖i−j‖22+ε)−1=λ−2(‖i−j‖22+ε/λ2)−1."),
)
READING = ("For all q_i, k_j in R^d, every λ > 0 and every ε > 0: (λ²‖q_i−k_j‖²+ε)⁻¹ = "
           "λ⁻²(‖q_i−k_j‖²+ε/λ²)⁻¹, hence (the factor λ⁻² cancelling in the normalisation) the "
           "IDA weights satisfy W(λq, λk; ε) = W(q, k; ε/λ²) exactly.")

# Rounding λq, λk moves ‖q_i−k_j‖² by ≤ 2‖q_i−k_j‖√d·u·scale + d·u²·scale², cdist adds (d+2)·u·‖q_i−k_j‖²
# and ε/λ² two roundings: u·c_ij relative to D_ij. A weight (≤ 1) moves by twice the largest relative
# change of D (numerator and normaliser) plus n_k roundings of the normalising sum.
TOL = tolerances.Roundoff(
    condition="2·max_ij c_ij + n_k + 4, c_ij = ((d+2)‖q_i−k_j‖² + 2‖q_i−k_j‖√d·scale + "
              "d·u·scale²)/(‖q_i−k_j‖² + ε/λ²) + 2, scale = max|q| + max|k|")


def derivation():
    q, k = sp.Matrix(sp.symbols("q1:4", real=True)), sp.Matrix(sp.symbols("k1:4", real=True))
    lam, eps = sp.symbols("lambda epsilon", positive=True)
    sq = lambda v: (v.T * v)[0]  # noqa: E731
    # The common factor λ⁻² cancels between numerator and normaliser of every weight: W_i1 on
    # three keys with symbolic coordinates (two stand for any d).
    qq = sp.Matrix(sp.symbols("q1:3", real=True))
    keys = [sp.Matrix(sp.symbols(f"k{j}_1:3", real=True)) for j in range(3)]

    def weight(query, ks, e):
        s = [1 / (sq(query - kj) + e) for kj in ks]
        return s[0] / sum(s)

    return [
        symbolic.exact("squared distances scale as λ²", sq(lam * q - lam * k), lam**2 * sq(q - k),
                       role="proof", step="distances"),
        symbolic.exact("(λ²‖q−k‖²+ε)⁻¹ = λ⁻²(‖q−k‖²+ε/λ²)⁻¹", lam**-2 * (sq(q - k) + eps / lam**2) ** -1,
                       (sq(lam * q - lam * k) + eps) ** -1, role="proof", step="regularization"),
        symbolic.exact("W_i1(λq, λk; ε) = W_i1(q, k; ε/λ²): the λ⁻² factor cancels in the "
                       "normalisation", weight(qq, keys, eps / lam**2),
                       weight(lam * qq, [lam * kj for kj in keys], eps), role="statement"),
    ]


def scaled_weights_gap(case, *, eps_power: int = 2):
    """W_ij(λq, λk; ε) and W_ij(q, k; ε/λ^eps_power) at the (i, j) where they differ most, per
    instance (eps_power 2 is the statement)."""
    q, k, lam, eps = case["q"], case["k"], case["lam"], case["eps"]
    scaled = operators.ida_weights(lam[:, None, None] * q, lam[:, None, None] * k, eps=eps)
    rescaled = operators.ida_weights(q, k, eps=eps / lam**eps_power)
    worst = (scaled - rescaled).abs().flatten(1).argmax(dim=-1, keepdim=True)
    n_k, d, u = k.shape[-2], q.shape[-1], tolerances.unit_roundoff(q.dtype)
    scale = (q.abs().amax(dim=(-1, -2)) + k.abs().amax(dim=(-1, -2)))[:, None, None]
    d2 = operators.squared_distances(q, k)
    c = ((d + 2) * d2 + 2 * d2.sqrt() * d**0.5 * scale + u * d * scale**2) / (
        d2 + (eps / lam**2)[:, None, None]) + 2
    return (*(w.flatten(1).gather(-1, worst)[:, 0] for w in (scaled, rescaled)),
            TOL(2 * c.amax(dim=(-1, -2)) + n_k + 4, q.dtype))


def _sample(ctx, gen):
    """Gaussian q, k, (n_q, n_k, d) ∈ {(1,2,1), (3,16,8), (64,64,32)} (2000, 2000, 1000 cases quick); λ
    log-uniform in [1e-6, 1e6], ε in [1e-10, 1e2]; compared at every (i, j), the case reports the entry
    of largest difference"""
    for n_q, n_k, d, quick in ((1, 2, 1, 2000), (3, 16, 8, 2000), (64, 64, 32, 1000)):
        batch = ctx.pick(quick=quick, full=20000)
        q, k = sampling.gaussian(ctx, gen, batch, n_q, d), sampling.gaussian(ctx, gen, batch, n_k, d)
        yield {"q": q, "k": k, "lam": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=1e6),
               "eps": sampling.log_uniform(ctx, gen, batch, low=1e-10, high=1e2)}


def _strategy(ctx):
    """2…10 points in 1…4 dimensions (|x| ≤ 100): the first 1…4 are queries, the rest keys."""
    from hypothesis import strategies as st

    def build(drawn):
        points, n_q, lam, eps = drawn
        x, n_q = ctx.tensor(points)[None], min(n_q, len(points) - 1)
        return {"q": x[:, :n_q], "k": x[:, n_q:], "lam": ctx.tensor([lam]), "eps": ctx.tensor([eps])}

    return st.tuples(sampling.point_sets(n=(2, 10), d=(1, 4), bound=100.0), st.integers(1, 4),
                     sampling.log_uniform_floats(1e-6, 1e6), sampling.log_uniform_floats(1e-10, 1e2)
                     ).map(build)


CLAIMS = (Claim(
    id="georesolver/property-2.2.2", label="Property 2 (scale sensitivity)", section="§2.2",
    statement=STATEMENT, clauses=CLAUSES, proof_steps=PROOF_STEPS, reading=READING, kind="identity",
    reading_why="the literal statement: the displayed identity and its conclusion for the weights",
    identity="the IDA kernel depends on the inputs only through ‖q−k‖² + ε", derivation=derivation,
    checks=(Relation(name="weights-scale-to-eps", lhs="W_ij(λq, λk; ε)", rel="==", rhs="W_ij(q, k; ε/λ²)",
                     evaluate=scaled_weights_gap, sample=_sample, strategy=_strategy, tolerance=TOL,
                     controls=(control("ε/λ in place of ε/λ² (the exponent of λ moved)",
                                       contrast="prediction",
                                       evaluate=lambda case: scaled_weights_gap(case, eps_power=1)),)),),
),)
