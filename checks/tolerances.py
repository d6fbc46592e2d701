"""Tolerances as objects that state their reason and describe themselves from the constants they use.

A spec never writes a tolerance's numbers in prose: it builds one of these, uses the same object
to compute the value, and the record carries ``describe()``. Kinds:

- :class:`Roundoff` — ``safety × unit round-off × condition``: the condition count says how much
  the computation can amplify a relative perturbation of its inputs (stated in words by the spec),
  and the safety factor covers the rounded operations on the path;
- :class:`MonteCarlo` — a sampling interval at a stated confidence, Bonferroni-corrected over the
  number of comparisons (see :mod:`checks.montecarlo`);
- :class:`FitBias` — an exponent tolerance equal to the systematic error a closed form puts into
  the fit on the grid actually used (``checks.fitting.closed_form_bias``) times a stated margin;
- :class:`Systematic` — an exponent or rate tolerance for a named systematic effect that has no
  closed form (pre-asymptotic curvature measured on a wider grid, say), with its reason. It is
  hand-set: a decision it alone turns is recorded as ``decided_by_tolerance`` and reads undecided
  (a hand-set tolerance cannot carry a confirmation);
- :class:`Exact` — no tolerance: the quantities are compared exactly (integers, booleans).

Every constant comes from the IEEE formats' unit round-off (``torch.finfo(dtype).eps / 2``, kept
here as a table so that importing a spec does not import torch) or from the object's own fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

SAFETY = 64.0  # a few dozen rounded operations between inputs and the compared quantity

# Unit round-off u = 2^-(p) for p significand bits (torch.finfo(dtype).eps / 2; tested against it).
_UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}


def _dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def unit_roundoff(dtype: Any = "float64") -> float:
    try:
        return _UNIT_ROUNDOFF[_dtype_name(dtype)]
    except KeyError:
        raise ValueError(f"no unit round-off known for dtype {dtype!r}") from None


def roundoff(dtype: Any = "float64", condition=1.0, safety: float = SAFETY):
    """Absolute or relative tolerance ``safety · u · condition`` (``condition`` may be a tensor)."""
    return safety * unit_roundoff(dtype) * condition


@dataclass(frozen=True)
class Roundoff:
    """Floating-point round-off: ``safety · u · condition``, the condition count stated in words."""

    condition: str
    safety: float = SAFETY
    dtype: Any = "float64"
    scale: str = ""  # what the relative tolerance is measured against (e.g. "max|v|"), if absolute

    def __call__(self, condition=1.0, dtype: Any = None):
        return roundoff(dtype or self.dtype, condition, self.safety)

    def describe(self) -> str:
        u = unit_roundoff(self.dtype)
        text = (f"{_dtype_name(self.dtype)} round-off: {self.safety:g}·u (u = {u:.3g}) = "
                f"{self.safety * u:.3g} × condition {self.condition}")
        return text + (f", times {self.scale}" if self.scale else "")


@dataclass(frozen=True)
class MonteCarlo:
    """A Monte-Carlo interval at ``confidence``, Bonferroni-corrected over ``comparisons``."""

    estimator: str  # what is estimated, e.g. "mean eff-rank over 200 point sets per width"
    confidence: float = 0.95
    comparisons: int = 1
    method: str = "normal"  # "normal" (mean ± z·s/√n) or "wilson" (a proportion)

    def __post_init__(self) -> None:
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must lie in (0, 1), got {self.confidence}")
        if self.comparisons < 1:
            raise ValueError("comparisons must be >= 1")
        if self.method not in ("normal", "wilson"):
            raise ValueError(f"unknown Monte-Carlo interval {self.method!r}")

    @property
    def per_comparison(self) -> float:
        """The confidence of each single interval so that all hold jointly at ``confidence``."""
        return 1.0 - (1.0 - self.confidence) / self.comparisons

    def describe(self) -> str:
        what = "normal interval of the mean" if self.method == "normal" else "Wilson interval"
        alpha = (1.0 - self.confidence) / self.comparisons
        joint = (f", Bonferroni over {self.comparisons} comparisons (each at level 1 − {alpha:.3g})"
                 if self.comparisons > 1 else "")
        return f"Monte-Carlo: {self.confidence:.3g} {what} of {self.estimator}{joint}"


@dataclass(frozen=True)
class FitBias:
    """An exponent tolerance from a closed form's own fit bias on the grid: ``margin × |bias|``.

    ``bias`` is a number, or a function computing it (``lambda: closed_form_bias(...)``), called
    once when the check first runs, so that importing a spec runs no numerics.
    """

    bias: float | Callable[[], float]
    source: str  # which closed form, on which grid
    margin: float = 2.0
    floor: float = 0.0  # stated minimum, e.g. when the closed form is exact

    @property
    def lazy(self) -> bool:
        return callable(self.bias)

    @cached_property
    def bias_value(self) -> float:
        return float(self.bias() if callable(self.bias) else self.bias)

    @property
    def value(self) -> float:
        return max(self.margin * abs(self.bias_value), self.floor)

    def describe(self) -> str:
        floor = f", at least {self.floor:g}" if self.floor else ""
        return (f"fit bias: ±{self.value:.3g} = {self.margin:g} × |{self.bias_value:.3g}|, the fitted "
                f"minus asymptotic exponent of {self.source}{floor}")


@dataclass(frozen=True)
class Systematic:
    """An exponent or rate tolerance for a named systematic effect without a closed form."""

    value: float
    reason: str

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("a tolerance is non-negative")
        if not self.reason.strip():
            raise ValueError("a systematic tolerance states its reason")

    def describe(self) -> str:
        return f"systematic: ±{self.value:g} for {self.reason}"


@dataclass(frozen=True)
class Exact:
    """Compared exactly: integers, booleans, or SymPy-exact values carried as floats."""

    reason: str = "exact comparison"
    value: float = 0.0

    def __call__(self, *args, **kwargs) -> float:
        return 0.0

    def describe(self) -> str:
        return f"none: {self.reason}"
