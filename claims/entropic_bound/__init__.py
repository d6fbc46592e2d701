"""entropic-bound: an untitled abstract (the third in ``shared/papers/002_0acff97fdc4b473e.txt``)
on "the Entropic Bound, a spectral notion of task-intrinsic capacity for Transformers". Only the
abstract is available: every claim here is abstract-level (proof absent)."""

from attnaudit.checks import Paper

PAPER = Paper(
    key="entropic-bound",
    title="(untitled in the source) The Entropic Bound: intrinsic rank of token mixing",
    authors=("not stated in the source",),
    arxiv=None,
    source_file="papers/002_0acff97fdc4b473e.txt",
)
