"""laplacianformer/injective-feature-map: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from claims.laplacianformer import injective_feature_map as spec


def test_laplacianformer_injective_feature_map_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
