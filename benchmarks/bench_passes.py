"""Where a fast-path tile's time goes: each pass over one default tile against SDPA's time per tile.

Usage: python benchmarks/bench_passes.py [--n N] [--dtype float32|float64] [--reps R] [--threads T]

For ida, hida and sida (B·H = 8, d = 64, ε = 1e-3, the inputs of ``bench_attention.py``) the first
tile of the streamed fast path (one head's 512 × 512 at n >= 512) is captured (``operators._tiles.stream``
is wrapped for the call) and its pieces are timed on that tile's own data: the distance GEMM, the whole
tile function (GEMM, screen, per-pair transform), the stream's division and row sum and the value GEMM;
then each elementwise pass the transforms use, by torch and by numpy (``_tiles.inplace`` takes numpy's
SIMD kernels where it has them), and one in-place Horner step (what a polynomial replacement of
``arccos`` or ``log1p`` would cost per degree). ``SDPA/tile`` is SDPA's time on the whole problem
divided by the number of tiles, so a column of ratios adds up to an operator's time over SDPA's
(less the per-call setup and the loop's own overhead: the last line gives the whole calls).
Times are the median over ``--reps`` of the thread's CPU time (``time.thread_time``): on a
shared machine that leaves out the time the process waits for a core, though not cache and memory
contention; the load average is printed beside the table.
"""

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere
from attnaudit import operators as O  # noqa: E402
from attnaudit.operators import _tiles  # noqa: E402

BATCH, HEADS, DIM, EPS = 2, 4, 64, 1e-3


def cpu_seconds(fn, reps: int, setup=None) -> float:
    """Median thread CPU time of ``fn()`` over ``reps`` runs (``setup()`` before each, untimed)."""
    fn() if setup is None else (setup(), fn())
    times = []
    for _ in range(reps):
        if setup is not None:
            setup()
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return statistics.median(times)


def capture(call):
    """The arguments of the first ``_tiles.stream`` call made by ``call()`` (which then runs on)."""
    seen = {}
    original = _tiles.stream

    def spy(qa, ka, q_rows, k_rows, v, tile, **kw):
        seen.setdefault("args", (qa, ka, q_rows, k_rows, v, tile, kw))
        return original(qa, ka, q_rows, k_rows, v, tile, **kw)

    _tiles.stream = spy
    try:
        call()
    finally:
        _tiles.stream = original
    return seen["args"]


def tile_rows(name, args, reps, sdpa_tile):
    """(label, seconds) of one operator's first tile, each piece on that tile's data."""
    qa, ka, q_rows, k_rows, v, tile, kw = args
    b, chunk, block, heads = tile_shape(qa, ka, v, kw)
    qs, ks = qa[:heads, :chunk], ka[:heads, :block]
    qr, kr = tuple(r[:heads, :chunk] for r in q_rows), tuple(r[:heads, :block] for r in k_rows)
    dist = torch.empty(heads, chunk, block, dtype=v.dtype)
    spare = [torch.empty_like(dist) for _ in range(kw.get("spares", 0))]
    rows = [("distance GEMM (bmm)", cpu_seconds(lambda: torch.bmm(qs, ks.transpose(-1, -2), out=dist), reps))]
    raw = dist.clone()  # the GEMM's output: D (ida), w = 2δ (hida), cos θ (sida)
    rows.append(("whole tile function", cpu_seconds(lambda: tile(qs, ks, qr, kr, dist, spare), reps)))
    tile(qs, ks, qr, kr, dist, spare)
    c = (dist.amin(dim=-1) * 0.5)[..., None]
    saved = dist.clone()
    restore = lambda: dist.copy_(saved)  # noqa: E731
    rows.append(("ratio c/D (div)", cpu_seconds(lambda: torch.div(c, dist, out=dist), reps, restore)))
    acc = torch.empty(heads, chunk, v.shape[-1], dtype=v.dtype)
    rows.append(("value GEMM (bmm)", cpu_seconds(lambda: torch.bmm(dist, v[:heads, :block], out=acc), reps)))
    rows.append(("row sum", cpu_seconds(lambda: dist.sum(dim=-1), reps)))
    rows.append(("row min (amin)", cpu_seconds(lambda: dist.amin(dim=-1), reps)))
    return [(f"{name}: {label}", s, s / sdpa_tile) for label, s in rows], raw


def tile_shape(qa, ka, v, kw):
    """``(batch, chunk, block, heads)`` of the stream's tiles for these inputs."""
    b = qa.shape[0]
    chunk, block = _tiles.stream_shape(b, v.element_size(), kw.get("chunk_size"), kw.get("block"))
    chunk, block = min(chunk, qa.shape[1]), min(block, ka.shape[1])
    return b, chunk, block, _tiles.heads_per_tile(b, v.element_size(), chunk, block)


def pass_rows(samples, reps, sdpa_tile):
    """Elementwise passes on realistic tiles: sida's cos θ in (-1, 1) and hida's w = 2δ."""
    s_tile, w_tile = samples
    work, spare = torch.empty_like(s_tile), torch.empty_like(s_tile)
    eps3 = torch.full((s_tile.shape[0], 1, 1), EPS, dtype=s_tile.dtype)
    coeff = torch.tensor(0.3, dtype=s_tile.dtype)

    def on(src):
        return lambda: work.copy_(src)

    cases = [
        ("torch sqrt_ (in place)", lambda: work.sqrt_(), on(w_tile)),
        ("numpy sqrt (in place)", lambda: np.sqrt(work.numpy(), out=work.numpy()), on(w_tile)),
        ("torch acos_ (in place)", lambda: work.acos_(), on(s_tile)),
        ("numpy arccos (in place)", lambda: np.arccos(work.numpy(), out=work.numpy()), on(s_tile)),
        ("torch log1p_ (in place)", lambda: work.log1p_(), on(w_tile)),
        ("numpy log1p (in place)", lambda: np.log1p(work.numpy(), out=work.numpy()), on(w_tile)),
        ("addcmul eps + θ², in place", lambda: torch.addcmul(eps3, work, work, out=work), on(s_tile)),
        ("addcmul w + w²/2 into a 2nd tile", lambda: torch.addcmul(work, work, work, value=0.5, out=spare),
         on(w_tile)),
        ("Horner step p·x + c (addcmul)", lambda: torch.addcmul(coeff, work, s_tile, out=work), on(s_tile)),
        ("Horner step p·x + c (mul_, add_)", lambda: work.mul_(s_tile).add_(0.3), on(s_tile)),
    ]
    out = []
    for label, fn, setup in cases:
        with np.errstate(all="ignore"):
            sec = cpu_seconds(fn, reps, setup)
        out.append((f"pass: {label}", sec, sec / sdpa_tile))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(BATCH, HEADS, args.n, DIM, generator=gen, dtype=dtype) for _ in range(3))
    qb, kb = O.poincare_tanh_map(q), O.poincare_tanh_map(k)
    calls = {"ida": lambda: O.ida_attention(q, k, v, eps=EPS),
             "hida": lambda: O.hida_attention(qb, kb, v, eps=EPS),
             "sida": lambda: O.sida_attention(q, k, v, eps=EPS)}
    sdpa = torch.nn.functional.scaled_dot_product_attention
    print(f"n={args.n} B·H={BATCH * HEADS} d={DIM} {args.dtype} threads={args.threads} "
          f"torch={torch.__version__} numpy={np.__version__}; before: load {os.getloadavg()[0]:.2f}")
    with torch.inference_mode():
        captured = {name: capture(call) for name, call in calls.items()}
        qa, ka, _, _, v3, _, kw = captured["ida"]
        b, chunk, block, heads = tile_shape(qa, ka, v3, kw)
        tiles = math.ceil(args.n / chunk) * math.ceil(args.n / block) * math.ceil(b / heads)
        sdpa_tile = cpu_seconds(lambda: sdpa(q, k, v), args.reps) / tiles
        whole = {name: cpu_seconds(call, args.reps) / (sdpa_tile * tiles) for name, call in calls.items()}
        rows, samples = [], {}
        for name in calls:
            r, samples[name] = tile_rows(name, captured[name], args.reps, sdpa_tile)
            rows += r
        rows += pass_rows((samples["sida"].clamp(-1, 1), samples["hida"]), args.reps, sdpa_tile)
    print(f"tile {heads} x {chunk} x {block} (heads x queries x keys); {tiles} tiles; "
          f"SDPA/tile {1e6 * sdpa_tile:.0f} us")
    print(f"{'piece':<52} {'us/tile':>9} {'x SDPA/tile':>12}")
    for label, sec, ratio in rows:
        print(f"{label:<52} {1e6 * sec:>9.0f} {ratio:>12.3f}")
    print("whole call / SDPA (same clock): " + ", ".join(f"{m} {r:.2f}" for m, r in whole.items()))
    print(f"after: load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
