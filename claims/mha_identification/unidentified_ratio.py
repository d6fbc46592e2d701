"""mha-identification/unidentified-ratio: the ratio of unidentified to total parameters of multi-head
attention is 1/(2H). Measured as the rank deficiency of the parameter-to-function Jacobian
(``torch.func.jacfwd`` + SVD) beside the suite's exact count 2·H·d_h²."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit import symbolic, tolerances
from attnaudit.checks import Claim, Clause, Reading, Relation, control

from . import _jacobian as J

STATEMENT = (
    r"\text{The ratio of unidentified parameters to the total number of parameters scales like the "
    r"reciprocal of the number of heads } (1/2 \to 1/(2H))."
)
CLAUSES = (Clause("ratio", "The ratio of unidentified parameters to the total number of parameters scales "
                           "like the reciprocal of the number of heads"),)
READING = (
    "Multi-head scaled dot-product attention without biases, f(X) = Σ_h softmax(XW_Q^h(XW_K^h)^T/√d_h)"
    " XW_V^h W_O^h, with per-head W_Q^h, W_K^h, W_V^h ∈ R^{d×d_h}, W_O^h ∈ R^{d_h×d} and the "
    "standard split d_h = d/H (P = 4·d² parameters). 'Unidentified parameters' is read as the "
    "dimension of the set of parameters giving the same function, i.e. P − rank of the Jacobian "
    "of θ ↦ f at generic θ. Then (P − rank)/P = 1/(2H) exactly for every H ≥ 1 (1/2 at H = 1). "
    "Added by the suite: generic (Gaussian) parameters and inputs, the Jacobian taken on a finite "
    "batch of inputs tall enough to separate parameters (its rank can only under-count the "
    "function's), H = 1…16 at d_h = 1 and H = 1…8 at d_h = 2 (full profile).")

EXACT = tolerances.Exact("integer counts (rank by SVD with the threshold σ_max·max(rows, cols)·eps, "
                         "numpy's matrix_rank rule) and correctly rounded ratios of integers")
# (H, d_h) grids: d = H·d_h, the standard split of the model dimension among the heads.
QUICK_H = (1, 2, 3, 4, 5, 6, 7, 8, 16)
FULL = tuple((h, 1) for h in range(1, 17)) + tuple((h, 2) for h in range(1, 9))
# Head sizes other than d/H (d fixed): the count 2·H·d_h² holds for every d_h ≤ d.
OFF_SPLIT = ((1, 6, 2), (2, 6, 2), (3, 6, 2), (2, 5, 3), (1, 3, 1), (4, 4, 3))
FIXED_HEAD = "fixed-head-size"
FIXED_D, FIXED_D_H = 6, 2  # heads added at fixed d and d_h: H = 1, 2, 3


def derivation():
    h, d_h = sp.symbols("H d_h", positive=True, integer=True)
    hr, dhr = sp.symbols("H d_h", positive=True)
    d = h * d_h
    return [
        *J.invariance_steps(),
        symbolic.exact(
            "(2·H·d_h²)/(4·H·d·d_h) with d = H·d_h equals 1/(2H)",
            1 / (2 * h), (2 * h * d_h**2) / (4 * h * d * d_h), role="statement"),
        symbolic.exact(  # positive reals: SymPy decides a non-identity at rational points
            "(2·H·d_h²)/(4·H·d·d_h) with d and d_h fixed equals 1/(2H)",
            1 / (2 * hr), (2 * hr * dhr**2) / (4 * hr * sp.Symbol("d", positive=True) * dhr),
            role="statement", reading=FIXED_HEAD,
            note="at fixed d and d_h the ratio is d_h/(2d), the same for every H"),
    ]


def ratio_sides(case, predicted=lambda h: 1.0 / (2.0 * h)):
    """(total − rank)/total of the Jacobian against 1/(2H) (d = H·d_h unless the case gives d)."""
    lhs = torch.tensor([r["deficiency"] / r["total"] for r in J.measured(case)], dtype=torch.float64)
    return lhs, torch.tensor([predicted(int(h)) for h in case["h"]], dtype=torch.float64), 0.0


def count_sides(case, per_head=lambda d_h: 2 * d_h * d_h):
    """total − rank against the derived H·2d_h² (any d_h ≤ d)."""
    pairs = zip(case["h"].tolist(), case["d_h"].tolist(), strict=True)
    rhs = torch.tensor([float(h * per_head(dh)) for h, dh in pairs], dtype=torch.float64)
    return J.deficiencies(case), rhs, 0.0


SIZES = ("random parameters N(0, 1/d) and Gaussian inputs (B sequences of 6 tokens, B·6·d ≥ 1.2·P "
         "Jacobian rows), float64, seeded per case")

CLAIMS = (Claim(
    id="mha-identification/unidentified-ratio", label="Unidentified-parameter ratio 1/(2H)", reading=READING,
    section="abstract", statement=STATEMENT, clauses=CLAUSES, kind="identity", derivation=derivation,
    reading_why="'scales like 1/(2H)' with the abstract's own endpoints 1/2 → 1/(2H) is the exact "
                "ratio for the standard split d_h = d/H; the Jacobian rank is the local count of "
                "identified directions",
    proof_absent=J.PROOF_ABSENT,
    alternatives=(Reading(FIXED_HEAD, f"Heads added at a fixed model dimension d and head size d_h (here d = "
                                      f"{FIXED_D}, d_h = {FIXED_D_H}, H = 1, 2, 3): (P − rank J)/P = 1/(2H).",
                          "the abstract does not say that d_h = d/H; 'models with more heads' could "
                          "also mean more heads of the same size"),),
    checks=(
        Relation(
            name="ratio-equals-1-over-2h", lhs="(P − rank J)/P", rel="==", rhs="1/(2H)",
            evaluate=ratio_sides, sample=J.sample_rows(tuple((h, 1) for h in QUICK_H), "h", "d_h", full=FULL),
            tolerance=EXACT,
            sampler=f"H ∈ {QUICK_H} at d_h = 1 (quick); H = 1…16 at d_h = 1 and 1…8 at d_h = 2 (full); "
                    f"d = H·d_h; {SIZES}",
            controls=(control("the ratio 1/H (a whole GL(d_h) per head less)", contrast="prediction",
                              evaluate=lambda case: ratio_sides(case, lambda h: 1.0 / h)),)),
        Relation(
            name="deficiency-equals-2hdh2", lhs="P − rank J", rel="==", rhs="H·2·d_h²",
            evaluate=count_sides, sample=J.sample_rows(OFF_SPLIT, "h", "d", "d_h"), tolerance=EXACT,
            sampler=f"(H, d, d_h) ∈ {OFF_SPLIT} (head sizes other than d/H); {SIZES}",
            controls=(control("one GL(d_h) per head (H·d_h²: the value–output symmetry forgotten)",
                              contrast="prediction",
                              evaluate=lambda case: count_sides(case, lambda d_h: d_h * d_h)),)),
        Relation(
            name="ratio-at-fixed-head-size", lhs="(P − rank J)/P", rel="==", rhs="1/(2H)",
            evaluate=ratio_sides, tolerance=EXACT, reading=FIXED_HEAD,
            sample=J.sample_rows([(h, FIXED_D, FIXED_D_H) for h in (1, 2, 3)], "h", "d", "d_h"),
            sampler=f"H = 1, 2, 3 at d = {FIXED_D}, d_h = {FIXED_D_H}; {SIZES}"),
    ),
    notes=("The derived count is H·2d_h²: per head W_Q → W_Q A, W_K → W_K A^{-T} and W_V → W_V B, "
           "W_O → B^{-1} W_O (A, B ∈ GL(d_h)); the SymPy rank of the product map shows these are all "
           "the directions of each factor pair, and the Jacobian rank shows that softmax and the sum "
           "over heads add no further invariance. With d fixed and H varied the ratio is d_h/(2d): it "
           "is 1/(2H) only because d_h = d/H."),
),)
