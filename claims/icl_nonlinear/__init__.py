"""icl-nonlinear: TITLE OF THE PAPER (replace). Source text: where the paper lives."""

from checks import Paper

PAPER = Paper(key="icl-nonlinear", title="TITLE OF THE PAPER", authors=("AUTHOR",), arxiv=None,
              source_file="papers/icl-nonlinear.txt")
