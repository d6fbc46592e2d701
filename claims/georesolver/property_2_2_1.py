"""GeoResolver §2.2, Property 1: translation invariance of the inverse-distance kernel.

The reference example of a claim spec (docs in README "Adding a claim"): a primary reading, an
alternative reading for the paper's side sentence on softmax, derivation steps with roles, a
Relation with a self-describing tolerance and a negative control.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from attnaudit import operators
from attnaudit.checks import Claim, Kind, Reading, Relation, control, sampling, symbolic, tolerances

STATEMENT = (
    r"\|q_i-k_j\|_2^2=\|(q_i+t)-(k_j+t)\|_2^2. \text{ This invariance implies that the attention "
    r"weights are unchanged by global shifts of the input space. In contrast, softmax attention is "
    r"translation-invariant only up to normalization.}"
)

# Error model of forming (q+t)−(k+t): each coordinate of q−k moves by ~u·(|q|+|k|+2|t|), which
# moves D_ij = ‖q_i−k_j‖²+ε by ~2‖q_i−k_j‖·√d·u·scale, the weights by that relative amount
# (twice, through the normalisation), and the output by it times max|v|.
TOL = tolerances.Roundoff(condition="1 + max_ij (2‖q_i−k_j‖√d·scale + ‖q_i−k_j‖²)/D_ij, "
                          "scale = max|q| + max|k| + 2 max|t|", scale="max|v|")


def derivation():
    d = 3  # coordinates cancel one by one, so three stand for any dimension
    q = sp.Matrix(sp.symbols("q1:4", real=True))
    k = sp.Matrix(sp.symbols("k1:4", real=True))
    t = sp.Matrix(sp.symbols("t1:4", real=True))
    eps = sp.Symbol("epsilon", positive=True)
    sq = lambda v: (v.T * v)[0]  # noqa: E731
    steps = [symbolic.exact("squared distance is unchanged by a common shift",
                            sq(q - k), sq((q + t) - (k + t)), role="derivation")]
    # Weights depend on the inputs only through the squared distances, so a common shift
    # leaves every weight unchanged: check on three keys with symbolic coordinates.
    keys = [sp.Matrix(sp.symbols(f"k{j}_1:{d + 1}", real=True)) for j in range(3)]
    def weight(query, ks):
        s = [1 / (sq(query - kj) + eps) for kj in ks]
        return s[0] / sum(s)
    steps.append(symbolic.exact("IDA weight W_i1 is unchanged by a common shift",
                                weight(q, keys), weight(q + t, [kj + t for kj in keys]),
                                role="statement"))
    # The side sentence: softmax scores q·k_j move by q·t + t·k_j + |t|², and the k-dependent part
    # t·k_j does not cancel in the normalisation. One key pair and a shift along it suffice.
    x = sp.Symbol("x", positive=True)
    soft = lambda qq, k1, k2: sp.exp(qq * k1) / (sp.exp(qq * k1) + sp.exp(qq * k2))  # noqa: E731
    steps.append(symbolic.exact("softmax weight is unchanged by a common shift (1-d, keys 0 and 1)",
                                soft(x, 0, 1), soft(x + 1, 1, 2), role="statement",
                                reading="softmax-sentence"))
    return steps


def _translated_gap(case, attention=None):
    """max |A(q+t, k+t, v) − A(q, k, v)| per instance for IDA (or ``attention``), with its
    round-off tolerance."""
    attention = attention or (lambda q, k, v, eps: operators.ida_attention(q, k, v, eps=eps))
    q, k, v, t, eps = case["q"], case["k"], case["v"], case["t"], case["eps"]
    shift = t[:, None, :]
    base = attention(q, k, v, eps)
    moved = attention(q + shift, k + shift, v, eps)
    gap = (moved - base).abs().amax(dim=(-1, -2))
    d = q.shape[-1]
    scale = q.abs().amax(dim=(-1, -2)) + k.abs().amax(dim=(-1, -2)) + 2 * t.abs().amax(dim=-1)
    dist = operators.squared_distances(q, k)
    cond = ((2 * dist.sqrt() * d**0.5 * scale[:, None, None] + dist) / (dist + eps[:, None, None]))
    cond = 1 + cond.amax(dim=(-1, -2))
    return gap, gap.new_zeros(()).expand_as(gap), TOL(cond * v.abs().amax(dim=(-1, -2)), q.dtype)


def _softmax_gap(case):
    """The same gap for softmax attention (the contrasted operator): the negative control."""
    return _translated_gap(case, lambda q, k, v, eps: operators.softmax_attention(q, k, v))


def _sample(ctx, gen):
    batch = ctx.pick(quick=1000, full=20000)
    for n, d in ((2, 1), (16, 8), (64, 32)):
        q = sampling.gaussian(ctx, gen, batch, n, d)
        k = sampling.gaussian(ctx, gen, batch, n, d)
        v = sampling.gaussian(ctx, gen, batch, n, 4)
        t = sampling.unit_vectors(ctx, gen, batch, d) * sampling.log_uniform(
            ctx, gen, batch, 1, low=1e-3, high=1e3)
        eps = sampling.log_uniform(ctx, gen, batch, low=1e-8, high=1.0)
        yield {"q": q, "k": k, "v": v, "t": t, "eps": eps}


def _strategy(ctx):
    from hypothesis import strategies as st

    def build(arrays):
        q, k, v, t, eps = arrays
        as_t = lambda a: ctx.tensor(a)[None]  # noqa: E731
        return {"q": as_t(q), "k": as_t(k), "v": as_t(v), "t": as_t(t),
                "eps": ctx.tensor([eps])}

    def for_shape(nd):
        from hypothesis.extra.numpy import arrays

        n, d = nd
        coord = st.floats(-100, 100, allow_nan=False, width=64)
        return st.tuples(arrays(np.float64, (n, d), elements=coord),
                         arrays(np.float64, (n, d), elements=coord),
                         arrays(np.float64, (n, 2), elements=coord),
                         arrays(np.float64, (d,), elements=st.floats(-1e4, 1e4, width=64)),
                         sampling.log_uniform_floats(1e-10, 10.0))

    return st.tuples(st.integers(1, 6), st.integers(1, 4)).flatmap(for_shape).map(build)


CLAIMS = (
    Claim(
        id="georesolver/property-2.2.1",
        label="Property 1 (translation invariance)",
        section="§2.2",
        statement=STATEMENT,
        reading=(
            "For all queries q_i, keys k_j, values v_j in R^d, every ε > 0 and every t in R^d: "
            "IDA(q + t, k + t, v) = IDA(q, k, v) (weights, hence outputs, unchanged by a common "
            "translation of queries and keys)."
        ),
        reading_why="the literal statement: Property 1 is about the inverse-distance kernel",
        alternatives=(
            Reading("softmax-sentence",
                    "Softmax attention weights are unchanged by a common translation t of queries "
                    "and keys (the paper's 'translation-invariant up to normalization').",
                    "the property's side sentence makes a claim about softmax; the most "
                    "favourable precise reading is that normalisation absorbs the shift"),
        ),
        kind=Kind.IDENTITY,
        proof_absent="the property is stated with its displayed identity; the source gives no argument",
        identity="D_ij depends on q_i − k_j only, by construction of the IDA kernel",
        derivation=derivation,
        checks=(
            Relation(
                name="outputs-unchanged",
                lhs="max|IDA(q+t,k+t,v) − IDA(q,k,v)|",
                rel="==",
                rhs="0",
                evaluate=_translated_gap,
                sample=_sample,
                strategy=_strategy,
                tolerance=TOL,
                sampler=("Gaussian q, k, v (n, d) ∈ {(2,1), (16,8), (64,32)}; shift of random "
                         "direction, length log-uniform in [1e-3, 1e3]; ε log-uniform in [1e-8, 1]"),
                controls=(control("softmax attention in place of IDA", contrast="operator",
                                  evaluate=_softmax_gap),),
            ),
            Relation(
                name="softmax-outputs-unchanged",
                lhs="max|softmax(q+t,k+t,v) − softmax(q,k,v)|",
                rel="==",
                rhs="0",
                evaluate=_softmax_gap,
                sample=_sample,
                tolerance=TOL,
                sampler="the primary check's family",
                reading="softmax-sentence",
            ),
        ),
    ),
)
