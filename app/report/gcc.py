"""GCC's diagnostic lines, `file:line:column: error: message [RULE]`, as editors' problem matchers
(VS Code's $gcc, Vim's errorformat, Emacs' compilation mode) read them: one line per finding (and a
note line for each other place it concerns), paths relative to the working directory, no summary (it
goes to stderr)."""

from __future__ import annotations

from typing import TextIO

from app.report.locations import relative
from app.report.model import RunReport

SEVERITIES = {"error": "error", "warning": "warning", "info": "note"}


def write(report: RunReport, out: TextIO) -> None:
    for file, _, finding in report.findings():
        # A matcher needs a line: a finding on the file as a whole points at its start.
        where = f"{relative(file.path)}:{finding.line or 1}:{finding.column or 1}"
        message = " ".join(finding.message.split("\n"))  # one line per finding
        out.write(f"{where}: {SEVERITIES[finding.severity]}: {message} [{finding.rule}]\n")
        for place in finding.related:  # as GCC says "note: previous declaration is here"
            there = f"{relative(file.path)}:{place.line or 1}:{place.column or 1}"
            out.write(f"{there}: note: {' '.join(place.message.split(chr(10)))}\n")
