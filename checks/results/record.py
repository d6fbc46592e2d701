"""The result record, typed: frozen ``Record``, ``Evidence``, ``Witness`` and the small parts they hold.

The engine builds a record through these types and serialises it with ``to_json()``; what crosses
a process boundary (claim process → supervisor, the journal, results.json) is that JSON. Readers
get the objects back with ``from_json()``, which checks the fields a reader decides on (the
verdict, each reading's and each clause's verdict, the proof's status) and raises a one-line
:class:`ResultsError` naming the claim and the field.

``to_json()`` writes the keys in the order the engine has always written them, so that one seed
still gives byte-identical results. A part read from JSON remembers which of its keys were there
(``keys``) and writes back exactly those; a part built by the engine writes all of its fields.
Nested JSON values (a fit, a table of raw measurements) are held read-only (mappings as
``MappingProxyType``, lists as tuples) and thawed back to plain JSON by ``to_json()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from attnaudit.checks.model import ProofStatus, Verdict

VERDICTS = tuple(v.value for v in Verdict)
PROOF_STATUSES = tuple(p.value for p in ProofStatus)


class ResultsError(Exception):
    """A results, baseline or witness file that cannot be used; the message is one line."""


def freeze(value: Any) -> Any:
    """A JSON value made read-only: objects as ``MappingProxyType``, arrays as tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The plain JSON value of a frozen one (and of a part: its ``to_json()``)."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


class _Part:
    """A JSON object with a fixed key order (the dataclass's field order, ``keys`` excluded)."""

    keys: frozenset[str] | None

    def to_json(self) -> dict[str, Any]:
        return {f.name: thaw(getattr(self, f.name)) for f in fields(self)  # type: ignore[arg-type]
                if f.name != "keys" and (self.keys is None or f.name in self.keys)}

    @classmethod
    def _read(cls, data: Mapping[str, Any], **convert: Any) -> Any:
        """An instance from a JSON object: known keys only, missing ones at their defaults."""
        names = {f.name for f in fields(cls)} - {"keys"}  # type: ignore[arg-type]
        given = {k: convert[k] if k in convert else freeze(v) for k, v in data.items() if k in names}
        return cls(**given, keys=frozenset(given))


def _object(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ResultsError(f"{what} is not an object")
    return value


def _objects(value: Any, what: str) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, Mapping) for v in value):
        raise ResultsError(f"{what} is not a list of objects")
    return list(value)


def _one_of(value: Any, allowed: tuple[Any, ...], what: str) -> Any:
    if value not in allowed:
        shown = ", ".join(str(a) for a in allowed if a is not None)
        raise ResultsError(f"{what} is {value!r}, not one of {shown}")
    return value


# ----------------------------------------------------------------------------- small parts


@dataclass(frozen=True)
class Witness(_Part):
    """A relation's worst (or shrunk) failing case, replayable with ``attnaudit replay``."""

    schema: str = "attnaudit.witness/1"
    claim: str = ""
    check: str = ""
    relation: str = ""
    inputs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    lhs: float | None = None
    rhs: float | None = None
    tol: float | None = None
    margin: float | None = None
    case_index: int | None = None
    seed: int | None = None
    device: str = ""
    found_by: str = ""
    shrunk: bool = False
    file: str | None = None  # results-relative, named after the run (checks.witnesses)
    claims: tuple[str, ...] | None = None  # the --claims folder of a pack's claim
    replay: str | None = None
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_json(cls, data: Any) -> Witness:
        return cls._read(_object(data, "witness"))


@dataclass(frozen=True)
class Control(_Part):
    """A negative control's outcome: the check under the spec's named change, which must fail."""

    check: str = ""
    variant: str = ""
    contrast: str | None = None
    hypothesis: str | None = None
    counts: bool | None = None
    failed: bool = False
    status: str = ""
    summary: str = ""
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_json(cls, data: Any) -> Control:
        return cls._read(_object(data, "control"))


@dataclass(frozen=True)
class Step(_Part):
    """A derivation step (``checks.symbolic.Step.to_json``): the paper's expression and SymPy's."""

    name: str = ""
    role: str | None = None
    reading: str | None = None
    method: str = ""
    paper: str | None = None
    derived: str | None = None
    paper_latex: str | None = None
    derived_latex: str | None = None
    status: str = ""
    agrees: bool = False
    note: str = ""
    clause: str | None = None
    step: str | None = None
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_json(cls, data: Any) -> Step:
        return cls._read(_object(data, "step"))


@dataclass(frozen=True)
class Derivation(_Part):
    steps: tuple[Step, ...] = ()
    first_disagreement: int | None = None
    note: str = ""
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_json(cls, data: Any) -> Derivation:
        data = _object(data, "derivation")
        return cls._read(data, steps=tuple(Step.from_json(s) for s in _objects(data.get("steps"),
                                                                              "derivation.steps")))


@dataclass(frozen=True)
class ProofStepResult(_Part):
    """A quoted step of the paper's argument with the items that check it."""

    id: str = ""
    quote: str = ""
    status: str = ""
    items: tuple[str, ...] = ()
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Proof(_Part):
    """The proof's answer. ``status`` None: no proof was audited (an error record); ``steps`` None:
    the record has no quoted steps at all (an error record), () when none was quoted."""

    status: str | None = None
    first_false_step: str | None = None
    reason: str = ""
    steps: tuple[ProofStepResult, ...] | None = None
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.keys is None and self.steps is None:
            out.pop("steps")
        return out

    @classmethod
    def from_json(cls, data: Any, claim: str = "?") -> Proof:
        data = _object(data, f"claim {claim}: proof")
        if data.get("status") is not None:
            _one_of(data["status"], PROOF_STATUSES, f"claim {claim}: proof.status")
        steps = data.get("steps")
        return cls._read(data, steps=None if steps is None else tuple(
            ProofStepResult._read(s) for s in _objects(steps, f"claim {claim}: proof.steps")))

    @classmethod
    def from_decision(cls, data: Mapping[str, Any]) -> Proof:
        """The proof that ``checks.verdict.proof_status`` decided (all four keys)."""
        return cls(status=data["status"], first_false_step=data["first_false_step"],
                   reason=data["reason"],
                   steps=tuple(ProofStepResult(**(s | {"items": tuple(s["items"])})) for s in data["steps"]))


@dataclass(frozen=True)
class ReadingResult(_Part):
    """A reading of the statement with its own verdict (the primary one decides the headline)."""

    id: str = ""
    text: str = ""
    why: str = ""
    primary: bool = False
    verdict: str = ""
    summary: str = ""
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ClauseResult(_Part):
    """A quoted clause of the statement with its own verdict."""

    id: str = ""
    quote: str | None = None
    undefined: str | None = None
    verdict: str = ""
    summary: str = ""
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Use(_Part):
    """An edge of the paper's graph: a result this claim's argument uses, with the quoted words.
    ``verdict`` is the used claim's verdict in the run (None: it did not run), written once the
    run's records are annotated (``annotated``)."""

    claim: str = ""
    quote: str = ""
    verdict: str | None = None
    annotated: bool = field(default=False, compare=False)
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        out = {"claim": self.claim, "quote": self.quote}
        return out | {"verdict": self.verdict} if self.annotated else out

    @classmethod
    def from_json(cls, data: Any) -> Use:
        data = _object(data, "use")
        return cls(claim=data.get("claim", ""), quote=data.get("quote", ""),
                   verdict=data.get("verdict"), annotated="verdict" in data)


@dataclass(frozen=True)
class RestsOn(_Part):
    """A refuted or unverifiable result the argument reaches, and the chain ``through`` which."""

    claim: str = ""
    verdict: str = ""
    through: tuple[str, ...] = ()
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class RecordError(_Part):
    """Why a claim gave no verdict. A spec that did not load names its ``line`` (None when the
    loader knows none); a check that raised keeps the last frames of its ``traceback``."""

    file: str = ""
    line: int | None = None
    reason: str = ""
    traceback: tuple[str, ...] | None = None
    at_load: bool = field(default=False, compare=False)
    keys: frozenset[str] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file}
        if self.at_load:
            out["line"] = self.line
        out["reason"] = self.reason
        if self.traceback is not None:
            out["traceback"] = list(self.traceback)
        return out

    @classmethod
    def from_json(cls, data: Any) -> RecordError:
        data = _object(data, "error")
        tb = data.get("traceback")
        return cls(file=data.get("file", ""), line=data.get("line"), reason=data.get("reason", ""),
                   traceback=None if tb is None else tuple(tb), at_load="line" in data)


# ----------------------------------------------------------------------------- evidence

# The fields every check's evidence has, typed on Evidence; the kind's own fields are ``details``.
_HEAD = ("type", "name", "reading", "role")
_TAIL = ("status", "summary", "clause", "step", "controls", "control_outcome")


@dataclass(frozen=True)
class Evidence:
    """What one check measured and decided. ``type`` is relation, scaling or limit; ``details``
    holds the kind's own fields (a relation's counts, a fit, its points, the tolerance text) as
    read-only JSON; ``witness`` a relation's failing case. ``order`` is the key order the engine
    wrote (kept so that a record read back serialises to the same bytes)."""

    type: str
    name: str
    status: str = ""
    summary: str = ""
    role: str | None = None
    reading: str | None = None
    clause: str | None = None
    step: str | None = None
    controls: tuple[Control, ...] = ()
    control_outcome: str | None = None
    witness: Witness | None = None
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    order: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __getitem__(self, key: str) -> Any:
        """A field of the kind's own (``ev["fit"]``); KeyError when the check has none."""
        return self.details[key]

    def get(self, key: str, default: Any = None) -> Any:
        """A field of the kind's own, or ``default`` (a relation has no fit, a law no cases)."""
        return self.details.get(key, default)

    @property
    def fit(self) -> Mapping[str, Any] | None:
        return self.details.get("fit")

    def _has_witness(self) -> bool:
        return self.type == "relation" or self.witness is not None

    def to_json(self) -> dict[str, Any]:
        typed = set(_HEAD + _TAIL) | {"witness"}
        out: dict[str, Any] = {}
        for key in self.order:
            if key in typed:
                if key != "witness" or self._has_witness():
                    out[key] = thaw(getattr(self, key))
            elif key in self.details:
                out[key] = thaw(self.details[key])
        for key in _HEAD:
            out.setdefault(key, getattr(self, key))
        for key, value in self.details.items():
            out.setdefault(key, thaw(value))
        if self._has_witness():
            out.setdefault("witness", thaw(self.witness))
        for key in _TAIL:
            out.setdefault(key, thaw(getattr(self, key)))
        return out

    @classmethod
    def from_json(cls, data: Any) -> Evidence:
        data = _object(data, "evidence")
        typed = set(_HEAD + _TAIL) | {"witness"}
        witness = data.get("witness")
        return cls(type=str(data.get("type", "")), name=str(data.get("name", "")),
                   status=data.get("status", ""), summary=data.get("summary", ""),
                   role=data.get("role"), reading=data.get("reading"), clause=data.get("clause"),
                   step=data.get("step"),
                   controls=tuple(Control.from_json(c) for c in _objects(data.get("controls"), "controls")),
                   control_outcome=data.get("control_outcome"),
                   witness=None if witness is None else Witness.from_json(witness),
                   details=freeze({k: v for k, v in data.items() if k not in typed}),
                   order=tuple(data))


# ----------------------------------------------------------------------------- the record


@dataclass(frozen=True)
class Record:
    """One claim's result: both answers (``verdict`` and ``proof``), what decided them, the graph
    edges and the provenance that makes it reproducible. ``controls`` (every check's negative
    controls, in order) is derived from ``evidence``."""

    id: str
    verdict: str
    paper: str
    proof: Proof = field(default_factory=Proof)
    label: str = ""
    section: str = ""
    kind: str = ""
    statement: str = ""
    reading: str = ""
    readings: tuple[ReadingResult, ...] = ()
    notes: str = ""
    summary: str = ""
    figure: str = ""
    derivation: Derivation = field(default_factory=Derivation)
    evidence: tuple[Evidence, ...] = ()
    corrected: Mapping[str, Any] | None = None
    clauses: tuple[ClauseResult, ...] = ()
    confirmation: str | None = None
    identity: str | None = None
    uses: tuple[Use, ...] = ()
    used_by: tuple[str, ...] = ()
    rests_on: tuple[RestsOn, ...] = ()
    attached: Mapping[str, Any] | None = None  # what the spec attached (Context.attach)
    failure: RecordError | None = None  # JSON "error": why an error record has no verdict
    seed: int | None = None
    profile: str = ""
    device: str = ""
    dtype: str = ""
    spec_file: str = ""
    source_hash: str = ""
    versions: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # A claim killed at its time limit and run again alone: the first attempt's summary and seconds.
    retry: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        _one_of(self.verdict, VERDICTS, f"claim {self.id}: verdict")

    @property
    def controls(self) -> tuple[Control, ...]:
        return tuple(c for ev in self.evidence for c in ev.controls)

    @classmethod
    def error(cls, claim_id: str, paper: str, reason: str, *, file: str = "", summary: str | None = None,
              traceback: Iterable[str] | None = None, at_load: bool = False, line: int | None = None,
              proof_reason: str = "", **fields: Any) -> Record:
        """The record of a claim that gave no verdict: it raised or ran past its limit (the runner),
        its spec did not load (``at_load``, with the ``line``), or its process gave no record (the
        executor). ``summary`` defaults to ``reason``; ``fields`` are the rest of the record
        (provenance, and whatever the claim had produced before it failed)."""
        failure = RecordError(file=file, line=line, reason=reason,
                              traceback=None if traceback is None else tuple(traceback), at_load=at_load)
        return cls(id=claim_id, verdict=Verdict.ERROR.value, paper=paper,
                   summary=reason if summary is None else summary, failure=failure,
                   **({"proof": Proof(reason=proof_reason)} | fields))

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "verdict": self.verdict, "proof": self.proof.to_json(), "paper": self.paper,
               "label": self.label, "section": self.section, "kind": self.kind,
               "statement": self.statement, "reading": self.reading,
               "readings": [r.to_json() for r in self.readings], "notes": self.notes,
               "summary": self.summary, "figure": self.figure, "derivation": self.derivation.to_json(),
               "evidence": [e.to_json() for e in self.evidence],
               "controls": [c.to_json() for c in self.controls], "corrected": thaw(self.corrected),
               "clauses": [c.to_json() for c in self.clauses], "confirmation": self.confirmation,
               "identity": self.identity, "uses": [u.to_json() for u in self.uses],
               "used_by": list(self.used_by), "rests_on": [r.to_json() for r in self.rests_on]}
        if self.attached is not None:
            out["attached"] = thaw(self.attached)
        if self.failure is not None:
            out["error"] = self.failure.to_json()
        out |= {"seed": self.seed, "profile": self.profile, "device": self.device, "dtype": self.dtype,
                "spec_file": self.spec_file, "source_hash": self.source_hash, "versions": thaw(self.versions)}
        if self.retry is not None:
            out["retry"] = thaw(self.retry)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Record:
        """A record read back, or a one-line ResultsError naming the claim and the field."""
        if not isinstance(data, Mapping) or not isinstance(data.get("id"), str) or "verdict" not in data:
            raise ResultsError("a record without an id and a verdict")
        cid = data["id"]
        _one_of(data["verdict"], VERDICTS, f"claim {cid}: verdict")
        if not isinstance(data.get("proof"), Mapping):
            raise ResultsError(f"claim {cid}: proof is not an object")
        parts: dict[str, Any] = {}
        for name, part in (("readings", ReadingResult), ("clauses", ClauseResult)):
            entries = _objects(data.get(name), f"claim {cid}: {name}")
            for i, entry in enumerate(entries):
                _one_of(entry.get("verdict"), VERDICTS, f"claim {cid}: {name}[{entry.get('id', i)}].verdict")
            parts[name] = tuple(part._read(e) for e in entries)
        try:
            parts |= {
                "proof": Proof.from_json(data["proof"], cid),
                "derivation": Derivation.from_json(data.get("derivation") or {}),
                "evidence": tuple(Evidence.from_json(e) for e in _objects(data.get("evidence"), "evidence")),
                "uses": tuple(Use.from_json(u) for u in _objects(data.get("uses"), "uses")),
                "rests_on": tuple(RestsOn._read(r) for r in _objects(data.get("rests_on"), "rests_on")),
                "failure": None if data.get("error") is None else RecordError.from_json(data["error"]),
            }
        except ResultsError as exc:
            message = str(exc)
            named = message if message.startswith("claim ") else f"claim {cid}: {message}"
            raise ResultsError(named) from None
        plain = {f.name for f in fields(cls)} - set(parts) - {"failure"}
        given = {k: freeze(v) for k, v in data.items() if k in plain}
        for name in ("label", "section", "kind", "statement", "reading", "notes", "summary", "figure",
                     "profile", "device", "dtype", "spec_file", "source_hash"):
            if given.get(name) is None:
                given.pop(name, None)  # an absent text is empty
        given.setdefault("paper", cid.split("/", 1)[0])
        return cls(**given, **parts)

