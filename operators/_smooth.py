r"""Smooth scalar functions for the geometries, differentiable to any order at 0 (private).

Each squared geodesic distance is an analytic function of a quantity that vanishes at
coincident points, e.g. :math:`d_{\mathbb H}^2 = \tfrac{4}{c}\operatorname{asinh}^2\sqrt\delta`,
but written with :math:`\sqrt\delta` its autograd derivative is ``inf·0 = nan`` at 0. Each
function below is therefore evaluated

- for small arguments by its Taylor polynomial (coefficients checked against SymPy in
  the tests; truncation error below ``u`` at the switch point ``SWITCH``),
- elsewhere by its closed form on an argument replaced by ``SWITCH`` where small
  (the "double where": each branch sees only arguments where it is finite, so no nan
  leaks into gradients).

When neither autograd nor a ``torch.func`` transform is active (``smooth=False``), the
closed form is used alone: it is accurate at small arguments too, only its derivatives
are not.

:func:`straight_through` gives a value computed one way (e.g. in double-double) the
derivatives of another expression of the same function.
"""

from fractions import Fraction

import torch

from ._checks import needs_graph, transforms_active

# Series are used below SWITCH: the first omitted term is < 1e-17 relative there.
SWITCH = 1e-3

# Taylor coefficients in t (SymPy: series(f, t, 0, 7)), t -> 0.
ASINH_SQRT_SQ = (Fraction(1), Fraction(-1, 3), Fraction(8, 45), Fraction(-4, 35),
                 Fraction(128, 1575), Fraction(-128, 2079))           # asinh(√t)²/t
ATAN_SQRT_SQ = (Fraction(1), Fraction(-2, 3), Fraction(23, 45), Fraction(-44, 105),
                Fraction(563, 1575), Fraction(-3254, 10395))          # atan(√t)²/t
ASINH_SQRT_OVER_SQRT = (Fraction(1), Fraction(-1, 6), Fraction(3, 40), Fraction(-5, 112),
                        Fraction(35, 1152), Fraction(-63, 2816))     # asinh(√t)/√t
TANH_SQRT_OVER_SQRT = (Fraction(1), Fraction(-1, 3), Fraction(2, 15), Fraction(-17, 315),
                       Fraction(62, 2835), Fraction(-1382, 155925))  # tanh(√t)/√t


def smooth_needed(*tensors: torch.Tensor) -> bool:
    """Whether derivatives may be taken: autograd records, or a transform is active."""
    return transforms_active() or needs_graph(*tensors)


def _horner(coeffs, t: torch.Tensor) -> torch.Tensor:
    out = torch.full_like(t, float(coeffs[-1]))
    for a in reversed(coeffs[:-1]):
        out = out * t + float(a)
    return out


def _series_where(t: torch.Tensor, coeffs, closed, times_t: bool) -> torch.Tensor:
    small = t < SWITCH
    safe = torch.where(small, torch.full_like(t, SWITCH), t)
    tiny = torch.where(small, t, torch.zeros_like(t))  # large t must not reach the polynomial
    series = _horner(coeffs, tiny)
    if times_t:
        series = series * tiny
    return torch.where(small, series, closed(safe))


def asinh_sqrt(t: torch.Tensor) -> torch.Tensor:
    r""":math:`\operatorname{asinh}\sqrt t = \tfrac12\operatorname{log1p}(2t + 2\sqrt{t(1+t)})`,
    ``t >= 0``: only positive terms, so accurate to a few ulps at every scale."""
    return 0.5 * torch.log1p(2.0 * (t + torch.sqrt(t * (1.0 + t))))


def asinh_sqrt_sq(t: torch.Tensor, smooth: bool) -> torch.Tensor:
    r""":math:`\operatorname{asinh}^2\sqrt t` (``= c d_{\mathbb H}^2 / 4`` at ``t = δ``), ``t >= 0``."""
    if not smooth:
        return asinh_sqrt(t).square()
    return _series_where(t, ASINH_SQRT_SQ, lambda s: asinh_sqrt(s).square(), times_t=True)


def asinh_sqrt_over_sqrt(t: torch.Tensor, smooth: bool) -> torch.Tensor:
    r""":math:`\operatorname{asinh}(\sqrt t)/\sqrt t`, ``t >= 0`` (1 at 0)."""
    if not smooth:
        safe = torch.where(t > 0, t, torch.ones_like(t))
        return torch.where(t > 0, asinh_sqrt(safe) / torch.sqrt(safe), torch.ones_like(t))
    return _series_where(t, ASINH_SQRT_OVER_SQRT, lambda s: asinh_sqrt(s) / torch.sqrt(s), times_t=False)


def tanh_sqrt_over_sqrt(t: torch.Tensor, smooth: bool) -> torch.Tensor:
    r""":math:`\tanh(\sqrt t)/\sqrt t`, ``t >= 0`` (1 at 0)."""
    if not smooth:
        safe = torch.where(t > 0, t, torch.ones_like(t))
        return torch.where(t > 0, torch.tanh(torch.sqrt(safe)) / torch.sqrt(safe), torch.ones_like(t))
    return _series_where(t, TANH_SQRT_OVER_SQRT, lambda s: torch.tanh(torch.sqrt(s)) / torch.sqrt(s),
                         times_t=False)


def half_angle_sq(a: torch.Tensor, b: torch.Tensor, smooth: bool) -> torch.Tensor:
    r""":math:`\operatorname{atan2}(\sqrt a, \sqrt b)^2` for ``a, b >= 0`` not both 0.

    For ``a <= b`` it is :math:`\operatorname{atan}^2\sqrt{a/b}`, smooth in ``a`` at 0 (the
    series branch); for ``a > b`` (angles beyond π/2) the closed form is smooth anyway.
    """
    if not smooth:
        return torch.atan2(torch.sqrt(a), torch.sqrt(b)).square()
    t = a / torch.where(b > 0, b, torch.ones_like(b))
    near = (a <= b) & (t < SWITCH)
    a_safe = torch.where(near, b, a)
    tiny = torch.where(near, t, torch.zeros_like(t))
    series = _horner(ATAN_SQRT_SQ, tiny) * tiny
    return torch.where(near, series, torch.atan2(torch.sqrt(a_safe), torch.sqrt(b)).square())


class _StraightThrough(torch.autograd.Function):
    """Forward: ``value``; derivatives (reverse and forward mode): those of ``approx``."""

    generate_vmap_rule = True

    @staticmethod
    def forward(value: torch.Tensor, approx: torch.Tensor) -> torch.Tensor:
        return value.clone()

    @staticmethod
    def setup_context(ctx, inputs, output) -> None:
        ctx.shape, ctx.dtype, ctx.device = output.shape, output.dtype, output.device

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        return None, grad

    @staticmethod
    def jvp(ctx, t_value, t_approx):
        if t_approx is None:
            return torch.zeros(ctx.shape, dtype=ctx.dtype, device=ctx.device)
        return t_approx


def straight_through(value: torch.Tensor, approx: torch.Tensor) -> torch.Tensor:
    """``value`` (detached, computed accurately) carrying the derivatives of ``approx``.

    ``approx`` must be a differentiable expression of the same function, so that the
    derivatives are right; only its rounding differs from ``value``'s.
    """
    return _StraightThrough.apply(value.detach(), approx)
