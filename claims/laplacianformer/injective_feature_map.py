"""LaplacianFormer abstract: the "provably injective feature map", unverifiable: the map is not given."""

from attnaudit.checks import Claim, Clause

STATEMENT = (r"\text{``To address expressiveness degradation under low-rank approximations, we introduce a "
             r"provably injective feature map that retains fine-grained token information.''}")

MISSING = (
    "The abstract states that a feature map is injective but never states the map. To check it the "
    "source would have to give (1) the map φ itself as a formula (its parameters and nonlinearity), "
    "(2) its domain and codomain (single tokens in ℝ^d, whole sequences, or the low-rank/Nyström "
    "factors), and (3) the sense of 'injective' claimed: φ(x) = φ(y) ⇒ x = y for all x, y in that "
    "domain, or injectivity of the attention operator it induces after the low-rank approximation. "
    "With those, injectivity is checkable (a symbolic inverse, or a search for colliding pairs "
    "φ(x) = φ(y), x ≠ y). Not tested: any injective map the suite would invent (e.g. the identity "
    "or an elu+1 feature map) would be the suite's construction, not the paper's."
)

CLAIMS = (Claim(
    id="laplacianformer/injective-feature-map", label="Injective feature map", section="abstract",
    statement=STATEMENT,
    reading="No checkable reading: the source does not state the feature map (see unverifiable).",
    reading_why="the abstract is the only source; it names the property, not the construction",
    clauses=(Clause("injective", "we introduce a provably injective feature map that retains fine-grained "
                                 "token information", undefined=MISSING),),
    kind="construction", unverifiable=MISSING,
    proof_absent="only the abstract is available; it states 'provably' but gives no argument",
),)
