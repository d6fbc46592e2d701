"""GeoResolver §10.3 over real ``torch.distributed`` (gloo) processes: the GSR protocol and an
All-to-All MoE baseline, with every message and byte counted at the communication call.

The parent (:func:`run_grid`) asks the OS for a free port, then forks ``world`` worker processes
(``os.fork``: no ``__main__`` re-import, no pickling, so it works the same in a main process and
in a child process; the parent holds no store or other thread when it forks); rank 0 hosts the
rendezvous store on that port. The parent waits for the workers with no deadline on the run (load
slows a run, it does not make it wrong): it stops them only when their CPU time together passes
``spec["cpu_limit_s"]`` (runaway) or when no worker has reported progress (a heartbeat at its start
and after every configuration, each well under a second of CPU) for ``STALL_S`` seconds (a hang: a
loaded machine slows each step, it does not stall them for minutes), and kills every worker still
alive in ``finally``. The workers' rendezvous and collectives carry gloo's timeout of
``COLLECTIVE_TIMEOUT_S``, a backstop far beyond any loaded run. Groups of P < world ranks are
prefix subgroups (``torch.distributed.new_group(range(P))``) of one start.

Counting model (:class:`CountingComm`, per rank, what the calling rank SENDS to other ranks):
``send`` 1 message of the tensor's bytes; ``all_gather`` P − 1 messages of the input's bytes
(the tensor reaches every peer); ``all_to_all_single`` one message per peer with a non-empty
split, of that split's bytes; ``broadcast`` P − 1 messages at the root. Receives are tallied
apart. Totals are summed over ranks by the parent.
"""

from __future__ import annotations

import contextlib
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

from attnaudit import operators

# torch.distributed is reached as an attribute of torch (``import torch`` loads it): a module-level
# ``import torch.distributed`` would import the submodule under discovery's deferred torch.
D_H, D_V = 16, 16  # query/prototype dimension d_h and value dimension
# A hang, not load: no worker reported progress for this long (one configuration takes under a
# second of CPU; at a twentieth of a core, 20 s). Gloo's own timeout is a backstop beyond it.
STALL_S, COLLECTIVE_TIMEOUT_S = 600.0, 1800.0
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


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

    def send(self, tensor, dst: int) -> None:
        torch.distributed.send(tensor, dst=dst, group=self.group)
        self._count("send", 1, tensor.numel() * tensor.element_size())

    def recv(self, tensor, src: int) -> None:
        torch.distributed.recv(tensor, src=src, group=self.group)
        self.recv_messages += 1
        self.recv_bytes += tensor.numel() * tensor.element_size()

    def broadcast(self, tensor, src: int) -> None:
        torch.distributed.broadcast(tensor, src=src, group=self.group)
        if self.rank == src:
            self._count("broadcast", self.size - 1, (self.size - 1) * tensor.numel() * tensor.element_size())

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
        row_bytes = rows.shape[1] * rows.element_size()
        peers = [j for j in range(self.size) if j != self.rank and splits[j] > 0]
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


def _one(comm, protocol: str, cfg: dict, reference: bool) -> dict:
    q, c, v = make_instance(cfg["seed"], cfg["B"], cfg["K_pool"])
    q_local = q[_shards(cfg["B"], comm.size)[comm.rank]]
    fn = gsr if protocol == "gsr" else all_to_all_moe
    out = fn(comm, q_local, c, v, cfg["eps"], cfg["K"])
    row = {"messages": comm.messages, "bytes": comm.bytes, "calls": comm.calls,
           "recv_messages": comm.recv_messages, "recv_bytes": comm.recv_bytes}
    if reference:  # the single-process Top-K output and the exact all-prototype output
        ref = operators.gsr_attention(q_local, c, v, eps=cfg["eps"], k=cfg["K"])
        exact = operators.gsr_exact(q_local, c, v, eps=cfg["eps"])
        row |= {"max_abs_error": float((out - ref).abs().max()),
                "max_abs_vs_exact": float((out - exact).abs().max()),
                "max_abs_v": float(v.abs().max())}
    return row


def _beat(spec: dict, rank: int) -> None:
    """Progress for the parent's hang guard: this rank's heartbeat file, touched."""
    if spec.get("beat_dir"):
        Path(spec["beat_dir"], f"beat{rank}").touch()


def worker(rank: int, world: int, port: int, spec: dict) -> list[dict]:
    torch.set_num_threads(1)
    if spec.get("hang_rank") == rank:  # tests only: a worker that never joins (the hang guard's test)
        time.sleep(3600)
    _beat(spec, rank)
    timeout = datetime.timedelta(seconds=spec.get("collective_timeout_s", COLLECTIVE_TIMEOUT_S))
    torch.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                         world_size=world, timeout=timeout)  # rank 0 hosts the store
    rows = []
    try:
        groups = {p: torch.distributed.new_group(list(range(p))) for p in spec["P"]}  # on every rank
        for p in spec["P"]:
            if rank < p:
                for cfg in spec["configs"]:
                    for protocol in ("gsr", "a2a"):
                        comm = CountingComm(groups[p], rank, p)
                        row = _one(comm, protocol, cfg, cfg["B"] <= spec["reference_max_B"])
                        if protocol == "gsr" and spec.get("extra_send") and p >= 2 and rank < 2:
                            extra = torch.zeros(spec["extra_send"] // 8, dtype=torch.float64)
                            comm.send(extra, 1) if rank == 0 else comm.recv(extra, 0)
                            row |= {"messages": comm.messages, "bytes": comm.bytes, "calls": comm.calls,
                                    "recv_messages": comm.recv_messages, "recv_bytes": comm.recv_bytes}
                        rows.append(row | {"protocol": protocol, "P": p, "rank": rank,
                                           **{k: cfg[k] for k in ("B", "K_pool", "K", "seed")}})
                        _beat(spec, rank)
            torch.distributed.barrier()
    finally:
        torch.distributed.destroy_process_group()
    return rows


def _die_with_parent() -> None:
    """Linux: the kernel kills this worker if the parent dies (no orphan outlives a killed run)."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _child(rank: int, world: int, port: int, spec: dict, tmp: Path) -> None:
    """The forked worker: never returns (``os._exit``), so nothing of the parent runs twice."""
    code = 1
    try:
        _die_with_parent()
        rows = worker(rank, world, port, spec)
        (tmp / f"out{rank}.json").write_text(json.dumps(rows))
        code = 0
    except BaseException:  # noqa: BLE001 - reported to the parent through the file
        (tmp / f"err{rank}").write_text(traceback.format_exc())
    finally:
        os._exit(code)


def _start(rank: int, world: int, port: int, spec: dict, tmp: Path, fresh: bool):
    """Start one worker; returns (pid, Popen or None)."""
    if fresh:  # a new interpreter: the package root on its path, this module as the program
        import attnaudit

        root = str(Path(attnaudit.__file__).resolve().parents[1])  # where `attnaudit` imports from
        env = dict(os.environ, OMP_NUM_THREADS="1",
                   PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        with open(tmp / f"err{rank}", "w") as err:
            proc = subprocess.Popen([sys.executable, "-m", "attnaudit.claims.georesolver._gsr_dist",
                                     str(rank), str(world), str(port), str(tmp)], cwd=root, env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        return proc.pid, proc
    pid = os.fork()
    if pid == 0:
        _child(rank, world, port, spec, tmp)
    return pid, None


def run_grid(spec: dict, world: int, *, fresh: bool | None = None) -> list[dict]:
    """Run ``spec`` on ``world`` worker processes; rows per (protocol, P, config), summed over
    ranks. Raises RuntimeError (with the workers' tracebacks) if a worker fails, if the workers'
    CPU time together passes ``spec["cpu_limit_s"]``, or if no worker reports progress for
    ``spec.get("stall_s", STALL_S)`` seconds (a hang). No deadline on the run: load cannot trip it.

    Workers are forked (``os.fork``) from the calling process, main or child alike, so they start
    with torch imported and warm (a fresh interpreter costs seconds of imports per rank). Where the
    caller runs other threads (``fresh=None`` checks), forking could copy a lock another thread
    holds, so fresh interpreters are started instead (``python -m claims.georesolver._gsr_dist``).
    Every worker still alive when this returns or raises is killed and reaped.
    """
    if fresh is None:
        fresh = threading.active_count() > 1
    if not fresh:
        _warm_up()
    cpu_limit, stall = float(spec["cpu_limit_s"]), float(spec.get("stall_s", STALL_S))
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:  # a free port, from the OS
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    workers: dict[int, tuple[int, subprocess.Popen | None]] = {}
    codes: dict[int, int] = {}
    with tempfile.TemporaryDirectory(prefix="gsr-dist-") as tmp:
        tmp_path = Path(tmp)
        spec = spec | {"beat_dir": tmp}
        (tmp_path / "spec.json").write_text(json.dumps(spec))
        try:
            for r in range(world):
                workers[r] = _start(r, world, port, spec, tmp_path, fresh)
            cpu = dict.fromkeys(workers, 0.0)  # each worker's CPU seconds, last seen alive
            beats, last_progress = 0.0, time.monotonic()
            while len(codes) < world:
                for r, (pid, proc) in workers.items():
                    if r in codes:
                        continue
                    cpu[r] = max(cpu[r], _cpu_seconds(pid))
                    if proc is not None:
                        if proc.poll() is not None:
                            codes[r] = proc.returncode
                        continue
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done:
                        codes[r] = os.waitstatus_to_exitcode(status)
                if any(c != 0 for c in codes.values()):
                    break  # a failed worker: its peers may wait for it in a collective
                total = sum(cpu.values())
                newest = max((f.stat().st_mtime_ns for f in tmp_path.glob("beat*")), default=0)
                if newest > beats:
                    beats, last_progress = newest, time.monotonic()
                if total > cpu_limit:
                    raise RuntimeError(f"distributed run used {total:.1f} s of CPU, past its limit of "
                                       f"{cpu_limit:g} s (ranks done: {sorted(codes)})")
                if len(codes) < world and time.monotonic() - last_progress > stall:
                    raise RuntimeError(f"distributed run hung: no worker reported progress for {stall:g} s "
                                       f"(ranks done: {sorted(codes)})")
                time.sleep(0.05)
            failed = [r for r, c in codes.items() if c != 0]
            if failed:
                tails = "; ".join(f"rank {r}: " + _read(tmp_path / f"err{r}")[-800:] for r in failed)
                raise RuntimeError(f"distributed run failed on ranks {failed}: {tails}")
            rows = [row for r in range(world) for row in json.loads((tmp_path / f"out{r}.json").read_text())]
        finally:
            for r, (pid, proc) in workers.items():
                if r in codes:
                    continue
                if proc is not None:
                    proc.kill()
                    proc.wait()
                    continue
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                with contextlib.suppress(ChildProcessError):
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


def _warm_up() -> None:
    """One tiny call of each operator the workers use, before forking: their lazy imports and first-
    call set-up then happen once, in the parent, instead of once per worker."""

    q, c, v = make_instance(0, 4, 4)
    operators.sphere_sqdist(q, c)
    operators.gsr_attention(q, c, v, eps=1e-2, k=2)
    operators.gsr_exact(q, c, v, eps=1e-2)


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else "(no traceback: killed or exited early)"


def _sum_ranks(rows: list[dict]) -> list[dict]:
    out: dict[tuple, dict] = {}
    for row in rows:
        key = (row["protocol"], row["P"], row["B"], row["K_pool"], row["K"])
        acc = out.setdefault(key, {"protocol": row["protocol"], "P": row["P"], "B": row["B"],
                                   "K_pool": row["K_pool"], "K": row["K"], "messages": 0, "bytes": 0,
                                   "recv_messages": 0, "recv_bytes": 0, "calls": {}})
        for f in ("messages", "bytes", "recv_messages", "recv_bytes"):
            acc[f] += row[f]
        for op, (m, b) in row["calls"].items():
            slot = acc["calls"].setdefault(op, [0, 0])
            slot[0] += m
            slot[1] += b
        for f in ("max_abs_error", "max_abs_vs_exact", "max_abs_v"):
            if f in row:
                acc[f] = max(acc.get(f, 0.0), row[f])
    return [out[k] for k in sorted(out)]


def main(argv: list[str] | None = None) -> None:
    """One worker in a fresh interpreter: ``RANK WORLD PORT TMP`` (the spec in TMP/spec.json)."""
    rank, world, port, tmp = (argv if argv is not None else sys.argv[1:])
    tmp_path = Path(tmp)
    spec = json.loads((tmp_path / "spec.json").read_text())
    rows = worker(int(rank), int(world), int(port), spec)  # a traceback goes to stderr, err{rank}
    (tmp_path / f"out{rank}.json").write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
