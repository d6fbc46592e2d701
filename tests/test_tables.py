"""Summary tables: declared beside the paper's metadata, measured from the run's own records."""

from __future__ import annotations

import json

import pytest
from conftest import FALSE, GOOD, PAPER_INIT

from attnaudit.checks import Measured, SummaryTable, TableCell, TableRow
from attnaudit.checks.discovery import discover
from attnaudit.checks.results import Evidence, ResultsError, Step, load_tables, parse_results, write_results
from attnaudit.checks.runner import run_all
from attnaudit.checks.tables import fill_tables

TABLE_INIT = PAPER_INIT + """
from attnaudit.checks import Measured, SummaryTable, TableCell, TableRow
TABLES = (SummaryTable(
    key="table-1", label="Table 1", section="§9", title="Toy summary",
    columns=("Old", "New"),
    rows=(
        TableRow("identity", (TableCell(r"\\sin^2+\\cos^2=1", (Measured("toy/good", "pythagoras"),)),
                              TableCell("AM = GM", (Measured("toy/false"),)))),
        TableRow("elsewhere", (TableCell("x", (Measured("toy/absent"),)),
                               TableCell("y", (Measured("toy/good", "no-such-check"),)))),
    ),
),)
"""


def _run(package: str):
    cat = discover(package)
    records, timings = run_all(cat.claims, cat.errors, seed=0, profile="quick", device="cpu")
    return cat, records, timings


def test_the_measured_column_comes_from_the_records(claims_package, tmp_path):
    cat, records, timings = _run(claims_package({"good": GOOD, "false": FALSE}, TABLE_INIT))
    assert not cat.errors and list(cat.tables) == ["toy"]
    (table,) = fill_tables(cat.tables, records)
    assert (table["key"], table["label"], table["columns"]) == ("table-1", "Table 1", ["Old", "New"])
    identity, elsewhere = table["rows"]
    (good,) = identity["cells"][0]["measured"]
    assert good["verdict"] == "confirmed" and good["type"] == "relation"
    assert good["figure"].endswith("holds on 1000 cases")
    (false,) = identity["cells"][1]["measured"]
    assert false["verdict"] == "refuted" and false["figure"] is None
    assert elsewhere["cells"][0]["measured"][0]["figure"] == "not run in this selection"
    assert "a defect of the table" in elsewhere["cells"][1]["measured"][0]["figure"]

    path = write_results(tmp_path, records, timings, fill_tables(cat.tables, records))
    document = json.loads(path.read_text())
    assert document["format"] == "attnaudit.results/2"
    assert load_tables(path) == [table]


def test_a_selection_without_the_paper_carries_no_table(claims_package):
    cat, records, _ = _run(claims_package({"good": GOOD}, TABLE_INIT))
    assert len(fill_tables(cat.tables, records)) == 1
    assert fill_tables(cat.tables, []) == []


def test_malformed_tables_are_load_errors_and_bad_shapes_fail_when_built(claims_package):
    cat = discover(claims_package({"good": GOOD}, PAPER_INIT + "TABLES = ('not a table',)\n"))
    (error,) = cat.errors
    assert "TABLES must be a tuple of checks.SummaryTable" in error.reason
    with pytest.raises(ValueError, match="1 cells for 2 columns"):
        SummaryTable(key="t", label="T", section="§1", title="t", columns=("a", "b"),
                     rows=(TableRow("r", (TableCell("x", (Measured("toy/good"),)),)),))
    with pytest.raises(ValueError, match="at least one Measured"):
        TableCell("x", ())
    with pytest.raises(ValueError, match="not a claim id"):
        Measured("Not An Id")


def test_results_documents_are_validated_with_one_line_errors(tmp_path):
    assert parse_results([], tmp_path) == ([], [])
    with pytest.raises(ResultsError, match="has format 'other/9'"):
        parse_results({"format": "other/9", "results": []}, tmp_path)
    with pytest.raises(ResultsError, match="'tables' is not a list"):
        parse_results({"format": "attnaudit.results/2", "results": [], "tables": {}}, tmp_path)


def test_round_off_exponents_print_as_zero():
    from attnaudit.checks.tables import figure as figure_of

    def figure(ev):  # the layer reads typed evidence
        return figure_of(Evidence.from_json(ev))

    ev = {"type": "scaling", "quantity": "‖J‖", "variable": "n",
          "fit": {"exponent": 7.01e-20, "ci": [-1.4e-31, 0.25]}}
    assert figure(ev) == "‖J‖ ∝ n^0 (95% CI [0, 0.25])"


def test_key_figure_names_what_carries_the_verdict():
    from attnaudit.checks.tables import key_figure as key_figure_of

    def key_figure(verdict, steps, evidence):  # the layer reads typed steps and evidence
        return key_figure_of(verdict, [Step.from_json(x) for x in steps],
                             [Evidence.from_json(e) for e in evidence])

    def rel(name, status, controls=(), reading=None, role="statement"):
        return {"type": "relation", "name": name, "status": status, "relation": f"{name} <= 1",
                "cases": 10, "violations": 3 if status == "disagrees" else 0, "reading": reading,
                "role": role, "controls": [{"failed": f} for f in controls]}

    false_step = {"name": "s", "status": "disagrees", "reading": None, "role": "statement"}
    proof_step = {"name": "p", "status": "disagrees", "reading": None, "role": "proof"}
    assert key_figure("refuted", [proof_step, false_step], []) == "step 's' is false"
    evidence = [rel("alt", "disagrees", reading="alt"), rel("a", "agrees"), rel("b", "disagrees")]
    assert key_figure("refuted", [proof_step], evidence) == "b <= 1: violated on 3 of 10 cases"
    backed = [rel("blind", "agrees", (False,)), rel("backed", "agrees", (True,))]
    assert key_figure("confirmed", [], backed) == "backed <= 1: holds on 10 cases"
    assert key_figure("inconclusive", [], [rel("a", "agrees"), {**rel("u", "undecided"),
                                                                "summary": "too wide"}]) == (
        "u <= 1: holds on 10 cases")
    assert key_figure("inconclusive", [], [rel("a", "agrees")]) == "a <= 1: holds on 10 cases"
    only_proof = [rel("p", "agrees", role="proof")]
    assert key_figure("inconclusive", [], only_proof) == "p <= 1: holds on 10 cases"
    assert key_figure("unverifiable", [], []) == ""


def test_a_fit_figure_shows_the_predicted_exponent_beside_the_measured_one():
    from attnaudit.checks.tables import figure as figure_of

    def figure(ev):  # the layer reads typed evidence
        return figure_of(Evidence.from_json(ev))

    ev = {"type": "scaling", "quantity": "μ", "variable": "Δ", "order": "Θ", "predicted_exponent": -4.0,
          "fit": {"exponent": -5.9999, "ci": [-6.03, -5.97]}}
    assert figure(ev) == "μ ∝ Δ^-6 (95% CI [-6.03, -5.97]) vs predicted Θ(Δ^-4)"
    bound = ev | {"order": "O", "predicted_exponent": 1.0, "fit": {"exponent": 7.3, "ci": [6.49, 8.11],
                                                                   "law": "polylog"}}
    assert figure(bound) == "μ ∝ (log Δ)^7.3 (95% CI [6.49, 8.11]) vs predicted O((log Δ)^1)"
    growth = ev | {"order": "Ω", "predicted_exponent": 1.0986, "fit": {"exponent": 1.0986, "ci": [
        1.0978, 1.0994], "law": "exponential"}}
    assert figure(growth) == "μ ∝ exp(1.1·Δ) (95% CI [1.098, 1.099]) vs predicted Ω(exp(1.1·Δ))"
    limit = {"type": "limit", "variable": "t", "point": "0", "order": "Θ", "predicted_exponent": 1.0,
             "fit": {"exponent": 0.998, "ci": [0.925, 1.07]}}
    assert figure(limit) == "gap ∝ |t − 0|^0.998 (95% CI [0.925, 1.07]) vs predicted Θ(|t − 0|^1)"
    assert figure(ev | {"order": "subpolynomial"}).endswith("vs predicted Δ^o(1)")


def test_an_interval_is_printed_to_the_precision_that_shows_its_width():
    from attnaudit.checks.tables import MAX_DIGITS, interval
    from attnaudit.checks.tables import figure as figure_of

    def figure(ev):
        return figure_of(Evidence.from_json(ev))

    assert interval(0.9249, 1.072) == "[0.925, 1.07]"
    assert interval(-5.999997, -5.999866) == "[-6, -5.9999]"  # 3 digits would show [-6, -6]
    assert interval(-0.5, -0.4999999999999999) == f"-0.5 (exact to {MAX_DIGITS} digits)"
    assert interval(-1.4e-31, 3e-17) == f"0 (exact to {MAX_DIGITS} digits)"  # round-off: 0
    assert figure({"type": "scaling", "quantity": "q", "variable": "n",
                   "fit": {"exponent": 2.0, "ci": [2.0, 2.0]}}) == "q ∝ n^2 (95% CI 2 (exact to 7 digits))"
