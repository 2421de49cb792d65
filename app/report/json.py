"""One JSON document per run: every file (unreadable ones too), every unit with its verdict, outputs
and findings with line and column, and the summary.

The document holds all the report holds (the rules' statements, the options the exit code depends on;
a shard's report also each file's place in the whole run and the descriptor of each unit with findings,
for text's page links), so the report every other writer renders can be read back from a shard's
(app/report/merge.py, for `opspec merge`). A whole run's leaves the descriptors out: they would make
a graph zoo's report half as large again, for a link only text draws.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from app.report.model import FileReport, Finding, RunReport, Unit


def finding_dict(finding: Finding) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "severity": finding.severity,
        "rule": finding.rule,
        "message": finding.message,
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "spec": finding.spec,
    }
    if finding.related:
        entry["related"] = [
            {"message": p.message, "path": p.path, "line": p.line, "column": p.column}
            for p in finding.related
        ]
    return entry


def unit_dict(unit: Unit, descriptors: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "index": unit.index,
        "name": unit.name,
        "kind": unit.kind,
        "verdict": unit.verdict,
        # the word the HTTP API's answers use; a node nothing checked is neither valid nor invalid: null
        "valid": None if unit.verdict == "not_checked" else unit.verdict == "valid",
        "line": unit.line,
        "column": unit.column,
        "outputs": unit.outputs,
        "findings": [finding_dict(f) for f in unit.findings],
    }
    if unit.checked_by != "opspec":  # a graph node checked by another engine's inference, or by nobody
        entry["checked_by"] = unit.checked_by
    if unit.detail:
        entry["detail"] = unit.detail
    if descriptors and unit.findings and unit.descriptor is not None:  # what text's --link-base opens
        entry["descriptor"] = unit.descriptor
    return entry


def file_dict(file: FileReport, descriptors: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "path": file.path,
        "format": file.format or None,
        "readable": not file.unreadable,
    }
    if file.read:  # a graph: one verdict for the file, and how its nodes were checked
        entry["valid"] = not file.invalid
        entry["coverage"] = file.coverage()
    entry["findings"] = [finding_dict(f) for f in file.findings]
    entry["units"] = [unit_dict(u, descriptors) for u in file.units]
    return entry


def document(report: RunReport) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "tool": {"name": report.tool, "version": report.version},
        "command": report.command,
        "options": {"strict": report.strict, "require_checked": report.require_checked},
        "exit_code": report.exit_code(),
    }
    if report.docs_url:  # where the rule pages are, so a report read back (opspec merge) links them too
        entry["docs_url"] = report.docs_url
    if report.shard is not None:  # one machine's part of a split run
        shard = report.shard
        entry["shard"] = {
            "index": shard.index,
            "count": shard.count,
            "files_in_all": shard.files_in_all,
            "positions": list(shard.positions),
        }
    entry["summary"] = report.summary().as_dict()
    # The statements of the rules the findings cite (a rule no reader described is left out: SARIF
    # names it by its id, here as in a report read back).
    entry["rules"] = [
        {"id": rule.id, "statement": rule.statement, "spec": rule.spec}
        for rule in report.reported_rules()
        if rule.id in report.rules
    ]
    entry["files"] = [file_dict(f, descriptors=report.shard is not None) for f in report.files]
    return entry


def indented(document: Any) -> str:
    """`json.dumps(document, indent=2, ensure_ascii=False)`, the same text at a quarter of the time: the
    standard library encodes indented JSON in Python (its C encoder only writes compact text, which
    msgspec then indents, changing nothing but the white space). Text msgspec cannot read (NaN and
    infinities, which Python writes as bare words; lone surrogates) goes the standard library's own way.
    tests/report/test_json.py holds the two to the same text."""
    import msgspec

    compact = json.dumps(document, ensure_ascii=False)
    try:
        return msgspec.json.format(compact.encode(), indent=2).decode()
    except (msgspec.DecodeError, UnicodeEncodeError):
        return json.dumps(document, indent=2, ensure_ascii=False)


def write(report: RunReport, out: TextIO) -> None:
    # dumps, not dump: one write, not one per token
    out.write(indented(document(report)) + "\n")
