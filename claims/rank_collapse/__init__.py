"""Attention is Not All You Need: Pure Attention Loses Rank Doubly Exponentially with Depth
(Y. Dong, J.-B. Cordonnier, A. Loukas, ICML 2021, arXiv 2103.03404), cited by the Riemannian-attention
sources (``shared/papers/002``, ``003``, ``004``); its theorem is stated from the paper itself."""

from attnaudit.checks import Contribution, Paper

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution("Dong et al. (2021) proved causes representational rank to decay doubly exponentially "
                 "with depth in pure self-attention stacks",
                 ("rank-collapse/doubly-exponential",)),
)

PAPER = Paper(key="rank-collapse",
              title="Attention is Not All You Need: Pure Attention Loses Rank Doubly Exponentially with "
                    "Depth",
              authors=("Yihe Dong", "Jean-Baptiste Cordonnier", "Andreas Loukas"), arxiv="2103.03404",
              source_file="papers/003_ab316e6303a93667.txt", contributions=CONTRIBUTIONS)
