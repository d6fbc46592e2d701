"""GeoResolver §10.3 over real ``torch.distributed`` (gloo) processes: the GSR protocol and an All-to-All
MoE baseline, with every message and byte counted at the communication call.

Counting model (:class:`CountingComm`, per rank, what the calling rank SENDS to other ranks): ``send`` 1
message of the tensor's bytes; ``all_gather`` P − 1 messages of the input's bytes (the tensor reaches
every peer); ``all_to_all_single`` one message per peer with a non-empty split, of that split's bytes.
Receives are tallied apart. Totals are summed over ranks by the parent (:func:`run_grid`), which stops
the workers on CPU time or on no progress, never on a deadline (load slows a run, it does not make it
wrong); gloo's ``COLLECTIVE_TIMEOUT_S`` is a backstop far beyond any loaded run. Rank 0 hosts the
rendezvous store on a port the OS picked; groups of P < world ranks are prefix subgroups
(``torch.distributed.new_group(range(P))``) of one start."""

from __future__ import annotations

import contextlib
import ctypes
import datetime
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

import torch

import attnaudit
from attnaudit import operators

# torch.distributed is reached as an attribute of torch (``import torch`` loads it): a module-level
# ``import torch.distributed`` would import the submodule under discovery's deferred torch.
D_H, D_V = 16, 16  # query/prototype dimension d_h and value dimension
# A hang, not load: no worker reported progress for this long (one configuration takes under a
# second of CPU; at a twentieth of a core, 20 s). Gloo's own timeout is a backstop beyond it.
STALL_S, COLLECTIVE_TIMEOUT_S = 600.0, 1800.0
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
COUNTS = ("messages", "bytes", "recv_messages", "recv_bytes")


class CountingComm:
    """The only way the protocols communicate: wraps torch.distributed and counts each call."""

    def __init__(self, group, rank: int, size: int):
        self.group, self.rank, self.size = group, rank, size
        self.messages = self.bytes = self.recv_messages = self.recv_bytes = 0
        self.calls: dict[str, list[int]] = {}

    def _count(self, op: str, messages: int, nbytes: int) -> None:
        self.messages += messages
        self.bytes += nbytes
        entry = self.calls.setdefault(op, [0, 0])
        entry[0] += messages
        entry[1] += nbytes

    def row(self) -> dict:
        return {f: getattr(self, f) for f in COUNTS} | {"calls": self.calls}

    def send(self, tensor, dst: int) -> None:
        torch.distributed.send(tensor, dst=dst, group=self.group)
        self._count("send", 1, tensor.numel() * tensor.element_size())

    def recv(self, tensor, src: int) -> None:
        torch.distributed.recv(tensor, src=src, group=self.group)
        self.recv_messages += 1
        self.recv_bytes += tensor.numel() * tensor.element_size()

    def all_gather(self, tensor) -> list:
        out = [torch.empty_like(tensor) for _ in range(self.size)]
        torch.distributed.all_gather(out, tensor.contiguous(), group=self.group)
        self._count("all_gather", self.size - 1, (self.size - 1) * tensor.numel() * tensor.element_size())
        return out

    def all_to_all_rows(self, rows, splits: list[int]):
        """Rows ``(n, m)`` split by destination (``splits`` rows to rank j); returns the received
        rows (grouped by source) and the received splits. The split sizes travel first."""
        send_counts = torch.tensor(splits, dtype=torch.int64)
        recv_counts = torch.empty_like(send_counts)
        torch.distributed.all_to_all_single(recv_counts, send_counts, group=self.group)
        self._count("all_to_all(sizes)", self.size - 1, (self.size - 1) * send_counts.element_size())
        got = [int(c) for c in recv_counts.tolist()]
        out = torch.empty(sum(got), rows.shape[1], dtype=rows.dtype)
        torch.distributed.all_to_all_single(out, rows.contiguous(), got, splits, group=self.group)
        peers = [j for j in range(self.size) if j != self.rank and splits[j] > 0]
        row_bytes = rows.shape[1] * rows.element_size()
        self._count("all_to_all", len(peers), sum(splits[j] for j in peers) * row_bytes)
        return out, got


def make_instance(seed: int, batch: int, pool: int):
    """Queries and prototypes uniform on S^{d_h−1}, values N(0, I): identical on every rank."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(batch, D_H, generator=g, dtype=torch.float64)
    c = torch.randn(pool, D_H, generator=g, dtype=torch.float64)
    v = torch.randn(pool, D_V, generator=g, dtype=torch.float64)
    return q / q.norm(dim=-1, keepdim=True), c / c.norm(dim=-1, keepdim=True), v


def _shards(n: int, parts: int):
    return torch.tensor_split(torch.arange(n), parts)


def gsr(comm: CountingComm, q_local, c, v, eps: float, k: int):
    """§10.3's four steps for this rank's query shard and prototype shard; returns the outputs
    o(q) of this rank's queries."""
    rank, size = comm.rank, comm.size
    mine = _shards(c.shape[0], size)[rank]
    q_all = torch.cat(comm.all_gather(q_local))  # the queries reach every worker (the "scatter")
    u = 1.0 / (operators.sphere_sqdist(q_all, c[mine]) + eps)  # 1. local SIDA scores
    kk = min(k, mine.numel())
    top, idx = torch.topk(u, kk, dim=-1)
    pad = k - kk  # candidates padded with score 0 (never selected: every true score is > 0)
    cand = torch.cat([torch.nn.functional.pad(top, (0, pad)),
                      torch.nn.functional.pad(mine[idx].to(u.dtype), (0, pad), value=-1.0),
                      u.sum(dim=-1, keepdim=True)], dim=-1)
    gathered = torch.stack(comm.all_gather(cand))  # 2. All-Gather of the top scores (+ local sums)
    scores = gathered[:, :, :k].permute(1, 0, 2).reshape(q_all.shape[0], -1)
    ids = gathered[:, :, k:2 * k].permute(1, 0, 2).reshape(q_all.shape[0], -1)
    total = gathered[:, :, 2 * k].sum(dim=0)
    best, where = torch.topk(scores, k, dim=-1)
    chosen = torch.gather(ids, 1, where).long()
    weight = torch.zeros(q_all.shape[0], c.shape[0], dtype=u.dtype)  # 3. local outputs
    weight.scatter_(1, chosen, best / total[:, None])
    partial = weight[:, mine] @ v[mine]
    summed = torch.stack(comm.all_gather(partial)).sum(dim=0)  # 4. aggregation (an all-reduce)
    return summed[_shards(q_all.shape[0], size)[rank]]


def all_to_all_moe(comm: CountingComm, q_local, c, v, eps: float, k: int):
    """All-to-All MoE: route each local token to its Top-K experts (prototypes, sharded by owner),
    dispatch token + (expert id, weight) to the owners, experts return w_e·v_e, the token's owner
    sums them."""
    size = comm.size
    owner = torch.empty(c.shape[0], dtype=torch.int64)
    for j, part in enumerate(_shards(c.shape[0], size)):
        owner[part] = j
    w, idx = operators.gsr_topk(q_local, c, eps=eps, k=k)
    n = q_local.shape[0]
    token = torch.arange(n).repeat_interleave(k)
    expert, weight = idx.reshape(-1), w.reshape(-1)
    dest = owner[expert]
    order = torch.argsort(dest, stable=True)
    rows = torch.cat([q_local[token[order]], expert[order, None].to(q_local.dtype),
                      weight[order, None]], dim=-1)
    splits = torch.bincount(dest, minlength=size).tolist()
    got, got_splits = comm.all_to_all_rows(rows, splits)  # dispatch
    outs = got[:, -1:] * v[got[:, D_H].long()]  # the experts' outputs
    back, _ = comm.all_to_all_rows(outs, got_splits)  # combine: rows return in dispatch order
    result = torch.zeros(n, v.shape[1], dtype=v.dtype)
    result.index_add_(0, token[order], back)
    return result


def _one(comm, protocol: str, cfg: dict, spec: dict) -> dict:
    q, c, v = make_instance(cfg["seed"], cfg["B"], cfg["K_pool"])
    q_local = q[_shards(cfg["B"], comm.size)[comm.rank]]
    out = (gsr if protocol == "gsr" else all_to_all_moe)(comm, q_local, c, v, cfg["eps"], cfg["K"])
    if protocol == "gsr" and spec.get("extra_send") and comm.size >= 2 and comm.rank < 2:  # tests only
        extra = torch.zeros(spec["extra_send"] // 8, dtype=torch.float64)
        comm.send(extra, 1) if comm.rank == 0 else comm.recv(extra, 0)
    row = comm.row()
    if cfg["B"] <= spec["reference_max_B"]:  # the single-process Top-K output and the exact one
        ref = operators.gsr_attention(q_local, c, v, eps=cfg["eps"], k=cfg["K"])
        exact = operators.gsr_exact(q_local, c, v, eps=cfg["eps"])
        row |= {"max_abs_error": float((out - ref).abs().max()),
                "max_abs_vs_exact": float((out - exact).abs().max()), "max_abs_v": float(v.abs().max())}
    return row


def worker(rank: int, world: int, port: int, spec: dict) -> list[dict]:
    torch.set_num_threads(1)
    if spec.get("hang_rank") == rank:  # tests only: a worker that never joins (the hang guard's test)
        time.sleep(3600)
    beat = Path(spec["beat_dir"], f"beat{rank}").touch  # progress, for the parent's hang guard
    beat()
    timeout = datetime.timedelta(seconds=spec.get("collective_timeout_s", COLLECTIVE_TIMEOUT_S))
    torch.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                         world_size=world, timeout=timeout)  # rank 0 hosts the store
    rows = []
    try:
        groups = {p: torch.distributed.new_group(list(range(p))) for p in spec["P"]}  # on every rank
        for p in spec["P"]:
            for cfg in spec["configs"] if rank < p else ():
                for protocol in ("gsr", "a2a"):
                    row = _one(CountingComm(groups[p], rank, p), protocol, cfg, spec)
                    rows.append(row | {"protocol": protocol, "P": p, "rank": rank,
                                       **{k: cfg[k] for k in ("B", "K_pool", "K", "seed")}})
                    beat()
            torch.distributed.barrier()
    finally:
        torch.distributed.destroy_process_group()
    return rows


def _child(rank: int, world: int, port: int, tmp: Path) -> None:
    """One worker, forked or in a fresh interpreter (``main``): the kernel kills it if the parent dies
    (Linux); it never returns (``os._exit``), so nothing of the parent runs twice."""
    code = 1
    try:
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        rows = worker(rank, world, port, json.loads((tmp / "spec.json").read_text()))
        (tmp / f"out{rank}.json").write_text(json.dumps(rows))
        code = 0
    except BaseException:  # noqa: BLE001 - reported to the parent through the file
        (tmp / f"err{rank}").write_text(traceback.format_exc())
    finally:
        os._exit(code)


def _start(rank: int, world: int, port: int, tmp: Path, fresh: bool):
    """Start one worker; returns (pid, Popen or None)."""
    if not fresh:
        pid = os.fork()
        if pid == 0:
            _child(rank, world, port, tmp)
        return pid, None
    root = str(Path(attnaudit.__file__).resolve().parents[1])  # where `attnaudit` imports from
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    with open(tmp / f"err{rank}", "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "attnaudit.claims.georesolver._gsr_dist", str(rank),
                                 str(world), str(port), str(tmp)], cwd=root, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    return proc.pid, proc


def run_grid(spec: dict, world: int, *, fresh: bool | None = None) -> list[dict]:
    """Run ``spec`` on ``world`` worker processes; rows per (protocol, P, config), summed over
    ranks. Raises RuntimeError (with the workers' tracebacks) if a worker fails, if the workers'
    CPU time together passes ``spec["cpu_limit_s"]``, or if no worker reports progress for
    ``spec.get("stall_s", STALL_S)`` seconds (a hang). No deadline on the run: load cannot trip it.

    Workers are forked (``os.fork``) from the calling process, main or child alike, so they start
    with torch imported and warm (a fresh interpreter costs seconds of imports per rank). Where the
    caller runs other threads (``fresh=None`` checks), forking could copy a lock another thread
    holds, so fresh interpreters are started instead (``python -m attnaudit.claims.georesolver._gsr_dist``).
    Every worker still alive when this returns or raises is killed and reaped.
    """
    if fresh is None:
        fresh = threading.active_count() > 1
    if not fresh:  # the operators' lazy imports and first-call set-up, once in the parent
        q, c, v = make_instance(0, 4, 4)
        operators.sphere_sqdist(q, c)
        operators.gsr_attention(q, c, v, eps=1e-2, k=2)
        operators.gsr_exact(q, c, v, eps=1e-2)
    cpu_limit, stall = float(spec["cpu_limit_s"]), float(spec.get("stall_s", STALL_S))
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:  # a free port, from the OS
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    workers: dict[int, tuple[int, subprocess.Popen | None]] = {}
    codes: dict[int, int] = {}
    with tempfile.TemporaryDirectory(prefix="gsr-dist-") as tmp:
        tmp_path = Path(tmp)
        (tmp_path / "spec.json").write_text(json.dumps(spec | {"beat_dir": tmp}))
        try:
            for r in range(world):
                workers[r] = _start(r, world, port, tmp_path, fresh)
            cpu = dict.fromkeys(workers, 0.0)  # each worker's CPU seconds, last seen alive
            beats, last_progress = 0.0, time.monotonic()
            while len(codes) < world:
                for r, (pid, _) in workers.items():  # a fresh worker's Popen is only kept alive: reaped here
                    if r in codes:
                        continue
                    cpu[r] = max(cpu[r], _cpu_seconds(pid))
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done:
                        codes[r] = os.waitstatus_to_exitcode(status)
                if any(c != 0 for c in codes.values()):
                    break  # a failed worker: its peers may wait for it in a collective
                newest = max((f.stat().st_mtime_ns for f in tmp_path.glob("beat*")), default=0)
                if newest > beats:
                    beats, last_progress = newest, time.monotonic()
                if (total := sum(cpu.values())) > cpu_limit:
                    raise RuntimeError(f"distributed run used {total:.1f} s of CPU, past its limit of "
                                       f"{cpu_limit:g} s (ranks done: {sorted(codes)})")
                if len(codes) < world and time.monotonic() - last_progress > stall:
                    raise RuntimeError(f"distributed run hung: no worker reported progress for {stall:g} s "
                                       f"(ranks done: {sorted(codes)})")
                time.sleep(0.05)
            failed = [r for r, c in codes.items() if c != 0]
            if failed:
                tails = "; ".join(f"rank {r}: " + (tmp_path / f"err{r}").read_text()[-800:]
                                  if (tmp_path / f"err{r}").exists() else
                                  f"rank {r}: (no traceback: killed or exited early)" for r in failed)
                raise RuntimeError(f"distributed run failed on ranks {failed}: {tails}")
            rows = [row for r in range(world) for row in json.loads((tmp_path / f"out{r}.json").read_text())]
        finally:
            for r, (pid, _) in workers.items():
                if r not in codes:
                    with contextlib.suppress(ProcessLookupError, ChildProcessError):
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
    return _sum_ranks(rows)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux /proc; 0 where unreadable: then only the
    hang guard applies)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def _sum_ranks(rows: list[dict]) -> list[dict]:
    out: dict[tuple, dict] = {}
    for row in rows:
        key = (row["protocol"], row["P"], row["B"], row["K_pool"], row["K"])
        acc = out.setdefault(key, dict(zip(("protocol", "P", "B", "K_pool", "K"), key, strict=True))
                             | dict.fromkeys(COUNTS, 0) | {"calls": {}})
        for f in COUNTS:
            acc[f] += row[f]
        for op, (m, b) in row["calls"].items():
            slot = acc["calls"].setdefault(op, [0, 0])
            slot[0] += m
            slot[1] += b
        for f in ("max_abs_error", "max_abs_vs_exact", "max_abs_v"):
            if f in row:
                acc[f] = max(acc.get(f, 0.0), row[f])
    return [out[k] for k in sorted(out)]


if __name__ == "__main__":  # a worker in a fresh interpreter: RANK WORLD PORT TMP (the spec in TMP/spec.json)
    _child(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))
