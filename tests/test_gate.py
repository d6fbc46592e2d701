"""The gate locks both answers of every claim: verdict and proof status (in process; the
command line around it is tested in test_cli.py)."""

from __future__ import annotations

import json

import pytest

from attnaudit.checks.gate import (
    BASELINE_SCHEMA,
    OLD_SCHEMA,
    Difference,
    accept,
    compare,
    format_diff,
    load_baseline,
    proof_of,
)
from attnaudit.checks.results import Record, ResultsError


def record(cid, verdict, proof="sound", **extra):
    return Record.from_json({"id": cid, "verdict": verdict, "summary": f"summary of {cid}",
                             "proof": {"status": proof, "first_false_step": None,
                                       "reason": f"proof reason of {cid}"}} | extra)


def bare(**data):
    """A record with only what the test names (the rest at the format's defaults)."""
    return Record.from_json({"proof": {}} | data)


def entry(verdict, proof="sound"):
    return {"verdict": verdict, "proof": proof}


def test_a_matching_run_passes():
    records = [record("p/a", "confirmed"), record("p/b", "refuted", "flawed")]
    baseline = {"p/a": entry("confirmed"), "p/b": entry("refuted", "flawed")}
    assert compare(records, baseline) == []
    assert format_diff([], "base.json", 2) == "gate: 2 verdicts match base.json"


def test_every_kind_of_difference_is_reported_once_in_id_order():
    records = [record("p/changed", "refuted"), record("p/proof", "confirmed", "flawed"),
               record("p/new", "inconclusive", "incomplete"),
               record("p/error", "error", None, error={"reason": "RuntimeError: boom\nmore lines"}),
               record("p/error-new", "error", None, summary="")]
    baseline = {"p/changed": entry("confirmed"), "p/proof": entry("confirmed", "sound"),
                "p/gone": entry("confirmed"), "p/error": entry("confirmed")}
    diffs = compare(records, baseline)
    assert diffs == [
        Difference("changed", "p/changed", "confirmed → refuted: summary of p/changed"),
        Difference("error", "p/error", "RuntimeError: boom"),
        Difference("error", "p/error-new", "error"),
        Difference("vanished", "p/gone", "was confirmed, absent from this run"),
        Difference("new", "p/new", "inconclusive · proof incomplete (not in the baseline: review it, "
                                   "then run 'attnaudit gate RESULTS --accept')"),
        Difference("proof", "p/proof", "proof sound → flawed: proof reason of p/proof"),
    ]
    text = format_diff(diffs, "base.json", 5)
    lines = text.splitlines()
    assert lines[0] == "gate: 6 difference(s) against base.json"
    assert lines[1] == "  changed   p/changed: confirmed → refuted: summary of p/changed"
    assert lines[4] == "  vanished  p/gone: was confirmed, absent from this run"
    assert lines[6] == "  proof     p/proof: proof sound → flawed: proof reason of p/proof"


def test_an_error_reason_falls_back_to_the_summary():
    diffs = compare([record("p/e", "error", None, summary="ValueError: x\ny")], {})
    assert diffs == [Difference("error", "p/e", "ValueError: x")]


def test_a_verdict_change_is_reported_before_a_proof_change():
    diffs = compare([record("p/a", "refuted", "flawed")], {"p/a": entry("confirmed", "sound")})
    assert [d.kind for d in diffs] == ["changed"]


def test_a_schema_1_baseline_locks_the_verdict_only(tmp_path):
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"schema": OLD_SCHEMA, "verdicts": {"p/a": "confirmed",
                                                                  "p/b": "refuted"}}))
    baseline = load_baseline(path)
    assert baseline == {"p/a": entry("confirmed", None), "p/b": entry("refuted", None)}
    records = [record("p/a", "confirmed", "flawed"), record("p/b", "refuted", "absent")]
    assert compare(records, baseline) == []
    assert [d.kind for d in compare([record("p/a", "refuted"), records[1]], baseline)] == ["changed"]


def test_accept_writes_schema_2_sorted_and_refuses_errors(tmp_path):
    path = tmp_path / "sub" / "baseline.json"
    records = [record("p/b", "refuted", "flawed"), record("p/a", "confirmed"),
               bare(id="p/c", verdict="unverifiable")]
    assert accept(records, path) == (f"gate: baseline {path} now holds 3 verdicts and proof statuses")
    data = json.loads(path.read_text())
    assert data == {"schema": BASELINE_SCHEMA, "claims": {
        "p/a": entry("confirmed", "sound"), "p/b": entry("refuted", "flawed"),
        "p/c": entry("unverifiable", None)}}
    assert list(data["claims"]) == ["p/a", "p/b", "p/c"]
    assert load_baseline(path) == data["claims"]
    assert compare(records, load_baseline(path)) == []
    with pytest.raises(ResultsError, match="refusing to accept a run with errors: p/x, p/y"):
        accept([*records, record("p/x", "error"), record("p/y", "error")], path)
    assert json.loads(path.read_text()) == data  # unchanged


@pytest.mark.parametrize("document, message", [
    ({"schema": "attnaudit.baseline/9", "claims": {}}, "is not an attnaudit.baseline/2 file"),
    ([1, 2], "is not an attnaudit.baseline/2 file"),
    ({"claims": {}}, "is not an attnaudit.baseline/2 file"),
    ({"schema": BASELINE_SCHEMA, "verdicts": {}}, "is not an attnaudit.baseline/2 file"),
    ({"schema": BASELINE_SCHEMA, "claims": []}, "is not an attnaudit.baseline/2 file"),
    ({"schema": OLD_SCHEMA, "claims": {}}, "is not an attnaudit.baseline/2 file"),
    ({"schema": BASELINE_SCHEMA, "claims": {"p/a": "confirmed"}}, "needs a verdict and a proof"),
    ({"schema": BASELINE_SCHEMA, "claims": {"p/a": {"verdict": "confirmed"}}},
     "needs a verdict and a proof"),
    ({"schema": BASELINE_SCHEMA, "claims": {"p/a": {"proof": "sound"}}}, "needs a verdict and a proof"),
])
def test_malformed_baselines_are_one_line_errors(tmp_path, document, message):
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ResultsError, match=message):
        load_baseline(path)


def test_proof_of_a_record_without_a_proof_status_is_none():
    assert proof_of(bare(id="p/a", verdict="error")) is None
    assert proof_of(bare(id="p/a", verdict="error", proof={"status": "flawed"})) == "flawed"


def test_texts_without_a_summary_or_proof_reason_stay_empty(tmp_path):
    refuted = bare(id="p/a", verdict="refuted", proof={"status": "flawed"})
    assert compare([refuted], {"p/a": entry("confirmed", "flawed")}) == [
        Difference("changed", "p/a", "confirmed → refuted: ")]
    assert compare([refuted], {"p/a": entry("refuted", "sound")}) == [
        Difference("proof", "p/a", "proof sound → flawed: ")]
    assert compare([bare(id="p/e", verdict="error")], {}) == [Difference("error", "p/e", "error")]
    with pytest.raises(ResultsError, match=f"baseline {tmp_path / 'none.json'} does not exist"):
        load_baseline(tmp_path / "none.json")
