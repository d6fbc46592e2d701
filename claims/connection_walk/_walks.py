"""Shared by the connection-walk specs: batched random multi-head attention instances and the
round-off scale of comparing attention with its connection-walk form."""

import torch

from attnaudit import operators

PROOF_ABSENT = "the source is an abstract: it states the results and gives no argument"
N_TOKENS = (1, 4, 12)
# The walk and the operator associate the same products differently: (A X) W_V W_O against
# Σ_j A_ij (W_O^T W_V^T x_j), each entry a sum of n·d·d_h (per head) products of magnitudes bounded
# by the entrywise product of absolute values.
CONDITION = "(n + d + d_h + 8)·H (three chained sums per head, then H heads)"


def instances(ctx, gen, heads, d_h, draws):
    """Per n ∈ N_TOKENS: ``draws`` independent (X, W_Q, W_K, W_V, W_O), d = H·d_h, Gaussian with
    N(0, 1/d) weights (the logits are O(1))."""
    d = heads * d_h
    for n in N_TOKENS:
        r = lambda *s, sd=1.0: sd * torch.randn(draws, *s, generator=gen, dtype=ctx.dtype, device=gen.device)  # noqa: E731
        yield {"x": r(n, d), "wq": r(heads, d, d_h, sd=d**-0.5), "wk": r(heads, d, d_h, sd=d**-0.5),
               "wv": r(heads, d, d_h, sd=d**-0.5), "wo": r(heads, d_h, d, sd=d_h**-0.5)}


def weights(case):
    """The per-head attention weights A^h, (draws, H, n, n)."""
    return torch.func.vmap(operators.mha_weights)(case["x"], case["wq"], case["wk"])


def walk_gap(case, walk, tolerance, condition):
    """max|MHA(X) − walk| against 0; the tolerance is relative to max over entries of Σ_h |X||W_V^h||W_O^h|
    (entrywise absolute values), which bounds every term the two associations sum."""
    attn = torch.func.vmap(operators.mha_attention)(case["x"], case["wq"], case["wk"], case["wv"], case["wo"])
    lhs = (attn - walk).abs().flatten(1).amax(1)
    scale = torch.einsum("bnd,bhde,bhef->bnf", case["x"].abs(), case["wv"].abs(), case["wo"].abs())
    return lhs, torch.zeros_like(lhs), tolerance(condition, lhs.dtype) * scale.flatten(1).amax(1)
