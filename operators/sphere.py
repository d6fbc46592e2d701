r"""The unit sphere :math:`S^{d-1}`: great-circle distances, normalisation, stereographic maps.

The distance is the angle between two vectors (GeoResolver §4, arXiv 2608.10416:
:math:`d_S(x, y) = \arccos\langle x, y\rangle`). ``arccos`` is never used: near 0 and π its
argument is within rounding of ±1 and the angle keeps only half its digits (an error of
:math:`\sqrt u \approx 10^{-8}` in float64). With :math:`a = \lVert x\rVert`,
:math:`b = \lVert y\rVert`, :math:`A = \lVert x - y\rVert^2`, :math:`B = \lVert x + y\rVert^2`,

.. math:: A = (a - b)^2 + 4ab\sin^2\tfrac\theta2, \qquad B = (a - b)^2 + 4ab\cos^2\tfrac\theta2,
    \qquad \theta = 2\operatorname{atan2}\bigl(\sqrt{A - (a-b)^2}, \sqrt{B - (a-b)^2}\bigr)

(Kahan's half-angle form, extended to vectors that are unit only up to rounding). A and
B are sums of squares of direct differences and sums: no cancellation near 0 or π.
The angle is scale-invariant, so every function here accepts any non-zero vectors.

Input checks read values (NaN, zero vectors) on CPU and use device-side asserts
elsewhere (``_checks.require``): no host synchronisation.
"""

import functools

import torch

from ._checks import (
    FLOAT_DTYPES,
    check_point_pair,
    check_points,
    compute_dtype,
    require,
)
from ._dd import dd_add, dd_sum_sq_diff, dd_sum_squares, one_minus_c_times, two_square, two_sum
from ._numerics import scaling_exponent_limit, unit_norm_slack
from ._smooth import half_angle_sq, smooth_needed, straight_through
from .distances import pairwise_sq

DTYPES = FLOAT_DTYPES


# Inputs: floating points of DTYPES, no NaN, at least one coordinate; pairs of one dtype and d.
_check_vectors = functools.partial(check_points, dtypes=DTYPES, coordinates=True)
_check_pair = functools.partial(check_point_pair, dtypes=DTYPES, coordinates=True)


def _norm_dd(name: str, x64: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """‖x‖ as a double-double (hi, lo); raises on zero vectors.

    Each vector is first scaled by the power of two that brings its largest entry into
    [1/2, 1) (exact), so the squares neither overflow nor underflow for any norm; the
    result is scaled back exactly, and equals the unscaled computation where that one
    does not under- or overflow.
    """
    with torch.no_grad():
        _, p2 = torch.frexp(x64.abs().amax(dim=-1))
        h, l = dd_sum_squares(torch.ldexp(x64, -p2[..., None]))
        require(h > 0, f"{name} must be non-zero (the angle of a zero vector is undefined)")
        hi = torch.sqrt(h)
        p, e = two_square(hi)
        return torch.ldexp(hi, p2), torch.ldexp(((h - p) - e + l) / (2.0 * hi), p2)


def norm_value(name: str, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """‖x‖ per vector as ``(value, rest)``: the value correctly rounded to x's dtype and
    differentiable, ``rest`` the detached remainder ‖x‖ - value (from a double-double for
    float64; narrower dtypes use the float64 norm, exact enough for them)."""
    if x.dtype != torch.float64:
        with torch.no_grad():
            x64 = x.to(torch.float64)
            s = (x64 * x64).sum(dim=-1)
            require(s > 0, f"{name} must be non-zero (the angle of a zero vector is undefined)")
            hi, lo = torch.sqrt(s), torch.zeros_like(s)
    else:
        hi, lo = _norm_dd(name, x)
    value = hi.to(x.dtype)
    rest = ((hi - value.to(torch.float64)) + lo).to(x.dtype)
    if smooth_needed(x):
        return straight_through(value, torch.linalg.vector_norm(x, dim=-1)), rest
    return value, rest


def unitish(name: str, x: torch.Tensor) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """Vectors for the pairwise formulas and their :func:`norm_value` pairs.

    Vectors already unit up to ``8u`` are kept as they are (their norm defect enters the
    formula exactly through ``(a - b)²``); others are divided by their correctly rounded
    norm, which costs an absolute angle error of a few ulps but spares the cancellation
    in ``‖x - y‖² - (a - b)²`` for nearly parallel vectors of different lengths.
    """
    a, _ = norm_value(name, x)
    keep = (a - 1.0).abs() <= unit_norm_slack(x.dtype)
    xs = torch.where(keep[..., None], x, x / a[..., None])
    return xs, norm_value(name, xs)


def norm_gap_sq(a: tuple[torch.Tensor, torch.Tensor], b: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    """Pairwise ``(‖x_i‖ - ‖y_j‖)²`` from :func:`norm_value` pairs: the difference of the
    rounded norms is exact when they are close (Sterbenz), the remainders add the rest."""
    diff = (a[0][..., :, None] - b[0][..., None, :]) + (a[1][..., :, None] - b[1][..., None, :])
    return diff * diff


def _in_range(x: torch.Tensor) -> torch.Tensor:
    """x, each vector whose largest entry lies outside [2^-L, 2^L] (L = a third of the dtype's
    exponent range: 341 in float64, 42 in float32) scaled by a power of two into [1/2, 1)
    (exact; the angle is scale-invariant, and so is its gradient up to that constant, which
    autograd applies), so that no square or product below under- or overflows; vectors in
    range are left as they are."""
    limit = scaling_exponent_limit(x.dtype)
    with torch.no_grad():
        _, p2 = torch.frexp(x.abs().amax(dim=-1, keepdim=True))
        p2 = torch.where(p2.abs() <= limit, torch.zeros_like(p2), p2)
        # 2^-p2 in two factors: one would overflow for subnormal vectors (p2 < -1023).
        half = torch.div(-p2, 2, rounding_mode="floor")
        one = torch.ones_like(x[..., :1])
        s1, s2 = torch.ldexp(one, half), torch.ldexp(one, -p2 - half)
    # Multiplications by powers of two: exact, and differentiable (torch's ldexp backward
    # returns 0 for factors beyond float32's range).
    return x * s1 * s2


def _angle_dd(x64: torch.Tensor, y64: torch.Tensor) -> torch.Tensor:
    """θ between paired float64 vectors, every intermediate in double-double."""
    x64, y64 = _in_range(x64), _in_range(y64)
    ah, al = _norm_dd("x", x64)
    bh, bl = _norm_dd("y", y64)
    with torch.no_grad():
        s, e = two_sum(ah, -bh)
        s, e = two_sum(s, e + (al - bl))  # a - b as a dd
        p, pe = two_square(s)
        ch, cl = p, pe + (2.0 * s + e) * e  # (a - b)² as a dd
        a_h, a_l = dd_sum_sq_diff(x64, y64)
        b_h, b_l = dd_sum_sq_diff(x64, -y64)
        num, _ = dd_add(a_h, a_l, -ch, -cl)
        den, _ = dd_add(b_h, b_l, -ch, -cl)
        return 2.0 * torch.atan2(num.clamp_min(0).sqrt(), den.clamp_min(0).sqrt())


def sphere_distance(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    r"""Great-circle distance (the angle) between paired vectors.

    .. math:: d_S(x, y) = \angle(x, y) = 2\operatorname{atan2}\bigl(\sqrt{\lVert x-y\rVert^2 - (a-b)^2},
        \sqrt{\lVert x+y\rVert^2 - (a-b)^2}\bigr) \;(= \arccos\langle x, y\rangle \text{ on } S^{d-1})

    (module docstring) with every square sum, norm and difference in double-double:
    a few ulps near 0, near π and in between (≤ 1e-12 against mpmath, see the
    precision table).

    Args:
        x, y: ``(..., d)`` non-zero vectors, same dtype; batch dims broadcast. They need
            not be unit (the angle is scale-invariant).

    Returns:
        ``(...)`` angles in [0, π], x's dtype (float32/half computed in float64, then
        rounded). Differentiable where 0 < θ < π.

    Memory: O(numel) double-double temporaries (about 30 tensors of the broadcast shape).
    """
    _check_pair(x, y)
    x64, y64 = torch.broadcast_tensors(x.to(torch.float64), y.to(torch.float64))
    value = _angle_dd(x64, y64)
    if smooth_needed(x, y):
        xw, yw = torch.broadcast_tensors(_in_range(x.to(compute_dtype(x.dtype))),
                                         _in_range(y.to(compute_dtype(y.dtype))))
        xn = xw / torch.linalg.vector_norm(xw, dim=-1, keepdim=True)
        yn = yw / torch.linalg.vector_norm(yw, dim=-1, keepdim=True)
        approx = 2.0 * torch.atan2(torch.linalg.vector_norm(xn - yn, dim=-1),
                                   torch.linalg.vector_norm(xn + yn, dim=-1))
        return straight_through(value.to(xw.dtype), approx).to(x.dtype)
    return value.to(x.dtype)


def sphere_sqdist(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    r"""Pairwise squared angles :math:`\angle(x_i, y_j)^2` (SIDA's distances).

    .. math:: \theta_{ij}^2 = 4\operatorname{atan2}^2\Bigl(\sqrt{A_{ij} - (a_i - b_j)^2},
        \sqrt{B_{ij} - (a_i - b_j)^2}\Bigr)

    (GeoResolver Definition 8.1, arXiv 2608.10416; module docstring), with
    :math:`A_{ij} = \lVert x_i - y_j\rVert^2`, :math:`B_{ij} = \lVert x_i + y_j\rVert^2` by direct
    differences (:func:`squared_distances`) and the norms correctly rounded: a few ulps
    for unit vectors (``|‖x‖ - 1| <= 8u``); other vectors are first divided by their norm
    (``unitish``), an absolute error of a few ulps in the angle. Exactly 0 at
    coincident points and twice differentiable there (a Taylor branch, see ``_smooth``),
    also under ``torch.func``; π² at antipodal points (not differentiable there: the
    geodesic is not unique).

    Args:
        x: ``(..., n_x, d)``; y: ``(..., n_y, d)``; non-zero vectors of one dtype.

    Returns:
        ``(..., n_x, n_y)`` in x's dtype (half dtypes computed in float32).

    Memory: O(n_x·n_y) per batch element (A, B and a few temporaries).
    """
    _check_pair(x, y, min_dim=2)
    work = compute_dtype(x.dtype)
    xw, yw = x.to(work), y.to(work)
    xw, na = unitish("x", xw)
    yw, nb = unitish("y", yw)
    gap = norm_gap_sq(na, nb)
    plus = pairwise_sq(xw, -yw)
    minus = pairwise_sq(xw, yw)
    theta_half_sq = half_angle_sq((minus - gap).clamp_min(0.0), (plus - gap).clamp_min(0.0),
                                  smooth_needed(xw, yw))
    return (4.0 * theta_half_sq).to(x.dtype)


def sphere_normalize(x: torch.Tensor) -> torch.Tensor:
    r"""Norm normalisation :math:`\phi_A(x) = x/\lVert x\rVert` (GeoResolver §8.2), onto :math:`S^{d-1}`.

    The norm is correctly rounded (double-double), so the result has norm 1 within an ulp.

    Args:
        x: ``(..., d)`` non-zero vectors.

    Returns:
        ``(..., d)`` unit vectors in x's dtype.

    Memory: O(numel) temporaries.
    """
    _check_vectors("x", x)
    xw = x.to(compute_dtype(x.dtype))
    return (xw / norm_value("x", xw)[0][..., None]).to(x.dtype)


def sphere_stereographic(z: torch.Tensor) -> torch.Tensor:
    r"""Inverse stereographic projection :math:`\phi_B: \mathbb R^d \to S^d` (GeoResolver §8.2).

    .. math:: \phi_B(z) = \Bigl(\frac{2z}{1 + \lVert z\rVert^2},
        \frac{1 - \lVert z\rVert^2}{1 + \lVert z\rVert^2}\Bigr)

    The origin goes to the north pole :math:`(0, \dots, 0, 1)`, the unit sphere to the
    equator, infinity to the south pole. :math:`1 - \lVert z\rVert^2` is formed in
    double-double (accurate near the equator).

    Args:
        z: ``(..., d)`` any finite vectors.

    Returns:
        ``(..., d + 1)`` unit vectors in z's dtype.

    Memory: O(numel) temporaries.
    """
    _check_vectors("z", z)
    zw = z.to(compute_dtype(z.dtype))
    with torch.no_grad():
        h, l = dd_sum_squares(zw.to(torch.float64))
        gap = one_minus_c_times(1.0, h, l)[0].to(zw.dtype)
    n2 = (zw * zw).sum(dim=-1, keepdim=True)
    if smooth_needed(zw):
        gap = straight_through(gap, 1.0 - n2[..., 0])
    den = 1.0 + n2
    return torch.cat([2.0 * zw / den, gap[..., None] / den], dim=-1).to(z.dtype)


def sphere_stereographic_inverse(s: torch.Tensor) -> torch.Tensor:
    r"""Stereographic projection :math:`\phi_B^{-1}: S^d \setminus \{\text{south pole}\} \to \mathbb R^d`.

    .. math:: \phi_B^{-1}(s', s_{d+1}) = \frac{s'}{1 + s_{d+1}} = \frac{s'(1 - s_{d+1})}{\lVert s'\rVert^2}

    The right-hand form (equal on the sphere, where :math:`1 - s_{d+1}^2 = \lVert s'\rVert^2`)
    is used where :math:`s_{d+1} < 0`, so :math:`1 + s_{d+1}` is never formed near the
    south pole. Inputs are normalised first (the map is defined on the sphere).

    Args:
        s: ``(..., d + 1)`` non-zero vectors (d >= 1), not the south pole direction.

    Returns:
        ``(..., d)`` in s's dtype; the south pole maps to inf/nan.

    Memory: O(numel) temporaries.
    """
    _check_vectors("s", s)
    if s.shape[-1] < 2:
        raise ValueError(f"s must have at least 2 coordinates (a point of S^d, d >= 1), got {s.shape[-1]}")
    sw = s.to(compute_dtype(s.dtype))
    sw = sw / norm_value("s", sw)[0][..., None]
    head, last = sw[..., :-1], sw[..., -1:]
    north = last >= 0
    safe_last = torch.where(north, last, torch.zeros_like(last))
    direct = head / (1.0 + safe_last)
    h2 = (head * head).sum(dim=-1, keepdim=True)
    safe_h2 = torch.where(north, torch.ones_like(h2), h2)
    other = head * (1.0 - last) / safe_h2
    return torch.where(north, direct, other).to(s.dtype)
