"""icl-nonlinear: *Understanding In-Context Learning for Nonlinear Regression with Transformers:
Attention as Featurizer* (fourth abstract in ``shared/papers/001_da545f4f176a0075.txt``). Only the
abstract is available."""

from attnaudit.checks import Paper

PAPER = Paper(
    key="icl-nonlinear",
    title=("Understanding In-Context Learning for Nonlinear Regression with Transformers: "
           "Attention as Featurizer"),
    authors=("not stated in the source",),
    arxiv=None,
    source_file="papers/001_da545f4f176a0075.txt",
)
