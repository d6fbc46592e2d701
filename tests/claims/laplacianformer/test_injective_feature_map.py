"""laplacianformer/injective-feature-map: unverifiable, naming what the source would have to state."""

from claimtest import run

from attnaudit.claims.laplacianformer import injective_feature_map as spec


def test_unverifiable_names_what_is_missing():
    record = run(spec.CLAIMS[0])
    for needed in ("the map φ itself", "domain and codomain", "sense of 'injective'"):
        assert needed in record["summary"]
