"""fiber-bundle-ide: an untitled abstract (the fourth in ``shared/papers/002_0acff97fdc4b473e.txt``)
presenting "a continuous geometric framework that models the discrete algebraic operations of the
Transformer architecture as an integro-differential equation (IDE) on a semantic fiber bundle".
Only the abstract is available: every claim here is abstract-level (proof absent)."""

from attnaudit.checks import Contribution, Paper

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution("entropic optimal transport (Attention as a Schrödinger bridge)",
                 ("fiber-bundle-ide/attention-entropic-ot",)),
    Contribution("the ε−1/2 Lipschitz scaling calibration",
                 ("fiber-bundle-ide/rmsnorm-lipschitz",)),
)

PAPER = Paper(key="fiber-bundle-ide",
              title="(untitled in the source) The Transformer as an integro-differential equation on a "
                    "semantic fiber bundle",
              authors=("not stated in the source",), arxiv=None,
              source_file="papers/002_0acff97fdc4b473e.txt", contributions=CONTRIBUTIONS)
