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

from attnaudit.checks.discovery import discover
from attnaudit.checks.runner import run_all


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
    assert "ran past its time limit of 2 s of CPU time" in slow["summary"]  # 1 s, ×2 headroom
    assert timings["toy/slow"] < 10


def test_records_hold_every_field_of_the_design(claims_package):
    pkg = claims_package({"good": GOOD})
    records, _ = _run(pkg)
    record = records["toy/good"]
    for field in ("id", "verdict", "proof", "readings", "controls", "figure", "paper", "label",
                  "statement", "reading", "derivation", "evidence", "corrected", "seed", "device",
                  "dtype", "versions", "source_hash"):
        assert field in record, field
    assert record["derivation"]["steps"][0]["role"] == "statement"
    assert record["evidence"][0]["tolerance"].startswith("float64 round-off: 64·u")
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

    from attnaudit.checks.cli import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for stream, live in ((Terminal(), True), (io.StringIO(), False)):
        progress = Progress(3, stream)
        progress.start("toy/good")
        progress.start("toy/other")
        time.sleep(0.6 if live else 0)
        progress.done("toy/good", {"verdict": "confirmed", "proof": {"status": "flawed"}}, 0.6)
        progress.done("toy/other", {"verdict": "error", "proof": {"status": None}}, 0.1, cpu=0.04)
        progress.close()
        text = stream.getvalue()
        assert "[1/3] toy/good  confirmed · proof flawed  (0.6s)\n" in text
        assert "[2/3] toy/other  error · proof -  (0.1s, 0.0s CPU)\n" in text
        # With several workers the live line names every claim running now.
        assert ("\r\033[K[0/3] running 2: toy/good 0." in text) is live
        assert (", toy/other 0." in text) is live


def test_load_errors_carry_an_empty_proof_and_the_spec_file(claims_package):
    records, _ = _run(claims_package({"syntax": SYNTAX}))
    record = records["toy/syntax"]
    assert record["proof"] == {"status": None, "first_false_step": None,
                               "reason": "the spec did not load"}
    assert record["readings"] == [] and record["controls"] == []


def test_source_hash_covers_the_engine(claims_package, monkeypatch):
    from pathlib import Path

    from attnaudit import checks
    from attnaudit.checks.discovery import source_hash

    cat = discover(claims_package({"good": GOOD}))
    before = source_hash(cat.claims[0])
    engine = sorted(Path(checks.__file__).parent.glob("*.py"))
    real = Path.read_bytes

    def altered(path):
        data = real(path)
        return data + b"# changed" if path == engine[0] else data

    monkeypatch.setattr(Path, "read_bytes", altered)
    assert source_hash(cat.claims[0]) != before


def test_a_step_naming_an_unknown_reading_is_an_error_of_the_spec(claims_package):
    import dataclasses

    import sympy as sp

    from attnaudit.checks import symbolic
    from attnaudit.checks.runner import run_claim

    cat = discover(claims_package({"good": GOOD}))
    n = sp.Symbol("n")
    claim = dataclasses.replace(cat.claims[0], derivation=lambda: [
        symbolic.exact("x", n, n, role="proof", reading="nowhere")])
    record, _ = run_claim(claim, seed=0, profile="quick", device="cpu")
    assert record["verdict"] == "error" and "unknown reading 'nowhere'" in record["summary"]


def test_the_context_memo_computes_once_per_claim_run():
    from attnaudit.checks.context import Context

    calls = []
    ctx = Context("toy/memo", seed=0)
    assert ctx.cached(("k", 1), lambda: calls.append(1) or len(calls)) == 1
    assert ctx.cached(("k", 1), lambda: calls.append(1) or len(calls)) == 1
    assert ctx.cached(("k", 2), lambda: calls.append(1) or len(calls)) == 2
    assert Context("toy/memo", seed=0).memo == {}  # a new run starts empty
    assert Context("toy/memo", seed=0) == ctx  # the memo takes no part in equality


def test_attached_measurements_reach_the_record(claims_package):
    import dataclasses

    from attnaudit.checks.runner import run_claim

    cat = discover(claims_package({"good": GOOD}))
    claim = cat.claims[0]
    check = claim.checks[0]
    inner = check.sample

    def sample(ctx, gen):
        ctx.attach("table", [{"B": 1, "bytes": 8}])
        yield from inner(ctx, gen)

    record, _ = run_claim(dataclasses.replace(claim, checks=(dataclasses.replace(check, sample=sample),)),
                          seed=0, profile="quick", device="cpu")
    assert record["attached"] == {"table": [{"B": 1, "bytes": 8}]}
    plain, _ = run_claim(claim, seed=0, profile="quick", device="cpu")
    assert "attached" not in plain  # records of specs that attach nothing are unchanged


def test_source_hash_covers_another_papers_helpers(monkeypatch):
    """rank-collapse runs riemannian-attention's stacks: a change there marks it stale."""
    from pathlib import Path

    from attnaudit.checks.discovery import source_hash

    claim = next(c for c in discover(entry_points=False).claims if c.id == "rank-collapse/doubly-exponential")
    before = source_hash(claim)
    real = Path.read_bytes

    def altered(path):
        data = real(path)
        return data + b"# changed" if path.name == "_stacks.py" else data

    monkeypatch.setattr(Path, "read_bytes", altered)
    assert source_hash(claim) != before


def test_source_hash_covers_a_claim_module_another_spec_borrows_from(monkeypatch):
    """Proposition 2.3 uses Property 2.2.4's kernel (a claim module, not a helper): a change there
    marks it stale; an unrelated claim module does not."""
    from pathlib import Path

    from attnaudit.checks.discovery import source_hash

    claim = next(c for c in discover(entry_points=False).claims
                 if c.id.startswith("georesolver/proposition-2.3"))
    before = source_hash(claim)
    real = Path.read_bytes

    def altered(name):
        def read(path):
            data = real(path)
            return data + b"# changed" if path.name == name else data
        return read

    monkeypatch.setattr(Path, "read_bytes", altered("theorem_8_1.py"))
    assert source_hash(claim) == before
    monkeypatch.setattr(Path, "read_bytes", altered("property_2_2_4.py"))
    assert source_hash(claim) != before


def test_claims_in_a_sub_package_are_found_and_hash_both_folders_helpers(monkeypatch):
    """Lemma 2.4 is a sub-package, one module per claim: discovery finds its four claims, and a
    change to its own helper (_common.py) or to the paper's (_jacobians.py) marks each stale."""
    from pathlib import Path

    from attnaudit.checks.discovery import source_hash

    cat = discover(entry_points=False)
    parts = {c.id: c.source_module for c in cat.claims if c.id.startswith("georesolver/lemma-2.4/")}
    assert parts["georesolver/lemma-2.4/softmax"] == "attnaudit.claims.georesolver.lemma_2_4.softmax"
    assert len(parts) == 4 and cat.files["georesolver/lemma-2.4/softmax"].endswith("lemma_2_4/softmax.py")
    claim = next(c for c in cat.claims if c.id == "georesolver/lemma-2.4/softmax")
    before = source_hash(claim)
    real = Path.read_bytes
    for helper in ("_common.py", "_jacobians.py"):
        monkeypatch.setattr(Path, "read_bytes", lambda p, h=helper: real(p) + (b"#" if p.name == h else b""))
        assert source_hash(claim) != before, helper
