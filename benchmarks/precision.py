"""Precision table: each registered operator's maximum error against mpmath, per dtype.

Usage: python benchmarks/precision.py [--dtypes float64,float32,...] [--only NAME ...]

Every number comes from the operator registry (``attnaudit.testing.opinfo``): its samples
(boundary samples included), its mpmath reference at 60 digits on the exact input
values, its error measure. Peers registered beside an operator (geoopt's
``PoincareBall.dist``, the naive arcosh formula) are measured on the same inputs in the
same run. Then two breakdowns: the Poincaré distance by radius and distance class,
and the sphere distance by angle.
"""

import argparse
import math
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere
from attnaudit.testing import opinfo  # noqa: E402

NAMES = {
    "float64": torch.float64,
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}


def fmt(x: float) -> str:
    return "inf" if math.isinf(x) else ("nan" if math.isnan(x) else f"{x:.1e}")


def peer_errors(info, sample, ref) -> dict[str, float]:
    out = {}
    for name, fn in info.peers.items():
        try:
            res = fn(*sample.args, **sample.kwargs)
            out[name] = opinfo.error(info, sample, res, ref)
        except ImportError:
            out[name] = math.nan
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dtypes", default="float64,float32", help="comma-separated (float64,float32,float16,bfloat16)"
    )
    parser.add_argument("--only", nargs="*", default=None, help="operator names (substring match)")
    args = parser.parse_args()
    dtypes = [NAMES[d] for d in args.dtypes.split(",")]
    warnings.filterwarnings("ignore", category=DeprecationWarning)

    print(
        f"torch={torch.__version__}; error = the registry's measure (elementwise: max relative per entry; "
        "normwise: max-norm; values: max-norm / max|v|; geodesic: d_c(out, ref)/(1 + radius)); "
        "reference: mpmath at 60 digits on the exact inputs"
    )
    header = (
        f"{'operator':<32} {'dtype':>8} {'measure':>11} {'samples':>7} {'max error':>10} {'tolerance':>10}"
        "  peers"
    )
    print(header)
    print("-" * len(header))
    per_sample = {}
    for info in opinfo.REGISTRY:
        if args.only and not any(o in info.name for o in args.only):
            continue
        for dtype in dtypes:
            if dtype not in info.dtypes:
                continue
            worst, tol, peers = 0.0, 0.0, {}
            samples = info.samples(dtype)
            for s in samples:
                ref = opinfo.reference(info, s)
                err = opinfo.error(info, s, info.op(*s.args, **s.kwargs), ref)
                worst, tol = max(worst, err), max(tol, info.tol(dtype, s))
                pe = peer_errors(info, s, ref)
                for k, v in pe.items():
                    peers[k] = max(peers.get(k, 0.0), v)
                per_sample[(info.name, dtype, s.label)] = (err, pe)
            peer_txt = "  ".join(f"{k} {fmt(v)}" for k, v in peers.items())
            print(
                f"{info.name:<32} {str(dtype).removeprefix('torch.'):>8} {info.measure:>11} "
                f"{len(samples):>7} "
                f"{fmt(worst):>10} {fmt(tol):>10}  {peer_txt}",
                flush=True,
            )

    if torch.float64 in dtypes and (not args.only or any("poincare_distance" in o for o in args.only)):
        print(
            "\nPoincaré distance, float64, max relative error by ‖x‖ and ‖x - y‖ "
            "(same inputs for all columns):"
        )
        print(f"{'‖x‖':<10} {'pairs':<22} {'ours':>9} {'geoopt':>9} {'naive arcosh':>13}")
        for radius in ("r=0.9", "r=1-1e-4", "r=1-1e-6", "r=1-1e-8"):
            for kind, keys in (
                ("short (1e-13..1e-3)", ("short",)),
                ("long", ("long",)),
                ("antipodal", ("antipodal",)),
            ):
                rows = [
                    v
                    for (n, d, lab), v in per_sample.items()
                    if n == "poincare_distance"
                    and d == torch.float64
                    and lab.startswith(radius + "/")
                    and any(lab.split("/")[1].startswith(k) for k in keys)
                ]
                if rows:
                    ours = max(r[0] for r in rows)
                    geo = max(r[1].get("geoopt", math.nan) for r in rows)
                    naive = max(r[1].get("naive arcosh", math.nan) for r in rows)
                    print(
                        f"{radius.removeprefix('r='):<10} {kind:<22} {fmt(ours):>9} {fmt(geo):>9} "
                        f"{fmt(naive):>13}"
                    )
        coincident = [
            v[0]
            for (n, d, lab), v in per_sample.items()
            if n == "poincare_distance" and d == torch.float64 and lab.endswith("coincident")
        ]
        print(
            f"coincident pairs: exactly 0 in all {len(coincident)} samples"
            if all(e == 0 for e in coincident)
            else "coincident pairs: NOT exactly 0"
        )

    if torch.float64 in dtypes and (not args.only or any("sphere_distance" in o for o in args.only)):
        info = opinfo.get("sphere_distance")
        print("\nSphere distance, float64, relative error by angle (same inputs; arccos = acos(<x̂, ŷ>)):")
        for s in info.samples(torch.float64):
            if not s.label.startswith("θ="):
                continue
            ref = opinfo.reference(info, s)
            x, y = s.args
            cos = (x * y).sum(-1) / (x.norm(dim=-1) * y.norm(dim=-1))
            naive = opinfo.error(info, s, torch.arccos(cos.clamp(-1, 1)), ref)
            print(
                f"  {s.label:<16} ours {fmt(per_sample[('sphere_distance', torch.float64, s.label)][0]):>8}"
                f"   arccos {fmt(naive):>8}"
            )


if __name__ == "__main__":
    main()
