"""icl-nonlinear: *Understanding In-Context Learning for Nonlinear Regression with Transformers:
Attention as Featurizer* (fourth abstract in ``shared/papers/001_da545f4f176a0075.txt``). Only the
abstract is available."""

from attnaudit.checks import Contribution, Paper

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution("we explicitly construct transformer networks to realize nonlinear features, such as "
                 "polynomial or spline bases",
                 ("icl-nonlinear/construction",)),
)

PAPER = Paper(key="icl-nonlinear",
              title="Understanding In-Context Learning for Nonlinear Regression with Transformers: "
                    "Attention as Featurizer",
              authors=("not stated in the source",), arxiv=None,
              source_file="papers/001_da545f4f176a0075.txt", contributions=CONTRIBUTIONS)
