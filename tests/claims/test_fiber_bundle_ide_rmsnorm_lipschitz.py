"""fiber-bundle-ide/rmsnorm-lipschitz: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from claims.fiber_bundle_ide import rmsnorm_lipschitz as spec


def test_fiber_bundle_ide_rmsnorm_lipschitz_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
