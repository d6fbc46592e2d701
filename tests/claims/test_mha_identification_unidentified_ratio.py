"""mha-identification/unidentified-ratio: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from claims.mha_identification import unidentified_ratio as spec


def test_mha_identification_unidentified_ratio_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
