r"""LaplacianFormer's kernels, its Nyström approximation and the Newton–Schulz inverse.

Source: the LaplacianFormer abstract (``shared/papers/004_855280ebdbbe5f37.txt``): "a Laplacian
kernel as a principled alternative to softmax", "a Nyström approximation of the kernel matrix",
"solve the resulting system using Newton–Schulz iteration". The abstract states no formula; the
forms here are the textbook ones, each named in its docstring:

- :func:`laplacian_kernel` ``exp(−‖q_i − k_j‖/σ)`` and :func:`gaussian_kernel`
  ``exp(−‖q_i − k_j‖²/(2σ²))`` (Rasmussen & Williams, *Gaussian Processes for ML*, §4.2);
- :func:`segment_means` and :func:`nystrom_kernel` ``K̂ = K(Q, K̃) K(Q̃, K̃)⁻¹ K(Q̃, K)`` with
  segment-mean landmarks (Xiong et al. 2021, *Nyströmformer*, eq. 10–13, arXiv 2102.03902);
- :func:`newton_schulz_inverse` ``X_{k+1} = X_k(2I − A X_k)``, ``X_0 = Aᵀ/(‖A‖₁‖A‖_∞)``
  (Pan & Schreiber 1991, *SIAM J. Sci. Stat. Comput.* 12(5); the start Nyströmformer uses).

All take ``(..., n, d)`` float tensors (half dtypes computed in float32), bandwidths keyword-only,
and never synchronise with the device (value checks are device-side asserts off the CPU).
"""

import torch

from ._checks import (
    check_block,
    check_float,
    check_not_nan,
    check_query_key,
    compute_dtype,
)
from .distances import squared_distances


def _check_sigma(sigma: float) -> None:
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)):
        raise TypeError(f"sigma must be a positive float, got {type(sigma).__name__}")
    if not (sigma > 0 and sigma < float("inf")):
        raise ValueError(f"sigma must be positive and finite, got {sigma}")


def _distances(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    check_query_key(q, k)
    work = compute_dtype(q.dtype)
    return squared_distances(q.to(work), k.to(work)).sqrt()


def laplacian_kernel(q: torch.Tensor, k: torch.Tensor, *, sigma: float) -> torch.Tensor:
    r"""The Laplacian kernel matrix.

    .. math:: K_{ij} = \exp(-\lVert q_i - k_j\rVert_2 / \sigma)

    Args:
        q: ``(..., n_q, d)`` floating tensor; k: ``(..., n_k, d)``, same dtype, batch dims broadcast.
        sigma: the bandwidth σ > 0 (a Python float).

    Returns ``(..., n_q, n_k)`` in ``q``'s dtype; exactly 1 where ``q_i == k_j`` (the distance is
    formed coordinate-wise, :func:`operators.squared_distances`). Memory: two ``(..., n_q, n_k)``.
    """
    _check_sigma(sigma)
    return torch.exp(-_distances(q, k) / sigma).to(q.dtype)


def gaussian_kernel(q: torch.Tensor, k: torch.Tensor, *, sigma: float) -> torch.Tensor:
    r"""The Gaussian (RBF) kernel matrix.

    .. math:: K_{ij} = \exp(-\lVert q_i - k_j\rVert_2^2 / (2\sigma^2))

    Same arguments, output and memory as :func:`laplacian_kernel`.
    """
    _check_sigma(sigma)
    check_query_key(q, k)
    work = compute_dtype(q.dtype)
    d2 = squared_distances(q.to(work), k.to(work))
    return torch.exp(-d2 / (2.0 * sigma * sigma)).to(q.dtype)


def segment_means(x: torch.Tensor, landmarks: int) -> torch.Tensor:
    r"""Nyströmformer's landmarks: the means of ``landmarks`` consecutive equal segments.

    .. math:: \tilde x_l = \frac{m}{n}\sum_{i=(l-1)n/m+1}^{l\,n/m} x_i, \quad l = 1..m

    ``x``: ``(..., n, d)`` with ``n`` divisible by ``landmarks``; returns ``(..., m, d)``.
    """
    check_float("x", x)
    check_block(landmarks, "landmarks")
    n = x.shape[-2]
    if n % landmarks:
        raise ValueError(f"landmarks must divide n: n={n}, landmarks={landmarks}")
    check_not_nan("x", x)
    return x.reshape(*x.shape[:-2], landmarks, n // landmarks, x.shape[-1]).mean(dim=-2)


def _inverse_norm_start(a: torch.Tensor) -> torch.Tensor:
    norm1 = a.abs().sum(dim=-2).amax(dim=-1)  # max column sum
    norm_inf = a.abs().sum(dim=-1).amax(dim=-1)  # max row sum
    return a.transpose(-1, -2) / (norm1 * norm_inf)[..., None, None]


def newton_schulz_inverse(
    a: torch.Tensor, *, iterations: int, return_iterates: bool = False
) -> torch.Tensor:
    r"""Newton–Schulz (hyperpower, order 2) iteration for ``A⁻¹``.

    .. math:: X_0 = A^\top / (\lVert A\rVert_1 \lVert A\rVert_\infty), \qquad
        X_{k+1} = X_k (2I - A X_k)

    The residual ``E_k = I − A X_k`` obeys ``E_{k+1} = E_k²`` exactly, and
    ``‖E_0‖₂ = 1 − σ_min(A)²/(‖A‖₁‖A‖_∞) < 1`` for non-singular ``A`` (as
    ``σ_max(A)² ≤ ‖A‖₁‖A‖_∞``), so ``X_k → A⁻¹`` with order 2 once ``‖E_k‖ < 1``.

    Args:
        a: ``(..., m, m)`` floating tensor (non-singular; not checked: that needs its values).
        iterations: number of steps ``K >= 1``.
        return_iterates: also return every ``X_k``, stacked on a new leading dim (``K + 1``).

    Returns ``X_K`` (``(..., m, m)``), or ``(K + 1, ..., m, m)`` iterates. Memory: a few
    ``(..., m, m)`` (``K + 1`` of them with ``return_iterates``). Half dtypes run in float32.
    """
    check_float("a", a)
    check_block(iterations, "iterations")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"a must be square in its last two dims, got {tuple(a.shape[-2:])}")
    check_not_nan("a", a)
    work = a.to(compute_dtype(a.dtype))
    x = _inverse_norm_start(work)
    eye2 = 2.0 * torch.eye(a.shape[-1], dtype=work.dtype, device=a.device)
    out = [x] if return_iterates else None
    for _ in range(iterations):
        x = x @ (eye2 - work @ x)
        if out is not None:
            out.append(x)
    return torch.stack(out).to(a.dtype) if out is not None else x.to(a.dtype)


def nystrom_kernel(
    q: torch.Tensor,
    k: torch.Tensor,
    *,
    sigma: float,
    landmarks: int,
    iterations: int | None = None,
) -> torch.Tensor:
    r"""Nyström approximation of the Laplacian kernel matrix with segment-mean landmarks.

    .. math:: \hat K = K(Q, \tilde K)\; K(\tilde Q, \tilde K)^{-1}\; K(\tilde Q, K),

    :math:`\tilde Q, \tilde K` the :func:`segment_means` of ``q`` and ``k`` (Nyströmformer eq. 13,
    with the Laplacian kernel in place of softmax). The core is inverted by ``torch.linalg.solve``
    when ``iterations`` is None (``solve_ex``, unchecked: a singular core yields inf/NaN, never a
    host sync), else by :func:`newton_schulz_inverse` with that many steps.

    Args: ``q`` ``(..., n_q, d)``, ``k`` ``(..., n_k, d)``, ``landmarks`` dividing both ``n``.
    Returns ``(..., n_q, n_k)``. Memory: the output plus ``(..., n, m)`` factors.
    """
    _check_sigma(sigma)
    check_query_key(q, k)
    qt, kt = segment_means(q, landmarks), segment_means(k, landmarks)
    left = laplacian_kernel(q, kt, sigma=sigma)
    core = laplacian_kernel(qt, kt, sigma=sigma)
    right = laplacian_kernel(qt, k, sigma=sigma)
    if iterations is None:
        # solve_ex without its error check: no host synchronisation; a singular core gives inf/NaN
        return left @ torch.linalg.solve_ex(core, right, check_errors=False).result
    return left @ (newton_schulz_inverse(core, iterations=iterations) @ right)
