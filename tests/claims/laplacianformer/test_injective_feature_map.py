"""laplacianformer/injective-feature-map: unverifiable, naming what the source would have to state."""

from claimtest import run

from attnaudit.claims.laplacianformer import injective_feature_map as spec


def test_unverifiable_names_what_is_missing():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "unverifiable", record["summary"]
    assert record["proof"]["status"] == "absent"
    for needed in ("the map φ itself", "domain and codomain", "sense of 'injective'"):
        assert needed in record["summary"]
