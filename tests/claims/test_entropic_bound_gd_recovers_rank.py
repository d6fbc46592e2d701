"""entropic-bound/gd-recovers-rank: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from claims.entropic_bound import gd_recovers_rank as spec


def test_entropic_bound_gd_recovers_rank_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
