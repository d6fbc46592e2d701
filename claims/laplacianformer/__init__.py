"""laplacianformer: the LaplacianFormer abstract (second text in
``shared/papers/004_855280ebdbbe5f37.txt``): a Laplacian kernel in place of softmax, a "provably
injective feature map", a Nyström approximation solved by Newton–Schulz iteration. Only the
abstract is available: every claim here is abstract-level (proof absent)."""

from attnaudit.checks import Paper

PAPER = Paper(
    key="laplacianformer",
    title="LaplacianFormer (the abstract's name for the model; the paper's title is not in the source)",
    authors=("not stated in the source",),
    arxiv=None,
    source_file="papers/004_855280ebdbbe5f37.txt",
)
