"""Shared by the mha-identification specs: the parameter-to-function Jacobian of multi-head
attention (``operators.mha_attention``) on a fixed batch of inputs, its numerical rank, the
suite's derived invariance count, and the tangent space of the invariance group.

Parameters are flattened in the order W_Q (H, d, d_h), W_K (H_kv, d, d_h), W_V (H_kv, d, d_h),
W_O (H, d_h, d), then the biases if present. torch is imported at module level (deferred while
the catalogue is listed).
"""

from __future__ import annotations

import functools
import math

import torch

NAMES = ("wq", "wk", "wv", "wo")
BIASES = ("bq", "bk", "bv", "bo")
ROPE_BASE = 10000.0  # the base of Su et al. (2021)
# Tokens per sequence and how many sequences: the Jacobian has B·n·d rows, and B·n·d ≥ 1.2·P
# makes it taller than the parameter count with room (see ``inputs_for``).
N_TOKENS = 6
# At least this many independent sequences: with only two sequences of six tokens in d = 6 the
# Jacobian under-counts the rank (measured: deficiency 16 for 8 at H = 1, d = 6, d_h = 2).
MIN_SEQUENCES = 8


def shapes(h: int, d: int, d_h: int, h_kv: int | None = None, biases: bool = False) -> dict:
    """Parameter shapes of MHA (``h_kv = h``) or grouped-query attention (``h_kv < h``)."""
    h_kv = h if h_kv is None else h_kv
    out = {"wq": (h, d, d_h), "wk": (h_kv, d, d_h), "wv": (h_kv, d, d_h), "wo": (h, d_h, d)}
    if biases:
        out |= {"bq": (h, d_h), "bk": (h_kv, d_h), "bv": (h_kv, d_h), "bo": (d,)}
    return out


def total(shp: dict) -> int:
    return sum(math.prod(s) for s in shp.values())


def unflatten(theta, shp: dict) -> dict:
    out, at = {}, 0
    for name, s in shp.items():
        size = math.prod(s)
        out[name] = theta[..., at : at + size].reshape(*theta.shape[:-1], *s)
        at += size
    return out


def init(gen, shp: dict, dtype):
    """Parameters N(0, 1/d) (d the model dimension), as one flat vector."""
    d = shp["wq"][1]
    return torch.randn(total(shp), generator=gen, dtype=dtype, device=gen.device) / math.sqrt(d)


def inputs_for(gen, shp: dict, dtype):
    """Gaussian inputs (B, N_TOKENS, d) with B·N_TOKENS·d ≥ 1.2·P rows and B ≥ MIN_SEQUENCES."""
    d, p = shp["wq"][1], total(shp)
    b = max(MIN_SEQUENCES, math.ceil(1.2 * p / (N_TOKENS * d)))
    return torch.randn(b, N_TOKENS, d, generator=gen, dtype=dtype, device=gen.device)


def merged_shapes(h: int, d: int) -> dict:
    """The control parametrisation: each head's logit matrix M_h = W_Q W_K^T and value-output
    matrix N_h = W_V W_O are free d×d parameters (W_K = W_O = I, d_h = d)."""
    return {"wq": (h, d, d), "wv": (h, d, d)}


def apply(theta, shp: dict, x, rope=None):
    """f(θ; x) = MHA(x), flattened (the merged parametrisation when ``shp`` has no ``wk``)."""
    from attnaudit import operators
    p = unflatten(theta, shp)
    if "wk" not in p:
        h, d, _ = shp["wq"]
        eye = torch.eye(d, dtype=theta.dtype, device=theta.device).expand(h, d, d)
        p |= {"wk": eye, "wo": eye}
    return operators.mha_attention(x, p["wq"], p["wk"], p["wv"], p["wo"], bq=p.get("bq"), bk=p.get("bk"),
                                   bv=p.get("bv"), bo=p.get("bo"), rope=rope).reshape(-1)


def jacobian(theta, shp: dict, x, rope=None):
    """∂f/∂θ, (B·n·d, P), by forward mode (``torch.func.jacfwd``: P ≤ rows)."""
    return torch.func.jacfwd(lambda t: apply(t, shp, x, rope))(theta)


@functools.lru_cache(maxsize=64)
def measure(h: int, d: int, d_h: int, h_kv: int | None = None, rope: bool = False, biases: bool = False,
            seed: int = 0, merged: bool = False) -> dict:
    """Rank deficiency of the Jacobian at random parameters and inputs (float64, seeded)."""
    from attnaudit.checks.measure import numerical_rank
    shp = merged_shapes(h, d) if merged else shapes(h, d, d_h, h_kv, biases)
    gen = torch.Generator().manual_seed(seed)
    theta = init(gen, shp, torch.float64)
    x = inputs_for(gen, shp, torch.float64)
    jac = jacobian(theta, shp, x, ROPE_BASE if rope else None)
    rank, sv, thr = numerical_rank(jac)
    rank, thr = int(rank), float(thr)
    p = total(shp)
    # the gap: the smallest kept singular value over the threshold, the largest dropped under it
    kept, dropped = float(sv[rank - 1]), float(sv[rank]) if rank < len(sv) else 0.0
    return {"total": p, "rank": rank, "deficiency": p - rank, "threshold": thr,
            "sigma_max": float(sv[0]), "smallest_kept": kept, "largest_dropped": dropped,
            "rows": jac.shape[0]}


def derived_deficiency(h: int, d: int, d_h: int, h_kv: int | None = None, rope: bool = False,
                       biases: bool = False) -> int:
    """The suite's count of the invariance dimension (generic parameters and inputs).

    Per kv group g: W_Q^h → W_Q^h A_g (all h reading g), W_K^g → W_K^g A_g^{-T}: dim GL(d_h) = d_h²,
    or, with RoPE, only A_g commuting with every position's rotation (block-diagonal 2×2 blocks
    a·I + b·J with distinct frequencies): d_h. W_V^g → W_V^g B_g, W_O^h → B_g^{-1} W_O^h: d_h².
    Biases: b_K has no effect (d_h per group); b_V only shifts the output by Σ_g b_V^g Σ_{h∈g} W_O^h,
    which b_O absorbs (d_h per group). Plain MHA with d_h > d: each product W_Q W_K^T (and W_V W_O)
    is a generic d×d matrix, so the fibre has dimension 2·d·d_h − d² per factor pair
    (2·d·d_h − (2·d·r − r²) with r = min(d, d_h) covers both cases).
    """
    h_kv = h if h_kv is None else h_kv
    if d_h > d:
        if rope or biases or h_kv != h:
            raise ValueError("the count for d_h > d is derived for plain MHA only")
        return h * 2 * (2 * d * d_h - d * d)
    qk = d_h if rope else d_h * d_h
    count = h_kv * (qk + d_h * d_h)
    if biases:
        count += 2 * h_kv * d_h
    return count
