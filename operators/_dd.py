r"""Error-free transformations and double-double sums on tensors (private).

A double-double (dd) number is an unevaluated sum ``hi + lo`` of two floats with
``|lo| <= ulp(hi)/2``; it carries about twice the working precision. Only the handful of
operations the geometries need are here, each a few elementwise torch ops (every torch
op rounds once, as IEEE 754 prescribes; nothing is contracted into an FMA):

- :func:`two_sum` -- Knuth's TwoSum: ``s + e = a + b`` exactly (Knuth, TAOCP vol. 2, 4.2.2).
- :func:`two_prod` -- Dekker's TwoProduct with Veltkamp splitting: ``p + e = a·b`` exactly
  (Dekker 1971, "A floating-point technique for extending the available precision").
- :func:`dd_add` -- the accurate ("IEEE") double-double addition of Bailey's QD library,
  relative error below ``4u²`` (Joldes, Muller, Popescu 2017, Algorithm 6).
- :func:`dd_sum_squares`, :func:`dd_sum_sq_diff` -- ``Σ x_l²`` and ``Σ (x_l - y_l)²`` over the
  last dim, by a pairwise tree of :func:`dd_add`: relative error ``O(u² log d)``.
- :func:`one_minus_c_times` -- ``1 - c·s`` for a dd ``s``: the cancellation in
  ``1 - c‖x‖²`` near the Poincaré ball's boundary happens inside the dd format, where
  it costs nothing.

Exactness assumes no overflow or underflow: Veltkamp splitting needs ``|a| < 2^996``
(float64) or ``2^115`` (float32), far above any point of a ball or a sphere.

Cost: TwoProduct is 17 flops, dd_add 20; a dd sum of squares over ``d`` coordinates is
about ``40 d`` flops and ``O(d)`` temporaries per point. The geometries call these per
point (``O(n d)``), never per pair, except the paired distances (``O(n d)`` as well).
"""

import torch

# Veltkamp's splitting constant 2^ceil(p/2) + 1 for p-bit significands.
_SPLITTER = {torch.float64: 134217729.0, torch.float32: 4097.0}


def two_sum(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(s, e)`` with ``s = fl(a + b)`` and ``s + e = a + b`` exactly (6 flops, any order)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fast_two_sum(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """TwoSum for ``|a| >= |b|`` (or a = 0): 3 flops."""
    s = a + b
    return s, b - (s - a)


def split(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Veltkamp splitting: ``a = hi + lo`` exactly, each with half the significand."""
    c = _SPLITTER[a.dtype] * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(p, e)`` with ``p = fl(a·b)`` and ``p + e = a·b`` exactly (Dekker)."""
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def two_square(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(p, e)`` with ``p + e = a²`` exactly."""
    p = a * a
    ah, al = split(a)
    return p, ((ah * ah - p) + 2.0 * (ah * al)) + al * al


def dd_add(
    ah: torch.Tensor, al: torch.Tensor, bh: torch.Tensor, bl: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Accurate double-double sum ``(ah + al) + (bh + bl)``, normalised."""
    s, e = two_sum(ah, bh)
    t, f = two_sum(al, bl)
    s, e = fast_two_sum(s, e + t)
    return fast_two_sum(s, e + f)


def _tree_sum(hi: torch.Tensor, lo: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Pairwise dd reduction of ``(hi, lo)`` over the last dim (length 0 gives 0)."""
    if hi.shape[-1] == 0:
        zero = hi.new_zeros(hi.shape[:-1])
        return zero, zero.clone()
    while hi.shape[-1] > 1:
        if hi.shape[-1] % 2:
            pad = hi.new_zeros((*hi.shape[:-1], 1))
            hi, lo = torch.cat([hi, pad], -1), torch.cat([lo, pad], -1)
        half = hi.shape[-1] // 2
        hi, lo = dd_add(hi[..., :half], lo[..., :half], hi[..., half:], lo[..., half:])
    return hi[..., 0], lo[..., 0]


def dd_sum_squares(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    r"""``Σ_l x_l²`` over the last dim of a float64 tensor as a dd ``(hi, lo)``.

    Error-free splitting on a common grid (Rump, Ogita & Oishi 2008, "Accurate floating-point
    summation", ExtractScalar): with :math:`2^E \ge \max_l |x_l|` and
    :math:`\sigma_1 = 1.5\cdot 2^{E+31}`, :math:`p_1 = (\sigma_1 + x) - \sigma_1` is x rounded to
    multiples of :math:`2^{E-21}` and :math:`x - p_1` is exact; likewise :math:`p_2` on the grid
    :math:`2^{E-42}` and the rest :math:`p_3`. Then :math:`\sum p_1^2`, :math:`\sum 2p_1p_2` and
    :math:`\sum p_2^2` are sums of multiples of a common grid below :math:`2^{53}` grid units
    for d <= 2^9 coordinates: exact in any summation order. The remaining terms
    (:math:`\sum (2p_1 + 2p_2 + p_3)p_3`, below :math:`2^{-30}` of the total) are rounded
    once. The four parts are added in double-double: relative error below :math:`2^{-80}`.
    About 20 elementwise passes over x (the pairwise tree of ``two_square`` and ``dd_add``
    needs some 130).
    """
    if x.shape[-1] > 512:
        return _tree_sum(*two_square(x))
    big = x.abs().amax(dim=-1, keepdim=True)
    _, expo = torch.frexp(big)
    sigma = torch.ldexp(torch.full_like(big, 1.5), expo + 31)
    p1 = (sigma + x) - sigma
    r1 = x - p1
    sigma2 = sigma * 2.0**-21
    p2 = (sigma2 + r1) - sigma2
    p3 = r1 - p2
    s11 = (p1 * p1).sum(dim=-1)
    s12 = 2.0 * (p1 * p2).sum(dim=-1)
    s22 = (p2 * p2).sum(dim=-1)
    rest = ((2.0 * (p1 + p2) + p3) * p3).sum(dim=-1)
    hi, lo = two_sum(s11, s12)
    hi, lo = dd_add(hi, lo, s22, torch.zeros_like(s22))
    return dd_add(hi, lo, rest, torch.zeros_like(rest))


def dd_sum_sq_diff(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``Σ_l (x_l - y_l)²`` over the last dim as a dd; ``x``, ``y`` already broadcast.

    The difference is kept exactly as ``s + e`` (TwoSum); its square is
    ``s² + (2se + e²)`` with ``s²`` split exactly (TwoProduct) and the small part rounded
    once (it is ``O(u)`` of ``s²``, so that rounding is ``O(u²)``).
    """
    s, e = two_sum(x, -y)
    p, pe = two_square(s)
    return _tree_sum(p, pe + (2.0 * s + e) * e)


def one_minus_c_times(c: float, hi: torch.Tensor, lo: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``1 - c·(hi + lo)`` as a dd, for a Python float ``c > 0``."""
    if c == 1.0:
        ph, pl = hi, lo
    else:
        ph, pe = two_prod(torch.full_like(hi, c), hi)
        ph, pl = fast_two_sum(ph, pe + c * lo)
    one = torch.ones_like(hi)
    return dd_add(one, torch.zeros_like(hi), -ph, -pl)
