"""mha-identification/rope-gqa: RoPE and grouped-query attention raise the ratio of identified to
total parameters. The suite derives the invariance counts (RoPE: W_Q → W_Q A, W_K → W_K A^{-T} only
for A commuting with every position's rotation, dimension d_h instead of d_h²; GQA: one GL(d_h)
pair per key-value group instead of per head) and measures them as Jacobian rank deficiencies."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit import symbolic, tolerances
from attnaudit.checks import Claim, Clause, Relation, control

from . import _jacobian as J

STATEMENT = (
    r"\text{We also touch on modern improvements to transformers including RoPE and GQA from this "
    r"perspective, illustrating how those as well can improve the ratio of ``meaningful'' parameters "
    r"to all parameters.}"
)
CLAUSES = (Clause("improve", "including RoPE and GQA from this perspective, illustrating how those as well "
                             "can improve the ratio of ``meaningful'' parameters to all parameters"),)
READING = (
    "For multi-head softmax attention without biases (d = H·d_h), the fraction rank J/P of "
    "identified parameters (J the Jacobian of θ ↦ f at generic θ) is strictly larger (a) with "
    "RoPE (even d_h ≥ 2, positions 0…n−1, base 10⁴) than without, the unidentified count falling "
    "from H·2d_h² to H·(d_h + d_h²); and (b) with grouped-query attention with H_kv < H key-value "
    "heads than with H_kv = H, the count falling to 2·H_kv·d_h² of (2H + 2H_kv)·d·d_h "
    "parameters. Added by the suite: generic Gaussian parameters and inputs; the sizes listed.")

EXACT = tolerances.Exact("integer counts (rank by SVD, threshold σ_max·max(rows, cols)·eps) and their "
                         "ratios; a strict rise between ratios p/P and p'/P' is at least 1/(P·P')")
# (H, d_h) with d = H·d_h; RoPE needs even d_h.
ROPE_QUICK = ((1, 2), (2, 2), (4, 2), (1, 4), (2, 4))
ROPE_FULL = ROPE_QUICK + ((3, 2), (6, 2), (8, 2), (4, 4), (2, 6))
# (H, H_kv, d_h): H_kv divides H, H_kv < H.
GQA_QUICK = ((2, 1, 1), (4, 1, 1), (4, 2, 1), (8, 2, 1), (8, 4, 1), (4, 2, 2))
GQA_FULL = GQA_QUICK + ((16, 4, 1), (16, 8, 1), (8, 1, 2), (6, 3, 2))


def derivation():
    a, b, c, e, th = sp.symbols("a b c e theta", real=True)
    rot = sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]])
    commuting = sp.Matrix([[a, -b], [b, a]])
    general = sp.Matrix([[a, b], [c, e]])
    at_third = rot.subs(th, sp.pi / 3)  # rank of the linear map A ↦ [A, R] (4 entries in 4 unknowns)
    commutator_rank = (general * at_third - at_third * general).reshape(4, 1).jacobian([a, b, c, e]).rank(
        simplify=True)
    h, hkv, d_h = sp.symbols("H H_kv d_h", positive=True, integer=True)
    d = h * d_h
    mha = 2 * h * d_h**2 / (4 * h * d * d_h)
    rope = h * (d_h + d_h**2) / (4 * h * d * d_h)
    gqa = 2 * hkv * d_h**2 / ((2 * h + 2 * hkv) * d * d_h)
    return [
        symbolic.exact("A = aI + bJ commutes with every 2×2 rotation R(θ)", sp.zeros(2, 2).norm(),
                       sp.simplify((commuting * rot - rot * commuting).norm()), role="statement"),
        symbolic.exact("the 2×2 matrices commuting with R(π/3) form a 2-dimensional space (4 − rank of "
                       "A ↦ [A, R] at θ = π/3, exact): with RoPE, dim d_h per head, not d_h²",
                       sp.Integer(2), 4 - commutator_rank, role="statement"),
        symbolic.holds("unidentified ratio with RoPE (d_h + d_h²)/(4d·d_h) < 2d_h²/(4d·d_h) for d_h ≥ 2",
                       sp.StrictLessThan(rope.subs(d_h, d_h + 1), mha.subs(d_h, d_h + 1)), role="statement"),
        symbolic.holds("unidentified ratio with GQA 2H_kv·d_h²/((2H + 2H_kv)d·d_h) < 1/(2H) for H_kv < H",
                       sp.StrictLessThan(gqa.subs(h, hkv + h), mha.subs(h, hkv + h)), role="statement"),
    ]


def rope_count_sides(case, rope_count=True):
    """Deficiency with RoPE against the derived H·(d_h + d_h²)."""
    qk = case["d_h"] if rope_count else case["d_h"] ** 2
    return J.deficiencies(case, rope=True), (case["h"] * (qk + case["d_h"] ** 2)).double(), 0.0


def gqa_count_sides(case, groups=True):
    """Deficiency with GQA against the derived 2·H_kv·d_h²."""
    heads = case["h_kv"] if groups else case["h"]
    return J.deficiencies(case), (2 * heads * case["d_h"] ** 2).double(), 0.0


def raise_sides(case, **variant):
    """rank/P of the variant (``variant`` fixed on top of the case) against plain MHA's rank/P plus the
    least strict step 1/(P·P')."""
    lhs, rhs = [], []
    for v, p in zip(J.measured(case, **variant), J.measured(case, rope=False, h_kv=None), strict=True):
        lhs.append(v["rank"] / v["total"])
        rhs.append(p["rank"] / p["total"] + 1.0 / (v["total"] * p["total"]))
    return torch.tensor(lhs, dtype=torch.float64), torch.tensor(rhs, dtype=torch.float64), 0.0


SIZES = ("d = H·d_h; Gaussian parameters N(0, 1/d), ≥ 8 Gaussian sequences of 6 tokens (≥ 1.2·P Jacobian "
         "rows), float64; RoPE base 10⁴, positions 0…5")
ROPE_SAMPLER = f"(H, d_h) ∈ {ROPE_QUICK} (full adds {ROPE_FULL[len(ROPE_QUICK):]}); {SIZES}"
GQA_SAMPLER = f"(H, H_kv, d_h) ∈ {GQA_QUICK} (full adds {GQA_FULL[len(GQA_QUICK):]}); {SIZES}"
ROPE_CASES = J.sample_rows(ROPE_QUICK, "h", "d_h", full=ROPE_FULL)
GQA_CASES = J.sample_rows(GQA_QUICK, "h", "h_kv", "d_h", full=GQA_FULL)

CLAIMS = (Claim(
    id="mha-identification/rope-gqa", label="RoPE and GQA raise the identified ratio", section="abstract",
    statement=STATEMENT, clauses=CLAUSES, kind="identity", derivation=derivation, reading=READING,
    reading_why="'improve the ratio of meaningful parameters to all parameters' read as a strict rise "
                "of rank/P for equal H, d, d_h; the counts are the suite's derivation, the abstract "
                "gives none",
    proof_absent=J.PROOF_ABSENT,
    checks=(
        Relation(name="rope-deficiency-count", lhs="P − rank J (RoPE)", rel="==", rhs="H·(d_h + d_h²)",
                 evaluate=rope_count_sides, sample=ROPE_CASES, tolerance=EXACT, sampler=ROPE_SAMPLER,
                 controls=(control("the count without RoPE, H·2d_h²", contrast="prediction",
                                   evaluate=lambda case: rope_count_sides(case, rope_count=False)),)),
        Relation(name="rope-raises-identified-ratio", lhs="rank J/P (RoPE)", rel=">=",
                 rhs="rank J/P (no RoPE) + 1/P²", evaluate=lambda case: raise_sides(case, rope=True),
                 sample=ROPE_CASES, tolerance=EXACT, sampler=ROPE_SAMPLER,
                 # A variant compared with itself fails for any operator: shown, not a contrast.
                 controls=(control("RoPE switched off in the variant (plain MHA against itself)",
                                   contrast="setting",
                                   evaluate=lambda case: raise_sides(case, rope=False)),)),
        Relation(name="gqa-deficiency-count", lhs="P − rank J (GQA)", rel="==", rhs="2·H_kv·d_h²",
                 evaluate=gqa_count_sides, sample=GQA_CASES, tolerance=EXACT, sampler=GQA_SAMPLER,
                 controls=(control("the count per query head, 2·H·d_h²", contrast="prediction",
                                   evaluate=lambda case: gqa_count_sides(case, groups=False)),)),
        Relation(name="gqa-raises-identified-ratio", lhs="rank J/P (GQA)", rel=">=",
                 rhs="rank J/P (MHA) + 1/(P·P')", evaluate=raise_sides, sample=GQA_CASES,
                 tolerance=EXACT, sampler=GQA_SAMPLER,
                 controls=(control("H_kv = H in the variant (plain MHA against itself)", contrast="setting",
                                   evaluate=lambda case: raise_sides(case, h_kv=None)),)),
    ),
    notes=("Unidentified ratios (d = H·d_h): MHA 1/(2H); RoPE (1 + d_h)/(4H·d_h) = 1/(4H) + 1/(4d); "
           "GQA H_kv/(H(H + H_kv)), e.g. multi-query (H_kv = 1) 1/(H(H+1)). RoPE removes only the "
           "query–key symmetry (down to the commutant of the rotations, a complex scalar per frequency "
           "pair); the value–output GL(d_h) per head stays. GQA also lowers P itself."),
),)
