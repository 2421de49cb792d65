"""Text for people: one compiler-style line per finding, then a summary line."""

from __future__ import annotations

import base64
import json
from typing import Any, TextIO

from app.report.locations import compiler_style
from app.report.model import Finding, RunReport, Shard, Summary, Unit

KINDS_SHOWN = 8  # a summary names at most this many unchecked kinds, the most frequent first


def coverage(summary: Summary) -> str:
    """`1,290 checked, 19 not checked (GenIndex 19)`; with engines `12 checked (10 by opspec, 2 by
    onnx)`; '' when every unit was checked by opspec's rules (a run of descriptors)."""
    if not summary.not_checked and not summary.by_engine:
        return ""
    total = summary.checked + sum(summary.by_engine.values())
    text = f"{total:,} checked"
    if summary.by_engine:
        parts = [f"{summary.checked:,} by opspec"] if summary.checked else []
        parts += [f"{count:,} by {engine}" for engine, count in summary.by_engine.items()]
        text += f" ({', '.join(parts)})"
    if summary.not_checked:
        kinds = list(summary.not_checked_kinds.items())
        named = ", ".join(f"{kind} {count:,}" for kind, count in kinds[:KINDS_SHOWN])
        if len(kinds) > KINDS_SHOWN:
            named += f", {len(kinds) - KINDS_SHOWN} more kinds"
        text += f", {summary.not_checked:,} not checked ({named})"
    return text


def summary_line(summary: Summary, noun: str = "descriptors", shard: Shard | None = None) -> str:
    files = f"{summary.files:,} file{'s' * (summary.files != 1)}"
    if shard is not None and not summary.files:  # a CI matrix wider than the file list: no failure
        files += f" (none of the {shard.files_in_all:,} falls in this shard)"
    broken = []
    if summary.unreadable:
        broken.append(f"{summary.unreadable:,} unreadable")
    if summary.invalid_files:
        broken.append(f"{summary.invalid_files:,} invalid")
    if broken:
        files += f" ({', '.join(broken)})"
    counts = f"{summary.valid:,} valid, {summary.invalid:,} invalid"
    if summary.malformed:
        counts += f", {summary.malformed:,} malformed"
    said = coverage(summary)
    if said:
        counts = f"{said}; {counts}"
    findings = f"{summary.errors:,} error{'s' * (summary.errors != 1)}, "
    findings += f"{summary.warnings:,} warning{'s' * (summary.warnings != 1)}"
    if summary.infos:
        findings += f", {summary.infos:,} note{'s' * (summary.infos != 1)}"
    units = f"{summary.units:,} {noun.removesuffix('s') if summary.units == 1 else noun}"
    line = f"{files}, {units}: {counts}; {findings}"
    return f"shard {shard}: {line}" if shard is not None else line


def _outputs(unit: Unit) -> str:
    if unit.outputs is None:
        return "unknown"
    return ", ".join(f"{o['dtype']}{_shape(o['shape'])}" for o in unit.outputs) or "none"


def _shape(shape: list[int | str] | None) -> str:
    if shape is None:
        return "[...]"  # rank unknown
    return "[" + ", ".join("?" if dim == -1 else str(dim) for dim in shape) + "]"


# ANSI SGR codes for a terminal: the severity word in its colour, the place in bold.
_COLOURS = {
    "error": "31",
    "warning": "33",
    "info": "36",
    "valid": "32",
    "invalid": "31",
    "malformed": "31",
    "not_checked": "2",
}  # not checked: dim, never the green of valid


def _paint(text: str, code: str, colour: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if colour else text


def finding_line(path: str, finding: Finding, colour: bool = False) -> str:
    message = finding.message.replace("\n", "\n    ")  # a message's later lines stay under it
    where = _paint(compiler_style(path, finding.line, finding.column), "1", colour)
    severity = _paint(finding.severity, _COLOURS[finding.severity], colour)
    line = f"{where}: {severity} {finding.rule}: {message}\n"
    for place in finding.related:  # as compilers write "note: previous declaration is here"
        there = _paint(compiler_style(path, place.line, place.column), "1", colour)
        line += f"{there}: note: {place.message}\n"
    return line


def page_link(base: str, descriptor: dict[str, Any]) -> str:
    """The web page at `base` opened on this descriptor: `#d=` and the base64url of its compact JSON,
    as the page's state.js writes it."""
    compact = json.dumps(descriptor, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=str)
    encoded = base64.urlsafe_b64encode(compact.encode()).decode().rstrip("=")
    return f"{base.split('#', 1)[0]}#d={encoded}"


def write(
    report: RunReport,
    out: TextIO,
    *,
    verbose: bool = False,
    quiet: bool = False,
    colour: bool = False,
    link_base: str | None = None,
) -> None:
    """`verbose` adds a line per unit (where it is, its kind, verdict and outputs) and a graph's notes (info
    findings: how each node was translated), which a plain run counts in its summary; `quiet` writes the
    summary line only; `colour` paints severities and verdicts for a terminal; `link_base` (the page's
    URL) a line under each finding of a descriptor or graph node that opens it on the page."""
    for file in [] if quiet else report.files:
        for finding in file.findings:
            if finding.severity != "info" or not file.read or verbose:
                out.write(finding_line(file.path, finding, colour))
        for unit in file.units:
            if verbose:
                where = compiler_style(file.path, unit.line, unit.column)
                label = f" {unit.name}" if unit.name else ""
                verdict = _paint(unit.verdict, _COLOURS[unit.verdict], colour)
                out.write(f"{where}:{label} {unit.kind or '?'} {verdict} -> {_outputs(unit)}\n")
            link = page_link(link_base, unit.descriptor) if link_base and unit.descriptor else None
            for finding in unit.findings:
                if finding.severity == "info" and file.read and not verbose:
                    continue  # a graph node's note (how it was translated) only with -v: a CI log shows faults
                out.write(finding_line(file.path, finding, colour))
                if link:
                    out.write(f"    {link}\n")
    line = summary_line(report.summary(), report.unit_noun, report.shard)
    if colour:
        line = _paint(line, "1;31" if report.exit_code() else "1;32", colour)
    out.write(line + "\n")
