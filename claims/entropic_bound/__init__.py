"""entropic-bound: an untitled abstract (the third in ``shared/papers/002_0acff97fdc4b473e.txt``)
on "the Entropic Bound, a spectral notion of task-intrinsic capacity for Transformers". Only the
abstract is available: every claim here is abstract-level (proof absent)."""

from attnaudit.checks import Contribution, Paper

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution("the intrinsic rank r∗ of the token-mixing operator is a tight lower bound",
                 ("entropic-bound/rank-lower-bound",)),
    Contribution("gradient descent recovers this rank under standard low-rank implicit-bias assumptions",
                 ("entropic-bound/gd-recovers-rank",)),
)

PAPER = Paper(key="entropic-bound",
              title="(untitled in the source) The Entropic Bound: intrinsic rank of token mixing",
              authors=("not stated in the source",), arxiv=None,
              source_file="papers/002_0acff97fdc4b473e.txt", contributions=CONTRIBUTIONS)
