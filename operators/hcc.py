r"""Hyperbolic Curvature Compression (HCC, GeoResolver §6, arXiv 2608.10416) and a bit-packed key cache.

The quantiser of §6, exactly as written: a key :math:`k = r\,u` (:math:`r = \lVert k\rVert`,
:math:`u = k/r`; :math:`u = e_1` at :math:`k = 0`) is stored as

.. math:: \hat u = \frac{\operatorname{round}\bigl(\tfrac{u + 1}{2}(2^b - 1)\bigr)}{2^b - 1}\cdot 2 - 1,
    \qquad \hat r = \frac{\operatorname{round}(r\,2^{b_r})}{2^{b_r}},
    \qquad \tilde k = \hat r\,\hat u,

the direction code applied to each of the :math:`d_h` coordinates of :math:`u` (b bits each,
codes :math:`0 \dots 2^b - 1`), the radius code in :math:`b_r` bits. The radius code
:math:`\operatorname{round}(r 2^{b_r})` reaches :math:`2^{b_r}` for :math:`r \ge 1 - 2^{-b_r-1}`,
one level more than :math:`b_r` bits hold; it is clamped to :math:`2^{b_r} - 1` (error then
:math:`\le 2^{-b_r}`, the bound the proof uses). ``round`` is round-half-to-even (torch).

:class:`HCCKeyCache` packs the codes of n keys into one ``uint8`` buffer, key after key, each
field least-significant bit first: :math:`n(d_h b + b_r)` bits rounded up to whole bytes. Its
size is measured from the buffer (``buffer.numel() * buffer.element_size()``), and unpacking
returns the codes bit for bit.
"""

import torch

from ._checks import check_float, check_not_nan


def _check_bits(b: int, b_r: int) -> None:
    for name, val in (("b", b), ("b_r", b_r)):
        if isinstance(val, bool) or not isinstance(val, int):
            raise TypeError(f"{name} must be an int, got {type(val).__name__}")
        if not 1 <= val <= 30:
            raise ValueError(f"bit width {name} must lie in [1, 30], got {val}")


def hcc_quantize(k: torch.Tensor, *, b: int, b_r: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Codes of §6's quantiser: ``(direction (..., d) int64 in [0, 2^b), radius (...) int64 in
    [0, 2^b_r))``. Keys must satisfy ‖k‖ < 1 (the Poincaré ball: r ∈ [0, 1))."""
    check_float("k", k, min_dim=1)
    check_not_nan("k", k)
    _check_bits(b, b_r)
    r = torch.linalg.vector_norm(k, dim=-1)
    if k.device.type == "cpu" and bool((r >= 1).any()):
        raise ValueError("keys must lie in the open unit ball (r = ‖k‖ < 1)")
    e1 = torch.zeros_like(k)
    e1[..., 0] = 1
    u = torch.where(r[..., None] > 0, k / torch.where(r > 0, r, 1)[..., None], e1)
    top = 2**b - 1
    direction = torch.round((u + 1) / 2 * top).clamp(0, top).to(torch.int64)
    radius = torch.round(r * 2**b_r).clamp(0, 2**b_r - 1).to(torch.int64)
    return direction, radius


def hcc_dequantize(direction: torch.Tensor, radius: torch.Tensor, *, b: int, b_r: int,
                   dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """k̃ = r̂ · û from the codes (û is not renormalised: the formula as written)."""
    _check_bits(b, b_r)
    u_hat = direction.to(dtype) / (2**b - 1) * 2 - 1
    return (radius.to(dtype) / 2**b_r)[..., None] * u_hat


def hcc_roundtrip(k: torch.Tensor, *, b: int, b_r: int) -> torch.Tensor:
    """k̃ = dequantize(quantize(k)) in k's dtype."""
    direction, radius = hcc_quantize(k, b=b, b_r=b_r)
    return hcc_dequantize(direction, radius, b=b, b_r=b_r, dtype=k.dtype)


def pack_bits(codes: torch.Tensor, widths: list[int]) -> torch.Tensor:
    """Pack ``(N, F)`` non-negative int64 codes, field f in ``widths[f]`` bits (LSB first), row
    after row, into a ``uint8`` buffer of ⌈N·Σwidths/8⌉ bytes."""
    if codes.dim() != 2 or codes.shape[1] != len(widths):
        raise ValueError(f"codes must be (N, {len(widths)}), got {tuple(codes.shape)}")
    w = torch.tensor(widths, dtype=torch.int64, device=codes.device)
    if bool((codes < 0).any()) or bool((codes >= (1 << w)).any()):
        raise ValueError("a code does not fit its bit width")
    top = int(w.max())
    bits = (codes[..., None] >> torch.arange(top, device=codes.device)) & 1  # (N, F, top)
    keep = torch.arange(top, device=codes.device) < w[:, None]  # (F, top)
    stream = bits[:, keep].reshape(-1).to(torch.uint8)
    pad = (-stream.numel()) % 8
    stream = torch.cat([stream, stream.new_zeros(pad)]).view(-1, 8)
    weights = (2 ** torch.arange(8, device=codes.device)).to(torch.uint8)
    return (stream * weights).sum(-1, dtype=torch.int64).to(torch.uint8)


def unpack_bits(buffer: torch.Tensor, n: int, widths: list[int]) -> torch.Tensor:
    """Inverse of :func:`pack_bits`: ``(n, F)`` int64 codes."""
    if buffer.dtype != torch.uint8 or buffer.dim() != 1:
        raise TypeError("buffer must be a 1-d uint8 tensor")
    total = n * sum(widths)
    if buffer.numel() * 8 < total:
        raise ValueError(f"buffer holds {buffer.numel() * 8} bits, {total} needed")
    stream = ((buffer[:, None].to(torch.int64) >> torch.arange(8, device=buffer.device)) & 1).reshape(-1)
    stream = stream[:total].view(n, -1)
    out, start = [], 0
    for width in widths:
        field = stream[:, start:start + width]
        out.append((field << torch.arange(width, device=buffer.device)).sum(-1))
        start += width
    return torch.stack(out, dim=1)


class HCCKeyCache:
    """n keys of dimension d_h, HCC-quantised and bit-packed into one ``uint8`` buffer.

    ``nbytes`` is measured from the buffer; :meth:`codes` unpacks it; :meth:`keys` dequantises.
    """

    def __init__(self, keys: torch.Tensor, *, b: int, b_r: int):
        check_float("keys", keys, min_dim=2)
        if keys.dim() != 2:
            raise ValueError(f"keys must be (n, d_h), got {tuple(keys.shape)}")
        self.n, self.d = keys.shape
        self.b, self.b_r = b, b_r
        self.dtype = keys.dtype
        direction, radius = hcc_quantize(keys, b=b, b_r=b_r)
        self.widths = [b] * self.d + [b_r]
        self.buffer = pack_bits(torch.cat([direction, radius[:, None]], dim=1), self.widths)

    @property
    def nbytes(self) -> int:
        return self.buffer.numel() * self.buffer.element_size()

    def codes(self) -> tuple[torch.Tensor, torch.Tensor]:
        both = unpack_bits(self.buffer, self.n, self.widths)
        return both[:, :-1], both[:, -1]

    def keys(self) -> torch.Tensor:
        direction, radius = self.codes()
        return hcc_dequantize(direction, radius, b=self.b, b_r=self.b_r, dtype=self.dtype)
