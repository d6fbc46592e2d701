r"""The Poincaré ball of curvature :math:`-c`: distances, Möbius addition, exp/log maps, means.

:math:`\mathbb B^d_c = \{x \in \mathbb R^d : c\lVert x\rVert^2 < 1\}` with conformal factor
:math:`\lambda_x = 2/\alpha_x`, :math:`\alpha_x = 1 - c\lVert x\rVert^2` (GeoResolver §4,
arXiv 2608.10416; Ganea, Bécigneul & Hofmann 2018, "Hyperbolic Neural Networks", §2).

**Accuracy.** Near the boundary :math:`\alpha_x` is the difference of two nearly equal
numbers; formed in floating point it keeps only :math:`\log_{10}(\alpha_x/u)` digits
(8 at :math:`\lVert x\rVert = 1 - 10^{-8}` in float64). Here :math:`\alpha_x` is formed in
double-double (``_dd``: TwoProduct for the squares, TwoSum for the accumulation and the
subtraction), so it is correct to a few ulps for every point of the ball, and every
formula below is rewritten so that it subtracts nothing else:

.. math:: d_c(x, y) = \tfrac{1}{\sqrt c}\operatorname{arcosh}(1 + 2\delta)
    = \tfrac{2}{\sqrt c}\operatorname{asinh}\sqrt\delta
    = \tfrac{1}{\sqrt c}\operatorname{log1p}\bigl(2\delta + 2\sqrt{\delta(1+\delta)}\bigr),
    \qquad \delta = \frac{c\lVert x - y\rVert^2}{\alpha_x \alpha_y}.

(``arcosh(1 + 2δ)`` itself loses half the digits of a short distance.) float32 and half
inputs are handled by computing :math:`\alpha` in float64.

Input checks read values (NaN, :math:`c\lVert x\rVert^2 \ge 1`) on CPU and use device-side
asserts elsewhere (``_checks.require``): no host synchronisation.
"""

import functools
import math
import warnings

import torch

from ._checks import (
    FLOAT_DTYPES,
    ball_margin,
    check_curvature,
    check_float,
    check_float_dtype,
    check_not_nan,
    check_point_pair,
    check_points,
    check_same_dtype,
    compute_dtype,
    require,
)
from ._dd import dd_sum_sq_diff, dd_sum_squares, one_minus_c_times
from ._numerics import descent_slack, karcher_tolerance
from ._smooth import (
    asinh_sqrt,
    asinh_sqrt_over_sqrt,
    asinh_sqrt_sq,
    smooth_needed,
    straight_through,
    tanh_sqrt_over_sqrt,
)
from .distances import pairwise_sq

DTYPES = FLOAT_DTYPES


# ---------------------------------------------------------------- checks and α
# Inputs: floating points of DTYPES, no NaN; pairs of one dtype and d.
_check_points = functools.partial(check_points, dtypes=DTYPES)
_check_pair = functools.partial(check_point_pair, dtypes=DTYPES)


def _gap_value(x: torch.Tensor, c: float) -> torch.Tensor:
    """α = 1 - c‖x‖² over the last dim, rounded to x's dtype.

    float64: in double-double. Narrower dtypes: in float64, where the squares are exact
    and the sum's relative error (below d·2^-53) is far below the input's unit roundoff
    even at the last float32 point inside the ball (α >= 1.2e-7).
    """
    with torch.no_grad():
        if x.dtype != torch.float64:
            # The 2-norm reduction makes no full-size temporary beyond the float64 copy.
            norm = torch.linalg.vector_norm(x.to(torch.float64), dim=-1)
            return (1.0 - c * norm.square_()).to(x.dtype)
        hi, lo = dd_sum_squares(x)
        alpha, _ = one_minus_c_times(c, hi, lo)
    return alpha


def _gap(name: str, x: torch.Tensor, c: float) -> torch.Tensor:
    r""":math:`\alpha_x = 1 - c\lVert x\rVert^2` ``(...)``, accurate to a few ulps, differentiable.

    Raises ``ValueError`` unless every point lies strictly inside the ball.
    """
    alpha = _gap_value(x, c)
    require(alpha > 0, f"{name} must lie inside the Poincaré ball (c·‖{name}‖² < 1, c = {c})")
    if smooth_needed(x):
        return straight_through(alpha, 1.0 - c * (x * x).sum(dim=-1))
    return alpha


def poincare_conformal_factor(x: torch.Tensor, *, c: float = 1.0) -> torch.Tensor:
    r"""The conformal factor :math:`\lambda_x = 2 / (1 - c\lVert x\rVert^2)`.

    Args:
        x: ``(..., d)`` points of the ball (c·‖x‖² < 1); c: the ball has curvature -c.

    Returns:
        ``(...)`` in x's dtype. The denominator is formed in double-double.

    Memory: O(numel(x)) temporaries.
    """
    _check_points("x", x)
    check_curvature(c)
    xw = x.to(compute_dtype(x.dtype))
    return (2.0 / _gap("x", xw, c)).to(x.dtype)


# ---------------------------------------------------------------- distances
def poincare_distance(x: torch.Tensor, y: torch.Tensor, *, c: float = 1.0) -> torch.Tensor:
    r"""Geodesic distance between paired points of the Poincaré ball.

    .. math:: d_c(x, y) = \tfrac{1}{\sqrt c}\operatorname{arcosh}\Bigl(1 + \frac{2c\lVert x - y\rVert^2}
        {(1 - c\lVert x\rVert^2)(1 - c\lVert y\rVert^2)}\Bigr)

    (GeoResolver §4, arXiv 2608.10416, with curvature -c), evaluated as
    :math:`\tfrac{1}{\sqrt c}\operatorname{log1p}(2\delta + 2\sqrt{\delta(1+\delta)})` with
    :math:`\lVert x - y\rVert^2` and both :math:`1 - c\lVert\cdot\rVert^2` in double-double
    (module docstring): a few ulps of relative error for every pair of points of the
    ball, short or long (≤ 1e-13 against mpmath in float64 up to ‖x‖ = 1 - 1e-8, see the
    precision table).

    Args:
        x, y: ``(..., d)`` points with c·‖·‖² < 1, same dtype; batch dims broadcast.
        c: positive float; the ball has curvature -c.

    Returns:
        ``(...)`` distances in x's dtype (float32/half computed in float64, then rounded).
        Differentiable where x ≠ y (derivatives of the same formula in working precision).

    Memory: O(numel) double-double temporaries (about 20 tensors of the broadcast shape).
    """
    _check_pair(x, y)
    check_curvature(c)
    x64, y64 = torch.broadcast_tensors(x.to(torch.float64), y.to(torch.float64))
    ax, ay = _gap("x", x64, c), _gap("y", y64, c)
    with torch.no_grad():
        n2, _ = dd_sum_sq_diff(x64, y64)
        value = (2.0 / math.sqrt(c)) * asinh_sqrt((c * n2) / (ax * ay))
    if smooth_needed(x, y):
        xw, yw = x.to(compute_dtype(x.dtype)), y.to(compute_dtype(y.dtype))
        delta = c * ((xw - yw) ** 2).sum(dim=-1) / (_gap("x", xw, c) * _gap("y", yw, c))
        return straight_through(value.to(xw.dtype), (2.0 / math.sqrt(c)) * asinh_sqrt(delta)).to(x.dtype)
    return value.to(x.dtype)


def _pairwise_delta(x: torch.Tensor, y: torch.Tensor, c: float) -> torch.Tensor:
    ax, ay = _gap("x", x, c), _gap("y", y, c)
    return (c * pairwise_sq(x, y)) / (ax[..., :, None] * ay[..., None, :])


def poincare_sqdist(x: torch.Tensor, y: torch.Tensor, *, c: float = 1.0) -> torch.Tensor:
    r"""Pairwise squared geodesic distances :math:`d_c(x_i, y_j)^2` (Dense-HIDA's distances).

    .. math:: d_c(x_i, y_j)^2 = \tfrac{4}{c}\operatorname{asinh}^2\sqrt{\delta_{ij}}, \qquad
        \delta_{ij} = \frac{c\lVert x_i - y_j\rVert^2}{\alpha_{x_i}\alpha_{y_j}}

    (GeoResolver Definition 5.1, arXiv 2608.10416). :math:`\alpha` in double-double per
    point; :math:`\lVert x_i - y_j\rVert^2` by direct differences (:func:`squared_distances`),
    so exactly 0 at coincident points; relative error a few ulps times the dimension's
    summation factor. Twice differentiable everywhere in the ball, coincident points
    included (a Taylor branch for small δ, see ``_smooth``), also under ``torch.func``.

    Args:
        x: ``(..., n_x, d)``; y: ``(..., n_y, d)``; same dtype, inside the ball.
        c: positive float; the ball has curvature -c.

    Returns:
        ``(..., n_x, n_y)`` in x's dtype (half dtypes computed in float32).

    Memory: O(n_x·n_y) per batch element (a few such tensors under autograd).
    """
    _check_pair(x, y, min_dim=2)
    check_curvature(c)
    work = compute_dtype(x.dtype)
    xw, yw = x.to(work), y.to(work)
    delta = _pairwise_delta(xw, yw, c)
    return ((4.0 / c) * asinh_sqrt_sq(delta, smooth_needed(xw, yw))).to(x.dtype)


def poincare_distance_matrix(x: torch.Tensor, y: torch.Tensor, *, c: float = 1.0) -> torch.Tensor:
    r"""Pairwise geodesic distances :math:`d_c(x_i, y_j)`, ``(..., n_x, n_y)``.

    Same evaluation as :func:`poincare_sqdist` without the square (not differentiable at
    coincident points, where the distance has a kink).

    Memory: O(n_x·n_y) per batch element (distances and one temporary).
    """
    _check_pair(x, y, min_dim=2)
    check_curvature(c)
    work = compute_dtype(x.dtype)
    delta = _pairwise_delta(x.to(work), y.to(work), c)
    return ((2.0 / math.sqrt(c)) * asinh_sqrt(delta)).to(x.dtype)


# ---------------------------------------------------------------- Möbius addition and maps
def _mobius_add(x: torch.Tensor, y: torch.Tensor, c: float, ax: torch.Tensor, ay: torch.Tensor):
    s = x + y
    sn = c * (s * s).sum(dim=-1)
    return (ax[..., None] * s + sn[..., None] * x) / (ax * ay + sn)[..., None]


def mobius_add(x: torch.Tensor, y: torch.Tensor, *, c: float = 1.0) -> torch.Tensor:
    r"""Möbius addition :math:`x \oplus_c y`.

    .. math:: x \oplus_c y = \frac{(1 + 2c\langle x, y\rangle + c\lVert y\rVert^2)\,x
        + (1 - c\lVert x\rVert^2)\,y}{1 + 2c\langle x, y\rangle + c^2\lVert x\rVert^2\lVert y\rVert^2}
        = \frac{\alpha_x (x + y) + c\lVert x + y\rVert^2 x}{\alpha_x\alpha_y + c\lVert x + y\rVert^2}

    (Ganea et al. 2018, eq. 3). The right-hand form, an identity checked in the tests,
    adds only non-negative terms in the denominator (the left one cancels when
    :math:`y \approx -x` near the boundary); :math:`\alpha` in double-double.

    Args:
        x, y: ``(..., d)`` points of the ball, same dtype; batch dims broadcast.
        c: positive float; the ball has curvature -c.

    Returns:
        ``(..., d)`` in x's dtype. Properties (tested): ``0 ⊕ y = y``, ``x ⊕ 0 = x``,
        ``(-x) ⊕ x = 0``, left cancellation ``(-x) ⊕ (x ⊕ y) = y``.

    Memory: O(numel) temporaries.
    """
    _check_pair(x, y)
    check_curvature(c)
    work = compute_dtype(x.dtype)
    xw, yw = x.to(work), y.to(work)
    return _mobius_add(xw, yw, c, _gap("x", xw, c), _gap("y", yw, c)).to(x.dtype)


def _check_tangent(name: str, v: torch.Tensor) -> None:
    check_float(name, v, min_dim=1)
    check_float_dtype(name, v, DTYPES)
    check_not_nan(name, v)


def poincare_expmap0(v: torch.Tensor, *, c: float = 1.0) -> torch.Tensor:
    r"""Exponential map at the origin, :math:`\exp_0(v) = \tanh(\sqrt c\lVert v\rVert)\,
    \frac{v}{\sqrt c\lVert v\rVert}` (Ganea et al. 2018, Lemma 2 at x = 0).

    Args:
        v: ``(..., d)`` tangent vectors (any finite values).
        c: positive float; the ball has curvature -c.

    Returns:
        ``(..., d)`` points of the ball. For :math:`\sqrt c\lVert v\rVert` beyond about
        ``atanh(1 - u)`` (19 in float64, 9 in float32) the result rounds onto the boundary;
        :func:`poincare_project` pulls it back inside. Smooth at v = 0 (Taylor branch).

    Memory: O(numel) temporaries.
    """
    _check_tangent("v", v)
    check_curvature(c)
    vw = v.to(compute_dtype(v.dtype))
    t = c * (vw * vw).sum(dim=-1)
    return (vw * tanh_sqrt_over_sqrt(t, smooth_needed(vw))[..., None]).to(v.dtype)


def poincare_logmap0(y: torch.Tensor, *, c: float = 1.0) -> torch.Tensor:
    r"""Logarithmic map at the origin, :math:`\log_0(y) = \operatorname{artanh}(\sqrt c\lVert y\rVert)
    \frac{y}{\sqrt c\lVert y\rVert}` (Ganea et al. 2018, Lemma 2 at x = 0).

    Evaluated as :math:`y\,\operatorname{asinh}(\sqrt\sigma)/(\sqrt\sigma\sqrt{\alpha_y})` with
    :math:`\sigma = c\lVert y\rVert^2/\alpha_y` (the identity
    :math:`\operatorname{artanh} r = \operatorname{asinh}(r/\sqrt{1-r^2})`), so no
    :math:`1 - \sqrt c\lVert y\rVert` is ever formed. Its norm is :math:`d_c(0, y)/2`.

    Args:
        y: ``(..., d)`` points of the ball; c: positive float (curvature -c).

    Returns:
        ``(..., d)`` tangent vectors at 0, in y's dtype. Smooth at y = 0.

    Memory: O(numel) temporaries.
    """
    _check_points("y", y)
    check_curvature(c)
    yw = y.to(compute_dtype(y.dtype))
    alpha = _gap("y", yw, c)
    sigma = c * (yw * yw).sum(dim=-1) / alpha
    scale = asinh_sqrt_over_sqrt(sigma, smooth_needed(yw)) / torch.sqrt(alpha)
    return (yw * scale[..., None]).to(y.dtype)


def poincare_expmap(x: torch.Tensor, v: torch.Tensor, *, c: float = 1.0) -> torch.Tensor:
    r"""Exponential map at x: :math:`\exp_x(v) = x \oplus_c \exp_0(\lambda_x v / 2)`
    (Ganea et al. 2018, Lemma 2; :math:`\lambda_x/2 = 1/\alpha_x`).

    Args:
        x: ``(..., d)`` base points of the ball; v: ``(..., d)`` tangent vectors at x;
            same dtype, batch dims broadcast. c: positive float (curvature -c).

    Returns:
        ``(..., d)`` points of the ball in x's dtype.

    Memory: O(numel) temporaries.
    """
    _check_points("x", x)
    _check_tangent("v", v)
    check_same_dtype(x=x, v=v)
    if x.shape[-1] != v.shape[-1]:
        raise ValueError(f"mismatched last dims: x has d={x.shape[-1]}, v has d={v.shape[-1]}")
    check_curvature(c)
    work = compute_dtype(x.dtype)
    xw, vw = x.to(work), v.to(work)
    ax = _gap("x", xw, c)
    step = vw / ax[..., None]
    t2 = c * (step * step).sum(dim=-1)
    w = step * tanh_sqrt_over_sqrt(t2, smooth_needed(xw, vw))[..., None]
    # α_w = 1 - tanh²t = sech²t, exactly, instead of from w's rounded coordinates (which
    # round onto the boundary once tanh t rounds to 1).
    aw = 1.0 / torch.cosh(torch.sqrt(t2)).square()
    return _mobius_add(xw, w, c, ax, aw).to(x.dtype)


def poincare_logmap(x: torch.Tensor, y: torch.Tensor, *, c: float = 1.0) -> torch.Tensor:
    r"""Logarithmic map at x: :math:`\log_x(y) = \frac{2}{\sqrt c\,\lambda_x}
    \operatorname{artanh}(\sqrt c\lVert u\rVert)\frac{u}{\lVert u\rVert}`, :math:`u = (-x)\oplus_c y`
    (Ganea et al. 2018, Lemma 2).

    Its Riemannian norm :math:`\lambda_x\lVert\log_x y\rVert` is :math:`d_c(x, y)`. Evaluated as
    :math:`\alpha_x\, u\, \operatorname{asinh}(\sqrt\delta)/(\sqrt\delta\sqrt{\alpha_u})` with the
    identities :math:`c\lVert u\rVert^2/\alpha_u = \delta` and
    :math:`\alpha_u = \alpha_x\alpha_y/(\alpha_x\alpha_y + c\lVert x - y\rVert^2)` (checked in
    the tests), so no digit is lost when u approaches the boundary.

    Args:
        x, y: ``(..., d)`` points of the ball, same dtype; batch dims broadcast.
        c: positive float; the ball has curvature -c.

    Returns:
        ``(..., d)`` tangent vectors at x in x's dtype; 0 where y = x (smooth there).

    Memory: O(numel) temporaries.
    """
    _check_pair(x, y)
    check_curvature(c)
    work = compute_dtype(x.dtype)
    xw, yw = x.to(work), y.to(work)
    ax, ay = _gap("x", xw, c), _gap("y", yw, c)
    u = _mobius_add(-xw, yw, c, ax, ay)
    diff = xw - yw
    n2 = c * (diff * diff).sum(dim=-1)
    delta = n2 / (ax * ay)
    alpha_u = (ax * ay) / (ax * ay + n2)
    scale = ax * asinh_sqrt_over_sqrt(delta, smooth_needed(xw, yw)) / torch.sqrt(alpha_u)
    return (u * scale[..., None]).to(x.dtype)


# ---------------------------------------------------------------- projections
def poincare_project(x: torch.Tensor, *, c: float = 1.0, margin: float | None = None) -> torch.Tensor:
    r"""Radial projection into the closed ball of radius :math:`(1 - m)/\sqrt c`.

    .. math:: \operatorname{proj}(x) = x \min\Bigl(1, \frac{1 - m}{\sqrt c\,\lVert x\rVert}\Bigr)

    The one clamp of this module, and a declared one: points farther out than
    :math:`(1-m)/\sqrt c` move radially onto that sphere, others are returned unchanged.

    Args:
        x: ``(..., d)`` any finite points. c: positive float (curvature -c).
        margin: m in (0, 1); default ``2·finfo(dtype).eps`` (``_checks.ball_margin``),
            the smallest margin that keeps the rounded result inside the open ball.

    Returns:
        ``(..., d)`` in x's dtype.

    Memory: O(numel) temporaries.
    """
    _check_tangent("x", x)
    check_curvature(c)
    work = compute_dtype(x.dtype)
    m = ball_margin(work) if margin is None else margin
    if isinstance(m, bool) or not isinstance(m, (int, float)) or not 0 < m < 1:
        raise ValueError(f"margin must be a float in (0, 1), got {margin!r}")
    xw = x.to(work)
    radius = (1.0 - m) / math.sqrt(c)
    norm = torch.linalg.vector_norm(xw, dim=-1, keepdim=True)
    factor = torch.where(norm > radius, radius / torch.where(norm > 0, norm, 1.0), 1.0)
    return (xw * factor).to(x.dtype)


def poincare_tanh_map(z: torch.Tensor, *, c: float = 1.0, scale: float = 0.9) -> torch.Tensor:
    r"""The paper's embedding map :math:`x = 0.9\tanh(z)`, read radially:
    :math:`x = s\,\exp_0(z) = s\tanh(\sqrt c\lVert z\rVert)\frac{z}{\sqrt c\lVert z\rVert}`.

    (GeoResolver §4, arXiv 2608.10416: "all embeddings are projected via x = 0.9 tanh(z)".)
    Read coordinate-wise, 0.9·tanh would leave the ball for d ≥ 2 (‖x‖ up to 0.9·√d);
    radially, every output satisfies :math:`\sqrt c\lVert x\rVert < s`.

    Args:
        z: ``(..., d)`` any finite vectors. c: positive float (curvature -c).
        scale: s in (0, 1].

    Returns:
        ``(..., d)`` points with :math:`\sqrt c\lVert x\rVert \le s` in z's dtype.

    Memory: O(numel) temporaries.
    """
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 1:
        raise ValueError(f"scale must be a float in (0, 1], got {scale!r}")
    return scale * poincare_expmap0(z, c=c)


# ---------------------------------------------------------------- Karcher mean
def poincare_karcher_mean(
    x: torch.Tensor,
    *,
    c: float = 1.0,
    weights: torch.Tensor | None = None,
    tol: float | None = None,
    max_iter: int = 500,
    return_info: bool = False,
):
    r"""The Karcher (Fréchet) mean :math:`\arg\min_\mu \sum_i w_i\, d_c(\mu, x_i)^2` of each point set.

    Riemannian gradient descent:
    :math:`\mu \leftarrow \exp_\mu\bigl(\eta\sum_i w_i \log_\mu x_i\bigr)`, a step of
    :math:`-\tfrac{\eta}{2}\operatorname{grad}F(\mu)` for :math:`F = \sum_i w_i d_c(\mu, x_i)^2`,
    started at :math:`\exp_0(\sum_i w_i\log_0 x_i)`. The Hessian of :math:`F/2` has
    eigenvalues in :math:`[1, L]`, :math:`L = \sum_i w_i t_i\coth t_i`, :math:`t_i = \sqrt c\,d_c(\mu, x_i)`
    (comparison with constant curvature -c), so the step is :math:`\eta = 2/(1 + L)`, the
    optimal fixed step for that range. As a safeguard, a step that increases F (beyond
    ``4·eps`` relative rounding) is retried at half length. F is geodesically convex and
    the minimiser exists and is unique: the ball is CAT(-c) (GeoResolver §4).

    **Stopping rule.** Stop at the first iterate whose gradient step has Riemannian length
    :math:`\lambda_\mu\lVert\sum_i w_i\log_\mu x_i\rVert = \tfrac12\lVert\operatorname{grad}F(\mu)\rVert_\mu
    \le \mathrm{tol}\cdot(1 + \max_i d_c(\mu, x_i))` for every set of the batch; ``tol``
    defaults to ``64·finfo(dtype).eps``. The check reads one scalar per iteration
    (a host synchronisation on accelerators). If ``max_iter`` iterations do not reach it, a
    ``RuntimeWarning`` says so (and ``info["converged"]`` is False).

    Args:
        x: ``(..., n, d)`` points of the ball (n >= 1).
        c: positive float; the ball has curvature -c.
        weights: ``(..., n)`` non-negative weights (normalised to sum 1); default uniform.
        tol, max_iter: the stopping rule above.
        return_info: also return ``{"iterations", "step", "converged"}``.

    Returns:
        ``(..., d)`` means in x's dtype (and the info dict).

    Memory: O(numel(x)) per iteration (the log maps).
    """
    _check_points("x", x, min_dim=2)
    check_curvature(c)
    if x.shape[-2] < 1:
        raise ValueError("x must hold at least one point per set (n >= 1)")
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive int, got {max_iter!r}")
    work = compute_dtype(x.dtype)
    xw = x.to(work)
    tol = karcher_tolerance(work) if tol is None else float(tol)
    if weights is None:
        w = torch.full(xw.shape[:-1], 1.0 / xw.shape[-2], dtype=work, device=x.device)
    else:
        check_float("weights", weights, min_dim=1)
        if weights.shape[-1] != x.shape[-2]:
            raise ValueError(f"weights must have n={x.shape[-2]} entries, got {weights.shape[-1]}")
        check_not_nan("weights", weights)
        require(weights >= 0, "weights must be non-negative")
        w = weights.to(work)
        w = w / w.sum(dim=-1, keepdim=True)
    _gap("x", xw, c)  # membership check
    mu = poincare_expmap0((w[..., None] * poincare_logmap0(xw, c=c)).sum(dim=-2), c=c)

    def state(m):
        logs = poincare_logmap(m[..., None, :], xw, c=c)
        lam = 2.0 / _gap("mean", m, c)
        dist = lam[..., None] * torch.linalg.vector_norm(logs, dim=-1)
        return logs, lam, dist, (w * dist * dist).sum(dim=-1)

    logs, lam, dist, f = state(mu)
    guard = torch.ones_like(f)
    slack = descent_slack(work)
    converged, step_len, it = False, float("nan"), 0
    for it in range(1, max_iter + 1):  # noqa: B007 -- reported in info
        step = (w[..., None] * logs).sum(dim=-2)
        length = lam * torch.linalg.vector_norm(step, dim=-1)
        step_len = float(length.max())
        if bool((length <= tol * (1.0 + dist.amax(dim=-1))).all()):
            converged = True
            break
        t = math.sqrt(c) * dist
        curv = (w * torch.where(t > 0, t / torch.tanh(torch.where(t > 0, t, 1.0)), 1.0)).sum(dim=-1)
        eta = guard * 2.0 / (1.0 + curv)
        cand = poincare_expmap(mu, eta[..., None] * step, c=c)
        c_logs, c_lam, c_dist, c_f = state(cand)
        ok = c_f <= f * (1.0 + slack)
        mu = torch.where(ok[..., None], cand, mu)
        logs = torch.where(ok[..., None, None], c_logs, logs)
        lam, dist, f = (torch.where(ok, c_lam, lam), torch.where(ok[..., None], c_dist, dist),
                        torch.where(ok, c_f, f))
        guard = torch.where(ok, (2.0 * guard).clamp(max=1.0), 0.5 * guard)
    if not converged:
        warnings.warn(f"poincare_karcher_mean: no convergence in {max_iter} steps (last step "
                      f"{step_len:.3g} > tol {tol:.3g}·(1 + radius))", RuntimeWarning, stacklevel=2)
    mu = mu.to(x.dtype)
    if return_info:
        return mu, {"iterations": it, "step": step_len, "converged": converged}
    return mu
