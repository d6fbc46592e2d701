"""The attnaudit engine: claim model, discovery, sampling, fitting, verdicts, runner and CLI.

Claim specs import what they need from the package (``attnaudit`` re-exports these names)::

    from attnaudit import Claim, Kind, Limit, Reading, Relation, ScalingLaw, control, symbolic

``checks`` never imports a particular claim; it finds them through :mod:`checks.discovery`.
The names below load on first use, so that ``checks.results`` and ``checks.gate`` (which the
report reads through) import no torch or sympy.
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULES = {"montecarlo", "sampling", "symbolic", "tolerances"}
_MODEL = {"Claim", "Clause", "Contribution", "Control", "Kind", "Limit", "Measured", "Paper", "ProofStatus",
          "ProofStep", "Reading", "Relation", "ScalingLaw", "SummaryTable", "TableCell", "TableRow", "Use",
          "Verdict", "control"}

__all__ = sorted(_MODEL | _MODULES | {"Context"})


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"attnaudit.checks.{name}")
    if name in _MODEL:
        return getattr(importlib.import_module("attnaudit.checks.model"), name)
    if name == "Context":
        return importlib.import_module("attnaudit.checks.context").Context
    raise AttributeError(f"module 'attnaudit.checks' has no attribute {name!r}")
