"""Every claim's terminal summary over its real record (the session's record store, so each claim
runs once): the relation and every number whole, wrapped only between words, at any width; and
a refuted claim listed in the Findings block with each refuted clause and its reason.

Grouped with the claim's own tests under pytest-xdist, so the record is the one they share.
"""

from __future__ import annotations

import re

import claimtest
import pytest

from attnaudit.checks.discovery import discover
from attnaudit.checks.terminal import INDENT, LINE_WIDTH, findings, reason, summary_line

CATALOGUE = discover(entry_points=False)
CLAIMS = [pytest.param(c, id=c.id, marks=[
    pytest.mark.xdist_group(c.source_module.removeprefix("attnaudit.claims."))])
    for c in CATALOGUE.claims]
ID_WIDTH = max(len(c.id) for c in CATALOGUE.claims)
NUMBER = re.compile(r"[-+−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _whole(text: str, lines: list[str], width: int) -> None:
    """``lines`` hold ``text`` word for word, each number on one line, none wider than ``width``
    unless it is a single word that is."""
    words = text.split()
    assert " ".join(part for line in lines for part in line.split()) == " ".join(words)
    for line in lines:
        assert len(line) <= width or len(line.split()) == 1, line  # a longer word stands alone
    on_lines = [n for line in lines for n in NUMBER.findall(line)]
    assert on_lines == NUMBER.findall(text)  # no number broken across two lines


@pytest.mark.parametrize("claim", CLAIMS)
def test_summary_line_keeps_the_reason_whole_and_findings_list_each_refutation(claim):
    record = claimtest.run(claim)
    why = reason(record)
    assert why, f"{claim.id}: no figure or summary to show"
    if record.get("figure"):  # the key figure is shown whole unless an error or a clause says more
        assert " ".join(record["figure"].split()) in why or record["verdict"] in (
            "error", "inconclusive") or why.startswith("clause ")
    for width in (LINE_WIDTH, 60, 200):
        head, *body = summary_line(record, ID_WIDTH, width).splitlines()
        assert head.split()[:2] == [claim.id, record["verdict"]]
        if body:  # wrapped: the head holds id, verdict and proof only
            assert all(line.startswith(INDENT) for line in body)
            _whole(why, body, width)
        else:
            assert head.endswith(why) and len(head) <= width

    block = findings([record], LINE_WIDTH)
    if record["verdict"] != "refuted":
        assert block == []
        return
    assert block[0].startswith("Findings: 1 refuted claim")
    entries = " ".join(" ".join(line.split()) for line in block[1:])
    refuted = [c for c in record.get("clauses") or [] if c.get("verdict") == "refuted"]
    if len(record.get("clauses") or []) > 1 and refuted:
        for c in refuted:
            assert f"refuted {claim.id} clause {c['id']}: {' '.join(str(c.get('summary', '')).split())}" \
                in entries
    else:
        assert entries == f"refuted {claim.id}: {why}"
