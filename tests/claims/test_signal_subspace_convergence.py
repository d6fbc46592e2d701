"""signal-subspace/convergence: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from claims.signal_subspace import convergence as spec


def test_signal_subspace_convergence_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
