"""Reports: the model every run fills (model.py) and one writer per output format.

Each writer is `write(report: RunReport, out: TextIO)`; whatever run built the report (check, verify,
a graph check), every format renders it. FORMATS is the one table of them: `--format`'s choices, the
formats `opspec check --help` and `opspec merge --help` list and the docs' table (docs/cli.md) come from
it. A new format is one module and one row below.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from app.report import gcc, github, junit, sarif, text
from app.report import json as json_report
from app.report.model import RunReport

Writer = Callable[[RunReport, TextIO], None]


@dataclass(frozen=True, slots=True)
class ReportFormat:
    name: str  # what --format takes
    write: Writer
    help: str  # what the format is, in a line or two of `--help`
    use: str  # what it is for, in the docs' table of formats
    suffix: str  # the extension a file of it takes (the writers' snapshots under tests/report/)


FORMATS = (
    ReportFormat(
        "text",
        text.write,
        "file:line:column: severity rule: message, then a summary line (--quiet: the summary only); coloured "
        "at a terminal (NO_COLOR=1 turns it off, FORCE_COLOR=1 on)",
        "people: `file:line:column: severity rule: message`, then a summary line",
        "txt",
    ),
    ReportFormat(
        "json",
        json_report.write,
        "one document: every file and descriptor, verdicts, outputs, findings, summary",
        "tools: ONE document per run with every file (unreadable ones too), every descriptor with its verdict "
        "(and `valid`: true or false, the HTTP API's word), inferred outputs and findings (line and column), "
        "the summary and the exit code",
        "json",
    ),
    ReportFormat(
        "junit",
        junit.write,
        "JUnit XML, a testcase per descriptor (GitLab, Jenkins)",
        "GitLab, Jenkins: a testcase per descriptor (classname the file, name its place and kind), a failure "
        "for an invalid one, an error for a malformed one or an unreadable file",
        "xml",
    ),
    ReportFormat(
        "sarif",
        sarif.write,
        "SARIF 2.1.0 for GitHub code scanning",
        "GitHub code scanning: SARIF 2.1.0 listing the rules the run reports (statement and spec reference, "
        "`helpUri` the rule's page in these docs) and a result per finding, paths relative to the working "
        "directory",
        "sarif",
    ),
    ReportFormat(
        "github",
        github.write,
        "GitHub Actions annotations (::error file=...,line=...,col=...::...)",
        "GitHub Actions annotations: `::error file=...,line=...,col=...,title=RULE::message` on the pull "
        "request's lines",
        "txt",
    ),
    ReportFormat(
        "gcc",
        gcc.write,
        "file:line:column: error: message [RULE], as editors' problem matchers read",
        "editors' problem matchers (VS Code's `$gcc`, Vim's errorformat, Emacs): "
        "`file:line:col: error: message [RULE]`",
        "txt",
    ),
)  # text first: the default

WRITERS: dict[str, Writer] = {row.name: row.write for row in FORMATS}

HELP_WIDTH = 96  # the help's lines at most, about as long as the hand-written ones around them
HELP_INDENT = 10  # "  sarif   " before each format's words


def formats_help() -> str:
    """The `formats:` part of a command's --help: each format and what it is, in the table's order."""
    lines = ["formats:"]
    for row in FORMATS:
        wrapped = textwrap.wrap(row.help, HELP_WIDTH - HELP_INDENT)
        lines.append(f"  {row.name:<{HELP_INDENT - 2}}{wrapped[0]}")
        lines += [" " * HELP_INDENT + line for line in wrapped[1:]]
    return "\n".join(lines) + "\n"
