"""Shared input checks and dtype constants for the operators (private).

All numerical constants are derived from ``torch.finfo`` here and nowhere else.
Every check looks only at shapes, dtypes and Python scalars, so none of them
synchronises with the device.
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


def check_float(name: str, t: torch.Tensor, min_dim: int = 2) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.dtype.is_floating_point:
        raise TypeError(f"{name} must have a floating dtype, got {t.dtype}")
    if t.dim() < min_dim:
        raise ValueError(f"{name} must have at least {min_dim} dims (..., n, d), got {t.dim()}")


def check_same_dtype(**tensors: torch.Tensor) -> None:
    dtypes = {t.dtype for t in tensors.values()}
    if len(dtypes) > 1:
        names = ", ".join(f"{k}: {t.dtype}" for k, t in tensors.items())
        raise TypeError(f"inputs must share one dtype, got {names}")


def check_qkv(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    check_float("q", q)
    check_float("k", k)
    check_float("v", v)
    check_same_dtype(q=q, k=k, v=v)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"mismatched last dims: q has d={q.shape[-1]}, k has d={k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"mismatched n: k has n={k.shape[-2]} keys, v has n={v.shape[-2]}")


def check_chunk_size(chunk_size: int) -> None:
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int):
        raise TypeError(f"chunk_size must be an int, got {type(chunk_size).__name__}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")


def check_eps(eps: float | torch.Tensor) -> None:
    """A Python eps must be positive and finite; a tensor eps is not inspected (no sync)."""
    if isinstance(eps, torch.Tensor):
        if not (eps.dtype.is_floating_point or eps.dtype in (torch.int32, torch.int64)):
            raise TypeError(f"eps tensor must be real-valued, got {eps.dtype}")
        return
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise TypeError(f"eps must be a float or a tensor, got {type(eps).__name__}")
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"eps must be positive and finite, got {eps}")


def broadcastable_eps(eps: float | torch.Tensor, like: torch.Tensor) -> float | torch.Tensor:
    """eps ready to add to a ``(..., n_q, n_k)`` tensor ``like``.

    A tensor eps of batch shape ``(...)`` gets two trailing unit dims and ``like``'s
    dtype/device (an asynchronous copy if it lives elsewhere).
    """
    if isinstance(eps, torch.Tensor):
        return eps.to(device=like.device, dtype=like.dtype)[..., None, None]
    return float(eps)


def query_chunks(n_q: int, chunk_size: int) -> list[tuple[int, int]]:
    """[start, stop) bounds of the query chunks (shape-only Python loop, no sync)."""
    return [(s, min(s + chunk_size, n_q)) for s in range(0, n_q, chunk_size)]
