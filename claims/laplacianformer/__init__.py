"""laplacianformer: TITLE OF THE PAPER (replace). Source text: where the paper lives."""

from checks import Paper

PAPER = Paper(key="laplacianformer", title="TITLE OF THE PAPER", authors=("AUTHOR",), arxiv=None,
              source_file="papers/laplacianformer.txt")
