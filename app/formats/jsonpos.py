"""JSON with positions: where each value starts, as a map from its path to (line, column).

The checker parses with the C `json` module (fast) and scans again with this only for a file that has
findings, so a clean file costs nothing extra. The scan is a loop over tokens with an explicit stack:
no recursion, so any nesting depth is safe, and any input ends in a map or a JSONPosError that says
where the text stops being JSON. Lines and columns are 1-based; columns count characters.

Paths read like the request paths diagnostics carry: "" is the root, then "ops[2].attrs.axes[0]".
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping

Position = tuple[int, int]

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# Python's json accepts these too; the scan follows the parser it stands beside.
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")


class JSONPosError(ValueError):
    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"{message} (line {line}, column {column})")
        self.message = message
        self.line = line
        self.column = column


class Lines:
    """Offset -> (line, column) by binary search over where each line starts."""

    def __init__(self, text: str):
        starts = [0]
        find = text.find
        at = find("\n")
        while at != -1:
            starts.append(at + 1)
            at = find("\n", at + 1)
        self.starts = starts

    def position(self, offset: int) -> Position:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def positions(text: str, max_depth: int = 10_000) -> dict[str, Position]:
    """Where each value in `text` starts. Raises JSONPosError at the first fault, or where nesting goes
    deeper than `max_depth`."""
    lines = Lines(text)
    found: dict[str, Position] = {}
    # Each frame: [path, is_object, next index or pending key]. `expect` is what may come next.
    stack: list[list] = []
    end = len(text)
    at = _WS.match(text, 0).end()  # type: ignore[union-attr]
    expect = "value"

    def fail(message: str, offset: int) -> JSONPosError:
        return JSONPosError(message, *lines.position(min(offset, end)))

    while True:
        if expect == "value":
            if stack:
                frame = stack[-1]
                path = _child(frame[0], frame[2])
            else:
                path = ""
            if at >= end:
                raise fail("Expecting value", at)
            found[path] = lines.position(at)
            char = text[at]
            if char == "{" or char == "[":
                if len(stack) >= max_depth:
                    raise fail(f"nesting deeper than {max_depth} levels", at)
                is_object = char == "{"
                stack.append([path, is_object, 0])
                at = _WS.match(text, at + 1).end()  # type: ignore[union-attr]
                closer = "}" if is_object else "]"
                if at < end and text[at] == closer:
                    stack.pop()
                    at += 1
                    expect = "after"
                elif is_object:
                    expect = "key"
                else:
                    expect = "value"
                continue
            if char == '"':
                match = _STRING.match(text, at)
                if match is None:
                    raise fail("Unterminated string or invalid escape", at)
                at = match.end()
            else:
                match = _NUMBER.match(text, at)
                literal = next((word for word in _LITERALS if text.startswith(word, at)), None)
                if literal is not None and (match is None or len(literal) > match.end() - at):
                    at += len(literal)
                elif match is not None:
                    at = match.end()
                else:
                    raise fail("Expecting value", at)
            expect = "after"
        elif expect == "key":
            if at >= end or text[at] != '"':
                raise fail("Expecting property name enclosed in double quotes", at)
            match = _STRING.match(text, at)
            if match is None:
                raise fail("Unterminated string or invalid escape", at)
            key = match.group()
            # Only keys with escapes need the decoder; plain keys are their text between the quotes.
            stack[-1][2] = key[1:-1] if "\\" not in key else _decode_key(key)
            at = _WS.match(text, match.end()).end()  # type: ignore[union-attr]
            if at >= end or text[at] != ":":
                raise fail("Expecting ':' delimiter", at)
            at = _WS.match(text, at + 1).end()  # type: ignore[union-attr]
            expect = "value"
            continue
        # after a value: a comma, the container's end, or (at the top) the end of the text
        at = _WS.match(text, at).end()  # type: ignore[union-attr]
        if not stack:
            if at != end:
                raise fail("Extra data", at)
            return found
        frame = stack[-1]
        char = text[at] if at < end else ""
        if char == ",":
            at = _WS.match(text, at + 1).end()  # type: ignore[union-attr]
            if frame[1]:
                expect = "key"
            else:
                frame[2] += 1
                expect = "value"
        elif char == ("}" if frame[1] else "]"):
            stack.pop()
            at += 1
            expect = "after"
        else:
            raise fail("Expecting ',' delimiter", at)


def _decode_key(quoted: str) -> str:
    import json

    return json.loads(quoted)


def parent(path: str) -> str | None:
    """The path one level up: "a.b[2]" -> "a.b" -> "a" -> ""; None above the root."""
    if not path:
        return None
    cut = max(path.rfind("."), path.rfind("["))
    return path[:cut] if cut > 0 else ""


def locate(found: Mapping[str, Position], path: str) -> Position | None:
    """The position of `path`, or of its nearest parent that exists (a missing key points at the object
    that lacks it)."""
    current: str | None = path
    while current is not None:
        position = found.get(current)
        if position is not None:
            return position
        current = parent(current)
    return None


def join(prefix: str, path: str) -> str:
    """A path inside a value at `prefix`: join("ops[2]", "attrs.axes[0]") -> "ops[2].attrs.axes[0]"."""
    if not prefix:
        return path
    if not path:
        return prefix
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"
