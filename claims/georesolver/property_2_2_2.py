"""GeoResolver §2.2, Property 2: scaling queries and keys by λ is a rescaling of ε by λ⁻²."""

from __future__ import annotations

import sympy as sp

import operators
from checks import Claim, Kind, Relation, sampling, symbolic, tolerances

STATEMENT = (
    r"\text{Under a uniform scaling } q_i\mapsto\lambda q_i,\ k_j\mapsto\lambda k_j, \text{ the "
    r"squared distances scale as } \lambda^2. \text{ For the inverse-distance kernel with fixed "
    r"} \varepsilon: (\lambda^2\|q_i-k_j\|_2^2+\varepsilon)^{-1}"
    r"=\lambda^{-2}(\|q_i-k_j\|_2^2+\varepsilon/\lambda^2)^{-1}. "
    r"\text{ Thus scaling is equivalent to rescaling } \varepsilon."
)

# The exponent of λ in the rescaled ε. A parameter only so that the tests can build the false
# identity ε/λ (EPS_POWER = 1) and show that the check refutes it.
EPS_POWER = 2


def derivation():
    q = sp.Matrix(sp.symbols("q1:4", real=True))
    k = sp.Matrix(sp.symbols("k1:4", real=True))
    lam = sp.Symbol("lambda", positive=True)
    eps = sp.Symbol("epsilon", positive=True)
    sq = lambda v: (v.T * v)[0]  # noqa: E731
    steps = [
        symbolic.exact("squared distances scale as λ²", sq(lam * q - lam * k), lam**2 * sq(q - k)),
        symbolic.exact(
            "(λ²‖q−k‖²+ε)⁻¹ = λ⁻²(‖q−k‖²+ε/λ²)⁻¹",
            lam**-2 * (sq(q - k) + eps / lam**2) ** -1,
            (sq(lam * q - lam * k) + eps) ** -1,
        ),
    ]
    # The common factor λ⁻² cancels between numerator and normaliser of every weight: check the
    # normalised weight W_i1 on three keys with symbolic coordinates (two stand for any d).
    qq = sp.Matrix(sp.symbols("q1:3", real=True))
    keys = [sp.Matrix(sp.symbols(f"k{j}_1:3", real=True)) for j in range(3)]

    def weight(query, ks, e):
        s = [1 / (sq(query - kj) + e) for kj in ks]
        return s[0] / sum(s)

    steps.append(symbolic.exact(
        "W_i1(λq, λk; ε) = W_i1(q, k; ε/λ²): the λ⁻² factor cancels in the normalisation",
        weight(qq, keys, eps / lam**2),
        weight(lam * qq, [lam * kj for kj in keys], eps),
    ))
    return steps


def scaled_weights_gap(case, *, eps_power: int = EPS_POWER):
    """W_ij(λq, λk; ε) and W_ij(q, k; ε/λ^eps_power) at the (i, j) where they differ most, per
    instance, with the round-off tolerance of their difference."""
    q, k, lam, eps = case["q"], case["k"], case["lam"], case["eps"]
    scaled = operators.ida_weights(lam[:, None, None] * q, lam[:, None, None] * k, eps=eps)
    rescaled = operators.ida_weights(q, k, eps=eps / lam**eps_power)
    worst = (scaled - rescaled).abs().flatten(1).argmax(dim=-1, keepdim=True)
    lhs = scaled.flatten(1).gather(-1, worst)[:, 0]
    rhs = rescaled.flatten(1).gather(-1, worst)[:, 0]
    # Error model, in the unscaled frame. Rounding λq and λk moves each coordinate of q−k by
    # ≤ u·scale (scale = max|q| + max|k|), so ‖q_i−k_j‖² moves by ≤ 2‖q_i−k_j‖√d·u·scale +
    # d·u²·scale²; cdist's own d-term sum and sqrt/square round trip add (d+2)·u·‖q_i−k_j‖²;
    # ε/λ² costs two roundings. Relative to D_ij = ‖q_i−k_j‖² + ε/λ² that is u·c_ij; a weight
    # moves by at most twice the largest relative change of D (numerator and normaliser), plus
    # n_k roundings of the normalising sum. Weights are <= 1, so this bounds every absolute gap.
    n_k, d = k.shape[-2], q.shape[-1]
    u = tolerances.unit_roundoff(q.dtype)
    scale = (q.abs().amax(dim=(-1, -2)) + k.abs().amax(dim=(-1, -2)))[:, None, None]
    d2 = operators.squared_distances(q, k)
    dist = d2.sqrt()
    c = ((d + 2) * d2 + 2 * dist * d**0.5 * scale + u * d * scale**2) / (
        d2 + (eps / lam**2)[:, None, None]) + 2
    tol = tolerances.roundoff(q.dtype, 2 * c.amax(dim=(-1, -2)) + n_k + 4)
    return lhs, rhs, tol


def _sample(ctx, gen):
    batch = ctx.pick(quick=2000, full=20000)
    for n_q, n_k, d in ((1, 2, 1), (3, 16, 8), (64, 64, 32)):
        q = sampling.gaussian(ctx, gen, batch, n_q, d)
        k = sampling.gaussian(ctx, gen, batch, n_k, d)
        lam = sampling.log_uniform(ctx, gen, batch, low=1e-6, high=1e6)
        eps = sampling.log_uniform(ctx, gen, batch, low=1e-10, high=1e2)
        yield {"q": q, "k": k, "lam": lam, "eps": eps}


def _strategy(ctx):
    import numpy as np
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    coord = st.floats(-100, 100, allow_nan=False, width=64)

    def for_shape(shape):
        n_q, n_k, d = shape
        return st.tuples(arrays(np.float64, (n_q, d), elements=coord),
                         arrays(np.float64, (n_k, d), elements=coord),
                         sampling.log_uniform_floats(1e-6, 1e6),
                         sampling.log_uniform_floats(1e-10, 1e2))

    def build(drawn):
        q, k, lam, eps = drawn
        return {"q": ctx.tensor(q)[None], "k": ctx.tensor(k)[None],
                "lam": ctx.tensor([lam]), "eps": ctx.tensor([eps])}

    shapes = st.tuples(st.integers(1, 4), st.integers(1, 6), st.integers(1, 4))
    return shapes.flatmap(for_shape).map(build)


CLAIMS = (
    Claim(
        id="georesolver/property-2.2.2",
        label="Property 2 (scale sensitivity)",
        section="§2.2",
        statement=STATEMENT,
        reading=(
            "For all q_i, k_j in R^d, every λ > 0 and every ε > 0: (λ²‖q_i−k_j‖²+ε)⁻¹ = "
            "λ⁻²(‖q_i−k_j‖²+ε/λ²)⁻¹, hence (the factor λ⁻² cancelling in the normalisation) the "
            "IDA weights satisfy W(λq, λk; ε) = W(q, k; ε/λ²) exactly."
        ),
        kind=Kind.IDENTITY,
        derivation=derivation,
        checks=(
            Relation(
                name="weights-scale-to-eps",
                lhs="W_ij(λq, λk; ε)",
                rel="==",
                rhs="W_ij(q, k; ε/λ²)",
                reading="compared at every (i, j); the case reports the entry of largest difference",
                evaluate=scaled_weights_gap,
                sample=_sample,
                strategy=_strategy,
                tolerance=(
                    "float64 round-off of scaling the coordinates and of ε/λ²: 64·u·(2·max_ij "
                    "c_ij + n_k + 4) with c_ij = ((d+2)‖q_i−k_j‖² + 2‖q_i−k_j‖√d·scale + "
                    "d·u·scale²)/(‖q_i−k_j‖² + ε/λ²) + 2, scale = max|q| + max|k|"
                ),
                sampler=(
                    "Gaussian q, k with (n_q, n_k, d) ∈ {(1,2,1), (3,16,8), (64,64,32)}; λ "
                    "log-uniform in [1e-6, 1e6]; ε log-uniform in [1e-10, 1e2]"
                ),
            ),
        ),
    ),
)
