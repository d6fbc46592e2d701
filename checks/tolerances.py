"""Numerical tolerances from a stated error model; every constant comes from ``torch.finfo``.

A tolerance is ``safety × unit round-off × condition``: the condition number says how much the
computation can amplify a relative perturbation of its inputs, and the safety factor (a small
fixed multiple, stated here once) covers the number of rounded operations on the path.
"""

from __future__ import annotations

import torch

SAFETY = 64.0  # a few dozen rounded operations between inputs and the compared quantity


def unit_roundoff(dtype: torch.dtype = torch.float64) -> float:
    return float(torch.finfo(dtype).eps) / 2.0


def roundoff(dtype: torch.dtype = torch.float64, condition=1.0, safety: float = SAFETY):
    """Absolute or relative tolerance ``safety · u · condition`` (``condition`` may be a tensor)."""
    return safety * unit_roundoff(dtype) * condition
