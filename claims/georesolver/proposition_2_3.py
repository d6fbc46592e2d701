"""GeoResolver §2.3, Proposition 2.3 (Dense-Key Degradation), first part: the separation bound.

Only the bound lives here (id ``georesolver/proposition-2.3/bound``); the Gaussian r² = Θ(·)
part is the separate catalogue id ``georesolver/proposition-2.3/gaussian``.
"""

from __future__ import annotations

import sympy as sp
import torch

import operators
from checks import Claim, Kind, Relation, sampling, symbolic, tolerances

STATEMENT = (
    r"\text{If keys have covering radius } r \text{ from } k_j \text{ (i.e., } "
    r"\|k_j-k_m\|\geq r \text{ for all } m\neq j\text{), then } "
    r"W_{jj}\geq\frac{1}{1+\varepsilon(n-1)/(r^2+\varepsilon)}."
)

# Multiplier of r² in the bound; a module constant so that the tests can build a too-strong bound
# (R2_FACTOR = 4, i.e. separation 2r) and show that the check refutes it.
R2_FACTOR = 1.0


def derivation():
    eps, r, d = sp.symbols("epsilon r d_jm", positive=True)
    g = sp.Symbol("g", nonnegative=True)  # d_jm² − r² >= 0
    n = 4  # three other keys stand for any n − 1: the bound sums n − 1 copies of one inequality
    ds = sp.symbols("d1:4", positive=True)
    inv = [1 / (dm**2 + eps) for dm in ds]
    w_jj = eps**-1 / (eps**-1 + sum(inv))
    paper_chain = eps**-1 / (eps**-1 + (n - 1) / (r**2 + eps))
    paper_final = 1 / (1 + eps * (n - 1) / (r**2 + eps))
    # D_jm⁻¹ <= (r²+ε)⁻¹ when d_jm² = r² + g with g >= 0: the difference is g/((r²+ε)(r²+g+ε)).
    diff = sp.factor(sp.together(1 / (r**2 + eps) - 1 / (r**2 + g + eps)))
    # W_jj = ε⁻¹/(ε⁻¹ + y) with y = Σ_m D_jm⁻¹ > 0 decreases in y, so bounding each term of y
    # from above bounds W_jj from below.
    y = sp.Symbol("y", positive=True)
    dw = sp.factor(sp.diff(eps**-1 / (eps**-1 + y), y))
    return [
        symbolic.exact("D_jj = ε (q = k_j, zero distance)", eps, (d - d) ** 2 + eps),
        symbolic.holds(
            "D_jm⁻¹ = (d_jm²+ε)⁻¹ <= (r²+ε)⁻¹ for d_jm² = r² + g, g >= 0",
            sp.LessThan(1 / (r**2 + g + eps), 1 / (r**2 + eps), evaluate=False),
            sp.true if diff.is_nonnegative else sp.false,
            note=f"(r²+ε)⁻¹ − (d_jm²+ε)⁻¹ = {sp.sstr(diff)}",
        ),
        symbolic.holds(
            "W_jj = ε⁻¹/(ε⁻¹ + y) decreases in y = Σ_{m≠j} D_jm⁻¹",
            sp.StrictLessThan(dw, 0, evaluate=False),
            sp.true if (-dw).is_positive else sp.false,
        ),
        symbolic.exact(
            "W_jj at d_jm = r for all m (the bound is attained by equidistant keys)",
            paper_chain, w_jj.subs({dm: r for dm in ds}),
        ),
        symbolic.exact(
            "ε⁻¹/(ε⁻¹ + (n−1)(r²+ε)⁻¹) = 1/(1 + ε(n−1)/(r²+ε))", paper_final, paper_chain,
        ),
    ]


def bound_sides(case, *, r2_factor: float = R2_FACTOR):
    """W_jj of the operator (query q = k_j) and the bound with r = min_{m≠j} ‖k_j − k_m‖."""
    k, eps, star = case["k"], case["eps"], case["star"].bool()
    n, d = k.shape[-2], k.shape[-1]
    q = (k * star[..., None]).sum(dim=-2, keepdim=True)  # k_j, exactly (one nonzero term)
    w = operators.ida_weights(q, k, eps=eps)[:, 0, :]
    w_jj = w.masked_fill(~star, 0.0).sum(dim=-1)
    # r² = min_{m≠j} ‖k_j − k_m‖², summed coordinate-wise here, independently of the operator.
    r2 = (k - q).square().sum(dim=-1).masked_fill(star, torch.inf).amin(dim=-1)
    bound = 1 / (1 + eps * (n - 1) / (r2_factor * r2 + eps))
    # Error model: the operator's D_jm = d_jm² + ε has relative error <= (d+3)·u (cdist's d-term
    # sum, sqrt/square, + ε), each ratio ε/D_jm one more, their n-term sum n·u, 1/Σ one; W_jj =
    # 1/(1 + x) amplifies a relative error of x by x/(1+x) <= 1. The bound: r² to d·u, then four
    # roundings. Both sides are accurate to (n + 2d + 16)·u relative.
    tol = tolerances.roundoff(k.dtype, n + 2 * d + 16) * bound
    return w_jj, bound, tol


def _pick_star(ctx, gen, batch, n):
    j = torch.randint(n, (batch,), generator=gen, device=ctx.device)
    return torch.nn.functional.one_hot(j, n).to(ctx.dtype)


def _regular_simplex(ctx, gen, batch, n, d):
    """n equidistant points in R^d (d >= n): the basis vectors e_1…e_n times s/√2 (pairwise
    distance s, log-uniform), mapped by a random Householder reflection I − 2vvᵀ (orthogonal,
    so the simplex stays regular and leaves the coordinate axes) and translated."""
    side = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-3, high=1e3)
    basis = torch.eye(n, d, dtype=ctx.dtype, device=ctx.device) * side / 2**0.5
    v = sampling.unit_vectors(ctx, gen, batch, 1, d)
    reflected = basis - 2 * (basis * v).sum(dim=-1, keepdim=True) * v
    return reflected + sampling.gaussian(ctx, gen, batch, 1, d, scale=10.0)


def _sample(ctx, gen):
    batch = ctx.pick(quick=2000, full=20000)

    def case(k, eps_low=1e-10, eps_high=1e4):
        b, n = k.shape[0], k.shape[1]
        return {"k": k, "eps": sampling.log_uniform(ctx, gen, b, low=eps_low, high=eps_high),
                "star": _pick_star(ctx, gen, b, n)}

    # Gaussian keys: typical separations.
    for n, d in ((2, 1), (8, 2), (32, 3), (128, 16)):
        yield case(sampling.gaussian(ctx, gen, batch, n, d))
    # Clustered keys: c centres, members at log-uniform spread 1e-6 … 1e-1 around them, so the
    # nearest neighbour of k_j is very close while most keys are far.
    for n, d, c in ((8, 2, 2), (64, 8, 4)):
        centres = sampling.gaussian(ctx, gen, batch, c, d, scale=10.0)
        member = torch.arange(n, device=ctx.device) % c
        spread = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-6, high=1e-1)
        yield case(centres[:, member] + spread * sampling.gaussian(ctx, gen, batch, n, d))
    # Regular simplices (every d_jm = r): the bound is attained; with a relative jitter
    # log-uniform in 1e-12 … 1e-2 it is approached from the admissible side.
    for n, d in ((2, 2), (4, 4), (16, 16), (64, 64), (16, 40)):
        k = _regular_simplex(ctx, gen, batch // 4, n, d)
        yield case(k)
        jitter = sampling.log_uniform(ctx, gen, batch // 4, 1, 1, low=1e-12, high=1e-2)
        size = k.std(dim=(-1, -2), keepdim=True)
        yield case(k + jitter * size * sampling.gaussian(ctx, gen, batch // 4, n, d))


def _strategy(ctx):
    from hypothesis import strategies as st

    def build(drawn):
        keys, j, eps = drawn
        k = ctx.tensor(keys)[None]
        star = torch.zeros(1, k.shape[1], dtype=ctx.dtype, device=ctx.device)
        star[0, j % k.shape[1]] = 1.0
        return {"k": k, "eps": ctx.tensor([eps]), "star": star}

    return st.tuples(sampling.point_sets(n=(2, 8), d=(1, 4), bound=10.0), st.integers(0, 7),
                     sampling.log_uniform_floats(1e-10, 1e4)).map(build)


CLAIMS = (
    Claim(
        id="georesolver/proposition-2.3/bound",
        label="Proposition 2.3 (Dense-Key Degradation), first part",
        section="§2.3",
        statement=STATEMENT,
        reading=(
            "For n keys k_1…k_n in R^d, the query q = k_j (the proof's exact match, D_jj = ε; "
            "the statement names no query), every ε > 0 and every r with ‖k_j − k_m‖ >= r for "
            "all m ≠ j: W_jj >= 1/(1 + ε(n−1)/(r² + ε)). The bound grows with r, so it is "
            "tested at the largest admissible r = min_{m≠j} ‖k_j − k_m‖. The paper calls r a "
            "'covering radius'; the condition it states is a separation (packing) radius, which "
            "is what is tested."
        ),
        kind=Kind.INEQUALITY,
        derivation=derivation,
        checks=(
            Relation(
                name="separation-bound",
                lhs="W_jj",
                rel=">=",
                rhs="1/(1 + ε(n−1)/(r²+ε))",
                evaluate=bound_sides,
                sample=_sample,
                strategy=_strategy,
                tolerance="float64 round-off of both sides: 64·u·(n + 2d + 16)·bound (n-term "
                          "normalising sum, d-term squared distances, a few divisions)",
                sampler=(
                    "Gaussian keys (n, d) ∈ {(2,1), (8,2), (32,3), (128,16)}; clustered keys "
                    "(2 or 4 centres, spread 1e-6 … 1e-1); regular simplices (n, d) ∈ {(2,2), "
                    "(4,4), (16,16), (64,64), (16,40)}, exact and with relative jitter 1e-12 … "
                    "1e-2; random j; ε log-uniform in [1e-10, 1e4]"
                ),
            ),
        ),
    ),
)
