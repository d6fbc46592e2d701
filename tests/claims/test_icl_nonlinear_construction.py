"""icl-nonlinear/construction: written by 'attnaudit new'; state the verdict you expect once the claim is written."""

from claimtest import run

from claims.icl_nonlinear import construction as spec


def test_icl_nonlinear_construction_runs():
    record = run(spec.CLAIMS[0])
    assert record["verdict"] == "inconclusive", record["summary"]  # TODO: the expected verdict
