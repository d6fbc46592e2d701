"""mha-identification: *Multi-Head Self Attention is a Parameter Identification Mechanism* (abstract
only; no authors, no arXiv number and no proof in the source). Source text: the first abstract of
``shared/papers/001_da545f4f176a0075.txt``."""

from attnaudit.checks import Contribution, Paper

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution("The ratio of unidentified parameters to the total number of parameters scales like the "
                 "reciprocal of the number of heads",
                 ("mha-identification/unidentified-ratio",)),
    Contribution("attention can never be fully identified",
                 ("mha-identification/never-fully-identified",)),
    Contribution("some bias terms can have no effect on softmax-based attention layers",
                 ("mha-identification/bias-no-effect",)),
    Contribution("RoPE and GQA from this perspective, illustrating how those as well can improve the ratio",
                 ("mha-identification/rope-gqa",)),
    Contribution("training can indeed involve updates that overlap model-invariant subspaces",
                 ("mha-identification/rebalancing",)),
)

PAPER = Paper(key="mha-identification",
              title="Multi-Head Self Attention is a Parameter Identification Mechanism",
              authors=("not named in the source (abstract only)",), arxiv=None,
              source_file="papers/001_da545f4f176a0075.txt",
              contributions=CONTRIBUTIONS)
