"""GeoResolver §8.2 (Cross-Geometric Mapping): the three maps of prototype centroids onto the unit
sphere, φ_C a two-layer tanh MLP (§8.2 says only "MLP_θ")."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import Claim, Clause, Relation, control, sampling, symbolic, tolerances

STATEMENT = (
    r"\text{Three methods map prototype centroids to the sphere: } \phi_A(c)=c/\|c\|,\quad "
    r"\phi_B(c)=\Bigl(\frac{2c}{1+\|c\|^2},\frac{1-\|c\|^2}{1+\|c\|^2}\Bigr),\quad "
    r"\phi_C(c)=\mathrm{MLP}_\theta(c)/\|\mathrm{MLP}_\theta(c)\|.")

# "Three methods map prototype centroids to the sphere:" followed by the three maps, one clause each.
CLAUSES = (
    Clause("phi_a", "Norm Normalization: ϕA()=/‖ _A(c)=c/\\|c\\|"),
    Clause("phi_b", "Stereographic Projection: ϕB()=(21+‖2,1−‖21+‖2) _B(c)=( 2c1+\\|c\\|^2, "
                    "1-\\|c\\|^21+\\|c\\|^2)"),
    Clause("phi_c", "Learnable Mapping: ϕC()=MLPθ()/‖MLPθ()‖ _C(c)=MLP_θ(c)/\\|MLP_θ(c)\\|"),
)

READING = ("Each map sends every centroid c ∈ ℝ^d at which it is defined onto a unit sphere: ‖φ_A(c)‖₂ = 1 "
           "for c ≠ 0; ‖φ_B(c)‖₂ = 1 for every c (φ_B: ℝ^d → S^d ⊂ ℝ^{d+1}, the inverse stereographic "
           "projection); ‖φ_C(c)‖₂ = 1 wherever MLP_θ(c) ≠ 0, for any parameters θ (here a two-layer tanh "
           "MLP with random weights).")
READING_WHY = ("the literal statement; 'the sphere' is the unit sphere of the map's codomain, and φ_A, φ_C "
               "are undefined where they divide by 0")

DIMS = (2, 8, 32)
HIDDEN, D_OUT = 16, 8
# ‖φ(c)‖ is a d-term sum of squares and a square root (≤ (d+2)u) of a map correct to a few ulps.
NORM_TOL = tolerances.Roundoff(condition="d + 8 (the norm's d-term sum of squares and square root, "
                                         "the map's own few rounded operations)")


def _norm_gap(phi):
    def evaluate(case):
        out = phi(case)
        lhs = torch.linalg.vector_norm(out, dim=-1)
        return lhs, torch.ones_like(lhs), torch.full_like(lhs, NORM_TOL(out.shape[-1] + 8, lhs.dtype))

    return evaluate


def _stereo_wrong(case):  # control: 1 + ‖c‖ in place of 1 + ‖c‖² in the denominators
    c = case["c"]
    n = c.norm(dim=-1, keepdim=True)
    return torch.cat([2 * c, 1 - n.square()], dim=-1) / (1 + n)


def _mlp(case, normalise=True):
    args = (case["c"], case["w1"][0], case["b1"][0], case["w2"][0], case["b2"][0])
    if normalise:
        return operators.sphere_mlp_map(*args)
    c, w1, b1, w2, b2 = args
    return torch.tanh(c @ w1.T + b1) @ w2.T + b2


def _sample(mlp):
    """Per d in DIMS: Gaussian directions times a radius log-uniform in [1e-6, 1e6] (the whole float64-safe
    range of ‖c‖² with room), 1000 centroids; with ``mlp``, one random MLP per batch (weights N(0, 1/fan-in),
    biases N(0, 1), hidden 16, output 8), its parameters stored once per batch (leading dim 1)."""

    def sample(ctx, gen):
        batch = ctx.pick(quick=1000, full=20000)
        for d in DIMS:
            case = {"c": sampling.unit_vectors(ctx, gen, batch, d)
                    * sampling.log_uniform(ctx, gen, batch, 1, low=1e-6, high=1e6)}
            if mlp:
                case |= {"w1": sampling.gaussian(ctx, gen, 1, HIDDEN, d, scale=d**-0.5),
                         "b1": sampling.gaussian(ctx, gen, 1, HIDDEN),
                         "w2": sampling.gaussian(ctx, gen, 1, D_OUT, HIDDEN, scale=HIDDEN**-0.5),
                         "b2": sampling.gaussian(ctx, gen, 1, D_OUT)}
            yield case

    return sample


def derivation():
    c = sp.Matrix(sp.symbols("c1:4", real=True))
    m = sp.Matrix(sp.symbols("m1:4", real=True))
    n2 = c.dot(c)
    phi_b = sp.Matrix([*(2 * c / (1 + n2)), (1 - n2) / (1 + n2)])
    phi_a = c / sp.sqrt(n2)
    return [
        symbolic.exact("‖φ_B(c)‖² = 1 for every c ∈ ℝ³ (so φ_B: ℝ^d → S^d ⊂ ℝ^{d+1})", sp.Integer(1),
                       sp.simplify(phi_b.dot(phi_b)), role="statement", clause="phi_b",
                       note="(4‖c‖² + (1 − ‖c‖²)²) = (1 + ‖c‖²)²; the image has one more coordinate"),
        symbolic.exact("‖φ_A(c)‖² = 1 for c ≠ 0", sp.Integer(1), sp.simplify(phi_a.dot(phi_a)),
                       role="statement", clause="phi_a", note="φ_A(0) is undefined (the operator raises)"),
        symbolic.exact("‖φ_C(c)‖² = 1 where m = MLP_θ(c) ≠ 0 (φ_A applied to m)", sp.Integer(1),
                       sp.simplify((m / sp.sqrt(m.dot(m))).dot(m / sp.sqrt(m.dot(m)))), role="statement",
                       clause="phi_c"),
    ]


def _relation(name, phi, wrong, variant, mlp=False):
    return Relation(name=name, lhs=f"‖{name.split('-')[0]}(c)‖₂", rel="==", rhs="1", evaluate=_norm_gap(phi),
                    sample=_sample(mlp), tolerance=NORM_TOL, clause=name.split("-")[0],
                    sampler=CENTROIDS + ("; one random MLP (16 hidden, 8 out) per d" if mlp else ""),
                    controls=(control(variant, contrast="operator", evaluate=_norm_gap(wrong)),))


CENTROIDS = "d ∈ {2, 8, 32}, Gaussian directions, radius log-uniform in [1e-6, 1e6]"

CLAIM = Claim(
    id="georesolver/section-8.2/maps", label="§8.2 (Cross-Geometric Mapping), the three maps onto the sphere",
    section="§8.2", statement=STATEMENT, clauses=CLAUSES, reading=READING, reading_why=READING_WHY,
    identity=("φ_A and φ_C divide a vector by its own 2-norm and φ_B is the inverse stereographic "
              "projection: each lands on a unit sphere by construction"),
    kind="identity", derivation=derivation, time_limit_s=30.0,
    checks=(
        _relation("phi_a-norm", lambda case: operators.sphere_normalize(case["c"]),
                  lambda case: case["c"] / case["c"].abs().sum(dim=-1, keepdim=True),
                  "the 1-norm in place of ‖c‖₂"),
        _relation("phi_b-norm", lambda case: operators.sphere_stereographic(case["c"]), _stereo_wrong,
                  "1 + ‖c‖ in place of 1 + ‖c‖² in the denominators"),
        _relation("phi_c-norm", _mlp, lambda case: _mlp(case, normalise=False),
                  "the MLP output without its normalisation", mlp=True),
    ),
    proof_absent="§8.2 lists the three maps without an argument that they land on the sphere",
    notes=("φ_B maps ℝ^d into S^d ⊂ ℝ^{d+1} (one coordinate more than the centroid), φ_A and φ_C into "
           "S^{d−1} and S^{d_out−1}; φ_A(0) and φ_C where the MLP output vanishes are undefined (the "
           "operators raise a ValueError there). The statement says nothing about injectivity or distortion, "
           "and nothing of that is tested."),
)
CLAIMS = (CLAIM,)
