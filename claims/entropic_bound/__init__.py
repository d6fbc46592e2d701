"""entropic-bound: TITLE OF THE PAPER (replace). Source text: where the paper lives."""

from checks import Paper

PAPER = Paper(key="entropic-bound", title="TITLE OF THE PAPER", authors=("AUTHOR",), arxiv=None,
              source_file="papers/entropic-bound.txt")
