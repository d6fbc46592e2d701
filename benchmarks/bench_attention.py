"""Time softmax_attention and ida_attention against torch SDPA; print ratios.

Usage: python benchmarks/bench_attention.py [--device cpu|cuda] [--quick]

Every row is measured in one run on one machine, so only the ratios to SDPA (the
named peer) are meaningful; the SDPA column in ms is there for scale.
"""

import argparse
import sys
from pathlib import Path

import torch
from torch.utils.benchmark import Timer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere
from operators import ida_attention, softmax_attention

BATCH, DIM, EPS = 4, 64, 1e-3


def median_s(stmt: str, env: dict, min_run_time: float) -> float:
    """Median seconds per call (Timer synchronises CUDA itself)."""
    return Timer(stmt=stmt, globals=env).blocked_autorange(min_run_time=min_run_time).median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--quick", action="store_true", help="n <= 1024, shorter timing runs")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda requested but torch.cuda.is_available() is False")

    sizes = [256, 512, 1024] if args.quick else [256, 512, 1024, 2048, 4096]
    min_run_time = 0.2 if args.quick else 1.0
    print(
        f"device={args.device} threads={torch.get_num_threads()} torch={torch.__version__} "
        f"batch={BATCH} d={DIM} eps={EPS} (median time; ratio = op / SDPA, lower is faster)"
    )
    header = f"{'dtype':>8} {'n':>5} {'SDPA ms':>9} {'softmax/SDPA':>13} {'ida/SDPA':>9}"
    print(header)
    print("-" * len(header))
    gen = torch.Generator().manual_seed(0)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for dtype in (torch.float32, torch.float64):
        for n in sizes:
            q, k, v = (
                torch.randn(BATCH, n, DIM, generator=gen, dtype=dtype).to(args.device)
                for _ in range(3)
            )
            env = {
                "q": q,
                "k": k,
                "v": v,
                "sdpa": sdpa,
                "softmax_attention": softmax_attention,
                "ida_attention": ida_attention,
                "EPS": EPS,
            }
            with torch.inference_mode():
                t_sdpa = median_s("sdpa(q, k, v)", env, min_run_time)
                t_soft = median_s("softmax_attention(q, k, v)", env, min_run_time)
                t_ida = median_s("ida_attention(q, k, v, eps=EPS)", env, min_run_time)
            name = str(dtype).removeprefix("torch.")
            print(
                f"{name:>8} {n:>5} {1e3 * t_sdpa:>9.2f} {t_soft / t_sdpa:>13.2f} "
                f"{t_ida / t_sdpa:>9.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
