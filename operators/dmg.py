r"""Dynamic Memory Genesis (GeoResolver §9): the surprise detector with its adaptive threshold,
and the prototype pool it spawns into.

The source (``shared/papers/000_a7d7464127a08b1f.txt``, §9), verbatim up to the rendering:

    The prototype pool is P = {(E_e, c_e, t_e^birth, a_e, t_e^last)}_{e=1}^K.
    9.1 Surprise Detection with Adaptive Threshold. Define the sliding-window mean and standard
    deviation: μ_t = (1/W) Σ_{i=t−W+1}^t ℓ_i,  σ_t = √((1/W) Σ_{i=t−W+1}^t (ℓ_i − μ_t)²).
    The adaptive threshold is: τ_t = τ_base + κσ_t + γ·(1/t) Σ_{i=1}^t 1_surprise(i).
    [proof of Lemma 9.1:] The trigger condition μ_t > τ_t implies that a surprise event occurs
    only when the loss exceeds the threshold.
    9.2 Between spawns, standard C-HIDA regret applies.
    [§5.6, Definition 5.4, the C-HIDA update:] s_k ← Π_B(s_k + η·(1/|I_k|) Σ_{i∈I_k}(k_i − s_k)).

What the paper leaves open, and the choice made here (each a keyword argument where it matters):

- the square root of σ_t is lost in the rendering; "standard deviation" says it is there.
- ``trigger``: the surprise indicator is never defined; the proof's "trigger condition μ_t > τ_t"
  is ``"mean"`` (the default), its gloss "the loss exceeds the threshold" is ``"loss"`` (ℓ_t > τ_t).
- the count in τ_t runs to i = t, i.e. includes the decision being made. It is resolved causally:
  surprise(t) = 1[x_t > τ_base + κσ_t + γ·S_{t−1}/t], S_{t−1} the surprises before t. (Counting
  the candidate itself moves the threshold by γ/t, which cannot change a rate.)
- μ_t, σ_t are defined by the paper only once W losses exist: no decision is made for t < W.
- the pool (:func:`dmg_pool`): a surprise at t spawns a prototype at the current point x_t
  (c = x_t, a = 1, t_birth = t_last = t) — "memory genesis"; every other step applies the C-HIDA
  update to the nearest prototype (|I_k| = 1 in the online setting). §9 gives no merge rule; with
  ``k_max`` slots full, the two closest prototypes merge into their activation-weighted mean
  (a = a_p + a_q, t_birth = min, t_last = max) to free a slot. The step is η (Definition 5.4's
  constant) or, with ``eta="running-mean"``, 1/(a_k + 1) (MacQueen's online k-means). E_e (the
  stored expert/value) plays no role in any claim and is not modelled. The pool lives in ℝ^d with
  the squared Euclidean loss: Definition 5.4's step is Euclidean arithmetic in ball coordinates, its
  projection Π_B is inactive for data bounded away from the boundary (the regime §11.5 assumes; a
  bounded stream scaled by s into the ball scales losses and regret by s² and no exponent), and
  there d_ℍ² is within constant factors of the squared Euclidean distance.

Memory: :func:`dmg_detector` holds O(numel(losses)) (window statistics and margins);
:func:`dmg_pool` O(R·(T + k_max·d)) plus an O(R·k_max²) pair table on merge steps.
"""

from __future__ import annotations

import math

import torch

from ._checks import check_float

TRIGGERS = ("mean", "loss")


def _check_losses(losses: torch.Tensor, window: int) -> None:
    check_float("losses", losses, min_dim=1)
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive int, got {window!r}")
    if losses.shape[-1] < window:
        raise ValueError(f"need at least window={window} losses, got T={losses.shape[-1]}")
    if not losses.is_cuda and torch.isnan(losses).any():
        raise ValueError("losses contains NaN")


def dmg_window_stats(losses: torch.Tensor, *, window: int,
                     chunk: int = 8192) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Sliding-window mean and standard deviation (§9.1), for t = W, …, T.

    μ_t = (1/W) Σ_{i=t−W+1}^t ℓ_i and σ_t = √((1/W) Σ (ℓ_i − μ_t)²) over the last dimension of
    ``losses`` (..., T); returns two tensors (..., T − W + 1). Two passes over each window (a strided
    view, ``chunk`` windows at a time, O(chunk·W) temporary memory): relative error O(W·u) in μ_t
    and σ_t² alike. (Differences of cumulative sums cost O(T) but lose σ_t² to u·T·max ℓ²: on a
    near-constant window σ_t came out √(u·T) instead of 0, which the registry's W = 1 sample shows.)
    """
    _check_losses(losses, window)
    x = losses.to(torch.float32) if losses.dtype in (torch.float16, torch.bfloat16) else losses
    views = x.unfold(-1, window, 1)  # (..., T − W + 1, W), no copy
    mus, sigmas = [], []
    for start in range(0, views.shape[-2], chunk):
        win = views[..., start:start + chunk, :]
        mu = win.sum(-1) / window
        mus.append(mu)
        sigmas.append((win - mu[..., None]).square().sum(-1).div_(window).sqrt_())
    return torch.cat(mus, -1).to(losses.dtype), torch.cat(sigmas, -1).to(losses.dtype)


def dmg_margins(losses: torch.Tensor, *, window: int, tau_base: float, kappa: float,
                trigger: str = "mean") -> torch.Tensor:
    """x_t − τ_base − κσ_t (x = μ_t or ℓ_t per ``trigger``), (..., T); −inf for t < W."""
    if trigger not in TRIGGERS:
        raise ValueError(f"trigger must be one of {TRIGGERS}, got {trigger!r}")
    mu, sigma = dmg_window_stats(losses, window=window)
    signal = mu if trigger == "mean" else losses[..., window - 1:]
    m = signal - tau_base - kappa * sigma
    pad = torch.full((*m.shape[:-1], window - 1), -math.inf, dtype=m.dtype, device=m.device)
    return torch.cat([pad, m], -1)


def dmg_surprises(margins: torch.Tensor, *, gamma: float, block: int = 128) -> torch.Tensor:
    r"""surprise(t) = 1[m_t > γ·S_{t−1}/t], S_{t−1} = Σ_{i<t} surprise(i), t = 1…T (bool, (..., T)).

    The recursion is sequential only through S, which changes at surprises: each pass scans a
    block of ``block`` steps ahead of every run's position with S frozen, which is exact up to and
    including the first surprise in the block; the run then resumes after it. Passes ≈ max over runs
    of (surprises + T/block), each one batched over runs. The stopping test synchronises once per
    pass.
    """
    check_float("margins", margins, min_dim=1)
    if not gamma >= 0:
        raise ValueError(f"gamma must be >= 0, got {gamma}")
    shape, T = margins.shape, margins.shape[-1]
    m = margins.reshape(-1, T)
    R, dev = m.shape[0], m.device
    out = torch.zeros(R, T, dtype=torch.bool, device=dev)
    pos = torch.zeros(R, dtype=torch.long, device=dev)
    count = torch.zeros(R, dtype=m.dtype, device=dev)
    ahead = torch.arange(block, device=dev)
    rows = torch.arange(R, device=dev)
    while bool((pos < T).any()):
        idx = pos[:, None] + ahead
        valid = idx < T
        idx = idx.clamp_max(T - 1)
        hit = (m.gather(1, idx) > gamma * count[:, None] / (idx + 1).to(m.dtype)) & valid
        found = hit.any(1)
        first = idx.gather(1, hit.to(torch.int8).argmax(1, keepdim=True))[:, 0]
        out[rows[found], first[found]] = True
        count = count + found.to(m.dtype)
        pos = torch.where(found, first + 1, pos + block)
    return out.reshape(shape)


def dmg_detector(losses: torch.Tensor, *, window: int, tau_base: float, kappa: float, gamma: float,
                 trigger: str = "mean") -> torch.Tensor:
    """The §9.1 surprise indicators (bool, same shape as ``losses`` (..., T)); see the module notes."""
    return dmg_surprises(dmg_margins(losses, window=window, tau_base=tau_base, kappa=kappa,
                                     trigger=trigger), gamma=gamma)


def dmg_pool(x: torch.Tensor, init: torch.Tensor, *, window: int, tau_base: float, kappa: float,
             gamma: float, eta: float | str | torch.Tensor, k_max: int,
             trigger: str = "mean") -> dict[str, torch.Tensor]:
    r"""Run the DMG pool on streams ``x`` (R, T, d) from prototypes ``init`` (R, K0, d), K0 <= k_max.

    Each step: ℓ_t = min_e ‖x_t − c_e‖² over the active prototypes (before any update); the
    detector decides surprise(t) on the losses so far (module notes); a surprise spawns c = x_t
    (merging the two closest prototypes first when all ``k_max`` slots are full); otherwise the
    nearest prototype moves by the C-HIDA step c ← c + η(x_t − c) (η constant, or 1/(a+1) for
    ``eta="running-mean"``; a tensor gives one step per run, NaN selecting the running mean) and
    a ← a + 1, t_last ← t. The initial prototypes count as one
    observation each (a = 1, t_birth = t_last = 0).

    Returns ``losses`` (R, T), ``surprises`` (R, T) bool, ``centres`` (R, k_max, d), ``active``,
    ``count`` (a_e), ``t_birth``, ``t_last`` (R, k_max) and ``merges`` (R,). A Python loop over t,
    batched over runs; merge steps synchronise once to test whether any run merges.
    """
    check_float("x", x, min_dim=3)
    check_float("init", init, min_dim=3)
    if x.dtype != init.dtype or x.shape[-1] != init.shape[-1] or x.shape[0] != init.shape[0]:
        raise ValueError(f"x (R, T, d) and init (R, K0, d) must share R, d and dtype, got "
                         f"{tuple(x.shape)} {x.dtype} and {tuple(init.shape)} {init.dtype}")
    R, T, d = x.shape
    k0 = init.shape[1]
    if not 1 <= k0 <= k_max:
        raise ValueError(f"need 1 <= K0 <= k_max, got K0={k0}, k_max={k_max}")
    if trigger not in TRIGGERS:
        raise ValueError(f"trigger must be one of {TRIGGERS}, got {trigger!r}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive int, got {window!r}")
    if isinstance(eta, torch.Tensor):
        if eta.shape != (x.shape[0],):
            raise ValueError(f"a tensor eta holds one step per run, shape ({x.shape[0]},), "
                             f"got {tuple(eta.shape)}")
        eta_run = eta.to(x.dtype)
    elif eta == "running-mean":
        eta_run = torch.full((x.shape[0],), math.nan, dtype=x.dtype, device=x.device)
    elif isinstance(eta, (int, float)) and 0 < eta <= 1:
        eta_run = torch.full((x.shape[0],), float(eta), dtype=x.dtype, device=x.device)
    else:
        raise ValueError(f"eta must be in (0, 1], 'running-mean' or a tensor per run, got {eta!r}")
    running = eta_run.isnan()[:, None]
    eta_run = eta_run.nan_to_num(0.0)[:, None]
    if torch.isnan(x).any() or torch.isnan(init).any():
        raise ValueError("x or init contains NaN")
    dt, dev = x.dtype, x.device
    c = torch.zeros(R, k_max, d, dtype=dt, device=dev)
    c[:, :k0] = init
    active = torch.zeros(R, k_max, dtype=torch.bool, device=dev)
    active[:, :k0] = True
    a = active.to(dt)
    t_birth = torch.zeros(R, k_max, dtype=torch.long, device=dev)
    t_last = torch.zeros(R, k_max, dtype=torch.long, device=dev)
    losses = torch.zeros(R, T, dtype=dt, device=dev)
    surprises = torch.zeros(R, T, dtype=torch.bool, device=dev)
    merges = torch.zeros(R, dtype=torch.long, device=dev)
    count = torch.zeros(R, dtype=dt, device=dev)
    slots = torch.arange(k_max, device=dev)
    inf = torch.tensor(math.inf, dtype=dt, device=dev)
    no = torch.zeros(R, dtype=torch.bool, device=dev)
    mixed = bool(running.any()) and not bool(running.all())
    all_running = bool(running.all())
    with torch.inference_mode():
        for t in range(1, T + 1):
            xt = x[:, t - 1]
            diff = xt[:, None, :] - c
            loss, j = torch.where(active, diff.square().sum(-1), inf).min(-1)
            losses[:, t - 1] = loss
            surprise = no
            if t >= window:
                win = losses[:, t - window:t]
                mu = win.sum(-1) / window
                sigma = (win - mu[:, None]).square().sum(-1).div_(window).sqrt_()
                signal = mu if trigger == "mean" else loss
                surprise = signal > sigma.mul_(kappa).add_(count * (gamma / t)).add_(tau_base)
                surprises[:, t - 1] = surprise
                count = count + surprise
            # C-HIDA step of the nearest prototype, on the runs without a surprise.
            hit = (slots == j[:, None]) & ~surprise[:, None]
            if mixed:
                step = torch.where(running, 1.0 / (a + 1.0), eta_run)
            else:
                step = 1.0 / (a + 1.0) if all_running else eta_run
            c = c + (hit * step)[..., None] * diff
            a = a + hit
            t_last = torch.where(hit, t, t_last)
            if t >= window and bool(surprise.any()):
                c, a, active, t_birth, t_last, merged = _spawn(c, a, active, t_birth, t_last, xt, t,
                                                               surprise, inf)
                merges = merges + merged
    return {"losses": losses, "surprises": surprises, "centres": c, "active": active, "count": a,
            "t_birth": t_birth, "t_last": t_last, "merges": merges}


def _spawn(c, a, active, t_birth, t_last, xt, t, surprise, inf):
    """Spawn c = x_t on the surprising runs: into the first free slot, or, with every slot full,
    the newcomer joins and the closest pair of the k_max + 1 merges (activation-weighted)."""
    R, k_max, _ = c.shape
    full = surprise & active.all(-1)
    free = (~active).to(torch.int8).argmax(-1)
    place = surprise & ~full
    merged = torch.zeros(R, dtype=torch.long, device=c.device)
    if bool(full.any()):
        ce = torch.cat([c, xt[:, None]], 1)
        ae = torch.cat([a, torch.ones_like(a[:, :1])], 1)
        be = torch.cat([t_birth, torch.full_like(t_birth[:, :1], t)], 1)
        le = torch.cat([t_last, torch.full_like(t_last[:, :1], t)], 1)
        ke = torch.arange(k_max + 1, device=c.device)
        pair = (ce[:, :, None] - ce[:, None, :]).square().sum(-1)
        ok = (ke[:, None] < ke[None, :]) & torch.cat([active, full[:, None]], 1)[:, None, :]
        flat = torch.where(ok, pair, inf).reshape(R, -1).argmin(-1)
        p, q = flat // (k_max + 1), flat % (k_max + 1)
        rows = torch.arange(R, device=c.device)
        ap, aq = ae[rows, p], ae[rows, q]
        cm = (ap[:, None] * ce[rows, p] + aq[:, None] * ce[rows, q]) / (ap + aq)[:, None]
        bm = torch.minimum(be[rows, p], be[rows, q])
        lm = torch.maximum(le[rows, p], le[rows, q])
        at_p = (ke[None, :] == p[:, None]) & full[:, None]
        at_q = (ke[None, :] == q[:, None]) & full[:, None]
        # p takes the merge; q (if an old slot) takes the newcomer at index k_max.
        ce = torch.where(at_p[..., None], cm[:, None], torch.where(at_q[..., None], ce[:, -1:], ce))
        ae = torch.where(at_p, (ap + aq)[:, None], torch.where(at_q, 1.0, ae))
        be = torch.where(at_p, bm[:, None], torch.where(at_q, t, be))
        le = torch.where(at_p, lm[:, None], torch.where(at_q, t, le))
        c, a, t_birth, t_last = ce[:, :k_max], ae[:, :k_max], be[:, :k_max], le[:, :k_max]
        merged = full.to(torch.long)
    at_free = (torch.arange(k_max, device=c.device)[None, :] == free[:, None]) & place[:, None]
    c = torch.where(at_free[..., None], xt[:, None], c)
    a = torch.where(at_free, 1.0, a)
    t_birth = torch.where(at_free, t, t_birth)
    t_last = torch.where(at_free, t, t_last)
    return c, a, active | at_free, t_birth, t_last, merged
