"""JSON strings written by hand on the paths every request takes (the access log line, a verdict),
as json.dumps and pydantic_core.to_json write them: a plain string, printable ASCII with no quote or
backslash, goes between quotes as it is; anything else goes through json.dumps."""

from __future__ import annotations

import json


def is_plain(text: str) -> bool:
    """JSON writes this string between quotes unchanged."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def json_text(text: str) -> str:
    """A JSON string as json.dumps writes it."""
    return f'"{text}"' if is_plain(text) else json.dumps(text)
