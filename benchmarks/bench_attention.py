"""Speed and peak memory of the distance attentions against torch SDPA, and of pairwise
Poincaré distances against geoopt; prints ratios measured in one run. Optionally the wall
time of the whole catalogue (quick and full profiles).

Usage: python benchmarks/bench_attention.py [--device cpu|cuda] [--quick] [--sizes N ...]
       [--dtypes float32,float64] [--min-run-time S] [--no-memory] [--threads 1,2]
       [--no-poincare] [--catalogue [--catalogue-jobs J]]

Attention: one table, a row per (threads, dtype, n): SDPA's milliseconds, each operator's time
ratio to SDPA, the peak extra memory of each, and the 1-minute load average after the row (the
load before and after the table is printed too: on a shared machine a ratio means little
without it).

Timing: every timed call runs with the row's torch thread count (``--threads``, default 1 and
torch's default; ``Timer`` alone would use one). Per cell, ``--rounds`` interleaved rounds
(peer, then each operator), each time the median of
``torch.utils.benchmark.Timer.blocked_autorange`` under ``torch.inference_mode()``
(Timer synchronises CUDA itself); the ratio printed is the median over rounds of the
per-round ratio to the named peer, the peer's milliseconds give the scale.

Peak extra memory per call: the CPU allocator's "Total Allocated" counter as recorded by
``torch.profiler`` (``profile_memory=True``; every allocation and free of torch's CPU
allocator is an event carrying the running total): the maximum over the call minus the
value before it, i.e. everything the call allocated beyond its inputs, output included. The fast
paths' tile workspace, kept between calls (``operators._tiles.workspace``), is released before each
measurement, so the peak counts it as a single call would.
On CUDA: ``torch.cuda.max_memory_allocated`` after ``reset_peak_memory_stats``, minus
the memory allocated before the call.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import torch
from torch.utils.benchmark import Timer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere
from attnaudit import operators as O  # noqa: E402
from attnaudit.operators import _tiles  # noqa: E402

BATCH, HEADS, DIM, EPS = 2, 4, 64, 1e-3  # B·H = 8 attention problems of head size 64
DTYPES = {"float32": torch.float32, "float64": torch.float64}


THREADS = torch.get_num_threads()  # set from --threads in main()


def median_s(fn, min_run_time: float) -> float:
    # Timer runs its statement with num_threads=1 unless told otherwise: say it.
    timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=THREADS)
    return timer.blocked_autorange(min_run_time=min_run_time).median


def interleaved(cases: dict, names: list[str], rounds: int, min_run_time: float):
    """Median over ``rounds`` of each op's time divided by the peer's (first name) time in
    the same round: the machine's load drifts, the per-round ratio cancels most of it."""
    times = {m: [] for m in names}
    for _ in range(rounds):
        for m in names:
            times[m].append(median_s(cases[m], min_run_time))
    peer = names[0]
    ratios = {
        m: statistics.median(a / b for a, b in zip(times[m], times[peer], strict=True)) for m in names[1:]
    }
    return ratios, statistics.median(times[peer])


def peak_extra_bytes(fn, device: str) -> int:
    """Peak bytes allocated by one call of ``fn`` beyond what was allocated before it (the kept
    tile workspace released first, so that it counts)."""
    _tiles.release_workspace()
    if device == "cuda":
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        out = fn()
        torch.cuda.synchronize()
        del out
        return torch.cuda.max_memory_allocated() - before
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True
    ) as prof:
        out = fn()
    del out
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f)["traceEvents"]
    finally:
        os.remove(path)
    mem = [e["args"] for e in events if e.get("name") == "[memory]" and e["args"].get("Device Type") == 0]
    if not mem:
        return 0
    start = mem[0]["Total Allocated"] - mem[0]["Bytes"]
    return max(a["Total Allocated"] for a in mem) - start


def attention_cases(q, k, v):
    qb, kb = O.poincare_tanh_map(q), O.poincare_tanh_map(k)  # points of the ball, outside the timing
    sdpa = torch.nn.functional.scaled_dot_product_attention
    return {
        "SDPA": lambda: sdpa(q, k, v),
        "ida": lambda: O.ida_attention(q, k, v, eps=EPS),
        "ida exact": lambda: O.ida_attention(q, k, v, eps=EPS, path="exact"),
        "hida": lambda: O.hida_attention(qb, kb, v, eps=EPS),
        "sida": lambda: O.sida_attention(q, k, v, eps=EPS),
    }


def load() -> str:
    """The 1-, 5- and 15-minute load averages (what ``uptime`` prints): timings on a shared
    machine mean little without them."""
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def set_threads(n: int) -> None:
    global THREADS
    THREADS = n
    torch.set_num_threads(n)  # the memory measurement and the setup run outside Timer


def bench_attention(args) -> None:
    """One table: a row per (threads, dtype, n), time ratios to SDPA and peak extra memory."""
    names = ["ida", "ida exact", "hida", "sida"]
    mem_names = ["SDPA", "ida", "hida", "sida"]
    print(
        f"\nAttention: (B={BATCH}, H={HEADS}, n, d={DIM}), eps={EPS}; time ratio = op / SDPA "
        "(lower is faster; median over interleaved rounds of the per-round ratio); 'ida', 'hida', "
        f"'sida' are the default (auto = fast on CPU) paths; 'ida exact' only up to n={args.exact_max}; "
        "MiB = peak extra memory per call (inputs excluded, output included); load = 1-min load "
        "average after the row"
    )
    print(f"before the table: {load()}")
    header = (f"{'thr':>3} {'dtype':>8} {'n':>5} {'SDPA ms':>9} " + " ".join(f"{m:>9}" for m in names)
              + " | " + " ".join(f"{m + ' MiB':>9}" for m in mem_names) + f" | {'load':>5}")
    print(header)
    print("-" * len(header))
    for threads in args.threads:
        set_threads(threads)
        gen = torch.Generator().manual_seed(0)
        for dname in args.dtypes:
            dtype = DTYPES[dname]
            for n in args.sizes:
                q, k, v = (
                    torch.randn(BATCH, HEADS, n, DIM, generator=gen, dtype=dtype).to(args.device)
                    for _ in range(3)
                )
                cases = attention_cases(q, k, v)
                run = ["SDPA", *(m for m in names if m != "ida exact" or n <= args.exact_max)]
                with torch.inference_mode():
                    ratios, t_sdpa = interleaved(cases, run, args.rounds, args.min_run_time)
                    # Not measured ('ida exact' beyond --exact-max, memory under --no-memory): "-".
                    mem = {} if args.no_memory else {
                        m: peak_extra_bytes(cases[m], args.device) for m in mem_names}
                cells = " ".join(f"{ratios[m]:>9.2f}" if m in ratios else f"{'-':>9}" for m in names)
                mcells = " ".join(f"{mem[m] / 2**20:>9.1f}" if m in mem else f"{'-':>9}" for m in mem_names)
                print(f"{threads:>3} {dname:>8} {n:>5} {1e3 * t_sdpa:>9.1f} {cells} | {mcells} | "
                      f"{os.getloadavg()[0]:>5.2f}", flush=True)
    print(f"after the table: {load()}")


def bench_catalogue(args) -> None:
    """Wall time of the whole catalogue, quick and full profiles, each in a fresh
    ``python -m attnaudit run`` (results written to a temporary folder, then discarded)."""
    import subprocess
    import time

    root = Path(__file__).resolve().parents[1]
    print(f"\nWhole catalogue: python -m attnaudit run --profile P --jobs {args.catalogue_jobs} "
          "(all claims; wall seconds, this machine)")
    print(f"{'profile':>8} {'wall s':>8} {'exit':>5}  load before -> after")
    for profile in ("quick", "full"):
        before = load()
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, "-m", "attnaudit", "run", "--profile", profile, "--jobs",
                   str(args.catalogue_jobs), "--out", out]
            start = time.perf_counter()
            done = subprocess.run(cmd, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall = time.perf_counter() - start
        print(f"{profile:>8} {wall:>8.0f} {done.returncode:>5}  {before} -> {load()}", flush=True)


def bench_poincare(args) -> None:
    try:
        import geoopt
    except ImportError:
        print("\nPairwise Poincaré distances: geoopt not installed, skipped")
        return
    print(
        "\nPairwise Poincaré distances, (n, d=64) x (n, d=64) -> (n, n): operators.poincare_distance_matrix "
        "vs geoopt PoincareBall().dist(x[:, None], y[None]); ratio = ours / geoopt"
    )
    header = f"{'dtype':>8} {'n':>5} {'geoopt ms':>10} {'ours/geoopt':>12} {'geoopt MiB':>11} {'ours MiB':>9}"
    print(header)
    print("-" * len(header))
    gen = torch.Generator().manual_seed(1)
    ball = geoopt.PoincareBall()
    for dname in args.dtypes:
        dtype = DTYPES[dname]
        for n in args.poincare_sizes:
            x, y = (
                O.poincare_tanh_map(torch.randn(n, 64, generator=gen, dtype=dtype), scale=0.99).to(
                    args.device
                )
                for _ in range(2)
            )
            ours = lambda x=x, y=y: O.poincare_distance_matrix(x, y)  # noqa: E731
            peer = lambda x=x, y=y: ball.dist(x[:, None, :], y[None, :, :])  # noqa: E731
            with torch.inference_mode():
                ratios, tg = interleaved(
                    {"geoopt": peer, "ours": ours}, ["geoopt", "ours"], args.rounds, args.min_run_time
                )
                to = ratios["ours"] * tg
                # Not measured (--no-memory) prints "-", never a 0 that reads as a measurement.
                mg, mo = (("-", "-") if args.no_memory else
                          (f"{peak_extra_bytes(f, args.device) / 2**20:.1f}" for f in (peer, ours)))
            print(f"{dname:>8} {n:>5} {1e3 * tg:>10.1f} {to / tg:>12.2f} {mg:>11} {mo:>9}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--quick", action="store_true", help="n <= 2048 and shorter timing runs")
    parser.add_argument("--sizes", type=int, nargs="*", default=None)
    parser.add_argument("--dtypes", default="float32,float64")
    parser.add_argument("--min-run-time", type=float, default=None)
    parser.add_argument("--exact-max", type=int, default=2048, help="largest n for the exact IDA path")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per cell (median ratio)")
    default_threads = ",".join(str(t) for t in sorted({1, torch.get_num_threads()}))
    parser.add_argument("--threads", default=default_threads,
                        help="comma-separated torch intra-op thread counts, one block of rows each "
                        f"(default: 1 and torch's default, here {default_threads})")
    parser.add_argument("--no-poincare", action="store_true", help="skip the geoopt comparison")
    parser.add_argument("--catalogue", action="store_true",
                        help="also time the whole catalogue's quick and full profiles (long)")
    parser.add_argument("--catalogue-jobs", type=int, default=2, help="claim processes for --catalogue")
    args = parser.parse_args()
    try:
        args.threads = [int(t) for t in args.threads.split(",")]
    except ValueError:
        parser.error(f"--threads must be comma-separated integers, got {args.threads!r}")
    if min(args.threads) < 1:
        parser.error(f"--threads must be >= 1, got {args.threads}")
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda requested but torch.cuda.is_available() is False")
    args.dtypes = args.dtypes.split(",")
    unknown = [d for d in args.dtypes if d not in DTYPES]
    if unknown:
        parser.error(f"--dtypes: unknown {unknown}; choose from {sorted(DTYPES)}")
    args.sizes = args.sizes or ([1024, 2048] if args.quick else [1024, 2048, 4096, 8192])
    args.poincare_sizes = [256, 512] if args.quick else [256, 512, 1024]
    args.min_run_time = args.min_run_time or (0.2 if args.quick else 1.0)
    print(f"device={args.device} threads={args.threads} (every timed call) torch={torch.__version__} "
          f"cores={os.cpu_count()}")
    bench_attention(args)
    if not args.no_poincare:
        set_threads(args.threads[-1])
        bench_poincare(args)
    if args.catalogue:
        bench_catalogue(args)


if __name__ == "__main__":
    main()
