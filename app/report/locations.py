"""Where a finding is, as each format writes it."""

from __future__ import annotations

import functools
import os
from pathlib import PurePath

from app.report.model import Finding

STDIN_NAME = "stdin"  # how a report names standard input where it needs a file name


@functools.lru_cache(maxsize=4096)  # one file's findings all ask for the same path
def relative(path: str) -> str:
    """The file's path relative to the working directory, with forward slashes, as CI systems match
    it against the repository; a path outside stays absolute."""
    if path == "-":
        return STDIN_NAME
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive, on Windows
        relative = os.path.abspath(path)
    if relative.startswith(".."):
        relative = os.path.abspath(path)
    return PurePath(relative).as_posix()


def compiler_style(path: str, finding: Finding) -> str:
    """`file:line:column`, or just `file` when the finding has no position."""
    name = "<stdin>" if path == "-" else path
    if finding.line is None:
        return name
    return f"{name}:{finding.line}:{finding.column}"
