"""connection-walk: the abstract "attention as a connection walk" (no title, authors, arXiv number or
proof in the source). Source text: the third abstract of ``shared/papers/004_855280ebdbbe5f37.txt``."""

from attnaudit.checks import Contribution, Paper

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution("single-head attention (SHA) is exactly a connection propagation step with constant "
                 "transport",
                 ("connection-walk/sha-constant-transport",)),
    Contribution("multi-head attention (MHA) is exactly a single edge-dependent connection walk",
                 ("connection-walk/mha-edge-transport",)),
    Contribution("the conditions under which the corresponding generator reduces to a random-walk "
                 "connection Laplacian",
                 ("connection-walk/laplacian-reduction",)),
)

PAPER = Paper(key="connection-walk",
              title="Self-attention as a connection walk (untitled abstract: 'identify attention as a "
                    "connection walk')",
              authors=("not named in the source (abstract only)",), arxiv=None,
              source_file="papers/004_855280ebdbbe5f37.txt", contributions=CONTRIBUTIONS)
