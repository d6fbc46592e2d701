r"""Numerical constants of the operators (private): every one a multiple of ``torch.finfo``.

They are defined here and nowhere else, each with the reason for its multiple, so that an
operator's thresholds and its stated error bounds read from one place. (Input validation is
:mod:`._checks`.)
"""

import math

import torch

# Half types are computed in float32: CPU ``cdist`` does not implement them, and
# squared distances overflow float16 already at distance 256.
_UPCAST = {torch.float16: torch.float32, torch.bfloat16: torch.float32}


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """dtype in which an operator computes internally for inputs of ``dtype``."""
    return _UPCAST.get(dtype, dtype)


def positive_range(dtype: torch.dtype) -> tuple[float, float]:
    """(smallest normal, largest finite) of ``dtype``: the floor and ceiling of D."""
    info = torch.finfo(dtype)
    return info.tiny, info.max


def unit_roundoff(dtype: torch.dtype) -> float:
    """``u = eps/2``, the relative rounding error of one correctly rounded operation."""
    return torch.finfo(dtype).eps / 2


def ball_margin(dtype: torch.dtype) -> float:
    """Relative margin inside the ball's boundary used by projections: ``2·eps``."""
    return 2 * torch.finfo(dtype).eps


def unit_norm_slack(dtype: torch.dtype) -> float:
    """``8u``: a vector whose correctly rounded norm is within this of 1 is treated as unit by the
    sphere's distances (its norm defect enters their formula exactly; renormalising it would cost
    a few ulps of the angle)."""
    return 8 * unit_roundoff(dtype)


def scaling_exponent_limit(dtype: torch.dtype) -> int:
    """L = a third of the dtype's binary exponent range (341 in float64, 42 in float32): vectors
    whose largest entry lies in [2^-L, 2^L] form squares and triple products without under- or
    overflow; others are scaled by a power of two first."""
    return int(math.log2(torch.finfo(dtype).max)) // 3


def karcher_tolerance(dtype: torch.dtype) -> float:
    """Default stopping tolerance of the Karcher mean, ``64·eps`` on ½‖grad F‖ relative to
    1 + radius: the log maps of n points carry a few ulps each, so the gradient cannot be
    resolved much below it."""
    return 64 * torch.finfo(dtype).eps


def descent_slack(dtype: torch.dtype) -> float:
    """``4·eps``: the relative increase of an objective accepted by a guarded descent step (the
    objective's own evaluation rounds by a few ulps, so a step that changes it less is no worse)."""
    return 4 * torch.finfo(dtype).eps


# The matmul expansion ‖q‖² + ‖k‖² − 2 q·k is trusted for a pair only when its value is
# above EXPANSION_TAU · (‖q‖² + ‖k‖²); other pairs are recomputed by direct differences.
EXPANSION_TAU = 0.125


def expansion_bound(d: int, dtype: torch.dtype) -> float:
    r"""ρ: relative error bound of an expanded squared distance that was not recomputed.

    Standard error analysis (Higham, *Accuracy and Stability*, §3.1) of
    :math:`\tilde D = \lVert q\rVert^2 + \lVert k\rVert^2 - 2 q\cdot k` from coordinates
    shifted by a common centre gives
    :math:`|\tilde D - D| \le \gamma S` with :math:`S = \lVert q\rVert^2 + \lVert k\rVert^2`
    and :math:`\gamma = 2\gamma_{d+2} + 4u`, :math:`\gamma_m = mu/(1 - mu)` (the last
    :math:`4u` for rounding the shift). A pair kept has :math:`\tilde D > \tau S`, hence
    :math:`D > (\tau - \gamma) S` and :math:`|\tilde D - D| / D < \rho = \gamma/(\tau - \gamma)`
    with :math:`\tau` = ``EXPANSION_TAU``.
    """
    u = unit_roundoff(dtype)
    m = (d + 2) * u
    gamma = 2 * m / (1 - m) + 4 * u
    return gamma / (EXPANSION_TAU - gamma)
