"""Shared by the mha-identification specs: the parameter-to-function Jacobian of multi-head
attention (``operators.mha_attention``) on a fixed batch of inputs, its numerical rank, the
suite's derived invariance count, the tangent space of the invariance group, and the SymPy steps
the specs share (the suite's, not the paper's: the source is an abstract and gives no argument).

Parameters are flattened in the order W_Q (H, d, d_h), W_K (H_kv, d, d_h), W_V (H_kv, d, d_h),
W_O (H, d_h, d), then the biases if present.
"""

from __future__ import annotations

import functools
import math
import random

import sympy as sp
import torch

from attnaudit import operators, symbolic
from attnaudit.checks.measure import numerical_rank

PROOF_ABSENT = "the source is an abstract: it states the result and gives no argument"
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
    return torch.randn(total(shp), generator=gen, dtype=dtype, device=gen.device) / math.sqrt(shp["wq"][1])


def inputs_for(gen, shp: dict, dtype):
    """Gaussian inputs (B, N_TOKENS, d) with B·N_TOKENS·d ≥ 1.2·P rows and B ≥ MIN_SEQUENCES."""
    d, p = shp["wq"][1], total(shp)
    b = max(MIN_SEQUENCES, math.ceil(1.2 * p / (N_TOKENS * d)))
    return torch.randn(b, N_TOKENS, d, generator=gen, dtype=dtype, device=gen.device)


def apply(theta, shp: dict, x, rope=None):
    """f(θ; x) = MHA(x), flattened (the merged parametrisation when ``shp`` has no ``wk``)."""
    p = unflatten(theta, shp)
    if "wk" not in p:
        h, d, _ = shp["wq"]
        eye = torch.eye(d, dtype=theta.dtype, device=theta.device).expand(h, d, d)
        p |= {"wk": eye, "wo": eye}
    return operators.mha_attention(x, p["wq"], p["wk"], p["wv"], p["wo"], bq=p.get("bq"), bk=p.get("bk"),
                                   bv=p.get("bv"), bo=p.get("bo"), rope=rope).reshape(-1)


@functools.lru_cache(maxsize=64)
def measure(h: int, d: int, d_h: int, h_kv: int | None = None, rope: bool = False, biases: bool = False,
            seed: int = 0, merged: bool = False) -> dict:
    """Rank deficiency of the Jacobian ∂f/∂θ ((B·n·d, P), by forward mode: P ≤ rows) at random
    parameters and inputs (float64, seeded). ``merged``: the control parametrisation, each head's logit
    matrix M_h = W_Q W_K^T and value-output matrix N_h = W_V W_O free d×d parameters (W_K = W_O = I)."""
    shp = {"wq": (h, d, d), "wv": (h, d, d)} if merged else shapes(h, d, d_h, h_kv, biases)
    gen = torch.Generator().manual_seed(seed)
    theta = init(gen, shp, torch.float64)
    x = inputs_for(gen, shp, torch.float64)
    jac = torch.func.jacfwd(lambda t: apply(t, shp, x, ROPE_BASE if rope else None))(theta)
    rank, sv, thr = numerical_rank(jac)
    rank, thr, p = int(rank), float(thr), total(shp)
    # the gap: the smallest kept singular value over the threshold, the largest dropped under it
    kept, dropped = float(sv[rank - 1]), float(sv[rank]) if rank < len(sv) else 0.0
    return {"total": p, "rank": rank, "deficiency": p - rank, "threshold": thr,
            "sigma_max": float(sv[0]), "smallest_kept": kept, "largest_dropped": dropped,
            "rows": jac.shape[0]}


def sample_rows(quick, *names, full=None):
    """A sample function: one batch, a case per row of ``quick`` (``full`` in the full profile) with
    its columns named ``names``, each case with a seed drawn from the check's generator."""
    def sample(ctx, gen):
        rows = ctx.pick(quick=quick, full=full or quick)
        seed = torch.randint(0, 2**31 - 1, (len(rows),), generator=gen, device=gen.device).cpu()
        yield {name: torch.tensor([int(r[i]) for r in rows]) for i, name in enumerate(names)} | {"seed": seed}
    return sample


def measured(case, **fixed) -> list[dict]:
    """:func:`measure` per case: its h, d_h, seed, and d (default H·d_h), h_kv, rope if given
    (``fixed`` overrides them)."""
    out = []
    for i in range(len(case["seed"])):
        row = {k: int(v[i]) for k, v in case.items()} | fixed
        h, d_h = row["h"], row["d_h"]
        out.append(measure(h, row.get("d", h * d_h), d_h, h_kv=row.get("h_kv"), rope=bool(row.get("rope")),
                           seed=row["seed"], merged=row.get("merged", False)))
    return out


def deficiencies(case, **fixed):
    """P − rank J per case (float64), by :func:`measured`."""
    return torch.tensor([float(m["deficiency"]) for m in measured(case, **fixed)], dtype=torch.float64)


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
    count = h_kv * ((d_h if rope else d_h * d_h) + d_h * d_h)
    return count + 2 * h_kv * d_h if biases else count


def _matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{name}{i}{j}", real=True))


def invariance_steps(d: int = 3, d_h: int = 2, r_d: int = 4, r_dh: int = 2) -> list:
    """The one-parameter subgroups W_Q(I + tE), W_K(I − tE^T) and W_V(I + tE), (I − tE)W_O leave
    W_Q W_K^T and W_V W_O unchanged to first order, for every E ∈ gl(d_h): dim gl(d_h) = d_h² each
    (at d, d_h); and rank ∂(W_Q W_K^T)/∂(W_Q, W_K) = 2·d·d_h − d_h² (exact, SymPy rank at an integer
    point, at r_d, r_dh), so the fibre of the product has dimension d_h² = dim GL(d_h): the subgroup
    is all of it."""
    t = sp.Symbol("t", real=True)
    wq, wk, wv, wo = _matrix("q", d, d_h), _matrix("k", d, d_h), _matrix("v", d, d_h), _matrix("o", d_h, d)
    e, eye = _matrix("e", d_h, d_h), sp.eye(d_h)
    qk = (wq * (eye + t * e)) * (wk * (eye - t * e.T)).T
    vo = (wv * (eye + t * e)) * ((eye - t * e) * wo)
    rng = random.Random(0)
    sym_q, sym_k = _matrix("q", r_d, r_dh), _matrix("k", r_d, r_dh)
    point = [rng.randint(-9, 9) for _ in range(2 * r_d * r_dh)]
    wq_at, wk_at = sp.Matrix(r_d, r_dh, point[:r_d * r_dh]), sp.Matrix(r_d, r_dh, point[r_d * r_dh:])
    jac = sp.Matrix(list(sym_q * sym_k.T)).jacobian(list(sym_q) + list(sym_k))
    rank = jac.subs(dict(zip(list(sym_q) + list(sym_k), list(wq_at) + list(wk_at), strict=True))).rank()
    return [
        symbolic.exact(f"d/dt [W_Q(I+tE)(W_K(I−tE^T))^T] at t=0 is 0 (d={d}, d_h={d_h}, E generic)",
                       sp.Integer(0), sum(sp.expand(x) ** 2 for x in sp.diff(qk, t).subs(t, 0)),
                       role="statement"),
        symbolic.exact(f"d/dt [W_V(I+tE)(I−tE)W_O] at t=0 is 0 (d={d}, d_h={d_h}, E generic)",
                       sp.Integer(0), sum(sp.expand(x) ** 2 for x in sp.diff(vo, t).subs(t, 0)),
                       role="statement"),
        symbolic.exact(f"rank ∂(W_Q W_K^T)/∂(W_Q,W_K) = 2·d·d_h − d_h² at an integer point (d={r_d}, "
                       f"d_h={r_dh}, exact)", sp.Integer(2 * r_d * r_dh - r_dh * r_dh), sp.Integer(rank),
                       role="statement"),
    ]
