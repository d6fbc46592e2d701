"""mha-identification: *Multi-Head Self Attention is a Parameter Identification Mechanism* (abstract
only; no authors, no arXiv number and no proof in the source). Source text: the first abstract of
``shared/papers/001_da545f4f176a0075.txt``."""

from attnaudit.checks import Paper

PAPER = Paper(key="mha-identification",
              title="Multi-Head Self Attention is a Parameter Identification Mechanism",
              authors=("not named in the source (abstract only)",), arxiv=None,
              source_file="papers/001_da545f4f176a0075.txt")
