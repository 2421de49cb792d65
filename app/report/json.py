"""One JSON document per run: every file (unreadable ones too), every unit with its verdict, outputs
and findings with line and column, and the summary."""

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


def unit_dict(unit: Unit) -> dict[str, Any]:
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
    return entry


def file_dict(file: FileReport) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "path": file.path,
        "format": file.format or None,
        "readable": not file.unreadable,
    }
    if file.read:  # a graph: one verdict for the file, and how its nodes were checked
        entry["valid"] = not file.invalid
        entry["coverage"] = file.coverage()
    entry["findings"] = [finding_dict(f) for f in file.findings]
    entry["units"] = [unit_dict(u) for u in file.units]
    return entry


def document(report: RunReport) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "tool": {"name": report.tool, "version": report.version},
        "command": report.command,
        "exit_code": report.exit_code(),
    }
    if report.shard is not None:  # one machine's part of a split run
        shard = report.shard
        entry["shard"] = {"index": shard.index, "count": shard.count, "files_in_all": shard.files_in_all}
    entry["summary"] = report.summary().as_dict()
    entry["files"] = [file_dict(f) for f in report.files]
    return entry


def write(report: RunReport, out: TextIO) -> None:
    # dumps, not dump: one write, not one per token
    out.write(json.dumps(document(report), indent=2, ensure_ascii=False) + "\n")
