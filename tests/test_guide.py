"""docs/writing-a-claim.md: every command in its ``bash`` blocks runs as shown, from the root of a
copy of the repository (``attnaudit`` and ``pytest`` through this interpreter): Part 1's built-in
claim, and Part 2's pack written by ``attnaudit init`` from the docs example paper, whose commands
run from directories that are not the pack's (the root, results/, /tmp). A command marked
``# exits N`` must exit N."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "writing-a-claim.md"
SKIP = shutil.ignore_patterns(".git", ".venv", ".nox", "__pycache__", "*.egg-info", "results",
                              "build", "dist", ".pytest_cache", ".hypothesis", ".ruff_cache",
                              "mutants", "my-claims")


def commands(text: str) -> list[str]:
    blocks = re.findall(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def expected_exit(cmd: str) -> int:
    found = re.search(r"#\s*exits (\d+)\s*$", cmd)
    return int(found.group(1)) if found else 0


def part_1(text: str) -> str:
    return text.split("\n# Part 2", 1)[0]


def test_the_readme_links_the_guide():
    assert "(docs/writing-a-claim.md)" in (ROOT / "README.md").read_text()


def jobs(text: str) -> dict[str, list[str]]:
    """The guide's commands as independent jobs, each run in its own copy of the repository (so the
    suite's workers share them out): Part 1's commands that read the run's results/guide form one
    chain with that run, every other Part 1 command stands alone, and Part 2 is one chain."""
    first = commands(part_1(text))
    rest = commands(text)[len(first):]
    guide = [c for c in first if "results/guide" in c]
    alone = {c: [c] for c in first if c not in guide}
    return {"part-1-results": guide, **alone, "part-2": rest}


def test_the_jobs_hold_every_command_once():
    text = GUIDE.read_text()
    cmds = commands(text)
    assert len(cmds) >= 8 and any("attnaudit run georesolver/property-2.2.1" in c for c in cmds)
    assert any(c.startswith("attnaudit init docs/example-paper/") for c in cmds)
    assert any(expected_exit(c) == 2 for c in cmds)  # the missing pack baseline, shown failing
    held = [c for job in jobs(text).values() for c in job]
    assert sorted(held) == sorted(cmds) and len(jobs(text)) >= 4


@pytest.mark.parametrize("job", list(jobs(GUIDE.read_text())))
def test_every_command_of_the_guide_runs(tmp_path, job):
    cmds = jobs(GUIDE.read_text())[job]
    copy = tmp_path / "repo"
    shutil.copytree(ROOT, copy, ignore=SKIP)
    env = dict(os.environ, PYTHONPATH=str(copy))
    prelude = (f'attnaudit() {{ "{sys.executable}" -m attnaudit "$@"; }}\n'
               f'pytest() {{ "{sys.executable}" -m pytest -p no:cacheprovider "$@"; }}\n')
    for cmd in cmds:
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", prelude + cmd], cwd=copy, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == expected_exit(cmd), f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        if cmd.startswith("attnaudit init"):
            assert "4 results" in proc.stdout
        if cmd == "attnaudit run --claims my-claims":  # the stubs, at once
            assert proc.stdout.count("inconclusive") >= 4 and "clause 'clause-1'" in proc.stdout
        if cmd.startswith("attnaudit run --claims my-claims --out"):
            assert "2 confirmed, 1 inconclusive, 1 refuted" in proc.stdout
            assert "1507/3000" in (copy / "results" / "paper" / "results.json").read_text()  # section 15
        if expected_exit(cmd) == 2:
            assert "baseline.json does not exist" in proc.stderr
        if cmd.startswith("attnaudit mutate"):
            assert "0 failed" in proc.stdout and "FAILS" not in proc.stdout
        if cmd.startswith("attnaudit run my-paper"):
            assert "inconclusive" in proc.stdout and "undecided" in proc.stdout
        if cmd.startswith("attnaudit run georesolver"):
            assert "confirmed" in proc.stdout and "absent" in proc.stdout  # as section 9 says
    # each accept wrote its own baseline and no other
    written = {p.relative_to(copy).as_posix() for p in copy.rglob("baseline.json")}
    own = {"part-1-results": {"results/guide/baseline.json"},
           "part-2": {"my-claims/softmax_note/baseline.json"}}.get(job, set())
    assert written == {"claims/baseline.json", "tests/example_pack/attnaudit_example/baseline.json"} | own


def test_the_guides_imports_are_the_public_api():
    import attnaudit

    [block] = re.findall(r"from attnaudit import \(([^)]*)\)", GUIDE.read_text())
    names = [n.strip() for n in block.replace("\n", " ").split(",") if n.strip()]
    assert {"Claim", "Clause", "ProofStep", "control", "tolerances"} <= set(names)
    assert [n for n in names if not hasattr(attnaudit, n)] == []


def test_the_guides_example_is_the_spec():
    """What the guide quotes of Property 1's spec and of its sibling Property 2's (clause and
    proof-step ids with the start of their quotes, the steps proof items name, the controls and
    their contrasts, Property 1's identity and absent proof) is in those specs as they are."""
    from attnaudit.checks.quotes import normalise
    from attnaudit.claims.georesolver import property_2_2_1, property_2_2_2

    claims = [*property_2_2_1.CLAIMS, *property_2_2_2.CLAIMS]
    text = part_1(GUIDE.read_text())  # Part 2 quotes the docs example paper's specs
    scaffold = {"main", "step-1"}  # the ids 'attnaudit new' writes
    for cls, attr in (("Clause", "clauses"), ("ProofStep", "proof_steps")):
        quotes = {i.id: normalise(i.quote) for c in claims for i in getattr(c, attr)}
        found = [(i, q) for i, q in re.findall(rf'{cls}\("([^"]+)", "([^"]+)"', text) if i not in scaffold]
        assert found, f"the guide quotes no {cls} of the specs"
        for ident, start in found:
            assert ident in quotes, f"{cls} {ident!r} is in neither spec (they have {sorted(quotes)})"
            assert quotes[ident].startswith(normalise(start)), (ident, quotes[ident])
    steps = {s.id for c in claims for s in c.proof_steps} | scaffold
    assert set(re.findall(r'step="([^"]+)"', text)) <= steps
    controls = {(k.variant, k.contrast) for c in claims for check in c.checks for k in check.controls}
    quoted = set(re.findall(r'control\("([^"]+)", contrast="(\w+)"', text))
    assert quoted and quoted <= controls, quoted - controls
    p1 = property_2_2_1.CLAIMS[0]
    assert p1.proof_absent and p1.proof_absent.split(";")[0] in " ".join(text.split())
    assert p1.identity and p1.identity in " ".join(text.split())
    assert {c.id for c in p1.clauses} == {"invariance", "weights", "softmax-contrast"}
