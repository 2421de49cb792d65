"""JUnit XML as GitLab and Jenkins read it: a testsuite per file, a testcase per unit (classname the
file, name its place and kind), a failure for an invalid unit, an error for a malformed one or for a
file that could not be read (or a graph file broken as a whole), a skipped test case for a graph node
nobody checked; with --strict, a failure for a unit with a warning too."""

from __future__ import annotations

from typing import TextIO
from xml.etree import ElementTree as ET

from app.report.model import FileReport, Finding, RunReport
from app.report.text import finding_line

_FAILING = {"invalid": "failure", "malformed": "error"}


def _lines(path: str, findings: list[Finding]) -> str:
    return "".join(finding_line(path, f) for f in findings)


def _headline(findings: list[Finding]) -> Finding | None:
    """The finding a failure is named after: the first error, else (under --strict) the first warning."""
    for severity in ("error", "warning"):
        for finding in findings:
            if finding.severity == severity:
                return finding
    return None


def _suite(file: FileReport, strict: bool) -> ET.Element:
    suite = ET.Element("testsuite", name=file.path)
    failures = errors = skipped = 0
    cases = []
    if file.findings:
        case = ET.Element("testcase", classname=file.path, name="(file)")
        broken = file.read and any(f.severity == "error" for f in file.findings)  # read, but invalid
        if file.unreadable or broken:
            errors += not broken
            failures += broken
            first = _headline(file.findings)  # an error: that is what makes the file unreadable (or invalid)
            ET.SubElement(
                case, "failure" if broken else "error", type=first.rule, message=first.message
            ).text = _lines(file.path, file.findings)
        else:
            ET.SubElement(case, "system-out").text = _lines(file.path, file.findings)
        cases.append(case)
    for unit in file.units:
        case = ET.Element(
            "testcase", classname=file.path, name=f"{unit.name or '[0]'} {unit.kind or 'unknown'}"
        )
        if unit.verdict == "not_checked":
            skipped += 1
            ET.SubElement(
                case, "skipped", message=f"not checked: nothing checks {unit.kind or 'this kind'} here"
            )
            text = _lines(file.path, unit.findings)
            if text:
                ET.SubElement(case, "system-out").text = text
            cases.append(case)
            continue
        tag = _FAILING.get(unit.verdict)
        if tag is None and strict and any(f.severity == "warning" for f in unit.findings):
            tag = "failure"  # as the exit code has it: with --strict a warning fails
        text = _lines(file.path, unit.findings)
        if tag is not None:
            failures += tag == "failure"
            errors += tag == "error"
            first = _headline(unit.findings)
            element = ET.SubElement(case, tag, type=first.rule if first else unit.verdict)
            element.set("message", first.message if first else unit.verdict)
            element.text = text
        elif text:
            ET.SubElement(case, "system-out").text = text
        cases.append(case)
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    if skipped:
        suite.set("skipped", str(skipped))
    suite.extend(cases)
    return suite


def write(report: RunReport, out: TextIO) -> None:
    name = f"{report.tool} {report.command}"
    root = ET.Element("testsuites", name=f"{name} shard {report.shard}" if report.shard else name)
    suites = [_suite(file, report.strict) for file in report.files]
    for name in ("tests", "failures", "errors", "skipped"):
        total = sum(int(suite.get(name, "0")) for suite in suites)
        if total or name != "skipped":
            root.set(name, str(total))
    root.extend(suites)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")
