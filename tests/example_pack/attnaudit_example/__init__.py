"""An example paper for the claim-pack tests: one identity, checked symbolically and numerically."""

from attnaudit import Paper

PAPER = Paper(key="example", title="An example paper for claim packs", authors=("A. Author",),
              arxiv=None, source_file="none")
