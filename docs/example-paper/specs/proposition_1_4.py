"""Proposition 1.4 of softmax-note: softmax-note.tex, line 41 (§1 Softmax weights).

The stub 'attnaudit init' wrote, with its reading, derivation and check written in
(docs/writing-a-claim.md, part 2). The statement is false: one large logit takes nearly all the
weight.
"""

import sympy as sp
import torch

from attnaudit import Claim, Clause, Relation, symbolic, tolerances

STATEMENT = r"For every $n \ge 2$ and every $z \in \R^n$, $\max_i \softmax(z)_i \le 1 - 1/n$."

CLAUSES = (Clause("clause-1", STATEMENT),)

TOL = tolerances.Roundoff(condition="n: the n terms of the normalising sum")


def derivation():
    # n = 2, z = (1, 0): the largest weight e/(e + 1) ≈ 0.73 against 1 − 1/2
    top = sp.E / (sp.E + 1)
    return [symbolic.holds("z = (1, 0), n = 2", top, "<=", 1 - sp.Rational(1, 2), role="statement",
                           clause="clause-1")]


def sample(ctx, gen):
    """Logits z ~ N(0, 3²) in R^n for n = 2, 5, 16."""
    batch = ctx.pick(quick=1000, full=10000)
    for n in (2, 5, 16):
        yield {"z": 3 * torch.randn(batch, n, generator=gen, dtype=ctx.dtype)}


def evaluate(case):
    z = case["z"]
    n = z.shape[-1]
    top = torch.softmax(z, -1).amax(-1)
    return top, torch.full_like(top, 1 - 1 / n), TOL(n, dtype=z.dtype)


CLAIMS = (Claim(
    id="softmax-note/proposition-1.4", label="Proposition 1.4", section="§1 Softmax weights",
    statement=STATEMENT, clauses=CLAUSES,
    proof_absent="no proof environment follows it in the source",
    reading="for all n ≥ 2 and z in R^n: max_i softmax(z)_i ≤ 1 − 1/n",
    reading_why="the literal statement",
    kind="inequality",
    derivation=derivation,
    checks=(Relation(name="largest-weight-below-one-minus-mean", lhs="max_i softmax(z)_i", rel="<=",
                     rhs="1 − 1/n", evaluate=evaluate, sample=sample, tolerance=TOL,
                     clause="clause-1"),),
),)
