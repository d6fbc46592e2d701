"""icl-nonlinear/construction: unverifiable, naming what the source would have to state."""

from claimtest import run

from attnaudit.claims.icl_nonlinear import construction as spec


def test_unverifiable_names_what_is_missing():
    record = run(spec.CLAIMS[0])
    for needed in ("architecture", "input embedding", "weight matrices", "'realize' means"):
        assert needed in record["summary"]
