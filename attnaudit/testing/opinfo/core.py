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


# A reason that starts by restating the tolerance's number ("32·eps: …", "16 ulps: …"): the text
# writes the number itself, from ``ulps``.
_RESTATED = re.compile(r"\s*[\d.e+-]+\s*(·\s*eps|ulps?)\b")


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """Allowed error: ``ulps · finfo(dtype).eps`` plus an optional model term.

    ``model(dtype, sample)`` adds a bound that is not a multiple of eps (the fast paths' ρ), and
    ``model_text`` writes that term as a formula. ``reason`` states the error model only: the
    text (for the failure messages and the precision table) is generated from the numbers.
    """

    ulps: float
    reason: str
    model: Callable[[torch.dtype, Sample], float] | None = None
    model_text: str | None = None

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise ValueError("Tolerance: state the error model in reason")
        if _RESTATED.match(self.reason):
            raise ValueError(f"Tolerance reason {self.reason!r} restates the number: the text writes "
                             "ulps itself; state only the reason")
        if (self.model is None) != (self.model_text is None):
            raise ValueError("Tolerance: a model term needs its model_text, and model_text its model")
        if self.ulps < 0 or (self.ulps == 0 and self.model is None and not self.reason.startswith("exact")):
            raise ValueError("Tolerance: ulps must be >= 0; a zero tolerance states 'exact: …' as its reason")

    @property
    def text(self) -> str:
        """``"<ulps>·eps + <model term>: <reason>"``; an exact tolerance is its reason ("exact: …")."""
        terms = ([f"{self.ulps:g}·eps"] if self.ulps else []) + ([self.model_text] if self.model_text else [])
        return f"{' + '.join(terms)}: {self.reason}" if terms else self.reason

    def __call__(self, dtype: torch.dtype, sample: Sample) -> float:
        extra = self.model(dtype, sample) if self.model is not None else 0.0
        return self.ulps * torch.finfo(dtype).eps + extra


# What each measure divides by, for the failure messages (see OpInfo).
MEASURES = {
    "elementwise": "relative error per entry",
    "normwise": "max-norm error over the reference's max-norm",
    "values": "max-norm error over max|v|",
    "geodesic": "Poincaré distance to the reference over 1 + radius",
}
DEVICES = ("cpu", "cuda", "meta")


def _no_error_inputs() -> list[ErrorInput]:
    return []


@dataclasses.dataclass(frozen=True, kw_only=True)
class OpInfo:
    """One operator, described once.

    - ``func`` is the public operator; ``name`` is its ``__name__``, with ``[variant]`` appended
      when one operator has several entries (paths, options).
    - ``op(*args, **kwargs)`` calls it on a sample (default: ``func`` itself); an entry that fixes
      options or adapts positional arguments to keywords gives its own.
    - ``ref(*mp_args, **kwargs)`` is the independent reference on the exact input values
      (nested lists of ``mpmath.mpf``, one per tensor argument with its last
      ``core_dims[i]`` dims; leading batch dims are looped over by :func:`reference`).
    - ``measure``: ``"elementwise"`` -- max relative error per entry (relative to
      ``finfo.tiny`` below it), an exact 0 required where the reference is 0 (coincident
      points); ``"normwise"`` -- max-norm error over
      max-norm reference; ``"values"`` -- max-norm error over ``max |v|`` (attention:
      outputs are convex combinations of the values, the last argument); ``"geodesic"``
      -- the Poincaré distance between output and reference over ``1 + radius``.
    - ``devices``: where the samples run against the reference (``"cpu"``, ``"cuda"`` when one
      is present); ``"meta"`` in it says the operator does no data-dependent host work, so it
      runs on meta tensors and makes no CUDA synchronisation.
    - ``gradcheck``: float64 samples on which first and second derivatives are checked by finite
      differences (``torch.autograd.gradcheck`` and ``gradgradcheck``), away from the domain's
      boundary; ``None`` when the operator is not differentiated (decisions, counts, iterations).
    """

    func: Callable
    ref: Callable
    core_dims: tuple[int, ...]
    samples: Callable[[torch.dtype], list[Sample]]
    tol: Tolerance
    variant: str | None = None
    op: Callable | None = None
    errors: Callable[[], list[ErrorInput]] = _no_error_inputs
    dtypes: tuple[torch.dtype, ...] = ALL_DTYPES
    measure: str = "elementwise"
    reference_kind: str = "mpmath"
    devices: tuple[str, ...] = DEVICES
    gradcheck: Callable[[], list[Sample]] | None = None
    peers: dict[str, Callable] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.op is None:
            object.__setattr__(self, "op", self.func)  # frozen: the default is set once, here
        if not re.fullmatch(r"[a-z0-9_.]+", getattr(self.func, "__name__", "")):
            raise ValueError(f"OpInfo func {self.func!r}: a named function (lower-case, digits, '_', '.')")
        if self.variant is not None and not re.fullmatch(r"[a-z0-9_=.]+", self.variant):
            raise ValueError(f"OpInfo {self.func.__name__}: variant {self.variant!r} must be lower-case "
                             "letters, digits, '_', '=' and '.'")
        if self.measure not in MEASURES:
            raise ValueError(f"{self.name}: measure must be one of {tuple(MEASURES)}, got {self.measure!r}")
        if self.reference_kind not in ("mpmath", "loops"):
            raise ValueError(f"{self.name}: reference_kind must be 'mpmath' or 'loops'")
        if not self.dtypes or any(not d.is_floating_point for d in self.dtypes):
            raise ValueError(f"{self.name}: dtypes must be a non-empty tuple of floating dtypes")
        if any(c < 0 for c in self.core_dims):
            raise ValueError(f"{self.name}: core_dims must be >= 0")
        if "cpu" not in self.devices or not set(self.devices) <= set(DEVICES):
            raise ValueError(f"{self.name}: devices must include 'cpu' and lie in {DEVICES}")

    @property
    def name(self) -> str:
        return self.func.__name__ + (f"[{self.variant}]" if self.variant else "")

    @property
    def error_model(self) -> str:
        """The tolerance with the measure it bounds, for failure messages and the table."""
        return f"{MEASURES[self.measure]} <= {self.tol.text}"


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


def on_device(sample: Sample, device: str) -> Sample:
    """The sample with its tensor arguments on ``device`` (values unchanged; meta keeps only shapes)."""
    if device == "meta":
        meta = tuple(torch.empty_like(a, device="meta") for a in sample.args)
        return dataclasses.replace(sample, args=meta)
    return dataclasses.replace(sample, args=tuple(a.to(device) for a in sample.args))


def run_sample(info: OpInfo, sample: Sample, fn: Callable | None = None, device: str = "cpu") -> float:
    """Evaluate ``fn`` (default ``info.op``) on the sample moved to ``device`` and return its error
    against the reference on the sample's exact (CPU) values."""
    out = (fn or info.op)(*on_device(sample, device).args, **sample.kwargs)
    if out.device.type != torch.device(device).type:
        raise AssertionError(f"{info.name} [{sample.label}]: output on {out.device}, inputs on {device}")
    return error(info, sample, out, reference(info, sample))


def check_reference(
    info: OpInfo, dtype: torch.dtype, fn: Callable | None = None, device: str = "cpu"
) -> list[tuple[str, float, float]]:
    """Compare every sample of ``dtype`` (run on ``device``) with the reference; raise
    AssertionError on failure.

    Returns ``[(label, error, tolerance)]``. The failure message has one line per failing
    sample: "got error E, but should be <= T [op, dtype, sample]" and the error model.
    """
    rows, bad = [], []
    for sample in info.samples(dtype):
        err = run_sample(info, sample, fn, device)
        tol = info.tol(dtype, sample)
        rows.append((sample.label, err, tol))
        if not err <= tol:
            bad.append(
                f"got {info.measure} error {err:.3g}, but should be <= {tol:.3g} "
                f"[{info.name}, {str(dtype).removeprefix('torch.')}, {device}, sample {sample.label!r}]"
            )
    if bad:
        raise AssertionError("\n".join(bad) + f"\n(error model: {info.error_model})")
    return rows


def check_dtypes(info: OpInfo, dtype: torch.dtype) -> None:
    """Every sample's output keeps the inputs' dtype."""
    for sample in info.samples(dtype):
        out = info.op(*sample.args, **sample.kwargs)
        if out.dtype != dtype:
            raise AssertionError(f"{info.name} [{sample.label}]: output {out.dtype}, inputs {dtype}")


def check_meta(info: OpInfo) -> None:
    """The float64 samples run on meta tensors, which carry no data: an ``.item()``, a branch on a
    value or a host copy raises there. The output is a meta tensor of the CPU output's shape."""
    for sample in info.samples(torch.float64):
        want = info.op(*sample.args, **sample.kwargs)
        got = info.op(*on_device(sample, "meta").args, **sample.kwargs)
        if got.device.type != "meta" or got.shape != want.shape or got.dtype != want.dtype:
            raise AssertionError(f"{info.name} [{sample.label}]: on meta tensors gave {got.device.type} "
                                 f"{tuple(got.shape)} {got.dtype}, on CPU {tuple(want.shape)} {want.dtype}")


def check_gradients(info: OpInfo) -> None:
    """First and second derivatives against finite differences on the ``gradcheck`` samples
    (every floating tensor argument differentiated, the keyword arguments held fixed)."""
    if info.gradcheck is None:
        raise ValueError(f"{info.name}: no gradcheck samples")
    for sample in info.gradcheck():
        args = tuple(a.detach().clone().requires_grad_(a.is_floating_point()) for a in sample.args)
        if any(a.dtype != torch.float64 for a in args):
            raise ValueError(f"{info.name} [{sample.label}]: gradcheck samples must be float64")

        def fn(*a, _kw=sample.kwargs):
            return info.op(*a, **_kw)

        for check in (torch.autograd.gradcheck, torch.autograd.gradgradcheck):
            try:
                check(fn, args)
            except Exception as caught:  # noqa: BLE001 -- gradcheck raises GradcheckError or others
                raise AssertionError(f"{info.name} [{sample.label}]: {check.__name__}: "
                                     f"{str(caught).splitlines()[0]}") from caught


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
