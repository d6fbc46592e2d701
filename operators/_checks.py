"""Input validation for the operators (private): types, dtypes, shapes, Python scalars, NaN.

Every check looks only at shapes, dtypes and Python scalars, so none of them synchronises with
the device, except the value checks below (:func:`require`, :func:`check_not_nan`), which are
device-side asserts off the CPU. The numerical constants (every multiple of ``finfo``) live in
:mod:`._numerics`; the names imported from there stay importable from here.
"""

import math

import torch

from ._numerics import (  # noqa: F401 -- re-exported: the operators import them from here
    EXPANSION_TAU,
    ball_margin,
    compute_dtype,
    descent_slack,
    expansion_bound,
    karcher_tolerance,
    positive_range,
    scaling_exponent_limit,
    unit_norm_slack,
    unit_roundoff,
)


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


# ---------------------------------------------------------------- value checks and modes
def transforms_active() -> bool:
    """Whether a ``torch.func`` transform (vmap, grad, jacrev, jacfwd, hessian) is running."""
    return torch._C._are_functorch_transforms_active()


def needs_graph(*inputs: object) -> bool:
    """Whether autograd records this call (a mode/flag check, not a value check)."""
    return torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad for t in inputs
    )


def host_readable(t: torch.Tensor) -> bool:
    """Whether ``t``'s values can be read without a device synchronisation.

    True for plain CPU tensors outside ``torch.func`` transforms (their memory is the
    host's). False on accelerators, on meta tensors, and inside transforms.
    """
    return t.device.type == "cpu" and not transforms_active()


def require(ok: torch.Tensor, message: str) -> None:
    """Raise ``ValueError(message)`` unless every entry of the boolean tensor ``ok`` holds.

    CPU tensors are read directly (host memory: no synchronisation). On an accelerator
    the check is ``torch._assert_async``: a device-side assertion, raised asynchronously,
    never a host sync. Meta tensors and ``torch.func`` transforms skip it (no values).
    """
    if ok.device.type == "meta" or transforms_active():
        return
    if ok.device.type == "cpu":
        if not bool(ok.all()):
            raise ValueError(message)
    else:
        torch._assert_async(ok.all(), message)


def check_not_nan(name: str, t: torch.Tensor) -> None:
    """Raise ``ValueError`` if ``t`` holds a NaN (a device-side assert off the CPU, see :func:`require`).

    On the host the sum screens first: a NaN anywhere makes it NaN, and a NaN-free sum clears
    the tensor in one reduction without a full-size boolean temporary. A NaN sum can also come
    from ``+inf`` and ``-inf`` entries, so then every entry is looked at.
    """
    # detach() rather than a no_grad block on the common path: the same sum, without the
    # context manager's Python overhead (a few µs per checked tensor).
    if host_readable(t) and t.numel() > 0 and not math.isnan(float(t.detach().sum())):
        return
    with torch.no_grad():
        require(~t.isnan().any(), f"{name} contains NaN")


def check_curvature(c: float) -> None:
    """The Poincaré ball's curvature is ``-c``; ``c`` must be a positive finite Python float."""
    if isinstance(c, bool) or not isinstance(c, (int, float)):
        raise TypeError(f"c must be a positive float (the ball has curvature -c), got {type(c).__name__}")
    if not (c > 0 and math.isfinite(c)):
        raise ValueError(f"c must be positive and finite (the ball has curvature -c), got {c}")


def check_path(path: str, allowed: tuple[str, ...]) -> None:
    if path not in allowed:
        raise ValueError(f"path must be one of {allowed}, got {path!r}")


def check_block(block: int, name: str = "block") -> None:
    if isinstance(block, bool) or not isinstance(block, int):
        raise TypeError(f"{name} must be an int, got {type(block).__name__}")
    if block < 1:
        raise ValueError(f"{name} must be >= 1, got {block}")


def check_float_dtype(name: str, t: torch.Tensor, dtypes: tuple[torch.dtype, ...]) -> None:
    if t.dtype not in dtypes:
        names = ", ".join(str(d).removeprefix("torch.") for d in dtypes)
        raise TypeError(f"{name} must have dtype in ({names}), got {t.dtype}")


# The floating dtypes the geometry operators accept (half dtypes are computed in float32).
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def check_points(name: str, x: torch.Tensor, dtypes, min_dim: int = 1, *, coordinates: bool = False) -> None:
    """Points of a manifold: floating, of one of ``dtypes``, no NaN (and with ``coordinates``, d ≥ 1)."""
    check_float(name, x, min_dim=min_dim)
    check_float_dtype(name, x, dtypes)
    check_not_nan(name, x)
    if coordinates and x.shape[-1] < 1:
        raise ValueError(f"{name} must have at least one coordinate, got d=0")


def check_point_pair(x: torch.Tensor, y: torch.Tensor, dtypes, min_dim: int = 1, *,
                     coordinates: bool = False) -> None:
    """Two point sets: each as :func:`check_points`, one dtype, one last dimension."""
    check_points("x", x, dtypes, min_dim, coordinates=coordinates)
    check_points("y", y, dtypes, min_dim, coordinates=coordinates)
    check_same_dtype(x=x, y=y)
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"mismatched last dims: x has d={x.shape[-1]}, y has d={y.shape[-1]}")


def check_query_key(q: torch.Tensor, k: torch.Tensor) -> None:
    """Queries and keys: floating, one dtype, one last dimension, no NaN."""
    check_float("q", q)
    check_float("k", k)
    check_same_dtype(q=q, k=k)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"mismatched last dims: q has d={q.shape[-1]}, k has d={k.shape[-1]}")
    check_not_nan("q", q)
    check_not_nan("k", k)
