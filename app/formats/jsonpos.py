"""JSON with positions: where each value starts, as a map from its path to (line, column).

The checker parses with the C `json` module (fast) and scans again with this only for a file that has
findings, so a clean file costs nothing extra. The scan is a loop over tokens with an explicit stack:
no recursion, so any nesting depth is safe, and any input ends in a map or a JSONPosError that says
where the text stops being JSON. Lines and columns are 1-based; columns count characters.

Paths read like the request paths diagnostics carry: "" is the root, then "ops[2].attrs.axes[0]".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from json.decoder import scanstring

import numpy as np

Position = tuple[int, int]

# After json.loads has accepted the text, a token is a string, a run of scalar characters (numbers,
# true/false/null, NaN, -Infinity) or one structural character.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^\s{}\[\],:"]+|[{}\[\],:]', re.S)


class JSONPosError(ValueError):
    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"{message} (line {line}, column {column})")
        self.message = message
        self.line = line
        self.column = column


class Lines:
    """Offset -> (line, column) by binary search over where each line starts."""

    def __init__(self, text: str | bytes):
        # Where the newlines are, found by NumPy over the text's code points (one byte each when it is
        # ASCII, else four): a 10 MB file has half a million lines, and a str.find loop took 70 ms.
        # (Bytes are taken as ASCII text: a reader gives them only so.)
        if isinstance(text, bytes):
            codes = np.frombuffer(text, np.uint8)
        elif text.isascii():
            codes = np.frombuffer(text.encode("ascii"), np.uint8)
        else:
            codes = np.frombuffer(text.encode("utf-32-le"), np.uint32)
        newlines = np.flatnonzero(codes == 10)
        del codes
        # Kept as an array (8 bytes a line), not a list of ints (about 40): a 40 MB file of two million
        # lines would hold 80 MB in the list alone. int64, as the offsets searched for are: an array of
        # another type would be converted whole on every search.
        starts = np.empty(len(newlines) + 1, np.int64)
        starts[0] = 0
        starts[1:] = newlines
        starts[1:] += 1
        self.starts = starts

    def position(self, offset: int) -> Position:
        line = int(np.searchsorted(self.starts, offset, "right"))
        return line, offset - int(self.starts[line - 1]) + 1

    def positions(self, offsets: list[int]) -> tuple[list[int], list[int]]:
        """The lines and columns of many offsets at once."""
        at = np.asarray(offsets, np.int64)
        lines = np.searchsorted(self.starts, at, "right")
        return lines.tolist(), (at - self.starts[lines - 1] + 1).tolist()


class Positions(Mapping[str, Position]):
    """Path -> (line, column), kept as offsets and turned into lines only for the paths looked up."""

    def __init__(self, offsets: dict[str, int], lines: Lines):
        self.offsets = offsets
        self.lines = lines

    def __getitem__(self, path: str) -> Position:
        return self.lines.position(self.offsets[path])

    def __contains__(self, path: object) -> bool:
        return path in self.offsets

    def __iter__(self) -> Iterator[str]:
        return iter(self.offsets)

    def __len__(self) -> int:
        return len(self.offsets)


def positions(text: str, max_depth: int = 10_000) -> Positions:
    """Where each value in `text` starts. Raises JSONPosError at the first fault, or where nesting goes
    deeper than `max_depth`. Safe on any input: no recursion, memory linear in the text."""
    lines = Lines(text)
    try:
        json.loads(text)  # in C: the grammar is checked here, so the scan below may trust it
    except json.JSONDecodeError as exc:
        raise JSONPosError(exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:
        pass  # deeper than the C parser goes: the scan still says where each value starts (or where
        # nesting passes max_depth), but the grammar past that depth goes unchecked
    return Positions(_scan(text, max_depth, lines), lines)


def _scan(text: str, max_depth: int, lines: Lines) -> dict[str, int]:
    found: dict[str, int] = {}
    stack: list[tuple[str, bool, int, str]] = []  # the enclosing containers' state, innermost last
    path = ""  # the innermost container's path
    in_object = expect_key = False
    index = 0
    key = ""
    for match in _TOKEN.finditer(text):
        token = match.group()
        char = token[0]
        if char == ",":
            if in_object:
                expect_key = True
            else:
                index += 1
            continue
        if char == ":":
            continue
        if char == "}" or char == "]":
            path, in_object, index, key = stack.pop()
            expect_key = False
            continue
        if expect_key:
            key = token[1:-1] if "\\" not in token else json.loads(token)
            expect_key = False
            continue
        if not stack:
            here = ""
        elif in_object:
            here = f"{path}.{key}" if path else key
        else:
            here = f"{path}[{index}]"
        found[here] = match.start()
        if char == "{" or char == "[":
            if len(stack) >= max_depth:
                raise JSONPosError(f"nesting deeper than {max_depth} levels", *lines.position(match.start()))
            stack.append((path, in_object, index, key))
            path, in_object, index, key = here, char == "{", 0, ""
            expect_key = in_object
    return found


_WS = re.compile(r"[ \t\n\r]*")
_STEP = re.compile(r"\[(\d+)\]|\.?([^.\[]+)")
_DECODER = json.JSONDecoder()


def find(text: str, paths: Iterable[str]) -> dict[str, Position]:
    """Where a few paths' values start (or their nearest existing parent's), for text json.loads has
    accepted: each walk skips the siblings on its way with the C decoder, so a file's other values cost
    next to nothing. The answers equal `locate(positions(text), path)`."""
    lines = Lines(text)
    found: dict[str, Position] = {}
    for path in paths:
        if path not in found:
            try:
                offset = _walk(text, path)
            except (RecursionError, ValueError, IndexError):  # a sibling nested past the C decoder
                position = locate(positions(text), path)
                found[path] = position if position is not None else (1, 1)
                continue
            found[path] = lines.position(offset)
    return found


def _walk(text: str, path: str) -> int:
    """The offset where `path`'s value starts, or where its nearest existing parent does."""
    ws = _WS.match
    at = ws(text, 0).end()  # type: ignore[union-attr]
    for index, key in _STEP.findall(path):
        opener = text[at]
        if index:
            if opener != "[":
                return at
            start = at
            at = ws(text, at + 1).end()  # type: ignore[union-attr]
            if text[at] == "]":
                return start
            for _ in range(int(index)):
                at = ws(text, _DECODER.raw_decode(text, at)[1]).end()  # type: ignore[union-attr]
                if text[at] == "]":
                    return start
                at = ws(text, at + 1).end()  # type: ignore[union-attr]  # past the comma
        else:
            if opener != "{":
                return at
            start = at
            match = None
            at = ws(text, at + 1).end()  # type: ignore[union-attr]
            while text[at] != "}":
                name, at = scanstring(text, at + 1)
                at = ws(text, ws(text, at).end() + 1).end()  # type: ignore[union-attr]  # past the colon
                if name == key:
                    match = at  # the last duplicate wins, as in json.loads
                at = ws(text, _DECODER.raw_decode(text, at)[1]).end()  # type: ignore[union-attr]
                if text[at] == ",":
                    at = ws(text, at + 1).end()  # type: ignore[union-attr]
            if match is None:
                return start
            at = match
    return at


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
