"""The claim model: one frozen, validated record per catalogue id.

A claim spec (``claims/<paper>/<module>.py``) builds :class:`Claim` objects and lists them in a
module-level ``CLAIMS`` tuple. Everything here is validated when built, so a malformed spec fails
at import time and discovery turns it into an ``error`` record naming the file and the reason.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - typing only
    from attnaudit.checks.context import Context
    from attnaudit.checks.symbolic import Step

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9.\-/]*$")
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_\-]*$")

# What a derivation step or a check bears on:
# - ``statement``: a clause of the claimed statement itself (only a false statement item refutes);
# - ``proof``: a step of the paper's argument, quoted (``step=`` names a ProofStep): a false one
#   makes the proof flawed; a ``proof`` item naming no quoted step is the suite's own derivation;
# - ``derivation``: a step the suite adds to make an argument checkable: shown, never decisive;
# - ``vacuity``: shows that a clause holds for every operator of its kind in its setting (when it
#   agrees, the clause cannot discriminate and reads inconclusive, "vacuous").
ROLES = ("statement", "proof", "derivation", "vacuity")
PRIMARY = "primary"

# What a negative control changes. Only a contrast that keeps the statement's setting counts:
# another operator of the same kind, one named hypothesis broken, or the prediction moved. A
# control that changes only the setting (or one any operator would fail) is declared ``setting``
# and never backs a confirmation.
CONTRASTS = ("operator", "hypothesis", "prediction", "setting")
COUNTING_CONTRASTS = ("operator", "hypothesis", "prediction")
# Fields whose change moves only the prediction (the contrast is then known without declaring it).
PREDICTION_FIELDS = frozenset({"exponent", "order", "value", "rate", "law"})


@dataclass(frozen=True)
class Clause:
    """One clause of a statement, quoted verbatim from the source (whitespace aside; the extracted
    text renders mathematics twice, and a quote may come from either copy).

    The primary reading is the conjunction of every clause the theorem states ("in particular" and
    "hence" clauses inside it included). ``undefined`` says, when the clause is undefined as
    written, what it would have to state: the clause then reads unverifiable.
    """

    id: str
    quote: str
    undefined: str | None = None

    def __post_init__(self) -> None:
        _check_name(self.id)
        if not self.quote.strip():
            raise ValueError(f"clause {self.id!r}: quote the source")
        if self.undefined is not None and not self.undefined.strip():
            raise ValueError(f"clause {self.id!r}: say what an undefined clause would need")


@dataclass(frozen=True)
class ProofStep:
    """A step of the paper's own argument, quoted verbatim. Proof steps are listed in the order
    their quotes stand in the source (a test checks it), so the first false one is the paper's."""

    id: str
    quote: str

    def __post_init__(self) -> None:
        _check_name(self.id)
        if not self.quote.strip():
            raise ValueError(f"proof step {self.id!r}: quote the paper's argument")


@dataclass(frozen=True)
class Use:
    """A result the paper's argument relies on: another claim's id, with the words of the argument
    that invoke it, quoted verbatim (checked against the source like clauses). A neighbour's
    verdict never changes this claim's own; the record lists what it ``rests_on``."""

    claim: str
    quote: str

    def __post_init__(self) -> None:
        if not isinstance(self.claim, str) or not ID_PATTERN.match(self.claim):
            raise ValueError(f"use {self.claim!r}: name a claim id '<paper>/<label>'")
        if not self.quote.strip():
            raise ValueError(f"use {self.claim!r}: quote where the argument relies on it")


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


class ProofStatus(StrEnum):
    SOUND = "sound"
    FLAWED = "flawed"
    INCOMPLETE = "incomplete"
    ABSENT = "absent"


@dataclass(frozen=True)
class Reading:
    """An alternative reading of a statement: its own verdict, never the headline.

    ``id`` names it in checks (``reading="n-keys"``) and in the record; ``why`` says in one line
    why the text admits it.
    """

    id: str
    text: str
    why: str

    def __post_init__(self) -> None:
        _check_name(self.id)
        if self.id == PRIMARY:
            raise ValueError(f"reading id {PRIMARY!r} is reserved for the claim's primary reading")
        if not self.text.strip() or not self.why.strip():
            raise ValueError(f"reading {self.id!r}: give its text and a one-line reason")


@dataclass(frozen=True, eq=False)
class Control:
    """A negative control: the same check on the same family with something swapped in for
    which the statement is false (the contrasted operator, a kernel lacking the property, the
    prediction moved). ``changes`` replace fields of the check (``evaluate=``, ``measure=``,
    ``gap=``, ``exponent=``, ``sample=``...). The control must fail; one that passes shows the
    check cannot discriminate."""

    variant: str
    changes: dict[str, Any]
    contrast: str | None = None
    hypothesis: str | None = None

    def __post_init__(self) -> None:
        if not self.variant.strip():
            raise ValueError("a control names its variant (what is swapped in)")
        if not self.changes:
            raise ValueError(f"control {self.variant!r} changes nothing")
        if "name" in self.changes or "controls" in self.changes:
            raise ValueError(f"control {self.variant!r} may not rename the check or nest controls")
        contrast = self.contrast
        if contrast is None and set(self.changes) <= PREDICTION_FIELDS:
            object.__setattr__(self, "contrast", contrast := "prediction")
        if contrast is not None and contrast not in CONTRASTS:
            raise ValueError(f"control {self.variant!r}: contrast must be one of "
                             f"{', '.join(CONTRASTS)}, not {contrast!r}")
        if contrast == "hypothesis" and not (self.hypothesis or "").strip():
            raise ValueError(f"control {self.variant!r}: name the hypothesis it breaks")

    @property
    def counts(self) -> bool:
        """Whether a failure of this control can back a confirmation (its contrast keeps the
        statement's setting). An undeclared contrast counts until its spec declares one; records
        and the catalogue test list those."""
        return self.contrast in (None, *COUNTING_CONTRASTS)


def control(variant: str, *, contrast: str | None = None, hypothesis: str | None = None,
            **changes: Any) -> Control:
    """``control("softmax in place of IDA", contrast="operator", evaluate=softmax_gap)``.

    ``contrast``: ``operator`` (another operator of the same kind), ``hypothesis`` (one hypothesis
    broken, named by ``hypothesis=``), ``prediction`` (the prediction moved; inferred when only
    ``exponent``/``order``/``value``/``rate`` change) or ``setting`` (shown, never counted)."""
    return Control(variant, dict(changes), contrast, hypothesis)


@dataclass(frozen=True)
class Contribution:
    """A promise of the paper's abstract, quoted verbatim (checked against the source like
    clauses), and the claims that carry it. It reads survived, refuted, partly or undecided from
    the clauses of those claims' records (:func:`attnaudit.checks.graph.contribution_reading`)."""

    quote: str
    claims: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.quote.strip():
            raise ValueError("a contribution quotes the abstract's promise")
        if isinstance(self.claims, str):
            raise TypeError(f"contribution {self.quote[:40]!r}: claims is a tuple of ids, not one string")
        object.__setattr__(self, "claims", tuple(self.claims))
        if not self.claims:
            raise ValueError(f"contribution {self.quote[:40]!r}: name the claims that carry it")
        for cid in self.claims:
            if not isinstance(cid, str) or not ID_PATTERN.match(cid):
                raise ValueError(f"contribution {self.quote[:40]!r}: {cid!r} is not a claim id")
        if len(set(self.claims)) != len(self.claims):
            raise ValueError(f"contribution {self.quote[:40]!r}: claims repeated")


@dataclass(frozen=True)
class Paper:
    """Metadata of one source paper; lives in ``claims/<paper>/__init__.py`` as ``PAPER``.
    ``contributions``: the abstract's promises, each with the claims that carry it."""

    key: str
    title: str
    authors: tuple[str, ...]
    arxiv: str | None
    source_file: str
    contributions: tuple[Contribution, ...] = ()

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", self.key):
            raise ValueError(f"paper key {self.key!r} must be lower-case words joined by '-'")
        if not self.title or not self.authors:
            raise ValueError(f"paper {self.key!r} needs a title and at least one author")
        if not all(isinstance(c, Contribution) for c in self.contributions):
            raise TypeError(f"paper {self.key!r}: contributions must be Contribution objects")
        for c in self.contributions:
            foreign = [cid for cid in c.claims if cid.split("/", 1)[0] != self.key]
            if foreign:
                raise ValueError(f"paper {self.key!r}: contribution {c.quote[:40]!r} names claims of "
                                 f"another paper: {', '.join(foreign)}")

    def contributions_json(self) -> list[dict[str, Any]]:
        """The contributions as the results file's ``papers`` entry lists them."""
        return [{"quote": c.quote, "claims": list(c.claims)} for c in self.contributions]


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
    tolerance: Any
    sampler: str = ""  # what the sampler draws; by default the sample function's docstring
    strategy: Callable[[Context], Any] | None = None
    reading: str | None = None
    max_examples: int = 200
    role: str = "statement"
    controls: tuple[Control, ...] = ()
    clause: str | None = None
    step: str | None = None

    def __post_init__(self) -> None:
        _check_common(self, "relation")
        if self.rel not in ("==", "<=", ">="):
            raise ValueError(f"relation {self.name!r}: rel must be '==', '<=' or '>=', not {self.rel!r}")
        if not self.sampler.strip():
            doc = " ".join((inspect.getdoc(self.sample) or "").split())
            if not doc:
                raise ValueError(f"relation {self.name!r}: say what the sampler draws (sampler=..., or "
                                 "a docstring on the sample function)")
            object.__setattr__(self, "sampler", doc)


@dataclass(frozen=True)
class ScalingLaw:
    """A predicted power law ``quantity ~ variable**exponent`` measured over >= 3 decades.

    ``grid(ctx)`` returns the values of the variable; ``measure(ctx, grid)`` returns the measured
    quantity at each (one draw: the engine draws ``replicates`` of them, each with
    ``ctx.replicate(r)``, and makes the error bars; a measure may not return its own). ``order`` says what
    the paper asserts: ``Θ`` (exponent equals), ``O`` (exponent at most), ``Ω`` (at least).
    ``exponent_tolerance`` absorbs a stated systematic error of the fit (e.g. pre-asymptotic
    curvature over the grid); it is fixed in the spec, reported, and never tuned to a verdict.
    ``info(ctx, grid)`` (optional) returns informational measurements recorded beside the fit and
    never compared (``{"columns": {name: [value per grid point]}, "series": [{"label", "x", "y"}]}``:
    e.g. wall time; further series are drawn in the check's plot, e.g. other operators' costs).
    ``min_decades`` (with ``short_grid``, the stated reason) lets a grid span fewer decades than
    the engine's three (checks.fitting.MIN_DECADES), down to one, where no longer grid can be
    reached; the fit, its replicate-widened interval and the drift rule stay the engine's, and the
    evidence says the grid is short.
    """

    name: str
    quantity: str
    variable: str
    exponent: float
    order: str
    grid: Callable[[Context], Any]
    measure: Callable[[Context, Any], Any]
    family: str
    tolerance: Any
    predicted: str = ""
    reading: str | None = None
    max_ci_width: float = 0.5
    law: str = "power"
    role: str = "statement"
    controls: tuple[Control, ...] = ()
    clause: str | None = None
    step: str | None = None
    replicates: int = 1
    info: Callable[[Context, Any], dict[str, Any]] | None = None
    min_decades: float | None = None
    short_grid: str = ""

    def __post_init__(self) -> None:
        _check_common(self, "scaling law")
        if self.min_decades is not None and not self.short_grid.strip():
            raise ValueError(f"scaling law {self.name!r}: a grid shorter than the engine's minimum states "
                             "why no longer one can be reached (short_grid=...)")
        if self.order not in ORDERS:
            raise ValueError(f"scaling law {self.name!r}: order must be one of {', '.join(ORDERS)}")
        if self.law not in LAWS:
            raise ValueError(f"scaling law {self.name!r}: law must be one of {', '.join(LAWS)}")
        if not self.family.strip():
            raise ValueError(f"scaling law {self.name!r}: name the instance family (typical or worst)")
        if not getattr(self.tolerance, "lazy", False) and _tolerance_value(self.tolerance, self.name) < 0:
            raise ValueError(f"scaling law {self.name!r}: the exponent tolerance must be >= 0")

    @property
    def exponent_tolerance(self) -> float:
        return _tolerance_value(self.tolerance, self.name)


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
    tolerance: Any
    reading: str | None = None
    role: str = "statement"
    controls: tuple[Control, ...] = ()
    clause: str | None = None
    step: str | None = None
    replicates: int = 1

    def __post_init__(self) -> None:
        _check_common(self, "limit")
        if self.rate <= 0:
            raise ValueError(f"limit {self.name!r}: the convergence rate must be positive")
        if not self.family.strip():
            raise ValueError(f"limit {self.name!r}: name the family")
        if not getattr(self.tolerance, "lazy", False) and _tolerance_value(self.tolerance, self.name) < 0:
            raise ValueError(f"limit {self.name!r}: the rate tolerance must be >= 0")

    @property
    def rate_tolerance(self) -> float:
        return _tolerance_value(self.tolerance, self.name)


Check = Relation | ScalingLaw | Limit

# What a scaling law asserts of its exponent: Θ (equals), O (at most), Ω (at least); "unbounded"
# (the quantity grows without bound: every local exponent > 0); "subpolynomial" (Θ(variable^o(1)):
# the local exponents tend to 0 along the grid).
ORDERS = ("Θ", "O", "Ω", "unbounded", "subpolynomial")

# Scaling laws: y ~ x^p (power), y ~ exp(p·x) (exponential, a log-linear fit), y ~ (log x)^p
# (polylog, e.g. Ω((log n)²)).
LAWS = ("power", "exponential", "polylog")


def describe_tolerance(tolerance: Any) -> str:
    """A tolerance's self-description (an object from ``checks.tolerances``) or a stated reason."""
    if hasattr(tolerance, "describe"):
        return tolerance.describe()
    return str(tolerance)


def _tolerance_value(tolerance: Any, name: str) -> float:
    value = getattr(tolerance, "value", None)
    if value is None:
        raise TypeError(f"check {name!r}: a fit's tolerance must be a checks.tolerances object "
                        "with a value (FitBias, Systematic or Exact)")
    return float(value)


def _check_common(check: Any, what: str) -> None:
    _check_name(check.name)
    if check.role not in ROLES:
        raise ValueError(f"{what} {check.name!r}: role must be one of {', '.join(ROLES)}")
    if getattr(check.tolerance, "lazy", False):
        return _check_rest(check, what)  # computed when the check runs, never at import
    if not describe_tolerance(check.tolerance).strip():
        raise ValueError(f"{what} {check.name!r}: the tolerance needs a stated reason")
    _check_rest(check, what)


def _check_rest(check: Any, what: str) -> None:
    if check.reading is not None:
        _check_name(check.reading)
    for tag in ("clause", "step"):
        if getattr(check, tag) is not None:
            _check_name(getattr(check, tag))
    if check.step is not None and check.role != "proof":
        raise ValueError(f"{what} {check.name!r}: only a proof item checks a quoted step")
    if check.clause is not None and check.role not in ("statement", "vacuity"):
        raise ValueError(f"{what} {check.name!r}: only a statement or vacuity item decides a clause")
    if int(getattr(check, "replicates", 1)) < 1:
        raise ValueError(f"{what} {check.name!r}: replicates must be >= 1")
    if not all(isinstance(c, Control) for c in check.controls):
        raise TypeError(f"{what} {check.name!r}: controls must be checks.Control objects")


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
    # The claim process's address-space limit (RLIMIT_AS) in MiB, for both profiles; None: the
    # profile's default (checks.executor.MEMORY_LIMIT_MB). Give a reason in a comment.
    memory_limit_mb: float | None = None
    dtype: str = "float64"
    # Intra-op torch threads for this claim's process. The engine sets one (many small kernels
    # lose more to thread hand-offs than they gain on a shared 2-core machine, and with torch
    # 2.13's MKL any set_num_threads(k >= 2) corrupts batched LU: checks.context.one_thread);
    # None leaves torch's default untouched.
    threads: int | None = 1
    notes: str = ""
    reading_why: str = ""
    alternatives: tuple[Reading, ...] = ()
    proof_absent: str | None = None
    # The statement, clause by clause, quoted; the primary reading is their conjunction.
    clauses: tuple[Clause, ...] = ()
    # The paper's argument, step by step, quoted in source order.
    proof_steps: tuple[ProofStep, ...] = ()
    # What the quoted steps leave out on the way to the conclusion (the proof reads incomplete).
    proof_gap: str | None = None
    # Why the statement holds by construction of the operator: a confirmation is an identity.
    identity: str | None = None
    # The results the paper's argument relies on, each with its quote (issue 25's uses edges).
    uses: tuple[Use, ...] = ()
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
            # A claim whose clauses are quoted may have no check yet ('attnaudit init' writes such
            # stubs): each clause then reads inconclusive, never confirmed.
            if not self.checks and not self.clauses:
                raise ValueError(f"claim {self.id}: no checks (quote its clauses, which then read "
                                 "inconclusive, or state why it is unverifiable)")
        alt_ids = [r.id for r in self.alternatives]
        if len(set(alt_ids)) != len(alt_ids) or not all(isinstance(r, Reading) for r in self.alternatives):
            raise ValueError(f"claim {self.id}: alternatives must be Readings with distinct ids")
        for check in self.checks:
            if getattr(check, "reading", None) not in (None, *alt_ids):
                raise ValueError(f"claim {self.id}: check {check.name!r} names unknown reading "
                                 f"{check.reading!r} (known: {', '.join(alt_ids) or 'none'})")
        names = [c.name for c in self.checks]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise ValueError(f"claim {self.id}: check names repeated: {duplicated}")
        for check in self.checks:
            if not isinstance(check, (Relation, ScalingLaw, Limit)):
                raise TypeError(f"claim {self.id}: {check!r} is not a Relation, ScalingLaw or Limit")
        self._check_clauses_and_steps()
        if not all(isinstance(u, Use) for u in self.uses):
            raise TypeError(f"claim {self.id}: uses must be Use objects")
        if any(u.claim == self.id for u in self.uses):
            raise ValueError(f"claim {self.id}: a claim cannot use itself")
        used = [u.claim for u in self.uses]
        if len(set(used)) != len(used):
            raise ValueError(f"claim {self.id}: a used claim is listed twice (one Use per result: "
                             f"quote the first place the argument relies on it)")
        if self.threads is not None and self.threads != 1:
            raise ValueError(f"claim {self.id}: threads must be 1 or None (torch's default): setting "
                             "two or more corrupts batched LU with torch 2.13's MKL")
        if self.time_limit_s <= 0:
            raise ValueError(f"claim {self.id}: time_limit_s must be positive")
        if self.memory_limit_mb is not None and self.memory_limit_mb <= 0:
            raise ValueError(f"claim {self.id}: memory_limit_mb must be positive")

    def _check_clauses_and_steps(self) -> None:
        for kind, items, cls in (("clause", self.clauses, Clause),
                                 ("proof step", self.proof_steps, ProofStep)):
            if not all(isinstance(i, cls) for i in items):
                raise TypeError(f"claim {self.id}: {kind}s must be {cls.__name__} objects")
            ids = [i.id for i in items]
            if len(set(ids)) != len(ids):
                raise ValueError(f"claim {self.id}: {kind} ids repeated: {ids}")
        clause_ids = {c.id for c in self.clauses}
        step_ids = {s.id for s in self.proof_steps}
        for check in self.checks:
            if check.clause is not None and check.clause not in clause_ids:
                raise ValueError(f"claim {self.id}: check {check.name!r} names unknown clause "
                                 f"{check.clause!r} (known: {', '.join(sorted(clause_ids)) or 'none'})")
            if check.step is not None and check.step not in step_ids:
                raise ValueError(f"claim {self.id}: check {check.name!r} names unknown proof step "
                                 f"{check.step!r} (known: {', '.join(sorted(step_ids)) or 'none'})")
            if (len(self.clauses) > 1 and check.reading is None and check.role in ("statement", "vacuity")
                    and check.clause is None):
                raise ValueError(f"claim {self.id}: check {check.name!r} must name the clause it "
                                 f"decides (clause=...; the statement has {len(self.clauses)})")

    def clause_of(self, item_clause: str | None) -> str | None:
        """The clause a primary statement item decides: its own, or the only one."""
        if item_clause is not None:
            return item_clause
        return self.clauses[0].id if len(self.clauses) == 1 else None

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
