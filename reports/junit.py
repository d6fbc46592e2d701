"""JUnit XML for CI systems: one test case per claim, failing exactly where the gate fails."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any


def _difference(kind: str, text: str) -> str:
    """``kind: text``, unless the gate's text already opens with the kind ("proof sound → ...")."""
    return text if text.startswith(f"{kind} ") else f"{kind}: {text}"


def answers(claim: dict[str, Any]) -> str:
    """Both answers on one line: ``confirmed · proof flawed``."""
    return f"{claim['verdict']} · proof {claim['proof']['status']}"


def junit_xml(document: dict[str, Any]) -> str:
    """Failures are the gate's differences (verdict changed, proof status changed, new, vanished);
    errors are error verdicts. Every message shows both answers, verdict and proof status.

    Without a baseline the gate cannot be evaluated and only error verdicts fail (the gate fails
    on them whatever the baseline).
    """
    gate = document["gate"]
    cases = []
    for claim in document["claims"]:
        case = ET.Element("testcase", {"classname": f"attnaudit.{claim['paper']}", "name": claim["id"],
                                       "time": f"{claim['provenance']['seconds'] or 0:.3f}"})
        proof = claim["proof"]
        lines = [f"{answers(claim)}: {claim['summary']}", f"proof {proof['status']}: {proof['reason']}"]
        if proof.get("first_false_step") is not None:
            lines.append(f"first false step: {proof['first_false_step']}")
        lines.append(f"key figure: {claim['key_figure']}")
        text = "\n".join(lines)
        if claim["verdict"] == "error":
            error = ET.SubElement(case, "error", {"message": f"{answers(claim)}: {claim['key_figure']}",
                                                  "type": "error"})
            error.text = text
        elif claim["gate"] is not None and not claim["gate"]["passes"]:
            ET.SubElement(case, "failure", {
                "message": f"{_difference(claim['gate']['kind'], claim['gate']['text'])} "
                           f"(now {answers(claim)})",
                "type": claim["gate"]["kind"]}).text = text
        ET.SubElement(case, "system-out").text = text
        cases.append(case)
    present = {c["id"] for c in document["claims"]}
    for diff in (gate or {}).get("differences", []):
        if diff["id"] not in present:  # in the baseline, absent from the run
            case = ET.Element("testcase", {"classname": "attnaudit", "name": diff["id"], "time": "0"})
            ET.SubElement(case, "failure", {"message": _difference(diff["kind"], diff["text"]),
                                            "type": diff["kind"]})
            cases.append(case)
    failures = sum(c.find("failure") is not None for c in cases)
    errors = sum(c.find("error") is not None for c in cases)
    total_time = sum(c["provenance"]["seconds"] or 0 for c in document["claims"])
    attrs = {"name": "attnaudit", "tests": str(len(cases)), "failures": str(failures),
             "errors": str(errors), "skipped": "0", "time": f"{total_time:.3f}"}
    suites = ET.Element("testsuites", attrs)
    suite = ET.SubElement(suites, "testsuite", attrs)
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", {"name": "results", "value": document["source"]})
    ET.SubElement(props, "property", {"name": "baseline",
                                      "value": gate["baseline"] if gate else "none (gate not evaluated)"})
    suite.extend(cases)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def write_junit(document: dict[str, Any], path: Path) -> Path:
    path.write_text(junit_xml(document), encoding="utf-8")
    return path
