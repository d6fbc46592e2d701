"""entropic-bound/rank-lower-bound: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from claims.entropic_bound import rank_lower_bound as spec


def test_entropic_bound_rank_lower_bound_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
