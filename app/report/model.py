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
# not_checked: a graph node nobody checked (a kind neither opspec nor an engine checks): never counted
# valid or invalid, and with --require-checked it fails the run.
UnitVerdict = Literal["valid", "invalid", "malformed", "not_checked"]

EXIT_VALID, EXIT_INVALID, EXIT_MALFORMED = 0, 1, 2


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What SARIF's tool.driver.rules lists for a rule id: its statement and where it comes from."""

    id: str
    statement: str
    spec: str


@dataclass(frozen=True, slots=True)
class RelatedPlace:
    """Another place a finding concerns (the other declaration of a value), located as findings are."""

    message: str
    path: str = ""
    line: int | None = None
    column: int | None = None


@dataclass(slots=True)
class Finding:
    severity: Severity
    rule: str
    message: str
    path: str = ""  # where in the file's document: "ops[2].attrs.axes[0]"; "" is the whole document
    spec: str = ""
    line: int | None = None  # 1-based; None when the format has no positions (or the file none at all)
    column: int | None = None  # 1-based, in characters (Unicode code points)
    related: tuple[RelatedPlace, ...] = ()


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
    # who checked it: "opspec" (its rules), an engine's own inference ("onnx", "openvino"), None: nobody
    checked_by: str | None = "opspec"
    # the descriptor checked (wire form), for a link to the page (text report's --link-base); no writer emits it
    descriptor: dict[str, Any] | None = None


@dataclass(slots=True)
class FileReport:
    path: str  # as the user named it ("-" for stdin); writers make it relative where a format needs it
    format: str  # its reader: "descriptor-json", "verify-json", "verify-npz", "onednn", "openvino", "onnx"; "" none
    units: list[Unit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # about the file itself: unreadable, bad JSON
    rules: dict[str, RuleInfo] = field(default_factory=dict)  # every rule its findings cite
    # A graph file that was read and walked: its own error findings (a bad dim, a dangling edge) make it
    # invalid, as the HTTP route answers it, not unreadable.
    read: bool = False

    @property
    def unreadable(self) -> bool:
        """The file as a whole could not be checked (its own findings hold an error)."""
        return not self.read and any(f.severity == "error" for f in self.findings)

    @property
    def invalid(self) -> bool:
        """Read, but broken as a whole (its own findings hold an error), or some unit is invalid."""
        if self.read and any(f.severity == "error" for f in self.findings):
            return True
        return any(unit.verdict == "invalid" for unit in self.units)

    def coverage(self) -> dict[str, Any]:
        """How its units were checked: by opspec's rules, by an engine, not at all (by kind)."""
        checked = 0
        engines: dict[str, int] = {}
        kinds: dict[str, int] = {}
        for unit in self.units:
            if unit.verdict == "not_checked":
                kind = unit.kind or "?"
                kinds[kind] = kinds.get(kind, 0) + 1
            elif unit.checked_by == "opspec":
                checked += 1
            elif unit.checked_by is not None:
                engines[unit.checked_by] = engines.get(unit.checked_by, 0) + 1
        return {
            "checked": checked,
            "by_engine": dict(sorted(engines.items())),
            "not_checked": sum(kinds.values()),
            "not_checked_kinds": dict(sorted(kinds.items())),
        }

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
    # Coverage: units checked by opspec's rules, by another engine (by engine), and not checked (by kind);
    # files read whole but broken as a whole (a graph's bad dim or dangling edge).
    checked: int = 0
    by_engine: dict[str, int] = field(default_factory=dict)
    not_checked: int = 0
    not_checked_kinds: dict[str, int] = field(default_factory=dict)
    invalid_files: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class Shard:
    """Which part of a split run this report covers (`opspec check --shard K/N`)."""

    index: int  # K, 1-based
    count: int  # N
    files_in_all: int  # files of the whole run before the split: an empty shard says of how many
    # Each of the shard's files' place (0-based) in the whole run's list, in the shard's order: what
    # `opspec merge` puts the shards' files back in the order of one run by.
    positions: tuple[int, ...] = ()

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(slots=True)
class RunReport:
    files: list[FileReport] = field(default_factory=list)
    rules: dict[str, RuleInfo] = field(default_factory=dict)
    tool: str = "opspec"
    version: str = ""
    command: str = "check"  # the run that filled it: check, verify
    unit_noun: str = "descriptors"  # what its units are, for summaries: descriptors, nodes, cases
    strict: bool = False  # warnings fail the run too
    require_checked: bool = False  # a graph node nobody checked fails the run too
    shard: Shard | None = None  # None: the whole run, not one machine's part of it
    docs_url: str = ""  # the docs site rule pages are under (OPSPEC_DOCS_URL); "" links none

    def add(self, report: FileReport) -> None:
        self.files.append(report)
        self.rules.update(report.rules)

    def name_units(self) -> None:
        """What the summaries call the units, once every file is in: a verify run's are cases; a check
        run's are nodes where every file is a graph read whole, else descriptors."""
        if self.command == "verify":
            self.unit_noun = "cases"
        elif self.files and all(file.read for file in self.files):
            self.unit_noun = "nodes"

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
        counts = {"valid": 0, "invalid": 0, "malformed": 0, "not_checked": 0}
        severities = {"error": 0, "warning": 0, "info": 0}
        units = unreadable = invalid_files = checked = 0
        engines: dict[str, int] = {}
        kinds: dict[str, int] = {}
        for report in self.files:
            unreadable += report.unreadable
            units += len(report.units)
            for unit in report.units:
                counts[unit.verdict] += 1
                if unit.verdict == "not_checked":
                    kinds[unit.kind or "?"] = kinds.get(unit.kind or "?", 0) + 1
                elif unit.checked_by == "opspec":
                    checked += unit.verdict != "malformed"
                elif unit.checked_by is not None:
                    engines[unit.checked_by] = engines.get(unit.checked_by, 0) + 1
            for _, finding in report.all_findings():
                severities[finding.severity] += 1
            invalid_files += report.invalid  # the JSON report's file "valid": false, counted
        return Summary(
            files=len(self.files),
            unreadable=unreadable,
            units=units,
            valid=counts["valid"],
            invalid=counts["invalid"],
            malformed=counts["malformed"],
            errors=severities["error"],
            warnings=severities["warning"],
            infos=severities["info"],
            checked=checked,
            by_engine=dict(sorted(engines.items())),
            not_checked=counts["not_checked"],
            not_checked_kinds=dict(sorted(kinds.items(), key=lambda item: (-item[1], item[0]))),
            invalid_files=invalid_files,
        )

    def exit_code(self, strict: bool | None = None) -> int:
        """2 if some input could not be read or is not a descriptor; else 1 if some unit (or a graph file
        as a whole) is invalid, or with strict a warning, or with require_checked a node nobody checked;
        else 0. The worst case wins."""
        summary = self.summary()
        strict = self.strict if strict is None else strict
        if summary.unreadable or summary.malformed:
            return EXIT_MALFORMED
        if summary.invalid or summary.invalid_files or (strict and summary.warnings):
            return EXIT_INVALID
        if self.require_checked and summary.not_checked:
            return EXIT_INVALID
        return EXIT_VALID
