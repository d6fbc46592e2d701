"""GeoResolver §2.2, Property 1: translation invariance of the inverse-distance kernel."""

from __future__ import annotations

import numpy as np
import sympy as sp

from attnaudit import operators
from attnaudit.checks import Claim, Clause, Reading, Relation, control, sampling, symbolic, tolerances

STATEMENT = (
    r"\|q_i-k_j\|_2^2=\|(q_i+t)-(k_j+t)\|_2^2. \text{ This invariance implies that the attention "
    r"weights are unchanged by global shifts of the input space. In contrast, softmax attention is "
    r"translation-invariant only up to normalization.}"
)
CLAUSES = (
    Clause("invariance", "The Euclidean inverse-distance kernel is invariant under simultaneous "
                         "translation of all queries and keys: ‖i−j‖22=‖(i+)−(j+)‖22."),
    Clause("weights", "This invariance implies that the attention weights are unchanged by global "
                      "shifts of the input space."),
    Clause("softmax-contrast", "This property is not shared by the softmax inner-product kernel, "
                               "which is translation-invariant only up to normalization."),
)
READING = (
    "For all queries q_i, keys k_j, values v_j in R^d, every ε > 0 and every t in R^d: "
    "‖(q_i+t) − (k_j+t)‖² = ‖q_i − k_j‖², and IDA(q + t, k + t, v) = IDA(q, k, v) (weights, hence "
    "outputs, unchanged by a common translation of queries and keys). Softmax: its scores move by "
    "(q·t + t·k_j + |t|²)/√d; the terms without k_j cancel in the normalisation ('up to "
    "normalization'), t·k_j does not: its shifted weights are softmax_j((q+t)·k_j/√d), not the "
    "original ones (the alternative reading 'softmax weights unchanged' is refuted)."
)
SOFTMAX_SENTENCE = Reading(
    "softmax-sentence", "Softmax attention weights are unchanged by a common translation t of queries and "
    "keys (the paper's 'translation-invariant up to normalization').", "the property's side sentence makes "
    "a claim about softmax; the most favourable precise reading is that normalisation absorbs the shift")

# Error model of forming (q+t)−(k+t): each coordinate of q−k moves by ~u·(|q|+|k|+2|t|), which
# moves D_ij = ‖q_i−k_j‖²+ε by ~2‖q_i−k_j‖·√d·u·scale, the weights by that relative amount
# (twice, through the normalisation), and the output by it times max|v|.
TOL = tolerances.Roundoff(condition="1 + max_ij (2‖q_i−k_j‖√d·scale + ‖q_i−k_j‖²)/D_ij, "
                          "scale = max|q| + max|k| + 2 max|t|", scale="max|v|")
# cdist differences coordinate-wise: (q+t)−(k+t) is off by ~u·scale per coordinate, ‖·‖² by that
# times 2‖q−k‖√d (and its square), and each side's own rounding of ‖q−k‖² adds ~d·u relative.
D_TOL = tolerances.Roundoff(condition="d + 2‖q−k‖√d·scale + d·scale², scale = max|q| + max|k| + 2 max|t|",
                            scale="1")
SOFT_TOL = tolerances.Roundoff(condition="n + d + max|(q+t)·k_j|/√d (the logits' rounding, amplified by exp)")


def derivation():
    d = 3  # coordinates cancel one by one, so three stand for any dimension
    q, k, t = (sp.Matrix(sp.symbols(f"{x}1:4", real=True)) for x in "qkt")
    eps = sp.Symbol("epsilon", positive=True)
    sq = lambda v: (v.T * v)[0]  # noqa: E731
    # Weights depend on the inputs only through the squared distances, so a common shift
    # leaves every weight unchanged: check on three keys with symbolic coordinates.
    keys = [sp.Matrix(sp.symbols(f"k{j}_1:{d + 1}", real=True)) for j in range(3)]

    def weight(query, ks):
        s = [1 / (sq(query - kj) + eps) for kj in ks]
        return s[0] / sum(s)

    # The side sentence: softmax scores q·k_j move by q·t + t·k_j + |t|², and the k-dependent part
    # t·k_j does not cancel in the normalisation. One key pair and a shift along it suffice.
    x = sp.Symbol("x", positive=True)
    soft = lambda qq, k1, k2: sp.exp(qq * k1) / (sp.exp(qq * k1) + sp.exp(qq * k2))  # noqa: E731
    return [
        symbolic.exact("squared distance is unchanged by a common shift", sq(q - k), sq((q + t) - (k + t)),
                       role="statement", clause="invariance"),
        symbolic.exact("IDA weight W_i1 is unchanged by a common shift", weight(q, keys),
                       weight(q + t, [kj + t for kj in keys]), role="statement", clause="weights"),
        symbolic.exact("softmax weight is unchanged by a common shift (1-d, keys 0 and 1)", soft(x, 0, 1),
                       soft(x + 1, 1, 2), role="statement", reading="softmax-sentence"),
    ]


def _scale(q, k, t):
    return q.abs().amax(dim=(-1, -2)) + k.abs().amax(dim=(-1, -2)) + 2 * t.abs().amax(dim=-1)


def _translated_gap(case, attention=None):
    """max |A(q+t, k+t, v) − A(q, k, v)| per instance for IDA (or ``attention``)."""
    attention = attention or (lambda q, k, v, eps: operators.ida_attention(q, k, v, eps=eps))
    q, k, v, t, eps = case["q"], case["k"], case["v"], case["t"], case["eps"]
    shift = t[:, None, :]
    gap = (attention(q + shift, k + shift, v, eps) - attention(q, k, v, eps)).abs().amax(dim=(-1, -2))
    dist = operators.squared_distances(q, k)
    cond = ((2 * dist.sqrt() * q.shape[-1]**0.5 * _scale(q, k, t)[:, None, None] + dist)
            / (dist + eps[:, None, None]))
    return gap, gap.new_zeros(gap.shape), TOL((1 + cond.amax(dim=(-1, -2))) * v.abs().amax(dim=(-1, -2)),
                                              q.dtype)


def _distance_gap(case, score=None):
    """max |D(q+t, k+t) − D(q, k)| per instance for the IDA kernel's squared distances (or ``score``)."""
    score = score or operators.squared_distances
    q, k, t = case["q"], case["k"], case["t"]
    shift = t[:, None, :]
    gap = (score(q + shift, k + shift) - score(q, k)).abs().amax(dim=(-1, -2))
    d, scale = q.shape[-1], _scale(q, k, t)
    dist = operators.squared_distances(q, k).amax(dim=(-1, -2))
    cond = d * (1 + dist) + 2 * dist.sqrt() * d**0.5 * scale + d * scale.square()
    return gap, gap.new_zeros(gap.shape), D_TOL(cond, q.dtype)


def _softmax_reweighting_gap(case, weights=None):
    """max_ij |W(q+t, k+t) − softmax_j((q+t)·k_j/√d)|: under a common shift softmax's scores move by
    (q·t + t·k_j + |t|²)/√d; the query-only terms cancel in the normalisation, t·k_j does not, so
    the shifted weights are those of the query q+t against the unshifted keys."""
    weights = weights or (lambda q, k, eps: operators.softmax_weights(q, k))
    q, k, t, eps = case["q"], case["k"], case["t"], case["eps"]
    shift, d = t[:, None, :], q.shape[-1]
    logits = (q + shift) @ k.transpose(-1, -2) / d**0.5
    gap = (weights(q + shift, k + shift, eps) - logits.softmax(dim=-1)).abs().amax(dim=(-1, -2))
    cond = k.shape[-2] + d + logits.abs().amax(dim=(-1, -2)) + (
        (q + shift).abs().amax(dim=(-1, -2)) * t.abs().amax(dim=-1) * d**0.5)
    return gap, gap.new_zeros(gap.shape), SOFT_TOL(cond, q.dtype)


def _softmax_gap(case):
    """The same gap for softmax attention (the contrasted operator): the negative control."""
    return _translated_gap(case, lambda q, k, v, eps: operators.softmax_attention(q, k, v))


def _sample(ctx, gen):
    """Gaussian q, k, v (n, d) ∈ {(2,1), (16,8), (64,32)}; shift of random direction, length
    log-uniform in [1e-3, 1e3]; ε log-uniform in [1e-8, 1]"""
    batch = ctx.pick(quick=1000, full=20000)
    for n, d in ((2, 1), (16, 8), (64, 32)):
        q, k, v = (sampling.gaussian(ctx, gen, batch, n, w) for w in (d, d, 4))
        t = sampling.unit_vectors(ctx, gen, batch, d) * sampling.log_uniform(ctx, gen, batch, 1, low=1e-3,
                                                                             high=1e3)
        eps = sampling.log_uniform(ctx, gen, batch, low=1e-8, high=1.0)
        yield {"q": q, "k": k, "v": v, "t": t, "eps": eps}


def _strategy(ctx):
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    def for_shape(nd):
        n, d = nd
        coord = st.floats(-100, 100, allow_nan=False, width=64)
        return st.tuples(*(arrays(np.float64, (n, w), elements=coord) for w in (d, d, 2)),
                         arrays(np.float64, (d,), elements=st.floats(-1e4, 1e4, width=64)),
                         sampling.log_uniform_floats(1e-10, 10.0))

    return st.tuples(st.integers(1, 6), st.integers(1, 4)).flatmap(for_shape).map(lambda a: {
        **{key: ctx.tensor(x)[None] for key, x in zip("qkvt", a, strict=False)}, "eps": ctx.tensor([a[4]])})


FAMILY = "the primary check's family"
CLAIMS = (Claim(
    id="georesolver/property-2.2.1", label="Property 1 (translation invariance)", section="§2.2",
    statement=STATEMENT, clauses=CLAUSES, reading=READING, alternatives=(SOFTMAX_SENTENCE,),
    reading_why="the literal statement: Property 1 is about the inverse-distance kernel", kind="identity",
    proof_absent="the property is stated with its displayed identity; the source gives no argument",
    identity="D_ij depends on q_i − k_j only, by construction of the IDA kernel", derivation=derivation,
    checks=(
        Relation(name="outputs-unchanged", lhs="max|IDA(q+t,k+t,v) − IDA(q,k,v)|", rel="==", rhs="0",
                 evaluate=_translated_gap, sample=_sample, strategy=_strategy, tolerance=TOL,
                 clause="weights", controls=(control("softmax attention in place of IDA", contrast="operator",
                                                     evaluate=_softmax_gap),)),
        Relation(name="distances-unchanged", lhs="max|D(q+t, k+t) − D(q, k)| (operators.squared_distances)",
                 rel="==", rhs="0", evaluate=_distance_gap, sample=_sample, tolerance=D_TOL, sampler=FAMILY,
                 clause="invariance", controls=(control(
                     "the softmax kernel's inner products q·k_j in place of ‖q−k_j‖²", contrast="operator",
                     evaluate=lambda case: _distance_gap(case, lambda q, k: q @ k.transpose(-1, -2))),)),
        Relation(name="softmax-shift-reweights", lhs="max|W_soft(q+t, k+t) − softmax_j((q+t)·k_j/√d)|",
                 rel="==", rhs="0", evaluate=_softmax_reweighting_gap, sample=_sample, tolerance=SOFT_TOL,
                 sampler=FAMILY, clause="softmax-contrast",
                 controls=(control("IDA in place of softmax (its weights do not reweight by e^{t·k_j/√d})",
                                   contrast="operator", evaluate=lambda case: _softmax_reweighting_gap(
                                       case, lambda q, k, eps: operators.ida_weights(q, k, eps=eps))),)),
        Relation(name="softmax-outputs-unchanged", lhs="max|softmax(q+t,k+t,v) − softmax(q,k,v)|", rel="==",
                 rhs="0", evaluate=_softmax_gap, sample=_sample, tolerance=TOL, sampler=FAMILY,
                 reading="softmax-sentence"),
    ),
),)
