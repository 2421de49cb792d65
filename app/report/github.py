"""GitHub Actions workflow commands, so findings show on the pull request's lines.

Escaping follows the Actions toolkit (@actions/core, command.ts): in the message %, CR and LF; in a
property also ':' and ','.
"""

from __future__ import annotations

from typing import TextIO

from app.report.locations import relative
from app.report.model import RelatedPlace, RunReport

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def write(report: RunReport, out: TextIO) -> None:
    for file in report.files:  # a notice per graph file whose nodes were not all checked
        coverage = file.coverage() if file.read else None
        if coverage and coverage["not_checked"]:
            kinds = ", ".join(f"{kind} {count}" for kind, count in coverage["not_checked_kinds"].items())
            joined = ",".join(
                f"{key}={escape_property(value)}"
                for key, value in (("file", relative(file.path)), ("title", "opspec.coverage"))
            )
            message = f"{coverage['not_checked']} of {len(file.units)} nodes not checked ({kinds})"
            out.write(f"::notice {joined}::{escape_data(message)}\n")
    for file, _, finding in report.findings():
        if finding.severity == "info" and file.read:
            continue  # a note on every translated graph node would bury the pull request's real annotations
        properties = [("file", relative(file.path))]
        if finding.line is not None:
            properties += [("line", str(finding.line)), ("col", str(finding.column or 1))]
        properties.append(("title", finding.rule))
        joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
        # The annotation sits at the fault; the other places it concerns (the other declaration of a value)
        # are named in its message, as an annotation has one place.
        message = finding.message + "".join(
            f"\n{_place(place)}: {place.message}" for place in finding.related
        )
        out.write(f"::{COMMANDS[finding.severity]} {joined}::{escape_data(message)}\n")


def _place(place: RelatedPlace) -> str:
    if place.line is None:
        return place.path or "the file"
    return f"line {place.line}, column {place.column or 1}"
