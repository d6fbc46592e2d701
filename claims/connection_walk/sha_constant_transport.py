"""connection-walk/sha-constant-transport: single-head attention is exactly a connection propagation
step with the attention matrix as a nonnegative walk and the constant transport T = (W_V W_O)^T."""

import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import Claim, Clause, Relation, control, symbolic, tolerances

from ._walks import CONDITION, N_TOKENS, PROOF_ABSENT, instances, walk_gap, weights

STATEMENT = (
    r"\text{We prove that single-head attention (SHA) is exactly a connection propagation step with "
    r"constant transport.}"
)
CLAUSES = (Clause("sha", "single-head attention (SHA) is exactly a connection propagation step with "
                         "constant transport"),)
READING = (
    "For single-head softmax attention SHA(X) = softmax(XW_Q(XW_K)^T/√d_h) X W_V W_O (rows x_i ∈ "
    "R^d): with the walk P = softmax(·) (nonnegative, row-stochastic) and the transport T = "
    "(W_V W_O)^T ∈ R^{d×d}, the same on every edge, SHA(X)_i = Σ_j P_ij T x_j for all X and all "
    "parameters (as column vectors). Added by the suite: no biases; the sampler's sizes.")
READING_WHY = ("'connection propagation step' read as the abstract defines it: messages aggregated "
               "by a nonnegative walk matrix, transported along each edge by a linear map")

TOL = tolerances.Roundoff(condition=CONDITION, scale="max Σ_h |X||W_V^h||W_O^h|")
WALK_TOL = tolerances.Roundoff(condition="n + 4 (a row sum of n softmax weights)")
D_HS, DRAWS = (1, 2, 4, 8), 64


def derivation():
    n, d, d_h = 2, 2, 2
    a = sp.Matrix(n, n, sp.symbols(f"a0:{n * n}", nonnegative=True))
    x = sp.Matrix(n, d, sp.symbols(f"x0:{n * d}", real=True))
    wv = sp.Matrix(d, d_h, sp.symbols(f"v0:{d * d_h}", real=True))
    wo = sp.Matrix(d_h, d, sp.symbols(f"o0:{d_h * d}", real=True))
    t = (wv * wo).T
    walk = sp.Matrix([[sum(a[i, j] * (t * x[j, :].T)[c] for j in range(n)) for c in range(d)]
                      for i in range(n)])
    s = sp.symbols("s0:2", real=True)
    return [
        symbolic.exact("A X W_V W_O = [Σ_j A_ij T x_j]_i with T = (W_V W_O)^T (n = d = d_h = 2, exact)",
                       sp.Integer(0), sum(sp.expand(e) ** 2 for e in (a * x * wv * wo - walk)),
                       role="statement"),
        symbolic.exact("the walk is stochastic: Σ_j softmax(s)_j = 1", sp.Integer(1),
                       sum(sp.exp(si) for si in s) / sum(sp.exp(si) for si in s), role="statement"),
    ]


def walk_sides(case, transposed=False):
    """max|SHA(X) − Σ_j A_ij T x_j| against 0 (``transposed``: the control's T^T)."""
    t = case["wv"][:, 0] @ case["wo"][:, 0]
    walk = operators.connection_walk(case["x"], weights(case)[:, 0], t if transposed else t.transpose(-1, -2),
                                     per_edge=False)
    return walk_gap(case, walk, TOL, case["x"].shape[-2] + case["x"].shape[-1] + case["wq"].shape[-1] + 8)


def stochastic_sides(case, raw=False):
    """max(|Σ_j A_ij − 1|, max(−A_ij, 0)) against 0 (``raw``: the control's unnormalised logits)."""
    if raw:
        q = torch.einsum("bnd,bde->bne", case["x"], case["wq"][:, 0])
        a = q @ torch.einsum("bnd,bde->bne", case["x"], case["wk"][:, 0]).transpose(-1, -2)
    else:
        a = weights(case)[:, 0]
    lhs = torch.maximum((a.sum(-1) - 1).abs().amax(-1), (-a).clamp(min=0).flatten(1).amax(1))
    return lhs, torch.zeros_like(lhs), WALK_TOL(a.shape[-1] + 4, a.dtype)


def _sample(ctx, gen):
    for d_h in D_HS:
        yield from instances(ctx, gen, 1, d_h, DRAWS)


SAMPLER = (f"H = 1, d = d_h ∈ {D_HS}, n ∈ {N_TOKENS}, {DRAWS} draws each: X Gaussian, W ~ N(0, 1/d); float64")

CLAIMS = (Claim(
    id="connection-walk/sha-constant-transport", label="SHA is a constant-transport connection step",
    section="abstract", statement=STATEMENT, kind="identity", derivation=derivation, reading=READING,
    reading_why=READING_WHY, clauses=CLAUSES, proof_absent=PROOF_ABSENT,
    identity="associativity: (A X)(W_V W_O) read row by row is Σ_j A_ij (W_V W_O)^T x_j",
    checks=(
        Relation(name="sha-equals-constant-walk", lhs="max|SHA(X) − Σ_j P_ij T x_j|", rel="==", rhs="0",
                 evaluate=walk_sides, sample=_sample, tolerance=TOL, sampler=SAMPLER,
                 controls=(control("the transport transposed, W_V W_O in place of (W_V W_O)^T",
                                   contrast="prediction",
                                   evaluate=lambda case: walk_sides(case, transposed=True)),)),
        Relation(name="walk-nonnegative-stochastic", lhs="max(|Σ_j P_ij − 1|, max(−P_ij, 0))", rel="==",
                 rhs="0", evaluate=stochastic_sides, sample=_sample, tolerance=WALK_TOL, sampler=SAMPLER,
                 # Raw logits are no walk for any operator: shown, not a contrast.
                 controls=(control("the raw logits XW_Q(XW_K)^T as the walk", contrast="setting",
                                   evaluate=lambda case: stochastic_sides(case, raw=True)),)),
    ),
    notes=("The identity is associativity: (A X)(W_V W_O) read row-wise. It holds for any d_h; the "
           "transport has rank ≤ d_h, so for d_h < d it is never an isometry."),
),)
