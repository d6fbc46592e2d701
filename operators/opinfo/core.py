r"""The registry's record types, error measures and the checks the tests and the precision table run.

An :class:`OpInfo` describes one operator once (in the spirit of PyTorch's OpInfo,
``torch/testing/_internal/opinfo/core.py``): the call, an independent slow reference
(mpmath at ``DPS`` digits, or loops), sample inputs per dtype (boundary samples
included), error inputs with the expected exception and message, the supported dtypes,
and a tolerance derived from a stated error model. The checks here are the only place
where an operator's output is compared with its reference, so the tests, the broken-
operator test and the precision table all measure the same thing.
"""

import dataclasses
import itertools
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import torch

DPS = 60  # mpmath working precision (decimal digits) of every reference

ALL_DTYPES = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


@dataclasses.dataclass(frozen=True)
class Sample:
    """One input: tensor arguments (positional), Python keyword arguments, a label."""

    args: tuple[torch.Tensor, ...]
    kwargs: dict[str, Any]
    label: str


@dataclasses.dataclass(frozen=True)
class ErrorInput:
    """A call that must raise ``exc`` with a message matching ``match`` (a regex)."""

    label: str
    call: Callable[[], Any]
    exc: type[Exception]
    match: str


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """Allowed error: ``ulps · finfo(dtype).eps`` plus an optional model term.

    ``model(dtype, sample)`` adds a bound that is not a multiple of eps (the fast paths'
    ρ); ``text`` states the model, for the test ids' failure messages and the table.
    """

    ulps: float
    text: str
    model: Callable[[torch.dtype, Sample], float] | None = None

    def __call__(self, dtype: torch.dtype, sample: Sample) -> float:
        extra = self.model(dtype, sample) if self.model is not None else 0.0
        return self.ulps * torch.finfo(dtype).eps + extra


MEASURES = ("elementwise", "normwise", "values", "geodesic")


@dataclasses.dataclass(frozen=True)
class OpInfo:
    """One operator, described once.

    - ``op(*args, **kwargs)`` calls the public operator ``func`` on a sample.
    - ``ref(*mp_args, **kwargs)`` is the independent reference on the exact input values
      (nested lists of ``mpmath.mpf``, one per tensor argument with its last
      ``core_dims[i]`` dims; leading batch dims are looped over by :func:`reference`).
    - ``measure``: ``"elementwise"`` -- max relative error per entry (relative to
      ``finfo.tiny`` below it), an exact 0 required where the reference is 0 (coincident
      points); ``"normwise"`` -- max-norm error over
      max-norm reference; ``"values"`` -- max-norm error over ``max |v|`` (attention:
      outputs are convex combinations of the values, the last argument); ``"geodesic"``
      -- the Poincaré distance between output and reference over ``1 + radius``.
    """

    name: str
    func: Callable
    op: Callable
    ref: Callable
    core_dims: tuple[int, ...]
    samples: Callable[[torch.dtype], list[Sample]]
    errors: Callable[[], list[ErrorInput]]
    dtypes: tuple[torch.dtype, ...]
    tol: Tolerance
    measure: str = "elementwise"
    reference_kind: str = "mpmath"
    peers: dict[str, Callable] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9_.]+(\[[a-z0-9_=.]+\])?", self.name):
            raise ValueError(
                f"OpInfo name {self.name!r}: lower-case letters, digits, '_', '.' and an optional [variant]"
            )
        if self.measure not in MEASURES:
            raise ValueError(f"{self.name}: measure must be one of {MEASURES}, got {self.measure!r}")
        if self.reference_kind not in ("mpmath", "loops"):
            raise ValueError(f"{self.name}: reference_kind must be 'mpmath' or 'loops'")
        if not self.dtypes or any(not d.is_floating_point for d in self.dtypes):
            raise ValueError(f"{self.name}: dtypes must be a non-empty tuple of floating dtypes")
        if any(c < 0 for c in self.core_dims):
            raise ValueError(f"{self.name}: core_dims must be >= 0")


# ---------------------------------------------------------------- references on exact values
def mp_nested(t: torch.Tensor):
    """The exact values of ``t`` as nested lists of mpf (every float dtype is exact in float64)."""
    flat = t.detach().to(torch.float64).cpu().reshape(-1).tolist()
    it = iter(mpmath.mpf(v) for v in flat)

    def build(shape):
        if not shape:
            return next(it)
        return [build(shape[1:]) for _ in range(shape[0])]

    return build(tuple(t.shape))


def reference(info: OpInfo, sample: Sample):
    """The reference output of ``sample``: nested mpf lists with the op's batch dims."""
    args = sample.args
    batch = torch.broadcast_shapes(
        *(a.shape[: a.dim() - c] for a, c in zip(args, info.core_dims, strict=True))
    )
    expanded = [a.expand(*batch, *a.shape[a.dim() - c :]) for a, c in zip(args, info.core_dims, strict=True)]
    with mpmath.workdps(DPS):
        if not batch:
            return info.ref(*(mp_nested(a) for a in expanded), **sample.kwargs)
        outs = {}
        for idx in itertools.product(*(range(s) for s in batch)):
            outs[idx] = info.ref(*(mp_nested(a[idx]) for a in expanded), **sample.kwargs)

        def build(prefix):
            if len(prefix) == len(batch):
                return outs[prefix]
            return [build((*prefix, i)) for i in range(batch[len(prefix)])]

        return build(())


def _flatten(x) -> list:
    if isinstance(x, list):
        return [v for item in x for v in _flatten(item)]
    return [x]


# ---------------------------------------------------------------- error measures
def poincare_distance_mp(x: Sequence, y: Sequence, c) -> mpmath.mpf:
    """d_c(x, y) = arcosh(1 + 2c‖x - y‖²/((1 - c‖x‖²)(1 - c‖y‖²)))/√c, in mpmath."""
    c = mpmath.mpf(c)
    n = mpmath.fsum((a - b) ** 2 for a, b in zip(x, y, strict=True))
    ax = 1 - c * mpmath.fsum(a * a for a in x)
    ay = 1 - c * mpmath.fsum(b * b for b in y)
    return mpmath.acosh(1 + 2 * c * n / (ax * ay)) / mpmath.sqrt(c)


def error(info: OpInfo, sample: Sample, out: torch.Tensor, ref) -> float:
    """The sample's error under ``info.measure`` (computed in mpmath, exact inputs)."""
    with mpmath.workdps(DPS):
        got = [mpmath.mpf(v) for v in out.detach().to(torch.float64).cpu().reshape(-1).tolist()]
        want = _flatten(ref)
        if len(got) != len(want):
            raise AssertionError(f"{info.name}: output has {len(got)} entries, reference {len(want)}")
        if info.measure == "elementwise":
            # Below the smallest normal the output's spacing is absolute (subnormals).
            tiny = mpmath.mpf(torch.finfo(out.dtype).tiny)
            worst = mpmath.mpf(0)
            for g, w in zip(got, want, strict=True):
                if w == 0:
                    if g != 0:
                        return math.inf  # an exact zero (coincident points) must stay exact
                    continue
                if not mpmath.isfinite(g):
                    return math.inf
                worst = max(worst, abs(g - w) / max(abs(w), tiny))
            return float(worst)
        if any(not mpmath.isfinite(g) for g in got):
            return math.inf
        diff = max((abs(g - w) for g, w in zip(got, want, strict=True)), default=mpmath.mpf(0))
        if info.measure == "normwise":
            scale = max((abs(w) for w in want), default=mpmath.mpf(0))
            return float(diff / scale) if scale else float(diff)
        if info.measure == "values":
            v = sample.args[-1]
            scale = mpmath.mpf(float(v.detach().abs().max())) if v.numel() else mpmath.mpf(1)
            return float(diff / scale) if scale else float(diff)
        # geodesic: output and reference are points of the ball (last dim), sample.args[0] the set
        d = out.shape[-1]
        c = sample.kwargs.get("c", 1.0)
        worst = 0.0
        pts = [got[i : i + d] for i in range(0, len(got), d)]
        refs = [want[i : i + d] for i in range(0, len(want), d)]
        xs = _flatten(mp_nested(sample.args[0]))
        radius = max(poincare_distance_mp(refs[0], xs[i : i + d], c) for i in range(0, len(xs), d))
        for p, r in zip(pts, refs, strict=True):
            worst = max(worst, float(poincare_distance_mp(p, r, c) / (1 + radius)))
        return worst


def run_sample(info: OpInfo, sample: Sample, fn: Callable | None = None) -> float:
    """Evaluate ``fn`` (default ``info.op``) on the sample and return its error."""
    out = (fn or info.op)(*sample.args, **sample.kwargs)
    return error(info, sample, out, reference(info, sample))


def check_reference(
    info: OpInfo, dtype: torch.dtype, fn: Callable | None = None
) -> list[tuple[str, float, float]]:
    """Compare every sample of ``dtype`` with the reference; raise AssertionError on failure.

    Returns ``[(label, error, tolerance)]``. The failure message has one line per failing
    sample: "got error E, but should be <= T [op, dtype, sample]" and the error model.
    """
    rows, bad = [], []
    for sample in info.samples(dtype):
        err = run_sample(info, sample, fn)
        tol = info.tol(dtype, sample)
        rows.append((sample.label, err, tol))
        if not err <= tol:
            bad.append(
                f"got {info.measure} error {err:.3g}, but should be <= {tol:.3g} "
                f"[{info.name}, {str(dtype).removeprefix('torch.')}, sample {sample.label!r}]"
            )
    if bad:
        raise AssertionError("\n".join(bad) + f"\n(error model: {info.tol.text})")
    return rows


def check_errors(info: OpInfo) -> None:
    """Every error input raises its exception with its message."""
    for e in info.errors():
        try:
            e.call()
        except e.exc as caught:
            if not re.search(e.match, str(caught)):
                raise AssertionError(
                    f"{info.name} [{e.label}]: raised {type(caught).__name__}({caught!s}), "
                    f"but the message should match {e.match!r}"
                ) from caught
        except Exception as caught:  # noqa: BLE001 -- reported with its type
            raise AssertionError(
                f"{info.name} [{e.label}]: raised {type(caught).__name__}({caught!s}), "
                f"but should raise {e.exc.__name__}"
            ) from caught
        else:
            raise AssertionError(f"{info.name} [{e.label}]: returned, but should raise {e.exc.__name__}")
