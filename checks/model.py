"""The claim model: one frozen, validated record per catalogue id.

A claim spec (``claims/<paper>/<module>.py``) builds :class:`Claim` objects and lists them in a
module-level ``CLAIMS`` tuple. Everything here is validated when built, so a malformed spec fails
at import time and discovery turns it into an ``error`` record naming the file and the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - typing only
    from checks.context import Context
    from checks.symbolic import Step

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9.\-/]*$")
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_\-]*$")


class Kind(StrEnum):
    """What sort of proposition a claim is; DESIGN.md's list, nothing else."""

    IDENTITY = "identity"
    INEQUALITY = "inequality"
    ASYMPTOTIC = "asymptotic"
    LIMIT = "limit"
    CONSTRUCTION = "construction"
    COMPLEXITY = "complexity"
    CONJECTURE = "conjecture"
    DEFINITION = "definition-consistency"

    @classmethod
    def parse(cls, value: Kind | str) -> Kind:
        try:
            return cls(value)
        except ValueError:
            known = ", ".join(k.value for k in cls)
            raise ValueError(f"unknown kind {value!r} (known: {known})") from None


class Verdict(StrEnum):
    CONFIRMED = "confirmed"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"
    UNVERIFIABLE = "unverifiable"
    ERROR = "error"


@dataclass(frozen=True)
class Paper:
    """Metadata of one source paper; lives in ``claims/<paper>/__init__.py`` as ``PAPER``."""

    key: str
    title: str
    authors: tuple[str, ...]
    arxiv: str | None
    source_file: str

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", self.key):
            raise ValueError(f"paper key {self.key!r} must be lower-case words joined by '-'")
        if not self.title or not self.authors:
            raise ValueError(f"paper {self.key!r} needs a title and at least one author")


@dataclass(frozen=True)
class Relation:
    """A relation ``lhs REL rhs`` that must hold on every case of a batch (REL: ``==``, ``<=``, ``>=``).

    ``sample(ctx, gen)`` yields batches of cases: dicts of tensors whose leading dimension indexes
    the case (one shape per batch). ``evaluate(case)`` returns ``(lhs, rhs, tol)``, each of shape
    ``(batch,)``; a case violates the relation when it fails by more than ``tol``. ``strategy()``
    (optional) returns a Hypothesis strategy drawing one case (batch of one) for adversarial search
    and shrinking. ``evaluate`` is all that ``attnaudit replay`` needs to re-run a witness.
    """

    name: str
    lhs: str
    rel: str
    rhs: str
    evaluate: Callable[[dict[str, Any]], tuple[Any, Any, Any]]
    sample: Callable[[Context, Any], Any]
    tolerance: str
    sampler: str
    strategy: Callable[[Context], Any] | None = None
    reading: str | None = None
    max_examples: int = 200

    def __post_init__(self) -> None:
        _check_name(self.name)
        if self.rel not in ("==", "<=", ">="):
            raise ValueError(f"relation {self.name!r}: rel must be '==', '<=' or '>=', not {self.rel!r}")
        if not self.tolerance.strip():
            raise ValueError(f"relation {self.name!r}: the tolerance needs a stated reason")
        if not self.sampler.strip():
            raise ValueError(f"relation {self.name!r}: name the sampler (what it produces)")


@dataclass(frozen=True)
class ScalingLaw:
    """A predicted power law ``quantity ~ variable**exponent`` measured over >= 3 decades.

    ``grid(ctx)`` returns the values of the variable; ``measure(ctx, grid)`` returns the measured
    quantity at each (and optionally its standard error as a second array). ``order`` says what
    the paper asserts: ``Θ`` (exponent equals), ``O`` (exponent at most), ``Ω`` (at least).
    ``exponent_tolerance`` absorbs a stated systematic error of the fit (e.g. pre-asymptotic
    curvature over the grid); it is fixed in the spec, reported, and never tuned to a verdict.
    """

    name: str
    quantity: str
    variable: str
    exponent: float
    order: str
    grid: Callable[[Context], Any]
    measure: Callable[[Context, Any], Any]
    family: str
    tolerance: str
    exponent_tolerance: float = 0.05
    predicted: str = ""
    reading: str | None = None
    max_ci_width: float = 0.5

    def __post_init__(self) -> None:
        _check_name(self.name)
        if self.order not in ("Θ", "O", "Ω"):
            raise ValueError(f"scaling law {self.name!r}: order must be 'Θ', 'O' or 'Ω'")
        if not self.tolerance.strip():
            raise ValueError(f"scaling law {self.name!r}: the exponent tolerance needs a reason")
        if not self.family.strip():
            raise ValueError(f"scaling law {self.name!r}: name the instance family (typical or worst)")
        if self.exponent_tolerance < 0:
            raise ValueError(f"scaling law {self.name!r}: exponent_tolerance must be >= 0")


@dataclass(frozen=True)
class Limit:
    """``quantity → value`` as ``variable → point``, decided by the rate at which the gap closes.

    ``gap(ctx, grid)`` returns ``|quantity − value|`` along ``grid(ctx)`` (which approaches the
    point over >= 3 decades). The suite's derivation supplies ``rate``: the gap must shrink like
    ``|variable − point|**rate`` (or ``variable**-rate`` for a limit at infinity). A wrong limit
    value leaves a gap that does not shrink, whose fitted rate then excludes ``rate``.
    """

    name: str
    quantity: str
    variable: str
    value: str
    point: str
    rate: float
    grid: Callable[[Context], Any]
    gap: Callable[[Context, Any], Any]
    family: str
    tolerance: str
    rate_tolerance: float = 0.05
    reading: str | None = None

    def __post_init__(self) -> None:
        _check_name(self.name)
        if self.rate <= 0:
            raise ValueError(f"limit {self.name!r}: the convergence rate must be positive")
        if not self.tolerance.strip() or not self.family.strip():
            raise ValueError(f"limit {self.name!r}: state the tolerance reason and the family")


Check = Relation | ScalingLaw | Limit


@dataclass(frozen=True)
class Measured:
    """Where a summary-table cell's measured counterpart comes from: a claim, or one of its checks.

    Without ``check`` the cell shows the claim's verdict; with it, that check's figure (a fitted
    exponent with its interval, a relation's counts) beside the verdict.
    """

    claim: str
    check: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.claim, str) or not ID_PATTERN.match(self.claim):
            raise ValueError(f"table reference {self.claim!r} is not a claim id")
        if self.check is not None:
            _check_name(self.check)


@dataclass(frozen=True)
class TableCell:
    """One cell of a paper's summary table: the paper's entry (LaTeX) and what measures it."""

    paper: str
    measured: tuple[Measured, ...]

    def __post_init__(self) -> None:
        if not self.paper.strip():
            raise ValueError("a table cell needs the paper's entry")
        if not self.measured or not all(isinstance(m, Measured) for m in self.measured):
            raise ValueError(f"table cell {self.paper!r}: name at least one Measured source")


@dataclass(frozen=True)
class TableRow:
    label: str
    cells: tuple[TableCell, ...]


@dataclass(frozen=True)
class SummaryTable:
    """A paper's own summary table, reproduced with a measured counterpart for every entry.

    Declared in ``claims/<paper>/__init__.py`` as ``TABLES``. The runner fills the measured
    column from the run's records (one source of truth), and the report prints both side by side.
    """

    key: str
    label: str
    section: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[TableRow, ...]

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", self.key):
            raise ValueError(f"table key {self.key!r} must be lower-case words joined by '-'")
        if not self.rows:
            raise ValueError(f"table {self.key!r} has no rows")
        for row in self.rows:
            if len(row.cells) != len(self.columns):
                raise ValueError(f"table {self.key!r}, row {row.label!r}: {len(row.cells)} cells "
                                 f"for {len(self.columns)} columns")

    def references(self) -> list[Measured]:
        return [m for row in self.rows for cell in row.cells for m in cell.measured]


@dataclass(frozen=True)
class Claim:
    """One catalogue id: what the paper states, the reading tested, and how it is checked."""

    id: str
    label: str
    section: str
    statement: str
    reading: str
    kind: Kind | str
    derivation: Callable[[], Sequence[Step]] | None = None
    no_derivation: str | None = None
    checks: tuple[Check, ...] = ()
    unverifiable: str | None = None
    correction: Callable[[list[dict[str, Any]]], str | None] | None = None
    time_limit_s: float = 120.0
    dtype: str = "float64"
    notes: str = ""
    source_module: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not ID_PATTERN.match(self.id):
            raise ValueError(f"claim id {self.id!r} is not of the form '<paper>/<label>'")
        object.__setattr__(self, "kind", Kind.parse(self.kind))
        for name in ("label", "section", "statement", "reading"):
            if not str(getattr(self, name)).strip():
                raise ValueError(f"claim {self.id}: {name} is empty")
        if self.unverifiable is None:
            if (self.derivation is None) == (self.no_derivation is None):
                raise ValueError(
                    f"claim {self.id}: give a derivation, or no_derivation with a one-line reason"
                )
            if not self.checks:
                raise ValueError(f"claim {self.id}: no checks (or state why it is unverifiable)")
        names = [c.name for c in self.checks]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise ValueError(f"claim {self.id}: check names repeated: {duplicated}")
        for check in self.checks:
            if not isinstance(check, (Relation, ScalingLaw, Limit)):
                raise TypeError(f"claim {self.id}: {check!r} is not a Relation, ScalingLaw or Limit")
        if self.time_limit_s <= 0:
            raise ValueError(f"claim {self.id}: time_limit_s must be positive")

    @property
    def paper(self) -> str:
        return self.id.split("/", 1)[0]

    def check(self, name: str) -> Check:
        for check in self.checks:
            if check.name == name:
                return check
        known = ", ".join(c.name for c in self.checks) or "none"
        raise KeyError(f"claim {self.id} has no check {name!r} (known: {known})")


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ValueError(f"check name {name!r} must be lower-case letters, digits, '-' or '_'")
