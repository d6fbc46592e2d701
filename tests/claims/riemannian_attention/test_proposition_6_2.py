"""Proposition 6.2: unverifiable, with the reason."""

from claimtest import run

from attnaudit.claims.riemannian_attention.proposition_6_2 import CLAIMS


def test_unverifiable_with_reason():
    rec = run(CLAIMS[0])
    assert "no exact form" in rec["summary"]
