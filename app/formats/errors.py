"""What a reader raises when a file cannot be read at all: where it broke, in the file's own terms."""

from __future__ import annotations


class Malformed(Exception):
    """The file is not a readable graph of its format: answered 422 (HTTP) or exit code 2 (CLI)."""

    def __init__(self, message: str, path: str = "", line: int | None = None, column: int | None = None):
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(where + message)
        self.message = message
        self.path = path or "file"
        self.line = line
        self.column = column
