"""Riemannian Attention Mechanisms for Transformers (S. Song, arXiv 2608.01283): per-token metrics
g_t = I + U_tU_tᵀ. The statements are those quoted by the paper's public review,
``shared/papers/003_ab316e6303a93667.txt`` (the only source that states them), with the abstract in
``002_0acff97fdc4b473e.txt``."""

from attnaudit.checks import Paper

PAPER = Paper(
    key="riemannian-attention",
    title="Riemannian Attention Mechanisms for Transformers: A Theoretical Framework and Architecture Design",
    authors=("Sen Song",),
    arxiv="2608.01283",
    source_file="papers/003_ab316e6303a93667.txt",
)
