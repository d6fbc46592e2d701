r"""Multi-head softmax attention with explicit per-head parameters (MHA, RoPE, GQA).

.. math:: \mathrm{MHA}(X) = \sum_{h=1}^{H} \mathrm{softmax}\!\Big(
    \frac{(XW_Q^h + b_Q^h)\,R\,(XW_K^{g(h)} + b_K^{g(h)})^\top}{\sqrt{d_h}}\Big)
    (XW_V^{g(h)} + b_V^{g(h)})\,W_O^h + b_O

(Vaswani et al. 2017, eq. 1 and §3.2.2, with the output projection split per head:
``concat_h(O_h) W_O = Σ_h O_h W_O^h``). Grouped-query attention (Ainslie et al. 2023, arXiv
2305.13245) shares the key and value projections of ``H_kv`` groups among the ``H`` query heads,
head ``h`` reading group ``g(h) = h // (H / H_kv)``. RoPE (Su et al. 2021, arXiv 2104.09864)
rotates queries and keys by position: the pair of coordinates (2k, 2k+1) at position ``m`` by the
angle ``m·base^{-2k/d_h}``. The parameters are plain tensors so that ``torch.func`` can
differentiate the map from parameters to function (the identification audit).
"""

import math

import torch

from ._checks import check_float, check_not_nan, check_same_dtype, compute_dtype


def rope_rotate(x: torch.Tensor, *, base: float = 10000.0) -> torch.Tensor:
    """Rotary position embedding of ``x`` (``(..., n, d_h)``, ``d_h`` even): token ``m`` of the
    sequence (positions 0..n-1) has its coordinate pair (2k, 2k+1) rotated by ``m·base^{-2k/d_h}``."""
    check_float("x", x)
    d_h = x.shape[-1]
    if d_h % 2:
        raise ValueError(f"RoPE needs an even head size, got d_h={d_h}")
    if not (isinstance(base, (int, float)) and not isinstance(base, bool) and base > 1):
        raise ValueError(f"RoPE base must be a number > 1, got {base!r}")
    n = x.shape[-2]
    freq = base ** (-torch.arange(0, d_h, 2, dtype=torch.float64, device=x.device) / d_h)
    angle = torch.arange(n, dtype=torch.float64, device=x.device)[:, None] * freq[None, :]
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)


def _check_params(x, wq, wk, wv, wo, bq, bk, bv, bo):
    """Shapes, dtypes and NaN of MHA's inputs; ``wv``/``wo`` may be None (the weights alone)."""
    check_float("x", x)
    weights = {k: w for k, w in (("wq", wq), ("wk", wk), ("wv", wv), ("wo", wo)) if w is not None}
    for name, w in weights.items():
        check_float(name, w, min_dim=3)
        if w.dim() != 3:
            raise ValueError(f"{name} must have 3 dims (heads, in, out), got {w.dim()}")
    check_same_dtype(x=x, **weights)
    d = x.shape[-1]
    h, h_kv = wq.shape[0], wk.shape[0]
    if any(w.shape[1] != d for k, w in weights.items() if k != "wo"):
        raise ValueError(f"wq, wk, wv must map the model dimension d={d}: got "
                         f"{[w.shape[1] for k, w in weights.items() if k != 'wo']}")
    if wq.shape[2] != wk.shape[2]:
        raise ValueError(f"mismatched head sizes: wq has d_h={wq.shape[2]}, wk has {wk.shape[2]}")
    if h % h_kv:
        raise ValueError(f"query heads H={h} must be a multiple of kv heads H_kv={h_kv}")
    shapes = {"bq": (h, wq.shape[2]), "bk": (h_kv, wk.shape[2])}
    if wv is not None and wo is not None:
        if wv.shape[0] != h_kv:
            raise ValueError(f"wk and wv must have the same number of kv heads, got {h_kv} and {wv.shape[0]}")
        if wo.shape[0] != h or wo.shape[1] != wv.shape[2]:
            raise ValueError(f"wo must be (H={h}, d_v={wv.shape[2]}, d_out), got {tuple(wo.shape)}")
        shapes |= {"bv": (h_kv, wv.shape[2]), "bo": (wo.shape[2],)}
    for name, b in (("bq", bq), ("bk", bk), ("bv", bv), ("bo", bo)):
        if b is None:
            continue
        check_float(name, b, min_dim=1)
        check_same_dtype(x=x, **{name: b})
        if tuple(b.shape) != shapes[name]:
            raise ValueError(f"{name} must have shape {shapes[name]}, got {tuple(b.shape)}")
    check_not_nan("x", x)


def _repeat_groups(t: torch.Tensor, h: int) -> torch.Tensor:
    """(..., H_kv, n, e) → (..., H, n, e): head h reads group h // (H / H_kv)."""
    return t.repeat_interleave(h // t.shape[-3], dim=-3)


def _queries_keys(x, wq, wk, bq, bk, rope):
    q = torch.einsum("...nd,hde->...hne", x, wq)
    k = torch.einsum("...nd,hde->...hne", x, wk)
    if bq is not None:
        q = q + bq[:, None, :]
    if bk is not None:
        k = k + bk[:, None, :]
    if rope is not None:
        q, k = rope_rotate(q, base=rope), rope_rotate(k, base=rope)
    return q, _repeat_groups(k, wq.shape[0])


def mha_weights(x, wq, wk, *, bq=None, bk=None, rope=None, scale=None):
    """The per-head attention weights ``(..., H, n, n)`` of :func:`mha_attention` (row-stochastic).

    Args as :func:`mha_attention` (``wv``/``wo`` are not needed).
    """
    _check_params(x, wq, wk, None, None, bq, bk, None, None)
    q, k = _queries_keys(x, wq, wk, bq, bk, rope)
    s = 1.0 / math.sqrt(wq.shape[2]) if scale is None else scale
    logits = (q * s) @ k.transpose(-1, -2)
    return torch.softmax(logits, dim=-1, dtype=compute_dtype(x.dtype)).to(x.dtype)


def mha_attention(x, wq, wk, wv, wo, *, bq=None, bk=None, bv=None, bo=None, rope=None, scale=None):
    """Multi-head attention of a sequence with explicit parameters.

    Args:
        x: ``(..., n, d)`` tokens (rows), floating.
        wq: ``(H, d, d_h)`` query projections; wk: ``(H_kv, d, d_h)`` key projections
            (``H_kv`` divides ``H``; ``H_kv = H`` is plain MHA, ``H_kv < H`` grouped-query).
        wv: ``(H_kv, d, d_v)`` value projections; wo: ``(H, d_v, d_out)`` output projections.
        bq, bk, bv, bo: optional biases ``(H, d_h)``, ``(H_kv, d_h)``, ``(H_kv, d_v)``, ``(d_out,)``.
        rope: ``None`` or the RoPE base (e.g. ``10000.0``), applied to queries and keys after the
            biases; positions are 0..n-1.
        scale: the logit factor; ``None`` means ``1/sqrt(d_h)``.

    Returns:
        ``(..., n, d_out)`` in ``x``'s dtype. Works under ``torch.func`` transforms (value checks
        are skipped there). Memory: the ``(..., H, n, n)`` weights.
    """
    _check_params(x, wq, wk, wv, wo, bq, bk, bv, bo)
    q, k = _queries_keys(x, wq, wk, bq, bk, rope)
    s = 1.0 / math.sqrt(wq.shape[2]) if scale is None else scale
    w = torch.softmax((q * s) @ k.transpose(-1, -2), dim=-1, dtype=compute_dtype(x.dtype)).to(x.dtype)
    v = torch.einsum("...nd,hde->...hne", x, wv)
    if bv is not None:
        v = v + bv[:, None, :]
    out = torch.einsum("...hne,hef->...nf", w @ _repeat_groups(v, wq.shape[0]), wo)
    return out if bo is None else out + bo
