"""docs/writing-a-claim.md: every command in its ``bash`` blocks runs as shown, from the root of a
copy of the repository (``attnaudit`` and ``pytest`` through this interpreter)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "writing-a-claim.md"
SKIP = shutil.ignore_patterns(".git", ".venv", ".nox", "__pycache__", "*.egg-info", "results",
                              "build", "dist", ".pytest_cache", ".hypothesis", ".ruff_cache",
                              "mutants", "my-claims")


def commands(text: str) -> list[str]:
    blocks = re.findall(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def test_the_readme_links_the_guide():
    assert "(docs/writing-a-claim.md)" in (ROOT / "README.md").read_text()


def test_every_command_of_the_guide_runs(tmp_path):
    cmds = commands(GUIDE.read_text())
    assert len(cmds) >= 8 and any("attnaudit run georesolver/property-2.2.1" in c for c in cmds)
    copy = tmp_path / "repo"
    shutil.copytree(ROOT, copy, ignore=SKIP)
    env = dict(os.environ, PYTHONPATH=str(copy))
    prelude = (f'attnaudit() {{ "{sys.executable}" -m checks "$@"; }}\n'
               f'pytest() {{ "{sys.executable}" -m pytest -p no:cacheprovider "$@"; }}\n')
    for cmd in cmds:
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", prelude + cmd], cwd=copy, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        if cmd.startswith("attnaudit run my-paper"):
            assert "inconclusive" in proc.stdout and "undecided" in proc.stdout
        if cmd.startswith("attnaudit run georesolver"):
            assert "confirmed" in proc.stdout and "sound" in proc.stdout
    assert (copy / "results" / "guide" / "baseline.json").exists()
