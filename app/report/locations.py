"""Where a finding is, as each format writes it."""

from __future__ import annotations

import functools
import os
from pathlib import PurePath

STDIN_NAME = "stdin"  # how a report names standard input where it needs a file name


def relative(path: str) -> str:
    """The file's path relative to the working directory, with forward slashes, as CI systems match
    it against the repository; a path outside stays absolute."""
    return _relative(path, os.getcwd())


@functools.lru_cache(maxsize=4096)  # one file's findings all ask for the same path
def _relative(path: str, cwd: str) -> str:
    if path == "-":
        return STDIN_NAME
    try:
        relative = os.path.relpath(path, cwd)
    except ValueError:  # another drive, on Windows
        relative = os.path.join(cwd, path)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        relative = os.path.normpath(os.path.join(cwd, path))
    return PurePath(relative).as_posix()


def compiler_style(path: str, line: int | None, column: int | None) -> str:
    """`file:line:column`, or just `file` when there is no position (a finding's, a unit's)."""
    name = "<stdin>" if path == "-" else path
    if line is None:
        return name
    return f"{name}:{line}:{column}"
