"""SymPy derivations shared by the mha-identification specs (the suite's, not the paper's: the
source is an abstract and gives no argument)."""

from __future__ import annotations

import random

import sympy as sp

from attnaudit.checks import symbolic

PROOF_ABSENT = "the source is an abstract: it states the result and gives no argument"


def _matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{name}{i}{j}", real=True))


def tangent_invariance_steps(d: int = 3, d_h: int = 2, *, role: str = "statement",
                             clause: str | None = None) -> list:
    """The one-parameter subgroups W_Q(I + tE), W_K(I − tE^T) and W_V(I + tE), (I − tE)W_O leave
    W_Q W_K^T and W_V W_O unchanged to first order, for every E ∈ gl(d_h): dim gl(d_h) = d_h² each."""
    t = sp.Symbol("t", real=True)
    wq, wk, wv, wo = _matrix("q", d, d_h), _matrix("k", d, d_h), _matrix("v", d, d_h), _matrix("o", d_h, d)
    e = _matrix("e", d_h, d_h)
    eye = sp.eye(d_h)
    qk = (wq * (eye + t * e)) * (wk * (eye - t * e.T)).T
    vo = (wv * (eye + t * e)) * ((eye - t * e) * wo)
    return [
        symbolic.exact(f"d/dt [W_Q(I+tE)(W_K(I−tE^T))^T] at t=0 is 0 (d={d}, d_h={d_h}, E generic)",
                       sp.Integer(0), sum(sp.expand(x) ** 2 for x in sp.diff(qk, t).subs(t, 0)),
                       role=role, clause=clause),
        symbolic.exact(f"d/dt [W_V(I+tE)(I−tE)W_O] at t=0 is 0 (d={d}, d_h={d_h}, E generic)",
                       sp.Integer(0), sum(sp.expand(x) ** 2 for x in sp.diff(vo, t).subs(t, 0)),
                       role=role, clause=clause),
    ]


def product_rank(d: int, d_h: int, seed: int = 0) -> int:
    """The exact rank of the Jacobian of (W_Q, W_K) ↦ W_Q W_K^T at a random integer point."""
    rng = random.Random(seed)
    wq = sp.Matrix(d, d_h, lambda i, j: rng.randint(-9, 9))
    wk = sp.Matrix(d, d_h, lambda i, j: rng.randint(-9, 9))
    sym_q, sym_k = _matrix("q", d, d_h), _matrix("k", d, d_h)
    prod = list(sym_q * sym_k.T)
    jac = sp.Matrix(prod).jacobian(list(sym_q) + list(sym_k))
    return jac.subs(dict(zip(list(sym_q) + list(sym_k), list(wq) + list(wk), strict=True))).rank()


def product_rank_step(d: int = 4, d_h: int = 2, *, role: str = "statement",
                      clause: str | None = None) -> object:
    """rank ∂(W_Q W_K^T)/∂(W_Q, W_K) = 2·d·d_h − d_h² (exact, SymPy rank at an integer point), so the
    fibre of the product has dimension d_h² = dim GL(d_h): the subgroup above is all of it."""
    return symbolic.exact(
        f"rank ∂(W_Q W_K^T)/∂(W_Q,W_K) = 2·d·d_h − d_h² at an integer point (d={d}, d_h={d_h}, exact)",
        sp.Integer(2 * d * d_h - d_h * d_h), sp.Integer(product_rank(d, d_h)), role=role, clause=clause)
