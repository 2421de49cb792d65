"""SARIF 2.1.0 as GitHub code scanning reads it: the rules the run reports, and a result per finding
with its file (relative to the working directory), line and column."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, TextIO
from urllib.parse import quote

from app.report.json import indented
from app.report.links import rule_url
from app.report.locations import relative
from app.report.model import RunReport

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# The project's home, as pyproject.toml's [project.urls] and the image's source label give it.
INFORMATION_URI = "https://github.com/opspec/opspec"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def uri(path: str) -> str:
    """Relative to the working directory where the file is under it; a file: URI where it is not."""
    name = relative(path)
    return PurePosixPath(name).as_uri() if name.startswith("/") else quote(name)


def document(report: RunReport) -> dict[str, Any]:
    rules = report.reported_rules()
    index = {rule.id: position for position, rule in enumerate(rules)}
    results = []
    for file, _, finding in report.findings():
        location = {
            "artifactLocation": {"uri": uri(file.path)},
            # GitHub requires a region with startLine (its rule GH1003): a finding on the file as a
            # whole (unreadable, too large) points at its start.
            "region": {"startLine": finding.line or 1, "startColumn": finding.column or 1},
        }
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "ruleIndex": index[finding.rule],
            "level": LEVELS[finding.severity],
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": location}],
        }
        if finding.related:  # the other declaration of a value: code scanning links to each
            result["relatedLocations"] = [
                {
                    "id": number,
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(file.path)},
                        "region": {"startLine": place.line or 1, "startColumn": place.column or 1},
                    },
                    "message": {"text": place.message},
                }
                for number, place in enumerate(finding.related, 1)
            ]
        if finding.path:
            result["properties"] = {"path": finding.path}
        results.append(result)
    driver: dict[str, Any] = {
        "name": report.tool,
        "version": report.version,
        "informationUri": INFORMATION_URI,
        "rules": [_rule(rule.id, rule.statement, rule.spec, report.docs_url) for rule in rules],
    }
    if not driver["version"]:
        del driver["version"]
    run: dict[str, Any] = {"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}
    if report.shard is not None:
        # The run's category (the id up to its last "/"): GitHub code scanning keeps one analysis per
        # category, so each shard's upload stands beside the others instead of replacing them.
        shard = report.shard
        run["automationDetails"] = {"id": f"{report.tool}/shard-{shard.index}-of-{shard.count}/"}
    graphs = [file for file in report.files if file.read]
    if graphs:  # what was checked, said beside what was found: a node nobody checked is no result
        summary = report.summary()
        run["properties"] = {
            "coverage": {
                "units": summary.units,
                "checked": summary.checked,
                "by_engine": summary.by_engine,
                "not_checked": summary.not_checked,
                "not_checked_kinds": summary.not_checked_kinds,
                "files": {uri(file.path): file.coverage() for file in graphs},
            }
        }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _rule(rule_id: str, statement: str, spec: str, docs_url: str) -> dict[str, Any]:
    """A reportingDescriptor: GitHub code scanning shows fullDescription and help with each alert and
    links the rule to helpUri, its page in the docs (app/report/links.py)."""
    rule: dict[str, Any] = {
        "id": rule_id,
        "shortDescription": {"text": statement},
        "fullDescription": {"text": f"{statement} Source: {spec}." if spec else statement},
        "help": {"text": spec or statement},
    }
    if docs_url:
        rule["helpUri"] = rule_url(docs_url, rule_id)
    return rule


def write(report: RunReport, out: TextIO) -> None:
    out.write(indented(document(report)) + "\n")
