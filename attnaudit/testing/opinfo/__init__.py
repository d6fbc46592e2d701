"""The operator registry: every public operator described once (PyTorch OpInfo style).

``REGISTRY`` lists :class:`OpInfo` records, one module per geometry (``euclidean`` and
attention in :mod:`.attention`, :mod:`.poincare`, :mod:`.sphere` with the metrics; each
further operator family in a module of its own, imported below). Every generic operator
test (``tests/test_operators.py``: references per dtype and device, dtypes kept, error
inputs, meta tensors, CUDA synchronisation, first and second derivatives) is parametrised
over it and the precision table (``benchmarks/precision.py``) measures it, so registering
an operator is what tests it. References are mpmath at 60 digits (or loops in mpmath),
independent of the operators' code paths; nothing here runs at import time.
"""

from .attention import ENTRIES as _ATTENTION
from .core import (
    ALL_DTYPES,
    DEVICES,
    DPS,
    MEASURES,
    ErrorInput,
    OpInfo,
    Sample,
    Tolerance,
    check_dtypes,
    check_errors,
    check_gradients,
    check_meta,
    check_reference,
    error,
    on_device,
    reference,
    run_sample,
)
from .dmg import ENTRIES as _DMG
from .hida import ENTRIES as _HIDA
from .laplacian import ENTRIES as _LAPLACIAN
from .metric_attention import ENTRIES as _METRIC_ATTENTION
from .mha import ENTRIES as _MHA
from .poincare import ENTRIES as _POINCARE
from .rmsnorm import ENTRIES as _RMSNORM
from .routing import ENTRIES as _ROUTING
from .sphere import ENTRIES as _SPHERE

# One tuple per operator family; a new family adds its import above and its name here.
REGISTRY: tuple[OpInfo, ...] = (
    *_ATTENTION, *_POINCARE, *_SPHERE, *_MHA, *_DMG, *_LAPLACIAN, *_RMSNORM,
    *_METRIC_ATTENTION, *_ROUTING, *_HIDA,
)


def get(name: str) -> OpInfo:
    for info in REGISTRY:
        if info.name == name:
            return info
    raise KeyError(f"no operator {name!r} in the registry")


__all__ = [
    "ALL_DTYPES",
    "DEVICES",
    "DPS",
    "MEASURES",
    "REGISTRY",
    "ErrorInput",
    "OpInfo",
    "Sample",
    "Tolerance",
    "check_dtypes",
    "check_errors",
    "check_gradients",
    "check_meta",
    "check_reference",
    "error",
    "get",
    "on_device",
    "reference",
    "run_sample",
]
