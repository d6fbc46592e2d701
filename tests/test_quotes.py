"""Every quote of every built-in claim stands in its source text: each clause of the statement,
each quoted step of the paper's argument, in the order the steps stand in the source, each
``uses`` edge's quote of the argument that relies on another result, and each paper's abstract
contributions.

Skipped when the source texts (``../shared/papers``, or ``$ATTNAUDIT_PAPERS``) are absent; failing
when ``ATTNAUDIT_REQUIRE_PAPERS=1`` and they are absent. ``.ci/run`` sets it whenever the texts are
beside the clone, and says so loudly when they are not.
"""

from __future__ import annotations

import os

import pytest

from attnaudit.checks.discovery import discover
from attnaudit.checks.quotes import papers_folder, position, source_text

FOLDER = papers_folder()
REQUIRED = os.environ.get("ATTNAUDIT_REQUIRE_PAPERS") == "1"
pytestmark = pytest.mark.skipif(FOLDER is None and not REQUIRED,
                                reason="the source texts (shared/papers) are not beside the checkout")

CATALOGUE = discover(entry_points=False)


def _source(claim):
    assert FOLDER is not None, "ATTNAUDIT_REQUIRE_PAPERS=1 but the source texts (shared/papers) are absent"
    text = source_text(CATALOGUE.papers[claim.paper].source_file, FOLDER)
    assert text is not None, f"{claim.paper}: source file missing"
    return text


@pytest.mark.parametrize("claim", [c for c in CATALOGUE.claims if c.clauses or c.proof_steps or c.uses],
                         ids=lambda c: c.id)
def test_every_quote_is_in_the_source_and_proof_steps_are_in_source_order(claim):
    text = _source(claim)
    missing = [f"clause {c.id!r}: {c.quote!r}" for c in claim.clauses if position(text, c.quote) is None]
    missing += [f"use of {u.claim!r}: {u.quote!r}" for u in claim.uses if position(text, u.quote) is None]
    at = [(s.id, position(text, s.quote)) for s in claim.proof_steps]
    missing += [f"proof step {sid!r}" for sid, p in at if p is None]
    assert missing == [], f"{claim.id}: quotes not found in the source: {missing}"
    found = [p for _, p in at]
    assert found == sorted(found), f"{claim.id}: proof steps not in source order: {at}"


@pytest.mark.parametrize("paper", [p for p in CATALOGUE.papers.values() if p.contributions],
                         ids=lambda p: p.key)
def test_every_contribution_quotes_the_source(paper):
    assert FOLDER is not None, "ATTNAUDIT_REQUIRE_PAPERS=1 but the source texts (shared/papers) are absent"
    text = source_text(paper.source_file, FOLDER)
    assert text is not None, f"{paper.key}: source file missing"
    missing = [c.quote for c in paper.contributions if position(text, c.quote) is None]
    assert missing == [], f"{paper.key}: contributions not found in the source: {missing}"


def test_position_normalises_whitespace_and_unicode():
    assert position("a  b\n c ﬁ", "b c fi") == 2
    assert position("abc", "abd") is None
