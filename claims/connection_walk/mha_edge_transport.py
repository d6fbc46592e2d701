"""connection-walk/mha-edge-transport: multi-head attention is one edge-dependent connection walk, its
transport the attention-gated mixture of the headwise transports."""

import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import Claim, Clause, Relation, control, symbolic, tolerances

from ._walks import CONDITION, N_TOKENS, PROOF_ABSENT, instances, walk_gap, weights

STATEMENT = (
    r"\text{Multi-head attention (MHA) is exactly a single edge-dependent connection walk whose "
    r"effective transport is an attention-gated mixture of headwise transports.}"
)
CLAUSES = (Clause("mha", "multi-head attention (MHA) is exactly a single edge-dependent connection walk "
                         "whose effective transport is an attention-gated mixture of headwise transports"),)
READING = (
    "For multi-head softmax attention MHA(X)_i = Σ_h Σ_j A^h_ij T_h x_j (T_h = (W_V^h W_O^h)^T, no biases), "
    "with the single nonnegative walk P_ij = Σ_h A^h_ij and the edge transport T_ij = Σ_h π^h_ij T_h, π^h_ij "
    "= A^h_ij/P_ij (gates nonnegative, summing to 1 over heads): MHA(X)_i = Σ_j P_ij T_ij x_j exactly, for "
    "every H ≥ 1, X and parameters. The walk's row sums are H (the normalisation P/H with transport H·T_ij "
    "is the same walk rescaled). Added by the suite: the sizes of the sampler; H = 1…16.")
READING_WHY = ("'attention-gated mixture' read as the convex combination of the headwise transports "
               "weighted by each head's share of the edge's attention, the one mixture that makes "
               "the walk single and nonnegative")

TOL = tolerances.Roundoff(condition=CONDITION + " + H (the gates' normalisation)",
                          scale="max Σ_h |X||W_V^h||W_O^h|")
GATE_TOL = tolerances.Roundoff(condition="H + 4 (a sum of H gates, each one division)")
HEADS = tuple(range(1, 17))
D_H = 1


def derivation():
    a = sp.symbols("a1:4", positive=True)  # A^h_ij on one edge, H = 3
    t = sp.symbols("t1:4", real=True)  # the headwise transports (scalars: d = 1 suffices per entry)
    walk = sum(a)
    gates = [ah / walk for ah in a]
    return [
        symbolic.exact("Σ_h A^h_ij T_h = P_ij·Σ_h π^h_ij T_h, P_ij = Σ_h A^h_ij, "
                       "π^h_ij = A^h_ij/P_ij (H = 3)",
                       sum(ah * th for ah, th in zip(a, t, strict=True)),
                       walk * sum(g * th for g, th in zip(gates, t, strict=True)), role="statement"),
        symbolic.exact("the gates are a convex combination: Σ_h π^h_ij = 1", sp.Integer(1), sum(gates),
                       role="statement"),
    ]


def walk_sides(case, gating="attention"):
    """max|MHA(X) − Σ_j P_ij T_ij x_j| against 0; ``gating="uniform"`` is the control's constant
    mixture T = (1/H)Σ_h T_h."""
    walk, transport, t_h = torch.func.vmap(operators.mha_connection)(
        case["x"], case["wq"], case["wk"], case["wv"], case["wo"])
    if gating == "uniform":
        transport = t_h.mean(1)[:, None, None].expand_as(transport)
    n, d, h = case["x"].shape[-2], case["x"].shape[-1], case["wq"].shape[1]
    return walk_gap(case, operators.connection_walk(case["x"], walk, transport, per_edge=True), TOL,
                    (n + d + case["wq"].shape[-1] + 8) * h + h)


def gate_sides(case, normalised=True):
    """max(|Σ_h π^h_ij − 1|, max(−π, 0), max(−P, 0)) against 0 (the control: the raw A^h as gates)."""
    a = weights(case)
    walk = a.sum(1)
    gates = a / walk[:, None] if normalised else a
    lhs = torch.stack([(gates.sum(1) - 1).abs().flatten(1).amax(1), (-gates).clamp(min=0).flatten(1).amax(1),
                       (-walk).clamp(min=0).flatten(1).amax(1)]).amax(0)
    return lhs, torch.zeros_like(lhs), GATE_TOL(a.shape[1] + 4, a.dtype)


def _sample(ctx, gen):
    draws = ctx.pick(quick=8, full=64)
    for h in HEADS:
        yield from instances(ctx, gen, h, D_H, draws)


SAMPLER = (f"H = 1…16 heads of size d_h = {D_H} (full profile the same with 64 draws), d = H·d_h, n ∈ "
           f"{N_TOKENS}, 8 draws each: X Gaussian, W ~ N(0, 1/d); float64")

CLAIMS = (Claim(
    id="connection-walk/mha-edge-transport", label="MHA is one edge-dependent connection walk",
    section="abstract", statement=STATEMENT, kind="identity", derivation=derivation, reading=READING,
    reading_why=READING_WHY, clauses=CLAUSES, proof_absent=PROOF_ABSENT,
    identity=("distributivity: Σ_h A^h_ij T_h = P_ij Σ_h (A^h_ij/P_ij) T_h with P_ij = Σ_h A^h_ij > 0 "
              "(softmax weights are positive)"),
    checks=(
        Relation(name="mha-equals-edge-walk", lhs="max|MHA(X) − Σ_j P_ij T_ij x_j|", rel="==", rhs="0",
                 evaluate=walk_sides, sample=_sample, tolerance=TOL, sampler=SAMPLER,
                 controls=(control("uniform gates: the constant transport (1/H)Σ_h T_h on every edge",
                                   contrast="prediction",
                                   evaluate=lambda case: walk_sides(case, "uniform")),)),
        Relation(name="gates-convex", lhs="max(|Σ_h π^h_ij − 1|, max(−π^h_ij, 0), max(−P_ij, 0))",
                 rel="==", rhs="0", evaluate=gate_sides, sample=_sample, tolerance=GATE_TOL,
                 sampler=SAMPLER,
                 # Unnormalised weights are no mixture for any operator: shown, not a contrast.
                 controls=(control("the raw head weights A^h_ij as gates (not normalised over heads)",
                                   contrast="setting",
                                   evaluate=lambda case: gate_sides(case, normalised=False)),)),
    ),
    notes=("For H = 1 the gates are 1 and the walk is SHA's (constant transport); for H ≥ 2 the transport "
           "depends on the edge through the gates, and a constant mixture fails (the uniform-gate control)."),
),)
