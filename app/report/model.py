"""The one report a run produces: files, the units in them (descriptors, graph nodes, verify cases), and
the findings on each, each pointing at a line and column. Every output format is a writer over this.

Readers (app/formats/) and runs (`opspec check`, `opspec verify`) build it; writers (app/report/*.py)
only read it. Plain dataclasses: a run of 10,000 files builds one per file, so they stay cheap.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]  # info: a note that never fails a run (a translation note)
UnitVerdict = Literal["valid", "invalid", "malformed"]

EXIT_VALID, EXIT_INVALID, EXIT_MALFORMED = 0, 1, 2


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What SARIF's tool.driver.rules lists for a rule id: its statement and where it comes from."""

    id: str
    statement: str
    spec: str


@dataclass(slots=True)
class Finding:
    severity: Severity
    rule: str
    message: str
    path: str = ""  # where in the file's document: "ops[2].attrs.axes[0]"; "" is the whole document
    spec: str = ""
    line: int | None = None  # 1-based; None when the format has no positions (or the file none at all)
    column: int | None = None  # 1-based, in characters (Unicode code points)


@dataclass(slots=True)
class Unit:
    """One checked thing in a file: a descriptor, a graph node, a verify case."""

    index: int
    name: str  # where it sits in the file: "[2]", "ops[2]", "graph[3]"; "" for a lone descriptor
    kind: str | None  # the op kind, when the unit got far enough to have one
    verdict: UnitVerdict
    findings: list[Finding] = field(default_factory=list)
    outputs: list[dict[str, Any]] | None = None  # [{"dtype": "f32", "shape": [2, "?"]}], None if unknown
    line: int | None = None
    column: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)  # what a run adds (verify: the comparison)


@dataclass(slots=True)
class FileReport:
    path: str  # as the user named it ("-" for stdin); writers make it relative where a format needs it
    format: str  # its reader: "descriptor-json", "verify-json", "verify-npz", "onednn", "openvino", "onnx"; "" none
    units: list[Unit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # about the file itself: unreadable, bad JSON
    rules: dict[str, RuleInfo] = field(default_factory=dict)  # every rule its findings cite

    @property
    def unreadable(self) -> bool:
        """The file as a whole could not be checked (its own findings hold an error)."""
        return any(f.severity == "error" for f in self.findings)

    def all_findings(self) -> Iterator[tuple[Unit | None, Finding]]:
        for finding in self.findings:
            yield None, finding
        for unit in self.units:
            for finding in unit.findings:
                yield unit, finding


@dataclass(frozen=True, slots=True)
class Summary:
    files: int
    unreadable: int
    units: int
    valid: int
    invalid: int
    malformed: int
    errors: int
    warnings: int
    infos: int

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(slots=True)
class RunReport:
    files: list[FileReport] = field(default_factory=list)
    rules: dict[str, RuleInfo] = field(default_factory=dict)
    tool: str = "opspec"
    version: str = ""
    command: str = "check"  # the run that filled it: check, verify
    unit_noun: str = "descriptors"  # what its units are, for summaries: descriptors, nodes, cases
    strict: bool = False  # warnings fail the run too

    def add(self, report: FileReport) -> None:
        self.files.append(report)
        self.rules.update(report.rules)

    def findings(self) -> Iterator[tuple[FileReport, Unit | None, Finding]]:
        for report in self.files:
            for unit, finding in report.all_findings():
                yield report, unit, finding

    def reported_rules(self) -> list[RuleInfo]:
        """The rules the run's findings cite, in order of first appearance (SARIF lists only these)."""
        seen: dict[str, RuleInfo] = {}
        for _, _, finding in self.findings():
            if finding.rule not in seen:
                seen[finding.rule] = self.rules.get(finding.rule) or RuleInfo(
                    finding.rule, finding.rule, finding.spec
                )
        return list(seen.values())

    def summary(self) -> Summary:
        counts = {"valid": 0, "invalid": 0, "malformed": 0}
        severities = {"error": 0, "warning": 0, "info": 0}
        units = unreadable = 0
        for report in self.files:
            unreadable += report.unreadable
            units += len(report.units)
            for unit in report.units:
                counts[unit.verdict] += 1
            for _, finding in report.all_findings():
                severities[finding.severity] += 1
        return Summary(
            files=len(self.files),
            unreadable=unreadable,
            units=units,
            errors=severities["error"],
            warnings=severities["warning"],
            infos=severities["info"],
            **counts,
        )

    def exit_code(self, strict: bool | None = None) -> int:
        """2 if some input could not be read or is not a descriptor; else 1 if some unit is invalid (or,
        with strict, carries a warning); else 0. The worst case wins."""
        summary = self.summary()
        strict = self.strict if strict is None else strict
        if summary.unreadable or summary.malformed:
            return EXIT_MALFORMED
        if summary.invalid or (strict and summary.warnings):
            return EXIT_INVALID
        return EXIT_VALID
