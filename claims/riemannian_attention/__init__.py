"""Riemannian Attention Mechanisms for Transformers (S. Song, arXiv 2608.01283): per-token metrics
g_t = I + U_tU_tᵀ. The statements are those quoted by the paper's public review,
``shared/papers/003_ab316e6303a93667.txt`` (the only source that states them), with the abstract in
``002_0acff97fdc4b473e.txt``."""

from attnaudit.checks import Contribution, Paper

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution("We prove that Riemannian attention scores with heterogeneous per-token metrics are "
                 "non-Gram",
                 ("riemannian-attention/theorem-3.2",)),
    Contribution("We establish that low-rank metric factors render all geometric operations tractable: "
                 "geodesic distance in O(d*r) per token and metric inversion in O(d*r^2) via the Woodbury "
                 "identity",
                 ("riemannian-attention/proposition-4.1", "riemannian-attention/proposition-4.2")),
    Contribution("making Riemannian attention feasible at billion-parameter scale with negligible overhead",
                 ("riemannian-attention/proposition-4.3",)),
    Contribution("We present the Fiber Bundle Transformer, a complete architecture specification",
                 ("riemannian-attention/definition-5.2", "riemannian-attention/equation-28",
                  "riemannian-attention/fused-bias")),
)

PAPER = Paper(
    key="riemannian-attention",
    title="Riemannian Attention Mechanisms for Transformers: A Theoretical Framework and Architecture Design",
    authors=("Sen Song",),
    arxiv="2608.01283",
    source_file="papers/003_ab316e6303a93667.txt",
    contributions=CONTRIBUTIONS,
)
