"""The results layer, torch-free: the typed record the engine writes through, the files it lives in,
and what readers derive from it (figures, control outcomes, the gate's comparison, the stability
column, the paper's graph). ``attnaudit.reports`` imports nothing else from the engine.

- :mod:`.record`: frozen ``Record``, ``Evidence``, ``Witness`` and their parts, ``to_json`` /
  ``from_json``;
- :mod:`.files`: results.json, timings.json and the journal, written atomically;
- :mod:`.derived`: ``figure``, ``key_figure``, ``controls_outcome``, ``cell``, contributions;
- :mod:`.compare`: the gate's comparison of records with a baseline.
"""

from attnaudit.checks.results.compare import (
    BASELINE_SCHEMA,
    OLD_SCHEMA,
    Difference,
    Group,
    compare,
    groups,
    load_baseline,
    proof_of,
    selected,
    selection_of,
    split_by_baseline,
)
from attnaudit.checks.results.derived import (
    MAX_DIGITS,
    NOT_ESTABLISHED,
    READINGS,
    ROUNDOFF_EXPONENT,
    STABILITY_FORMAT,
    cell,
    contribution_reading,
    contributions,
    controls_outcome,
    dependants,
    figure,
    interval,
    key_figure,
    load_stability,
    predicted,
)
from attnaudit.checks.results.files import (
    JOURNAL_DIR,
    JOURNAL_FORMAT,
    RESULTS_FORMAT,
    RESULTS_NAME,
    RESUME_KEYS,
    TIMINGS_NAME,
    check_record,
    dumps,
    journal_clear,
    journal_path,
    journal_read,
    journal_sweep,
    journal_write,
    load_document,
    load_results,
    load_tables,
    load_timings,
    parse_results,
    read_json,
    write_atomic,
    write_results,
)
from attnaudit.checks.results.record import (
    PROOF_STATUSES,
    VERDICTS,
    ClauseResult,
    Control,
    Derivation,
    Evidence,
    Proof,
    ProofStepResult,
    ReadingResult,
    Record,
    RecordError,
    RestsOn,
    ResultsError,
    Step,
    Use,
    Witness,
    freeze,
    thaw,
)

__all__ = [
    "BASELINE_SCHEMA", "JOURNAL_DIR", "JOURNAL_FORMAT", "MAX_DIGITS", "NOT_ESTABLISHED", "OLD_SCHEMA",
    "PROOF_STATUSES", "READINGS", "RESULTS_FORMAT", "RESULTS_NAME", "RESUME_KEYS", "ROUNDOFF_EXPONENT",
    "STABILITY_FORMAT", "TIMINGS_NAME", "VERDICTS", "ClauseResult", "Control", "Derivation", "Difference",
    "Evidence", "Group", "Proof", "ProofStepResult", "ReadingResult", "Record", "RecordError", "RestsOn",
    "ResultsError", "Step", "Use", "Witness", "cell", "check_record", "compare", "contribution_reading",
    "contributions", "controls_outcome", "dependants", "dumps", "figure", "groups", "interval",
    "journal_clear", "journal_path", "journal_read", "journal_sweep", "journal_write", "key_figure",
    "load_baseline", "load_document", "load_results", "load_stability", "load_tables", "load_timings",
    "parse_results", "predicted", "proof_of", "read_json", "selected", "selection_of", "split_by_baseline",
    "write_atomic", "write_results", "freeze", "thaw",
]
