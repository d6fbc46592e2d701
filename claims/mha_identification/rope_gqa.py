"""mha-identification/rope-gqa: RoPE and grouped-query attention raise the ratio of identified to
total parameters. The suite derives the invariance counts (RoPE: W_Q → W_Q A, W_K → W_K A^{-T} only
for A commuting with every position's rotation, dimension d_h instead of d_h²; GQA: one GL(d_h)
pair per key-value group instead of per head) and measures them as Jacobian rank deficiencies."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit.checks import Claim, Clause, Kind, Relation, control, symbolic, tolerances

from ._derive import PROOF_ABSENT

STATEMENT = (
    r"\text{We also touch on modern improvements to transformers including RoPE and GQA from this "
    r"perspective, illustrating how those as well can improve the ratio of ``meaningful'' parameters "
    r"to all parameters.}"
)

EXACT = tolerances.Exact("integer counts (rank by SVD, threshold σ_max·max(rows, cols)·eps) and their "
                         "ratios; a strict rise between ratios p/P and p'/P' is at least 1/(P·P')")
# (H, d_h) with d = H·d_h; RoPE needs even d_h.
ROPE_QUICK = ((1, 2), (2, 2), (4, 2), (1, 4), (2, 4))
ROPE_FULL = ROPE_QUICK + ((3, 2), (6, 2), (8, 2), (4, 4), (2, 6))
# (H, H_kv, d_h): H_kv divides H, H_kv < H.
GQA_QUICK = ((2, 1, 1), (4, 1, 1), (4, 2, 1), (8, 2, 1), (8, 4, 1), (4, 2, 2))
GQA_FULL = GQA_QUICK + ((16, 4, 1), (16, 8, 1), (8, 1, 2), (6, 3, 2))


def _commutator_rank(general, rot, unknowns):
    """Rank of the linear map A ↦ [A, R] (4 entries in the 4 unknowns of A), exact."""
    return (general * rot - rot * general).reshape(4, 1).jacobian(unknowns).rank(simplify=True)


def derivation():
    a, b, c, e, th = sp.symbols("a b c e theta", real=True)
    rot = sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]])
    commuting = sp.Matrix([[a, -b], [b, a]])
    general = sp.Matrix([[a, b], [c, e]])
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
                       sp.Integer(2), 4 - _commutator_rank(general, rot.subs(th, sp.pi / 3), [a, b, c, e]),
                       role="statement"),
        symbolic.holds("unidentified ratio with RoPE (d_h + d_h²)/(4d·d_h) < 2d_h²/(4d·d_h) for d_h ≥ 2",
                       sp.StrictLessThan(rope.subs(d_h, d_h + 1), mha.subs(d_h, d_h + 1)), role="statement"),
        symbolic.holds("unidentified ratio with GQA 2H_kv·d_h²/((2H + 2H_kv)d·d_h) < 1/(2H) for H_kv < H",
                       sp.StrictLessThan(gqa.subs(h, hkv + h), mha.subs(h, hkv + h)), role="statement"),
    ]


def _identified(m):
    return m["rank"] / m["total"], m["total"]


def _rope_rows(case, rope=True):
    from . import _jacobian as J
    return [J.measure(int(h), int(h) * int(dh), int(dh), rope=rope, seed=int(s))
            for h, dh, s in zip(case["h"], case["d_h"], case["seed"], strict=True)]


def _gqa_rows(case, grouped=True):
    from . import _jacobian as J
    return [J.measure(int(h), int(h) * int(dh), int(dh), h_kv=int(hk) if grouped else None, seed=int(s))
            for h, hk, dh, s in zip(case["h"], case["h_kv"], case["d_h"], case["seed"], strict=True)]


def rope_count_sides(case, rope_count=True):
    """Deficiency with RoPE against the derived H·(d_h + d_h²)."""
    lhs = torch.tensor([float(m["deficiency"]) for m in _rope_rows(case)], dtype=torch.float64)
    qk = case["d_h"] if rope_count else case["d_h"] ** 2
    return lhs, (case["h"] * (qk + case["d_h"] ** 2)).double(), torch.zeros_like(lhs)


def gqa_count_sides(case, groups=True):
    """Deficiency with GQA against the derived 2·H_kv·d_h²."""
    lhs = torch.tensor([float(m["deficiency"]) for m in _gqa_rows(case)], dtype=torch.float64)
    heads = case["h_kv"] if groups else case["h"]
    return lhs, (2 * heads * case["d_h"] ** 2).double(), torch.zeros_like(lhs)


def _raise_sides(variant, plain):
    lhs, rhs = [], []
    for v, p in zip(variant, plain, strict=True):
        (rv, tv), (rp, tp) = _identified(v), _identified(p)
        lhs.append(rv)
        rhs.append(rp + 1.0 / (tv * tp))
    return torch.tensor(lhs, dtype=torch.float64), torch.tensor(rhs, dtype=torch.float64)


def rope_raise_sides(case, with_rope=True):
    """rank/P with RoPE against rank/P without it plus the least strict step 1/P²."""
    lhs, rhs = _raise_sides(_rope_rows(case, rope=with_rope), _rope_rows(case, rope=False))
    return lhs, rhs, torch.zeros_like(lhs)


def gqa_raise_sides(case, grouped=True):
    """rank/P with H_kv key-value groups against plain MHA's plus the least strict step 1/(P·P')."""
    lhs, rhs = _raise_sides(_gqa_rows(case, grouped=grouped), _gqa_rows(case, grouped=False))
    return lhs, rhs, torch.zeros_like(lhs)


def _sample_rope(ctx, gen):
    grid = ctx.pick(quick=ROPE_QUICK, full=ROPE_FULL)
    yield {"h": torch.tensor([g[0] for g in grid]), "d_h": torch.tensor([g[1] for g in grid]),
           "seed": torch.randint(0, 2**31 - 1, (len(grid),), generator=gen, device=gen.device).cpu()}


def _sample_gqa(ctx, gen):
    grid = ctx.pick(quick=GQA_QUICK, full=GQA_FULL)
    yield {"h": torch.tensor([g[0] for g in grid]), "h_kv": torch.tensor([g[1] for g in grid]),
           "d_h": torch.tensor([g[2] for g in grid]),
           "seed": torch.randint(0, 2**31 - 1, (len(grid),), generator=gen, device=gen.device).cpu()}


SIZES = ("d = H·d_h; Gaussian parameters N(0, 1/d), ≥ 8 Gaussian sequences of 6 tokens (≥ 1.2·P Jacobian "
         "rows), float64; RoPE base 10⁴, positions 0…5")
ROPE_SAMPLER = f"(H, d_h) ∈ {ROPE_QUICK} (full adds {ROPE_FULL[len(ROPE_QUICK):]}); {SIZES}"
GQA_SAMPLER = f"(H, H_kv, d_h) ∈ {GQA_QUICK} (full adds {GQA_FULL[len(GQA_QUICK):]}); {SIZES}"

CLAIMS = (Claim(
    id="mha-identification/rope-gqa", label="RoPE and GQA raise the identified ratio", section="abstract",
    statement=STATEMENT, kind=Kind.IDENTITY, derivation=derivation,
    reading=(
        "For multi-head softmax attention without biases (d = H·d_h), the fraction rank J/P of "
        "identified parameters (J the Jacobian of θ ↦ f at generic θ) is strictly larger (a) with "
        "RoPE (even d_h ≥ 2, positions 0…n−1, base 10⁴) than without, the unidentified count falling "
        "from H·2d_h² to H·(d_h + d_h²); and (b) with grouped-query attention with H_kv < H key-value "
        "heads than with H_kv = H, the count falling to 2·H_kv·d_h² of (2H + 2H_kv)·d·d_h "
        "parameters. Added by the suite: generic Gaussian parameters and inputs; the sizes listed."),
    reading_why="'improve the ratio of meaningful parameters to all parameters' read as a strict rise "
                "of rank/P for equal H, d, d_h; the counts are the suite's derivation, the abstract "
                "gives none",
    clauses=(Clause("improve", "including RoPE and GQA from this perspective, illustrating how those as well "
                               "can improve the ratio of ``meaningful'' parameters to all parameters"),),
    proof_absent=PROOF_ABSENT,
    checks=(
        Relation(name="rope-deficiency-count", lhs="P − rank J (RoPE)", rel="==", rhs="H·(d_h + d_h²)",
                 evaluate=rope_count_sides, sample=_sample_rope, tolerance=EXACT, sampler=ROPE_SAMPLER,
                 controls=(control("the count without RoPE, H·2d_h²", contrast="prediction",
                                   evaluate=lambda case: rope_count_sides(case, rope_count=False)),)),
        Relation(name="rope-raises-identified-ratio", lhs="rank J/P (RoPE)", rel=">=",
                 rhs="rank J/P (no RoPE) + 1/P²", evaluate=rope_raise_sides, sample=_sample_rope,
                 tolerance=EXACT, sampler=ROPE_SAMPLER,
                 # A variant compared with itself fails for any operator: shown, not a contrast.
                 controls=(control("RoPE switched off in the variant (plain MHA against itself)",
                                   contrast="setting",
                                   evaluate=lambda case: rope_raise_sides(case, with_rope=False)),)),
        Relation(name="gqa-deficiency-count", lhs="P − rank J (GQA)", rel="==", rhs="2·H_kv·d_h²",
                 evaluate=gqa_count_sides, sample=_sample_gqa, tolerance=EXACT, sampler=GQA_SAMPLER,
                 controls=(control("the count per query head, 2·H·d_h²", contrast="prediction",
                                   evaluate=lambda case: gqa_count_sides(case, groups=False)),)),
        Relation(name="gqa-raises-identified-ratio", lhs="rank J/P (GQA)", rel=">=",
                 rhs="rank J/P (MHA) + 1/(P·P')", evaluate=gqa_raise_sides, sample=_sample_gqa,
                 tolerance=EXACT, sampler=GQA_SAMPLER,
                 controls=(control("H_kv = H in the variant (plain MHA against itself)", contrast="setting",
                                   evaluate=lambda case: gqa_raise_sides(case, grouped=False)),)),
    ),
    notes=("Unidentified ratios (d = H·d_h): MHA 1/(2H); RoPE (1 + d_h)/(4H·d_h) = 1/(4H) + 1/(4d); "
           "GQA H_kv/(H(H + H_kv)), e.g. multi-query (H_kv = 1) 1/(H(H+1)). RoPE removes only the "
           "query–key symmetry (down to the commutant of the rotations, a complex scalar per frequency "
           "pair); the value–output GL(d_h) per head stays. GQA also lowers P itself."),
),)
