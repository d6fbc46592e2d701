"""Batched bisection of monotone predicates: many boundaries located in one tensor program."""

from __future__ import annotations

from collections.abc import Callable

import torch


def bisect_monotone(holds: Callable[[torch.Tensor], torch.Tensor], lo: torch.Tensor, hi: torch.Tensor,
                    *, candidates: int, rounds: int, what: str = "boundary"
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """Shrink each bracket ``[lo_p, hi_p]`` around the point where ``holds`` turns false.

    ``holds(x)`` maps a ``(P, K)`` tensor of candidates to booleans of that shape and must hold at
    ``lo`` and fail at ``hi`` (else ``ValueError``: the bracket is a defect of the spec), and be
    monotone in between. Each round evaluates ``candidates`` interior points per row, so the
    bracket shrinks by ``candidates + 1`` per round: ``(candidates + 1) ** rounds`` in all.
    Returns the final ``(lo, hi)``, each of shape ``(P,)``.
    """
    ends = holds(torch.stack([lo, hi], dim=-1))
    if not bool(ends[:, 0].all()) or bool(ends[:, 1].any()):
        raise ValueError(f"bisection bracket does not straddle the {what}")
    frac = torch.arange(1, candidates + 1, dtype=lo.dtype, device=lo.device) / (candidates + 1)
    for _ in range(rounds):
        cand = lo[:, None] + (hi - lo)[:, None] * frac
        n_ok = holds(cand).sum(dim=-1)  # monotone: the first n_ok candidates hold
        below = cand.gather(-1, (n_ok - 1).clamp(min=0)[:, None])[:, 0]
        above = cand.gather(-1, n_ok.clamp(max=candidates - 1)[:, None])[:, 0]
        lo, hi = torch.where(n_ok > 0, below, lo), torch.where(n_ok < candidates, above, hi)
    return lo, hi
