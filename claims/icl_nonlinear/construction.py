"""ICL for nonlinear regression: the explicit construction, unverifiable: the abstract does not give it."""

from attnaudit.checks import Claim, Clause

STATEMENT = (r"\text{``Through the interaction mechanism in attention, we explicitly construct "
             r"transformer networks to realize nonlinear features, such as polynomial or spline "
             r"bases, which span a wide class of functions.''}")

MISSING = (
    "The abstract says the construction is explicit but does not state it. To check it the source "
    "would have to give (1) the architecture: number of layers and heads, attention type (softmax, "
    "ReLU or linear), MLP widths and activations; (2) the input embedding of the prompt "
    "(x_1, y_1, …, x_N, y_N, x_query) as tokens; (3) the weight matrices (Q, K, V, MLP) as explicit "
    "functions of the target features (polynomial degree p, or spline knots t_1..t_K); and (4) what "
    "'realize' means: exact equality of a named output coordinate to x^j or to a B-spline B_k(x), "
    "or an approximation error bound in terms of width/depth. With those, the suite would build the "
    "network on operators/ and check the realised features against the bases (exactly or within "
    "the stated error) on random prompts. Not tested: a construction the suite would invent (e.g. a "
    "ReLU-attention head computing a hinge (x − t)_+) would be the suite's, not the paper's."
)

CLAIMS = (Claim(
    id="icl-nonlinear/construction", label="Attention as featurizer (construction)", section="abstract",
    statement=STATEMENT,
    reading="No checkable reading: the source does not state the construction (see unverifiable).",
    reading_why="the abstract is the only source; it announces the construction without giving it",
    clauses=(
        Clause("construct", "we explicitly construct transformer networks to realize nonlinear features, "
                            "such as polynomial or spline bases", undefined=MISSING),
        Clause("span", "which span a wide class of functions",
               undefined="which class of functions, in which norm, and at what width/depth the constructed "
                         "features span it"),
    ),
    kind="construction", unverifiable=MISSING,
    proof_absent="only the abstract is available; the construction and its analysis are not in it",
),)
