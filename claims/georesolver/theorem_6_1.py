"""GeoResolver §6, Theorem 6.1 (HCC reconstruction error), the §6 quantiser as written (``operators.hcc``).
Per coordinate the rounding error is at most h = 1/(2^b − 1), so ‖u − û‖ can reach √d_h·h: the proof's ‖u − û‖
≤ 2·2^{−b} ignores the dimension, and so does the theorem."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import Claim, Clause, Kind, ProofStep, Reading, Relation, control, symbolic, tolerances

STATEMENT = (
    r"k = r\cdot u,\ \hat u=\frac{\mathrm{round}\left(\frac{u+1}{2}(2^b-1)\right)}{2^b-1}\cdot 2-1,\ "
    r"\hat r=\frac{\mathrm{round}(r\cdot 2^{b_r})}{2^{b_r}}:\quad "
    r"\|k-\tilde k\|_2^2\le 4(2^{-b}+2^{-b_r})."
)

CLAUSES = (Clause("bound", "The reconstruction error satisfies: ‖−~‖22≤4(2−b+2−br)."),)
PROOF = (
    ProofStep("direction", "For the directional component, the quantization error is bounded by: "
                           "‖−^‖2≤2⋅2−b."),
    ProofStep("covering", "This follows from the covering radius of the uniform grid on "
                          "[−1,1]dh−1[-1,1]^d_h-1 restricted to the sphere."),
    ProofStep("radius", "For the radius component: |r−r^|≤2−br,|r- r|≤ 2^-b_r, since the rounding error is "
                        "at most half the bin width."),
    ProofStep("triangle", "Combining via the triangle inequality: ‖r−r^^‖2≤r‖−^‖2+|r−r^|‖^‖2≤2⋅2−b+2−br."),
    ProofStep("squaring", "Squaring gives: ‖−~‖22≤(2⋅2−b+2−br)2≤4(2−b+2−br)."),
)
READING = ("For every d_h (tested 4 … 4096), bit widths b, b_r (tested 2 … 8) and every key k with "
           "‖k‖ < 1: the §6 quantiser as written (each coordinate of u rounded to 2^b levels, the "
           "radius to 2^{b_r} levels, top code clamped to fit b_r bits) reconstructs k̃ = r̂û with "
           "‖k − k̃‖² ≤ 4(2^{−b} + 2^{−b_r}).")
READING_WHY = ("the literal statement: the bound names no dimension, so it is claimed for every "
               "d_h; keys lie in the ball (r ∈ [0, 1)) as §6 says")
ALTERNATIVES = (Reading("dimension-aware",
                        "‖k − k̃‖² ≤ (√d_h·h + 2^{−b_r}(1 + √d_h·h))², h = 1/(2^b − 1): the bound the proof's "
                        "triangle inequality gives with the per-coordinate error h and ‖û‖ ≤ 1 + √d_h·h.",
                        "the proof's structure with its covering-radius step corrected for the dimension"),)

DIMS = (4, 16, 64, 256, 1024, 4096)
BITS = (2, 3, 4, 6, 8)
# Squared norms of differences of numbers in [−1, 1]: a sum of d_h rounded squares.
TOL = tolerances.Roundoff(condition="d_h (a sum of d_h squares of differences of O(1) numbers)")


def derivation():
    x, y = sp.symbols("x y", positive=True)  # x = 2^{-b}, y = 2^{-b_r}, both ≤ 1/2
    bb = sp.Symbol("b", positive=True, integer=True)
    h = 1 / (2**bb - 1)
    P = "proof"
    return [
        symbolic.exact("4(x + y) − (2x + y)² = 4x(1 − x − y) + y(4 − y), each term ≥ 0 for x + y ≤ 1 "
                       "(the squaring step, x = 2^{−b}, y = 2^{−b_r})",
                       4 * (x + y) - (2 * x + y) ** 2, 4 * x * (1 - x - y) + y * (4 - y), role=P,
                       step="squaring"),
        symbolic.holds("one coordinate's rounding error h = 1/(2^b − 1) exceeds 2^{−b}",
                       sp.StrictGreaterThan(h - 2**-bb, 0), role=P, step="covering",
                       note="the grid has 2^b − 1 steps of width 2/(2^b − 1) on [−1, 1]"),
        symbolic.exact("worst direction error over d_h coordinates at bin midpoints: ‖u − û‖ = √d_h·h, "
                       "vs the proof's 2·2^{−b} (d_h = 64, b = 4)",
                       sp.Integer(2) * sp.Integer(2) ** -4, sp.sqrt(64) * sp.Rational(1, 2**4 - 1),
                       role=P, step="covering",
                       note="√64/15 = 8/15 vs 1/8: the proof's covering-radius step has no "
                                    "dimension factor"),
    ]


def _quantities(case):
    """‖k − k̃‖², ‖k − k̃‖, ‖u − û‖, |r − r̂|, ‖û‖ and r of each key, quantised per (b, b_r) by operators.hcc."""
    k, b, b_r = case["k"], case["b"], case["b_r"]
    r = torch.linalg.vector_norm(k, dim=-1)
    u = k / r[:, None]
    q = {key: torch.empty_like(r) for key in ("err", "u_err", "r_err", "u_norm")} | {"r": r}
    for bits in b.unique().tolist():
        for rbits in b_r.unique().tolist():
            sel = (b == bits) & (b_r == rbits)
            if not bool(sel.any()):
                continue
            direction, radius = operators.hcc.hcc_quantize(k[sel], b=int(bits), b_r=int(rbits))
            u_hat = direction.to(k.dtype) / (2**bits - 1) * 2 - 1
            r_hat = radius.to(k.dtype) / 2**rbits
            q["err"][sel] = (k[sel] - r_hat[:, None] * u_hat).square().sum(-1)
            q["u_err"][sel] = torch.linalg.vector_norm(u[sel] - u_hat, dim=-1)
            q["r_err"][sel] = (r[sel] - r_hat).abs()
            q["u_norm"][sel] = torch.linalg.vector_norm(u_hat, dim=-1)
    return q | {"dist": q["err"].sqrt()}


def gap(lhs, rhs):
    """An evaluate: the quantity q[lhs] against rhs(q, 2^{−b}, 2^{−b_r}, h = 1/(2^b − 1), d_h), with the
    round-off tolerance of d_h squares."""
    def evaluate(case):
        k = case["k"]
        b, b_r = case["b"].to(k.dtype), case["b_r"].to(k.dtype)
        q = _quantities(case)
        return q[lhs], rhs(q, 2.0**-b, 2.0**-b_r, 1 / (2.0**b - 1), k.shape[-1]), TOL(k.shape[-1], k.dtype)

    return evaluate


def error_vs_bound(scale: float = 1.0):
    return gap("err", lambda q, x, y, h, d: scale * (4 * (x + y)))


def corrected(q, x, y, h, d):
    return (d**0.5 * h + y * (1 + d**0.5 * h)) ** 2


def sample(ctx, gen):
    """Per d_h: random keys (uniform direction, radius uniform on [0, 1)) and adversarial keys
    (every coordinate of u at a bin midpoint of the b-bit grid as nearly as the sphere allows:
    ±1/√d_h rounded to a midpoint, renormalised; radius 1 − 2^{−b_r−1} − tiny, the clamp's edge),
    each with b, b_r drawn from the bit grid."""
    batch = ctx.pick(quick=64, full=512)
    bits = torch.tensor(BITS, device=ctx.device)
    for d in DIMS:
        b = bits[torch.randint(len(BITS), (2 * batch,), generator=gen, device=ctx.device)]
        b_r = bits[torch.randint(len(BITS), (2 * batch,), generator=gen, device=ctx.device)]
        u = torch.randn(2 * batch, d, generator=gen, dtype=ctx.dtype, device=ctx.device)
        u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
        r = torch.rand(2 * batch, generator=gen, dtype=ctx.dtype, device=ctx.device)
        # adversarial half: coordinates at midpoints between grid levels
        adv = slice(batch, 2 * batch)
        top = (2.0 ** b[adv].to(ctx.dtype) - 1)[:, None]
        signs = torch.where(torch.rand(batch, d, generator=gen, device=ctx.device) < 0.5, -1.0, 1.0)
        level = torch.floor((signs.to(ctx.dtype) / d**0.5 + 1) / 2 * top).clamp(max=top - 1)
        mid = (level + 0.5) / top * 2 - 1
        # the middle bin is centred at 0: step one bin outwards, keeping the sign
        level = torch.where(mid == 0, level + signs.to(ctx.dtype), level)
        mid = (level + 0.5) / top * 2 - 1
        u[adv] = mid / torch.linalg.vector_norm(mid, dim=-1, keepdim=True)
        r[adv] = 1 - 2.0 ** (-b_r[adv].to(ctx.dtype) - 1) - 1e-9
        yield {"k": r[:, None] * u, "b": b, "b_r": b_r}


SAMPLER = (f"d_h ∈ {DIMS}; b, b_r uniform on {BITS}; per d_h 64 (full 512) random keys (uniform "
           "direction, r uniform on [0, 1)) and as many adversarial keys (coordinates of u at bin "
           "midpoints, r at the radius clamp's edge)")


def bound(name, lhs, rhs, evaluate, *controls, **kw):
    return Relation(name=name, lhs=lhs, rel="<=", rhs=rhs, evaluate=evaluate, sample=sample, tolerance=TOL,
                    sampler=SAMPLER, controls=controls, **kw)


def correction(evidence):
    ev = next(e for e in evidence if e["name"] == "reconstruction-error-bound")
    if ev["status"] != "disagrees":
        return None
    return ("‖k − k̃‖² ≤ (√d_h·h + 2^{−b_r}(1 + √d_h·h))², h = 1/(2^b − 1) (holds on every sampled key); "
            f"the dimension-free 4(2^{{−b}} + 2^{{−b_r}}) fails on {ev['violations']}/{ev['cases']} keys, "
            "the large-d_h ones.")


CLAIMS = (Claim(
    id="georesolver/theorem-6.1", label="Theorem 6.1 (HCC Reconstruction Error)", section="§6",
    statement=STATEMENT, kind=Kind.INEQUALITY, derivation=derivation, correction=correction, clauses=CLAUSES,
    proof_steps=PROOF, reading=READING, reading_why=READING_WHY, alternatives=ALTERNATIVES,
    checks=(
        bound("reconstruction-error-bound", "‖k − k̃‖²", "4(2^{−b} + 2^{−b_r})", error_vs_bound(),
              control("the bound divided by 64", contrast="prediction", evaluate=error_vs_bound(1 / 64),
                      rhs="4(2^{−b} + 2^{−b_r})/64")),
        bound("dimension-aware-bound", "‖k − k̃‖²", "(√d_h·h + 2^{−b_r}(1 + √d_h·h))², h = 1/(2^b − 1)",
              gap("err", corrected),
              control("the paper's dimension-free bound in its place", contrast="prediction",
                      evaluate=error_vs_bound(), rhs="4(2^{−b} + 2^{−b_r})"), reading="dimension-aware"),
        bound("direction-step", "‖u − û‖", "2·2^{−b}", gap("u_err", lambda q, x, *_: 2 * x), role="proof",
              step="direction"),
        bound("triangle-step", "‖k − k̃‖", "r‖u − û‖ + |r − r̂|‖û‖",
              gap("dist", lambda q, *_: q["r"] * q["u_err"] + q["r_err"] * q["u_norm"]),
              control("the radius term left out", contrast="prediction", rhs="r‖u − û‖",
                      evaluate=gap("dist", lambda q, *_: q["r"] * q["u_err"])), role="proof",
              step="triangle"),
        bound("unit-u-hat", "‖û‖", "1 (used to bound |r − r̂|‖û‖ by 2^{−b_r})",
              gap("u_norm", lambda q, *_: torch.ones_like(q["u_norm"])), role="proof", step="triangle"),
        bound("radius-step", "|r − r̂|", "2^{−b_r}", gap("r_err", lambda q, x, y, *_: y),
              control("a quarter of the bin width 2^{−b_r−2}", contrast="prediction", rhs="2^{−b_r−2}",
                      evaluate=gap("r_err", lambda q, x, y, *_: 0.25 * y)), role="proof", step="radius"),
    ),
    time_limit_s=60.0,
    notes=("The radius code round(r·2^{b_r}) reaches 2^{b_r} for r ≥ 1 − 2^{−b_r−1}, one level more "
           "than b_r bits hold; the cache clamps it (error ≤ 2^{−b_r}, the proof's radius bound). "
           "The proof also uses ‖û‖ ≤ 1, but û is not renormalised and ‖û‖ reaches 1 + √d_h·h."),
),)
