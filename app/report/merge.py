"""`opspec merge`: the JSON reports of a run's shards (`opspec check --shard K/N --format json`) read
back into reports and joined into the report of the whole run, files in the order one process gives
them, so every writer renders it byte for byte as it renders a single run's.

A merge that could pass for a whole run while it is not one is refused, never written: a shard missing
or given twice, shards of different runs (another file list, version or option), a report whose
summary its files do not give.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import msgspec

from app.report.model import FileReport, RuleInfo, RunReport, Shard


class ReportError(ValueError):
    """Text that is not a JSON report of `opspec check`, with what and where."""


def read(text: str | bytes) -> RunReport:
    """The report a JSON document was written from: every writer renders it as it rendered the run's
    own. Raises ReportError naming the field that is not what `write` writes."""
    try:
        raw = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise ReportError(f"not JSON: {exc}") from None
    if not isinstance(raw, dict) or "files" not in raw or "summary" not in raw:
        raise ReportError("not a JSON report of opspec (written by --format json: no files and summary)")
    for file in raw["files"] if isinstance(raw["files"], list) else ():
        if isinstance(file, dict):
            file["read"] = "valid" in file  # a graph read whole is the file that has a verdict of its own
            if file.get("format", "") is None:
                file["format"] = ""
    try:
        document = msgspec.convert(raw, _Document)
    except msgspec.ValidationError as exc:
        raise ReportError(str(exc)) from None
    report = RunReport(
        tool=document.tool.name,
        version=document.tool.version,
        command=document.command,
        strict=document.options.strict,
        require_checked=document.options.require_checked,
        shard=document.shard,
        rules={rule.id: rule for rule in document.rules},
        docs_url=document.docs_url,
    )
    report.files = document.files
    report.name_units()
    if report.summary().as_dict() != raw["summary"] or report.exit_code() != document.exit_code:
        raise ReportError("its summary or exit code is not what its files give (edited, or cut short?)")
    return report


class _Tool(msgspec.Struct):
    name: str
    version: str


class _Options(msgspec.Struct):
    strict: bool
    require_checked: bool


class _Document(msgspec.Struct):
    """What `read` takes from a document: the fields `document` writes that the report holds (the rest,
    such as the summary and each unit's `valid`, follow from these)."""

    tool: _Tool
    command: str
    options: _Options
    exit_code: int
    files: list[FileReport]
    rules: list[RuleInfo]
    shard: Shard | None = None
    docs_url: str = ""


class MergeError(ValueError):
    """The reports are not the shards of one run, all of them: nothing is written."""


def merge(parts: Sequence[tuple[str, RunReport]]) -> RunReport:
    """The whole run's report from its shards' (name, report) pairs, in any order."""
    if not parts:
        raise MergeError("no reports to merge")
    for name, report in parts:
        if report.shard is None:
            raise MergeError(
                f"{name}: the report of a whole run, not of a shard (opspec check --shard K/N --format json)"
            )
        if len(report.shard.positions) != len(report.files):
            raise MergeError(
                f"{name}: {len(report.files)} files but {len(report.shard.positions)} positions in the run"
            )
    first_name, first = parts[0]
    for name, report in parts[1:]:
        for what, mine, theirs in _run_traits(report, first):
            if mine != theirs:
                raise MergeError(
                    f"{name} and {first_name} are not shards of one run: {what} {mine} against {theirs}"
                )
    count = first.shard.count
    given: dict[int, str] = {}
    for name, report in parts:
        index = report.shard.index
        if index in given:
            raise MergeError(f"shard {index}/{count} is given twice: {given[index]} and {name}")
        given[index] = name
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in given]
    if missing:
        raise MergeError(
            f"shard{'s' * (len(missing) > 1)} {', '.join(missing)} missing: the merge would not be the whole run"
        )
    placed: dict[int, FileReport] = {}
    for _, report in parts:
        placed.update(zip(report.shard.positions, report.files, strict=True))
    files_in_all = first.shard.files_in_all
    if sorted(placed) != list(range(files_in_all)):
        raise MergeError(
            f"the shards' files do not make up the {files_in_all:,} files of one run (they overlap or leave gaps)"
        )
    whole = RunReport(
        tool=first.tool,
        version=first.version,
        command=first.command,
        strict=first.strict,
        require_checked=first.require_checked,
        docs_url=first.docs_url,
    )
    for position in range(files_in_all):
        whole.files.append(placed[position])
    for _, report in parts:
        whole.rules.update(report.rules)
    whole.name_units()
    return whole


def _run_traits(report: RunReport, other: RunReport) -> list[tuple[str, object, object]]:
    """What every shard of one run shares, as (what, this report's, the other's)."""
    return [
        ("tool", report.tool, other.tool),
        ("version", report.version, other.version),
        ("command", report.command, other.command),
        ("--strict", report.strict, other.strict),
        ("--require-checked", report.require_checked, other.require_checked),
        ("shards", report.shard.count, other.shard.count),
        ("files in the run", report.shard.files_in_all, other.shard.files_in_all),
    ]
