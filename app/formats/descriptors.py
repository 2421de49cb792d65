"""Descriptor JSON files: one descriptor, a list of them, or a batch body {"ops": [...]}.

Each descriptor becomes a Unit with the registry's verdict; each diagnostic's request path
(attrs.axes[0]) is joined to where the descriptor sits in the file (ops[2]) and looked up in the
file's position map, which is built only when the file has something to point at.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from app.core import engine
from app.core.config import get_settings
from app.core.diagnostics import Diagnostic
from app.core.payload import LimitExceeded
from app.formats import jsonpos
from app.formats.source import READ_RULE, Source, not_utf8, unreadable
from app.ops import BY_NAME, DescriptorErrors, parse
from app.ops.parsing import describe_errors
from app.report.model import FileReport, Finding, RuleInfo, Unit

FORMAT = "descriptor-json"

JSON_RULE = RuleInfo("opspec.json", "The file is JSON text (RFC 8259) in UTF-8.", "RFC 8259")
DESCRIPTOR_RULE = RuleInfo(
    "opspec.descriptor",
    "Each entry is an op descriptor: a known kind, the op's own attributes, inputs and optional "
    "outputs, each field of its type.",
    "opspec wire format (docs: Descriptors)",
)
LIMIT_RULE = RuleInfo(
    "opspec.limit",
    "Sizes stay within the configured limits (OPSPEC_MAX_* settings).",
    "opspec settings (docs: Settings)",
)

_RULES: dict[str, RuleInfo] = {}  # rule id -> its SARIF info, built once per id across a run


def rule_info(kind: str | None, rule_id: str) -> RuleInfo | None:
    info = _RULES.get(rule_id)
    if info is None:
        spec = BY_NAME.get(kind) if kind else None
        rule = spec.rule_book.get(rule_id) if spec is not None else None
        if rule is None:
            return None
        info = _RULES[rule_id] = RuleInfo(rule.id, rule.statement, rule.spec)
    return info


def entries(document: Any) -> list[tuple[str, Any]]:
    """Each descriptor in the document with the path where it sits."""
    if isinstance(document, dict) and "ops" in document and "kind" not in document:
        ops = document["ops"]
        if isinstance(ops, list):
            return [(f"ops[{index}]", raw) for index, raw in enumerate(ops)]
        return [("ops", ops)]
    if isinstance(document, list):
        return [(f"[{index}]", raw) for index, raw in enumerate(document)]
    return [("", document)]


def _json_type(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "an array"


def check_descriptor(index: int, where: str, raw: Any, report: FileReport) -> Unit:
    if not isinstance(raw, dict):
        report.rules[DESCRIPTOR_RULE.id] = DESCRIPTOR_RULE
        message = f"a descriptor is a JSON object with kind, attrs and inputs; this is {_json_type(raw)}"
        finding = Finding("error", DESCRIPTOR_RULE.id, message, where, DESCRIPTOR_RULE.spec)
        return Unit(index, where, None, "malformed", [finding])
    kind = raw.get("kind") if isinstance(raw, dict) and isinstance(raw.get("kind"), str) else None
    try:
        descriptor = parse(raw)
    except DescriptorErrors as exc:
        unit = Unit(index, where, kind if kind in BY_NAME else None, "malformed", descriptor=raw)
        for error in describe_errors(exc.errors()):
            info = rule_info(kind, error["rule"]) if "rule" in error else None
            info = info or DESCRIPTOR_RULE
            report.rules[info.id] = info
            path = "" if error["path"] == "body" else error["path"]
            unit.findings.append(
                Finding("error", info.id, error["message"], jsonpos.join(where, path), info.spec)
            )
        return unit
    spec = BY_NAME[descriptor.kind]
    try:
        verdict, _ = engine.check(spec, descriptor, get_settings())
    except LimitExceeded as exc:
        report.rules[LIMIT_RULE.id] = LIMIT_RULE
        finding = Finding("error", LIMIT_RULE.id, exc.message, jsonpos.join(where, exc.path), LIMIT_RULE.spec)
        return Unit(index, where, spec.kind, "malformed", [finding])
    unit = Unit(
        index,
        where,
        spec.kind,
        "valid" if verdict.valid else "invalid",
        outputs=verdict.wire_outputs(),
        descriptor=raw,
    )
    add_diagnostics(unit, spec.kind, where, verdict.diagnostics, report)
    return unit


def add_diagnostics(
    unit: Unit, kind: str, where: str, diagnostics: Iterable[Diagnostic], report: FileReport
) -> None:
    """The engine's diagnostics as the unit's findings, their paths inside the descriptor at `where`."""
    for d in diagnostics:
        info = rule_info(kind, d.rule)
        if info is not None:
            report.rules[info.id] = info
        unit.findings.append(Finding(d.severity, d.rule, d.message, jsonpos.join(where, d.path), d.spec))


def decode_text(source: Source, report: FileReport) -> str | None:
    try:
        text = source.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        message, line, column = not_utf8(source.data, exc)
        report.rules[READ_RULE.id] = READ_RULE
        report.findings.append(
            Finding("error", READ_RULE.id, message, spec=READ_RULE.spec, line=line, column=column)
        )
        return None
    return text.removeprefix("\ufeff")  # a BOM is not part of the JSON, nor counted in columns


def not_json(report: FileReport, message: str, line: int, column: int) -> FileReport:
    report.rules[JSON_RULE.id] = JSON_RULE
    report.findings.append(Finding("error", JSON_RULE.id, message, "", JSON_RULE.spec, line, column))
    return report


def read(source: Source) -> FileReport:
    report = FileReport(source.name, FORMAT)
    if source.error is not None:
        return unreadable(report, source.error)
    text = decode_text(source, report)
    if text is None:
        return report
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        return not_json(report, f"not JSON: {exc.msg}", exc.lineno, exc.colno)
    except RecursionError:
        # The C parser gives up on deep nesting; the scan has no recursion and says where it starts.
        try:
            jsonpos.positions(text, max_depth=256)
        except jsonpos.JSONPosError as exc:
            return not_json(report, f"not a descriptor: {exc.message}", exc.line, exc.column)
        return not_json(report, "not a descriptor: nesting too deep", 1, 1)
    for index, (where, raw) in enumerate(entries(document)):
        report.units.append(check_descriptor(index, where, raw, report))
    if any(unit.findings for unit in report.units):
        place(report, text)
    return report


def place(report: FileReport, text: str) -> None:
    """Give every finding and unit its line and column, walking the text only to the paths they name."""
    wanted = [unit.name for unit in report.units]
    wanted += [finding.path for unit in report.units for finding in unit.findings]
    found = jsonpos.find(text, wanted)
    for unit in report.units:
        unit.line, unit.column = found[unit.name]
        for finding in unit.findings:
            finding.line, finding.column = found[finding.path]
