"""Riemannian attention, Proposition 6.2: a local implicit-function-theorem sensitivity statement."""

from __future__ import annotations

from attnaudit.checks import Claim, Clause

CLAIMS = (Claim(
    id="riemannian-attention/proposition-6.2", label="Proposition 6.2", section="§6",
    statement=r"\text{(not quoted) a local implicit-function-theorem sensitivity statement}",
    kind="inequality",
    reading="none: the source never states the proposition's hypotheses, map or conclusion",
    reading_why="the only sources (the review 003 and the abstract 002) name it and its method only",
    unverifiable=(
        "the source gives no exact form: the review says only that 'Proposition 6.2 is a local "
        "implicit-function-theorem sensitivity statement, not a data-fitted prediction' and lists "
        "the implicit function theorem among its assumptions; which map, which variables, which "
        "non-degeneracy condition and which bound are not stated, so no checkable reading can be "
        "written without inventing the proposition"),
    proof_absent="the review names the implicit function theorem as the tool; no argument is quoted",
    clauses=(Clause("sensitivity", "Proposition 6.2 is a local implicit-function-theorem sensitivity "
                                   "statement",
                    undefined="the map, the variables, the non-degeneracy condition and the bound "
                              "it asserts (none is stated in the sources)"),),
),)
