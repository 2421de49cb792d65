"""What a reader raises when a file cannot be read at all: where it broke, in the file's own terms."""

from __future__ import annotations

from app.core.numbers import clip


class Malformed(Exception):
    """The file is not a readable graph of its format: answered 422 (HTTP) or exit code 2 (CLI)."""

    def __init__(self, message: str, path: str = "", line: int | None = None, column: int | None = None):
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(where + message)
        self.message = message
        self.path = path or "file"
        self.line = line
        self.column = column


def shown(value: object, limit: int = 60) -> str:
    """A value from the file, as a message quotes it: repr, cut to `limit` characters (a file's value can
    be megabytes long, and an integer past Python's digit limit cannot be written out at all)."""
    try:
        text = repr(value)
    except ValueError:
        return "an integer too long to write out"
    return clip(text, limit)
