"""JUnit XML for CI systems: one test case per claim, failing exactly where the gate fails."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any


def junit_xml(document: dict[str, Any]) -> str:
    """Failures are the gate's differences (changed, new, vanished); errors are error verdicts.

    Without a baseline the gate cannot be evaluated and only error verdicts fail (the gate fails
    on them whatever the baseline).
    """
    gate = document["gate"]
    cases = []
    for claim in document["claims"]:
        case = ET.Element("testcase", {"classname": f"attnaudit.{claim['paper']}", "name": claim["id"],
                                       "time": f"{claim['provenance']['seconds'] or 0:.3f}"})
        verdict_line = f"{claim['verdict']}: {claim['summary']}"
        if claim["verdict"] == "error":
            error = ET.SubElement(case, "error", {"message": claim["key_figure"], "type": "error"})
            error.text = verdict_line
        elif claim["gate"] is not None and not claim["gate"]["passes"]:
            ET.SubElement(case, "failure", {"message": f"{claim['gate']['kind']}: {claim['gate']['text']}",
                                            "type": claim["gate"]["kind"]}).text = verdict_line
        ET.SubElement(case, "system-out").text = verdict_line
        cases.append(case)
    present = {c["id"] for c in document["claims"]}
    for diff in (gate or {}).get("differences", []):
        if diff["id"] not in present:  # in the baseline, absent from the run
            case = ET.Element("testcase", {"classname": "attnaudit", "name": diff["id"], "time": "0"})
            ET.SubElement(case, "failure", {"message": f"{diff['kind']}: {diff['text']}",
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
