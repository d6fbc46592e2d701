"""mha-identification/never-fully-identified: attention can never be fully identified. Read as: the
invariance dimension of the standard (factored) parametrisation is positive for every number of
heads and every head size; shown by the Jacobian's rank deficiency and by exact orbits (distinct
parameters, one function)."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit import operators, symbolic, tolerances
from attnaudit.checks import Claim, Clause, Relation, control

from . import _jacobian as J

STATEMENT = (
    r"\text{A subtle side effect of the mathematics [is the] observation that attention can never be "
    r"fully identified.}"
)
CLAUSES = (Clause("never", "attention can never be fully identified"),)
READING = (
    "For multi-head softmax attention in its standard parametrisation (per-head W_Q, W_K, W_V "
    "∈ R^{d×d_h}, W_O ∈ R^{d_h×d}), for every H ≥ 1, d ≥ 1 and d_h ≥ 1, the set of parameters "
    "giving the same function has positive dimension at generic parameters, with or without RoPE "
    "and grouped-query attention: P − rank J ≥ 1 for "
    "the Jacobian J of θ ↦ f (the suite derives 2·H·d_h² for d_h ≤ d); and distinct parameters "
    "related by W_Q → W_Q A, W_K → W_K A^{-T}, W_V → W_V B, W_O → B^{-1}W_O give exactly the "
    "same function. Added by the suite: generic (Gaussian) parameters and inputs; the sizes "
    "listed with each check.")

EXACT = tolerances.Exact("integer counts (rank by SVD with the threshold σ_max·max(rows, cols)·eps)")
# (H, d, d_h): head sizes below, at and above d/H, and d_h > d.
GRID = ((1, 1, 1), (1, 2, 1), (1, 2, 2), (1, 2, 3), (2, 2, 1), (2, 2, 3), (3, 3, 1), (2, 4, 1),
        (1, 4, 4), (4, 4, 1), (2, 6, 2), (8, 8, 1))
FULL_GRID = GRID + ((16, 16, 1), (4, 8, 2), (2, 3, 5))
MERGED_GRID = ((1, 2), (1, 4), (2, 3), (4, 2))  # (H, d): the control parametrisation, d_h = d
# (H, H_kv, d_h, RoPE) with d = H·d_h: the modern variants keep a positive deficiency too.
VARIANTS = ((1, 1, 2, True), (2, 2, 2, True), (4, 4, 2, True), (2, 2, 4, True), (4, 1, 1, False),
            (4, 2, 2, False), (8, 2, 1, False), (4, 1, 2, True), (2, 1, 2, True))
# ‖f(g·θ) − f(θ)‖∞: the logits and values are formed from products whose factors moved by A, A^{-T}
# (B, B^{-1}); their rounding is amplified by cond(A)·cond(B) relative to the entries' magnitude.
ORBIT_TOL = tolerances.Roundoff(condition="(d + n + 4)·cond(A)·cond(B)·(1 + max|logit|) (products of "
                                          "d-term sums through a softmax of n tokens)",
                                scale="max|f|")


def derivation():
    h, d_h = sp.symbols("H d_h", positive=True, integer=True)
    return [*J.invariance_steps(), symbolic.holds("2·H·d_h² ≥ 1 for all integers H, d_h ≥ 1",
                                                  sp.GreaterThan(2 * h * d_h**2, 1), role="statement")]


def deficiency_sides(case, **fixed):
    lhs = J.deficiencies(case, **fixed)
    return lhs, torch.ones_like(lhs), 0.0


def merged_case_sides(case):
    """The control: the merged parametrisation (free W_Q W_K^T, W_V W_O per head) on its own grid."""
    h, d = (torch.tensor(c) for c in zip(*MERGED_GRID, strict=True))
    return deficiency_sides({"h": h, "d": d, "d_h": d, "seed": case["seed"][: len(MERGED_GRID)]}, merged=True)


def orbit_sides(case, mode="orbit"):
    """max|f(g·θ) − f(θ)| for g = (A, B) per head: W_Q A, W_K A^{-T}, W_V B, B^{-1} W_O."""
    x, wq, wk, wv, wo, a, b = (case[k] for k in ("x", "wq", "wk", "wv", "wo", "a", "b"))
    mha = torch.func.vmap(operators.mha_attention)
    base = mha(x, wq, wk, wv, wo)
    a_inv_t = torch.linalg.inv(a).transpose(-1, -2)
    if mode == "query-only":  # not a symmetry: W_K left as it is
        a_inv_t = torch.eye(a.shape[-1], dtype=a.dtype, device=a.device).expand_as(a)
    lhs = (mha(x, wq @ a, wk @ a_inv_t, wv @ b, torch.linalg.inv(b) @ wo) - base).abs().flatten(1).amax(dim=1)
    logits = torch.einsum("bnd,bhde->bhne", x, wq)
    keys = torch.einsum("bnd,bhde->bhne", x, wk)
    big = logits.abs().flatten(1).amax(1) * keys.abs().flatten(1).amax(1)
    cond = torch.linalg.cond(a).flatten(1).amax(1) * torch.linalg.cond(b).flatten(1).amax(1)
    d, n = x.shape[-1], x.shape[-2]
    tol = ORBIT_TOL((d + n + 4) * cond * (1 + big), x.dtype) * base.abs().flatten(1).amax(1)
    return lhs, torch.zeros_like(lhs), tol


def _sample_orbits(ctx, gen):
    """(H, d_h) ∈ {(1,1), (1,4), (2,2), (4,2), (8,1), (16,1)}, d = H·d_h, 64 draws each of Gaussian
    parameters, 5 Gaussian tokens, A, B = I + 0.3·G per head"""
    for h, d_h in ((1, 1), (1, 4), (2, 2), (4, 2), (8, 1), (16, 1)):
        d, b, n = h * d_h, 64, 5
        r = lambda *s, b=b: torch.randn(b, *s, generator=gen, dtype=ctx.dtype, device=gen.device)  # noqa: E731
        eye = torch.eye(d_h, dtype=ctx.dtype, device=gen.device)
        yield {"x": r(n, d), "wq": r(h, d, d_h) / d**0.5, "wk": r(h, d, d_h) / d**0.5,
               "wv": r(h, d, d_h) / d**0.5, "wo": r(h, d_h, d) / d_h**0.5,
               "a": eye + 0.3 * r(h, d_h, d_h), "b": eye + 0.3 * r(h, d_h, d_h)}


MERGED = f"the merged parametrisation, (H, d) ∈ {MERGED_GRID}: identified"

CLAIMS = (Claim(
    id="mha-identification/never-fully-identified", label="Attention is never fully identified",
    section="abstract", statement=STATEMENT, clauses=CLAUSES, kind="identity", derivation=derivation,
    reading=READING,
    reading_why="'never fully identified' read for the factored parametrisation the abstract's "
                "identification count refers to; 'never' as 'for every H and head size'",
    identity=("the factored products are invariant by construction: W_Q A (W_K A^{-T})^T = W_Q W_K^T and "
              "W_V B B^{-1} W_O = W_V W_O, a GL(d_h)² orbit per head"),
    proof_absent=J.PROOF_ABSENT,
    checks=(
        Relation(
            name="deficiency-positive", lhs="P − rank J", rel=">=", rhs="1",
            evaluate=deficiency_sides, sample=J.sample_rows(GRID, "h", "d", "d_h", full=FULL_GRID),
            tolerance=EXACT,
            sampler=f"(H, d, d_h) ∈ {GRID} (full adds {FULL_GRID[len(GRID):]}); Gaussian parameters "
                    "N(0, 1/d), ≥ 8 Gaussian sequences of "
                    "6 tokens (≥ 1.2·P Jacobian rows), float64",
            controls=(control("the merged parametrisation (W_Q W_K^T and W_V W_O free d×d matrices per "
                              f"head), (H, d) ∈ {MERGED_GRID}: identified, P − rank J = 0",
                              contrast="operator", evaluate=merged_case_sides),)),
        Relation(
            name="deficiency-positive-rope-gqa", lhs="P − rank J (RoPE and/or GQA)", rel=">=", rhs="1",
            evaluate=deficiency_sides, sample=J.sample_rows(VARIANTS, "h", "h_kv", "d_h", "rope"),
            tolerance=EXACT,
            sampler=f"(H, H_kv, d_h, RoPE) ∈ {VARIANTS}, d = H·d_h; as deficiency-positive otherwise",
            controls=(control(MERGED, contrast="operator", evaluate=merged_case_sides),)),
        Relation(
            name="orbit-same-function", lhs="max|f(g·θ) − f(θ)|", rel="==", rhs="0",
            evaluate=orbit_sides, sample=_sample_orbits, tolerance=ORBIT_TOL,
            controls=(control("A applied to W_Q with W_K left unchanged (not a symmetry)",
                              contrast="prediction",
                              evaluate=lambda case: orbit_sides(case, "query-only")),)),
    ),
    notes=("The merged parametrisation (each head's W_Q W_K^T and W_V W_O as free d×d matrices, d_h = d) "
           "has full Jacobian rank: the lack of identification is a property of the factored "
           "parametrisation, not of attention as a function class."),
),)
