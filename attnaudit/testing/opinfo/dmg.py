"""Registry entries for Dynamic Memory Genesis (GeoResolver §9): window statistics, the surprise
detector and the prototype pool, each against a step-by-step mpmath loop written from the definition
(no cumulative sums, no event-driven scan, no masks), independent of the operators' code paths."""

import math

import mpmath
import torch

from attnaudit.operators import dmg as G

from .core import ErrorInput, OpInfo, Sample, Tolerance
from .samplers import F64, gen, normal


def _windows(losses, window):
    """(μ_t, σ_t) for t = W…T by direct two-pass sums over each window."""
    out = []
    for t in range(window - 1, len(losses)):
        win = losses[t - window + 1 : t + 1]
        mu = mpmath.fsum(win) / window
        out.append((mu, mpmath.sqrt(mpmath.fsum((x - mu) ** 2 for x in win) / window)))
    return out


def ref_window_stats(losses, *, window):
    stats = _windows(losses, window)
    return [[m for m, _ in stats], [s for _, s in stats]]


def ref_detector(losses, *, window, tau_base, kappa, gamma, trigger="mean"):
    """surprise(t) = 1[x_t > τ_base + κσ_t + γ·S_{t−1}/t], one step at a time."""
    stats = _windows(losses, window)
    out, count = [], 0
    for t in range(1, len(losses) + 1):
        s = 0
        if t >= window:
            mu, sigma = stats[t - window]
            x = mu if trigger == "mean" else losses[t - 1]
            s = int(x > tau_base + kappa * sigma + gamma * mpmath.mpf(count) / t)
        count += s
        out.append(mpmath.mpf(s))
    return out


def _sq(a, b):
    return mpmath.fsum((x - y) ** 2 for x, y in zip(a, b, strict=True))


def ref_pool_losses(xs, init, *, window, tau_base, kappa, gamma, eta, k_max, trigger="mean"):
    """ℓ_t of the DMG pool (operators.dmg_pool's rules), written as a plain loop over one run."""
    pool = [[list(c), mpmath.mpf(1)] for c in init]  # [centre, activation count]
    losses, count = [], 0
    for t, x in enumerate(xs, start=1):
        d2 = [_sq(x, c) for c, _ in pool]
        j = min(range(len(pool)), key=lambda e: (d2[e], e))
        losses.append(d2[j])
        surprise = False
        if t >= window:
            win = losses[-window:]
            mu = mpmath.fsum(win) / window
            sigma = mpmath.sqrt(mpmath.fsum((v - mu) ** 2 for v in win) / window)
            signal = mu if trigger == "mean" else d2[j]
            surprise = signal > tau_base + kappa * sigma + gamma * mpmath.mpf(count) / t
        count += surprise
        if not surprise:
            c, a = pool[j]
            step = 1 / (a + 1) if eta == "running-mean" else mpmath.mpf(eta)
            pool[j] = [[ci + step * (xi - ci) for ci, xi in zip(c, x, strict=True)], a + 1]
            continue
        pool.append([list(x), mpmath.mpf(1)])
        if len(pool) > k_max:  # the closest pair of the k_max + 1 merges (lowest index pair on ties)
            pairs = [(p, q) for p in range(len(pool)) for q in range(p + 1, len(pool))]
            p, q = min(pairs, key=lambda pq: (_sq(pool[pq[0]][0], pool[pq[1]][0]), pq))
            (cp, ap), (cq, aq) = pool[p], pool[q]
            pool[p] = [[(ap * u + aq * v) / (ap + aq) for u, v in zip(cp, cq, strict=True)], ap + aq]
            newcomer = pool.pop()
            if q < len(pool):
                pool[q] = newcomer
    return losses


def _stats_samples(dtype):
    g = gen(5100 + (dtype == torch.float32))
    return [
        Sample((normal(g, 60).to(dtype),), {"window": 4}, "N(0,1), T=60, W=4"),
        Sample((normal(g, 3, 40).to(dtype),), {"window": 16}, "batch (3,40), W=16"),
        Sample(((3.0 + 0.1 * normal(g, 50)).to(dtype),), {"window": 8}, "offset mean 3, spread 0.1"),
        Sample((normal(g, 7).to(dtype),), {"window": 7}, "W = T"),
        Sample((normal(g, 9).to(dtype),), {"window": 1}, "W = 1 (σ = 0 exactly)"),
        Sample((torch.cat([normal(g, 20), torch.full((12,), 0.7, dtype=F64)]).to(dtype),), {"window": 5},
               "constant tail (σ = 0 exactly)"),
    ]


def _detector_samples(dtype):
    g = gen(5200)
    base = {"tau_base": 0.2, "kappa": 0.5, "gamma": 1.0}
    return [
        Sample((normal(g, 4, 300).to(dtype),), base | {"window": 4}, "mean trigger, W=4"),
        Sample((normal(g, 2, 300).to(dtype),), base | {"window": 8, "trigger": "loss"}, "loss trigger, W=8"),
        Sample((normal(g, 200).to(dtype),), {"window": 2, "tau_base": 0.0, "kappa": 0.0, "gamma": 5.0},
               "γ = 5, κ = 0"),
    ]


def _pool_samples(dtype):
    g = gen(5300)
    centres = torch.tensor([[3.0, 0.0], [-3.0, 0.0]], dtype=F64)
    x = centres[torch.randint(2, (2, 80), generator=g)] + normal(g, 2, 80, 2)
    init = centres.expand(2, 2, 2).clone()
    base = {"window": 4, "tau_base": 2.0, "kappa": 0.25, "gamma": 1.0, "trigger": "loss"}
    return [
        Sample((x.to(dtype), init.to(dtype)), base | {"eta": 0.1, "k_max": 3}, "η=0.1, spawn then merges"),
        Sample((x.to(dtype), init.to(dtype)), base | {"eta": "running-mean", "k_max": 2},
               "running mean, k_max = K0 (every spawn merges)"),
        Sample((x[:1].to(dtype), init[:1, :1].to(dtype)),
               base | {"eta": 0.5, "k_max": 4, "trigger": "mean"}, "one prototype, free slots"),
    ]


def _stats_errors():
    z = torch.zeros(10, dtype=F64)
    nan = z.clone()
    nan[3] = math.nan
    return [
        ErrorInput("integer dtype", lambda: G.dmg_window_stats(z.long(), window=3), TypeError,
                   "floating dtype"),
        ErrorInput("NaN", lambda: G.dmg_window_stats(nan, window=3), ValueError, "contains NaN"),
        ErrorInput("window > T", lambda: G.dmg_window_stats(z, window=11), ValueError, "at least window"),
        ErrorInput("window 0", lambda: G.dmg_window_stats(z, window=0), ValueError, "positive int"),
    ]


def _detector_errors():
    z = torch.zeros(10, dtype=F64)
    return [
        ErrorInput("unknown trigger", lambda: G.dmg_detector(z, window=2, tau_base=0.0, kappa=0.0, gamma=1.0,
                                                             trigger="median"), ValueError, "trigger must"),
        ErrorInput("negative γ", lambda: G.dmg_surprises(z, gamma=-1.0), ValueError, "gamma must"),
        ErrorInput("integer margins", lambda: G.dmg_surprises(z.long(), gamma=1.0), TypeError, "floating"),
    ]


def _pool_errors():
    x, init = torch.zeros(2, 5, 3, dtype=F64), torch.zeros(2, 2, 3, dtype=F64)
    kw = {"window": 2, "tau_base": 0.0, "kappa": 0.0, "gamma": 1.0}
    return [
        ErrorInput("mismatched d", lambda: G.dmg_pool(x, init[..., :2], eta=0.1, k_max=3, **kw), ValueError,
                   "must share"),
        ErrorInput("k_max < K0", lambda: G.dmg_pool(x, init, eta=0.1, k_max=1, **kw), ValueError,
                   "K0 <= k_max"),
        ErrorInput("η out of range", lambda: G.dmg_pool(x, init, eta=1.5, k_max=3, **kw), ValueError,
                   "eta must"),
        ErrorInput("window 0", lambda: G.dmg_pool(x, init, eta=0.1, k_max=3, **(kw | {"window": 0})),
                   ValueError, "positive int"),
        ErrorInput("mixed dtypes", lambda: G.dmg_pool(x, init.float(), eta=0.1, k_max=3, **kw), ValueError,
                   "must share"),
    ]


ENTRIES = [
    OpInfo(
        func=G.dmg_window_stats,
        op=lambda x, **kw: torch.stack(G.dmg_window_stats(x, **kw), -2),
        ref=ref_window_stats,
        core_dims=(1,),
        samples=_stats_samples,
        errors=_stats_errors,
        dtypes=(torch.float64, torch.float32),
        tol=Tolerance(4, "two-pass sums of the W terms of each window",
                      model=lambda dtype, s: torch.finfo(dtype).eps * s.kwargs["window"], model_text="W·eps"),
        measure="normwise",
        reference_kind="loops",
        devices=("cpu", "cuda"),  # its NaN screen (dmg._check_losses) reads a value on the host
    ),
    OpInfo(
        func=G.dmg_detector,
        op=lambda x, **kw: G.dmg_detector(x, **kw).to(x.dtype),
        ref=ref_detector,
        core_dims=(1,),
        samples=_detector_samples,
        errors=_detector_errors,
        dtypes=(torch.float64,),
        tol=Tolerance(0, "exact: 0/1 decisions; no sample lies within round-off of its threshold"),
        reference_kind="loops",
        devices=("cpu", "cuda"),  # the NaN screen of dmg_window_stats, which it calls
    ),
    OpInfo(
        func=G.dmg_pool,
        op=lambda x, init, **kw: G.dmg_pool(x, init, **kw)["losses"],
        ref=ref_pool_losses,
        core_dims=(2, 2),
        samples=_pool_samples,
        errors=_pool_errors,
        dtypes=(torch.float64,),
        tol=Tolerance(512, "80-step recursions of the prototypes (a few ulps per step) and identical "
                           "spawn/merge decisions"),
        measure="normwise",
        reference_kind="loops",
        devices=("cpu", "cuda"),  # its NaN screen of x and init reads a value on the host
    ),
]
