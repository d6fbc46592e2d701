"""georesolver/theorem-5.4: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from claims.georesolver import theorem_5_4 as spec


def test_georesolver_theorem_5_4_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
