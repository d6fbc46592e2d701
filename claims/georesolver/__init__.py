"""Riemann GeoResolver (L. Ge, arXiv 2608.10416v1): inverse-distance attention, Euclidean to
hyperbolic and spherical. Source text: ``shared/papers/000_a7d7464127a08b1f.txt``."""

from checks import Paper

PAPER = Paper(
    key="georesolver",
    title=("Riemann GeoResolver: A Non-Euclidean Attention Framework from Euclidean Resolver "
           "to Hyperbolic-Spherical Geometry"),
    authors=("Liangchen Ge",),
    arxiv="2608.10416v1",
    source_file="papers/000_a7d7464127a08b1f.txt",
)
