"""The attnaudit engine: claim model, discovery, sampling, fitting, verdicts, runner and CLI.

Claim specs import what they need from here::

    from checks import Claim, Kind, Limit, Relation, ScalingLaw, symbolic, tolerances

``checks`` never imports a particular claim; it finds them through :mod:`checks.discovery`.
"""

from checks import sampling, symbolic, tolerances
from checks.context import Context
from checks.model import (
    Claim,
    Kind,
    Limit,
    Measured,
    Paper,
    Relation,
    ScalingLaw,
    SummaryTable,
    TableCell,
    TableRow,
    Verdict,
)

__all__ = [
    "Claim", "Context", "Kind", "Limit", "Measured", "Paper", "Relation", "ScalingLaw", "SummaryTable",
    "TableCell", "TableRow", "Verdict",
    "sampling", "symbolic", "tolerances",
]
