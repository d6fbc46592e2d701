"""laplacianformer: the LaplacianFormer abstract (second text in
``shared/papers/004_855280ebdbbe5f37.txt``): a Laplacian kernel in place of softmax, a "provably
injective feature map", a Nyström approximation solved by Newton–Schulz iteration. Only the
abstract is available: every claim here is abstract-level (proof absent)."""

from attnaudit.checks import Contribution, Paper

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution("tend to oversuppress mid-range token interactions",
                 ("laplacianformer/gaussian-oversuppression",)),
    Contribution("we introduce a provably injective feature map",
                 ("laplacianformer/injective-feature-map",)),
    Contribution("we adopt a Nyström approximation of the kernel matrix and solve the resulting system "
                 "using Newton--Schulz iteration",
                 ("laplacianformer/nystrom", "laplacianformer/newton-schulz")),
)

PAPER = Paper(key="laplacianformer",
              title="LaplacianFormer (the abstract's name for the model; the paper's title is not in the "
                    "source)",
              authors=("not stated in the source",), arxiv=None,
              source_file="papers/004_855280ebdbbe5f37.txt", contributions=CONTRIBUTIONS)
