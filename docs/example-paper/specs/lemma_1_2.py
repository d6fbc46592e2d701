"""Lemma 1.2 (Shift invariance) of softmax-note: softmax-note.tex, line 25 (§1 Softmax weights).

The stub 'attnaudit init' wrote, with its reading, derivation and check written in
(docs/writing-a-claim.md, part 2).
"""

import sympy as sp
import torch

from attnaudit import Claim, Clause, ProofStep, Relation, control, symbolic, tolerances

STATEMENT = (r"For every $z \in \R^n$ and every $c \in \R$, $\softmax(z + c\mathbf{1}) = "
             r"\softmax(z)$.")

CLAUSES = (Clause("clause-1", STATEMENT),)

PROOF = (
    ProofStep("step-1", r"Adding $c$ to every logit multiplies every numerator and the denominator "
                        r"by $e^{c}$, which cancels."),
)

# softmax of shifted logits: each weight is a ratio of sums of n exponentials, each within a few
# ulps after torch.softmax subtracts the maximum; condition n (the sum's terms).
TOL = tolerances.Roundoff(condition="n: the n terms of the normalising sum")

z1, z2, z3, c = sp.symbols("z1 z2 z3 c", real=True)
Z = (z1, z2, z3)


def _softmax(z):
    total = sum(sp.exp(t) for t in z)
    return sp.Matrix([sp.exp(t) / total for t in z])


def derivation():
    return [
        # the statement for n = 3, entry by entry (a matrix identity)
        symbolic.exact("softmax(z + c1) = softmax(z), n = 3", _softmax([t + c for t in Z]), _softmax(Z),
                       role="statement", clause="clause-1"),
        symbolic.exact("e^{z_i + c} = e^c e^{z_i}", sp.exp(z1 + c), sp.exp(c) * sp.exp(z1), role="proof",
                       step="step-1"),
    ]


def sample(ctx, gen):
    """Logits z ~ N(0, 4²) in R^8 and a shift c ~ N(0, 10²), per case."""
    batch = ctx.pick(quick=2000, full=20000)
    yield {"z": 4 * torch.randn(batch, 8, generator=gen, dtype=ctx.dtype),
           "c": 10 * torch.randn(batch, 1, generator=gen, dtype=ctx.dtype)}


def _gap(z, shifted):
    return (torch.softmax(shifted, -1) - torch.softmax(z, -1)).abs().amax(-1)


def evaluate(case):
    z, c = case["z"], case["c"]
    gap = _gap(z, z + c)
    return gap, torch.zeros_like(gap), TOL(z.shape[-1], dtype=z.dtype)


def shift_one_logit(case):
    """The hypothesis broken: the shift added to the first logit only."""
    z, c = case["z"], case["c"]
    shifted = z.clone()
    shifted[:, :1] += c
    gap = _gap(z, shifted)
    return gap, torch.zeros_like(gap), TOL(z.shape[-1], dtype=z.dtype)


CLAIMS = (Claim(
    id="softmax-note/lemma-1.2", label="Lemma 1.2", section="§1 Softmax weights",
    statement=STATEMENT, clauses=CLAUSES, proof_steps=PROOF,
    reading="for all z in R^n and c in R: max_i |softmax(z + c·1)_i − softmax(z)_i| = 0",
    reading_why="the literal statement",
    kind="identity",
    derivation=derivation,
    checks=(Relation(name="shift-leaves-weights", lhs="max_i |softmax(z+c1) − softmax(z)|_i", rel="==",
                     rhs="0", evaluate=evaluate, sample=sample, tolerance=TOL, clause="clause-1",
                     controls=(control("the shift added to one logit only", contrast="hypothesis",
                                       hypothesis="the same c is added to every logit",
                                       evaluate=shift_one_logit),)),),
),)
