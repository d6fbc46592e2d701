"""Discovery and the runner: broken specs become error records and the others still complete."""

from __future__ import annotations

import json

from conftest import (
    BAD_KIND,
    DUP,
    GOOD,
    IMPORT_RAISES,
    NO_CLAIMS,
    NO_ID,
    RAISES,
    SLOW,
    SYNTAX,
)

from checks.discovery import discover
from checks.runner import run_all


def _run(package):
    cat = discover(package)
    records, timings = run_all(cat.claims, cat.errors, seed=0, profile="quick", device="cpu",
                               files=cat.files)
    return {r["id"]: r for r in records}, timings


def test_malformed_specs_become_error_records_naming_file_and_reason(claims_package):
    pkg = claims_package({"good": GOOD, "syntax": SYNTAX, "import_raises": IMPORT_RAISES,
                          "no_claims": NO_CLAIMS, "bad_kind": BAD_KIND, "no_id": NO_ID,
                          "dup_a": DUP, "dup_b": DUP})
    records, _ = _run(pkg)
    assert records["toy/good"]["verdict"] == "confirmed"
    expected = {
        "toy/syntax": ("syntax.py", "SyntaxError"),
        "toy/import-raises": ("import_raises.py", "import-time failure on purpose"),
        "toy/no-claims": ("no_claims.py", "defines no CLAIMS"),
        "toy/bad-kind": ("bad_kind.py", "unknown kind 'theorem-ish'"),
        "toy/no-id": ("no_id.py", "claim id '' is not of the form"),
        "toy/dup": ("dup_", "id repeated in"),
    }
    for cid, (file_part, reason_part) in expected.items():
        record = records[cid]
        assert record["verdict"] == "error", cid
        assert file_part in record["error"]["file"], (cid, record["error"])
        assert reason_part in record["error"]["reason"], (cid, record["error"])


def test_a_raising_and_a_slow_spec_error_while_the_others_keep_their_results(claims_package):
    pkg = claims_package({"good": GOOD, "raises": RAISES, "slow": SLOW})
    records, timings = _run(pkg)
    assert records["toy/good"]["verdict"] == "confirmed"
    assert records["toy/good"]["evidence"][0]["cases"] == 1000
    raised = records["toy/raises"]
    assert raised["verdict"] == "error"
    assert "ValueError: the sampler is broken on purpose" in raised["summary"]
    slow = records["toy/slow"]
    assert slow["verdict"] == "error"
    assert "ran past its time limit of 1 s" in slow["summary"]
    assert timings["toy/slow"] < 10


def test_records_hold_every_field_of_the_design(claims_package):
    pkg = claims_package({"good": GOOD})
    records, _ = _run(pkg)
    record = records["toy/good"]
    for field in ("id", "verdict", "paper", "label", "statement", "reading", "derivation",
                  "evidence", "corrected", "seed", "device", "dtype", "versions", "source_hash"):
        assert field in record, field
    assert {"torch", "sympy", "attnaudit"} <= set(record["versions"])
    json.dumps(record, allow_nan=False)


def test_same_seed_gives_identical_records(claims_package):
    pkg = claims_package({"good": GOOD})
    first, _ = _run(pkg)
    second, _ = _run(pkg)
    assert json.dumps(first) == json.dumps(second)


def test_progress_is_live_on_a_terminal_and_plain_otherwise():
    import io
    import time

    from checks.cli import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for stream, live in ((Terminal(), True), (io.StringIO(), False)):
        progress = Progress(stream)
        progress.start(1, 2, "toy/good")
        time.sleep(0.6 if live else 0)
        progress.done(1, 2, {"verdict": "confirmed"}, 0.6)
        text = stream.getvalue()
        assert text.rstrip().endswith("[1/2] toy/good  confirmed  (0.6s)")
        assert ("\r\033[K[1/2] toy/good … " in text) is live
