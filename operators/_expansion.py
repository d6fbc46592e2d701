r"""Squared distances by the matmul expansion, recomputed exactly where it cancels (private).

:math:`\lVert q - k\rVert^2 = \lVert q\rVert^2 + \lVert k\rVert^2 - 2\,q\cdot k` turns the
``n_q · n_k · d`` work into one matrix product, but its absolute error is
:math:`\gamma S` with :math:`S = \lVert q\rVert^2 + \lVert k\rVert^2` (see
``_checks.expansion_bound``), which swamps pairs with :math:`D \ll S` and never gives an
exact 0 at coincident points. The fast paths therefore

1. shift both sides by the keys' mean (translation changes no distance, and shrinks
   :math:`S` for data far from the origin; the shift is detached, which leaves derivatives
   exact because :math:`D` does not depend on it);
2. expand, and flag every pair with :math:`\tilde D \le \tau\,(\lVert q\rVert^2 +
   \max_j \lVert k_j\rVert^2)` (a superset of :math:`\tilde D \le \tau S`);
3. recompute the flagged pairs from the original coordinates with the geometry's exact
   paired formula.

The flagged set is data-dependent, so step 3 reads it on the host: it is meant for CPU
tensors (host memory, no device synchronisation). Rows are screened first by their
minimum, so data without near pairs costs one reduction. On accelerators the callers
take their exact paths unless the fast path is asked for by name, in which case each
tile synchronises once.
"""

from collections.abc import Callable

import torch

from ._checks import EXPANSION_TAU, check_path, host_readable, needs_graph, transforms_active

PATHS = ("auto", "fast", "exact")


def centred(x: torch.Tensor, centre: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(x - centre, ‖x - centre‖²[..., None])``."""
    xc = x - centre
    return xc, (xc * xc).sum(dim=-1, keepdim=True)


def expand(qc: torch.Tensor, qn: torch.Tensor, kc: torch.Tensor, kn: torch.Tensor) -> torch.Tensor:
    """``qn + knᵀ - 2 qc kcᵀ`` as a fresh ``(..., n_q, n_k)`` tensor (one GEMM, two passes)."""
    batch = qc.shape[:-2]
    if qc.dim() >= 3 and kc.shape[:-2] == batch:  # one batched GEMM over the flattened batch
        q3, k3 = qc.reshape(-1, *qc.shape[-2:]), kc.reshape(-1, *kc.shape[-2:])
        kn3 = kn.reshape(-1, *kn.shape[-2:]).transpose(-1, -2)
        out = torch.baddbmm(kn3, q3, k3.transpose(-1, -2), alpha=-2.0)
        out = out.view(*batch, *out.shape[-2:])
    else:
        out = (qc @ kc.transpose(-1, -2)).mul_(-2.0).add_(kn.transpose(-1, -2))
    return out.add_(qn)


def gather_pairs(x: torch.Tensor, batch: torch.Size, idx: tuple[torch.Tensor, ...], axis: int):
    """Rows ``x[b..., idx[axis]]`` for the flagged pairs ``idx = (b..., i, j)``: ``(P, d)``."""
    xe = x.expand(*batch, *x.shape[-2:])
    return xe[(*idx[:-2], idx[axis])]


def flagged(d2: torch.Tensor, low: torch.Tensor | None, high: torch.Tensor | None):
    """Indices ``(b..., i, j)`` of the entries of ``d2`` at or below ``low`` or at or above
    ``high`` (``(..., n_q, 1)`` per-row levels, or ``None``), or ``None`` if there are none.

    Rows are screened by their minimum (maximum) first. Reads the flags on the host
    (see the module docstring).
    """
    with torch.no_grad():
        rows = None
        if low is not None:
            rows = d2.amin(dim=-1, keepdim=True) <= low
        if high is not None:
            far = d2.amax(dim=-1, keepdim=True) >= high
            rows = far if rows is None else rows | far
        if not bool(rows.any()):
            return None
        flag = None
        if low is not None:
            flag = d2 <= low
        if high is not None:
            flag = (d2 >= high) if flag is None else flag.logical_or_(d2 >= high)
        return flag.nonzero(as_tuple=True)


def patch(t: torch.Tensor, idx, values: torch.Tensor) -> torch.Tensor:
    """``t`` with ``values`` written at ``idx`` (in place unless autograd records)."""
    if idx is None:
        return t
    values = values.to(t.dtype)
    if needs_graph(t, values):
        return t.index_put(idx, values)
    return t.index_put_(idx, values)


def recompute(
    d2: torch.Tensor,
    low: torch.Tensor | None,
    high: torch.Tensor | None,
    exact_pairs: Callable[[tuple[torch.Tensor, ...]], torch.Tensor],
) -> torch.Tensor:
    """``d2`` with its :func:`flagged` entries replaced by ``exact_pairs(idx)``."""
    idx = flagged(d2, low, high)
    return d2 if idx is None else patch(d2, idx, exact_pairs(idx))


def threshold(qn: torch.Tensor, kn: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
    """``scale · τ · (qn + max_j kn_j)``: the per-row flag level, ``(..., n_q, 1)``."""
    return (scale * EXPANSION_TAU) * (qn + kn.amax(dim=-2, keepdim=True))


def fast_available(x: torch.Tensor) -> bool:
    """Whether the host-read step can run: a real tensor outside ``torch.func`` transforms."""
    return x.device.type != "meta" and not transforms_active()


def resolve_path(path: str, x: torch.Tensor, *others: torch.Tensor) -> str:
    """``"auto"`` is ``"fast"`` on CPU outside ``torch.func`` transforms and outside autograd
    recording, else ``"exact"``. Under autograd the fast path's stated bound covers the values,
    not their derivatives, and its backward costs more than the exact one's on small problems."""
    check_path(path, PATHS)
    if path == "auto":
        recording = torch.is_grad_enabled() and any(t.requires_grad for t in (x, *others))
        return "fast" if host_readable(x) and not recording else "exact"
    if path == "fast" and not fast_available(x):
        raise ValueError("path='fast' reads the recomputed pairs' indices, which is impossible on meta "
                         "tensors and inside torch.func transforms; use path='auto' or 'exact'")
    return path
