"""one_thread() never sets torch's thread count to 2 or more: with torch 2.13's MKL such a call
(even restoring the default) corrupts batched LU from then on (a wrong solve, or "Pivots given to
lu_solve must all be greater or equal to 1"). The case runs in a fresh interpreter, whose thread
count no other test has touched."""

from __future__ import annotations

import subprocess
import sys

SOLVE_AFTER = """
import torch
from attnaudit.checks.context import one_thread
torch.manual_seed(0)
a = torch.randn(4, 512, 512, dtype=torch.float64) + 30 * torch.eye(512, dtype=torch.float64)
b = torch.randn(4, 512, 10, dtype=torch.float64)
torch.linalg.solve(a, b)  # LAPACK used on two threads first, as a claim's earlier check would
one_thread()
torch.linalg.solve(a[:, :64, :64], b[:, :64])
one_thread()
x = torch.linalg.solve(a, b)
assert torch.get_num_threads() == 1, torch.get_num_threads()
assert (a @ x - b).abs().max().item() < 1e-9
print("ok")
"""


def test_batched_solve_is_right_after_one_thread():
    out = subprocess.run([sys.executable, "-c", SOLVE_AFTER], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
