"""Quotes from the source texts: where a clause's or a proof step's quote stands in its paper.

The extracted texts (``../shared/papers``) are single long lines in which mathematics appears
twice (rendered symbols, then LaTeX-like source); a quote may come from either copy. A quote is
found when, after normalising both sides (Unicode NFKC, whitespace runs collapsed to one space),
it is a contiguous substring of the source.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def position(source: str, quote: str) -> int | None:
    """Offset of ``quote`` in ``source`` (both normalised), or None when it is not there."""
    at = normalise(source).find(normalise(quote))
    return None if at < 0 else at


def papers_folder() -> Path | None:
    """The folder of source texts: ``$ATTNAUDIT_PAPERS``, else ``shared/papers`` beside the
    checkout (where it is in this project's CI); None when neither exists."""
    env = os.environ.get("ATTNAUDIT_PAPERS")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "papers")
    return next((c for c in candidates if c.is_dir()), None)


def source_text(source_file: str, folder: Path | None = None) -> str | None:
    """The text of a paper's ``source_file`` (``papers/<name>.txt``), or None when absent."""
    folder = folder or papers_folder()
    if folder is None:
        return None
    path = folder / Path(source_file).name
    return path.read_text(encoding="utf-8") if path.is_file() else None
