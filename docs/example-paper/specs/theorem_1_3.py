"""Theorem 1.3 of softmax-note: softmax-note.tex, line 33 (§1 Softmax weights).

The stub 'attnaudit init' wrote, with its reading, derivation and check written in
(docs/writing-a-claim.md, part 2).
"""

import sympy as sp
import torch

from attnaudit import Claim, Clause, ProofStep, Relation, Use, control, symbolic, tolerances

STATEMENT = r"For every $n \ge 1$ and every $z \in \R^n$, $\max_i \softmax(z)_i \ge 1/n$."

CLAUSES = (Clause("clause-1", STATEMENT),)

PROOF = (
    ProofStep("step-1", r"By Lemma~\ref{lem:shift} we may assume that $\max_i z_i = 0$."),
    ProofStep("step-2", r"The $n$ weights are positive and sum to one, so the largest of them is at "
                        r"least their mean, $1/n$."),
)

USES = (Use("softmax-note/lemma-1.2", PROOF[0].quote),)

# the largest weight against 1/n: each weight is within a few ulps (condition n, the sum's terms)
TOL = tolerances.Roundoff(condition="n: the n terms of the normalising sum")

z1, z2, z3 = sp.symbols("z1 z2 z3", real=True)


def derivation():
    total = sp.exp(z1) + sp.exp(z2) + sp.exp(z3)
    weights = [sp.exp(t) / total for t in (z1, z2, z3)]
    shifted_total = sum(sp.exp(t - z1) for t in (z1, z2, z3))
    return [
        symbolic.exact("shifting by −z_1 leaves the first weight", sp.exp(0) / shifted_total, weights[0],
                       role="proof", step="step-1"),
        symbolic.exact("the weights sum to one, n = 3", sum(weights), sp.Integer(1), role="proof",
                       step="step-2"),
    ]


def sample(ctx, gen):
    """Logits z ~ N(0, s²) in R^n for n = 2 … 16, the scale s uniform on [0, 3] per case (near-uniform
    weights included, where the bound is tight)."""
    batch = ctx.pick(quick=1000, full=10000)
    for n in (2, 5, 16):
        scale = 3 * torch.rand(batch, 1, generator=gen, dtype=ctx.dtype)
        yield {"z": scale * torch.randn(batch, n, generator=gen, dtype=ctx.dtype)}


def evaluate(case, bound=1.0):
    z = case["z"]
    n = z.shape[-1]
    top = torch.softmax(z, -1).amax(-1)
    return top, torch.full_like(top, bound / n), TOL(n, dtype=z.dtype)


def twice_the_bound(case):
    return evaluate(case, bound=2.0)


CLAIMS = (Claim(
    id="softmax-note/theorem-1.3", label="Theorem 1.3", section="§1 Softmax weights",
    statement=STATEMENT, clauses=CLAUSES, proof_steps=PROOF, uses=USES,
    reading="for all n ≥ 1 and z in R^n: max_i softmax(z)_i ≥ 1/n",
    reading_why="the literal statement",
    kind="inequality",
    derivation=derivation,
    proof_gap="that the largest of positive weights summing to one is at least their mean is not "
              "checked (SymPy cannot order Max(w1, w2, w3) against their mean)",
    checks=(Relation(name="largest-weight-at-least-mean", lhs="max_i softmax(z)_i", rel=">=",
                     rhs="1/n", evaluate=evaluate, sample=sample, tolerance=TOL, clause="clause-1",
                     controls=(control("the bound 2/n in place of 1/n", contrast="prediction",
                                       evaluate=twice_the_bound),)),),
),)
