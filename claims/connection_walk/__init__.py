"""connection-walk: the abstract "attention as a connection walk" (no title, authors, arXiv number or
proof in the source). Source text: the third abstract of ``shared/papers/004_855280ebdbbe5f37.txt``."""

from attnaudit.checks import Paper

PAPER = Paper(key="connection-walk",
              title="Self-attention as a connection walk (untitled abstract: 'identify attention as a "
                    "connection walk')",
              authors=("not named in the source (abstract only)",), arxiv=None,
              source_file="papers/004_855280ebdbbe5f37.txt")
