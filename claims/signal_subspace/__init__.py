"""signal-subspace: *Asymptotic Signal Subspace Recovery in Softmax Attention Models* (third
abstract in ``shared/papers/001_da545f4f176a0075.txt``). Only the abstract is available."""

from attnaudit.checks import Contribution, Paper

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution("the learned query converges almost surely to the one-dimensional signal subspace spanned "
                 "by the latent informative direction",
                 ("signal-subspace/convergence",)),
)

PAPER = Paper(key="signal-subspace", title="Asymptotic Signal Subspace Recovery in Softmax Attention Models",
              authors=("not stated in the source",), arxiv=None,
              source_file="papers/001_da545f4f176a0075.txt", contributions=CONTRIBUTIONS)
