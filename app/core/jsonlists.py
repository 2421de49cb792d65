"""Tensor `data` given as JSON lists, read from the body's bytes a slice at a time.

Parsed whole, a body of 4M numbers becomes 4M Python floats in nested lists (8x the body) before the
payload rules see one of them. Here each `"data": [...]` of a large body is lifted out of the bytes,
the rest (dtype, shape, attributes) is parsed as usual, and each lifted list is parsed a slice of whole
rows at a time by pydantic's JSON parser and converted by payload's own rules (`values_to_array`:
the same conversion, element by element) into one array of the tensor's dtype. Memory: the array and
one slice.

This is a fast path only: whatever it is not sure of (strides, a limit crossed, a slice that does not
parse or does not fit the shape, any value a rule refuses) makes `fill` answer False, and the caller
parses the original body the ordinary way, which gives the same answer or the same error as before.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic_core import from_json

from app.core.config import Settings
from app.core.diagnostics import PathError
from app.core.dtypes import DTYPES
from app.core.payload import Layout, values_to_array
from app.core.shapes import is_static, numel

# Text parsed at once: ~16K numbers, ~1 MB of Python objects beside the array. 256 KiB held ~4 MB at
# the same speed (4,000,000 f32 in 340 ms either way), a tenth of the peak of an 18 MB body.
SLICE_BYTES = 1 << 16
# A list shorter than this stays in the body for the ordinary parse: lifting one costs a few parses and
# array conversions of its own, worth it for a long list only. 100,000 one-value lists lifted each took
# ~50 s of CPU; left in place they cost what the ordinary parse costs.
MIN_LIFT_BYTES = 1 << 12
_KEY = b'"data"'
_NONFINITE = (b'"nan"', b'"inf"', b'"-inf"')
_BLOCK = 1 << 16  # at most this many bytes scanned at once for brackets
_FIRST_BLOCK = 1 << 8  # the first scan of a list: doubled up to _BLOCK, so a short list costs its length
_WHITESPACE = b" \t\n\r"


class _Unsure(Exception):
    """The fast path cannot vouch for this list; the ordinary parse decides."""


@dataclass
class Lifted:
    body: bytes  # the body with each lifted list replaced by a placeholder string
    lists: dict[str, tuple[int, int]]  # placeholder -> the list's [start, end) in the original body
    source: bytes

    def fill(self, tensors: list[Any], settings: Settings) -> bool:
        """Put each lifted list, as an array, in the tensor that holds its placeholder; False (and the
        tensors are to be thrown away) when any list is not certainly what the ordinary parse makes."""
        found = 0
        for tensor in tensors:
            key = tensor.data if isinstance(tensor.data, str) else None
            if key not in self.lists:
                continue
            try:
                tensor.data = self._array(tensor, self.lists[key], settings)
            except (_Unsure, PathError, ValueError, TypeError, OverflowError, IndexError, RecursionError):
                return False  # whatever went wrong, the ordinary parse answers it as it always has
            found += 1
        return found == len(self.lists)  # a placeholder anywhere else: not a tensor's data

    def _array(self, tensor: Any, span: tuple[int, int], settings: Settings) -> np.ndarray:
        if tensor.strides is not None or tensor.shape is None or not is_static(tensor.shape):
            raise _Unsure
        shape: tuple[int, ...] = tensor.shape
        count = numel(shape)
        if not 0 < count <= settings.max_elements:
            raise _Unsure  # sizes are refused (or empty nestings judged) by the ordinary path
        dt = DTYPES[tensor.dtype]
        out = np.empty(count, dtype=dt.numpy)
        start, end = span
        if self.source.count(b"[", start, end) == 1:
            shape = (count,)  # a flat list of every element in row-major order
        filled = _read(self.source, start, end, shape, dt, out, 0)
        if filled != count:
            raise _Unsure
        return out.reshape(tensor.shape)


def lift(body: bytes) -> Lifted | None:
    """The body with every `"data": [...]` list lifted out, or None when there is none to lift."""
    parts: list[bytes] = []
    lists: dict[str, tuple[int, int]] = {}
    nonce = secrets.token_hex(8)
    done = 0
    at = body.find(_KEY)
    while at >= 0:
        value = _value_start(body, at)
        if value is not None and _unescaped(body, at):
            end = _list_end(body, value)
            if end is None:
                return None
            if end - value < MIN_LIFT_BYTES:
                at = body.find(_KEY, end)  # short: the ordinary parse reads it where it stands
                continue
            name = f"opspec-data-{nonce}-{len(lists)}"
            parts += [body[done:value], b'"' + name.encode() + b'"']
            lists[name] = (value, end)
            done = end
            at = body.find(_KEY, end)
        else:
            at = body.find(_KEY, at + len(_KEY))
    if not lists:
        return None
    parts.append(body[done:])
    return Lifted(b"".join(parts), lists, body)


def _value_start(body: bytes, at: int) -> int | None:
    """Where the list of a `"data"` key starts, if `"data"` at `at` is a key whose value is a list."""
    position = at + len(_KEY)
    size = len(body)
    while position < size and body[position] in _WHITESPACE:
        position += 1
    if position >= size or body[position] != ord(":"):
        return None
    position += 1
    while position < size and body[position] in _WHITESPACE:
        position += 1
    return position if position < size and body[position] == ord("[") else None


def _unescaped(body: bytes, at: int) -> bool:
    """The quote at `at` is not escaped: an even run of backslashes before it."""
    slashes = 0
    while at - slashes - 1 >= 0 and body[at - slashes - 1] == ord("\\"):
        slashes += 1
    return slashes % 2 == 0


def _list_end(body: bytes, start: int) -> int | None:
    """One past the `]` that closes the list opening at `start`; None when the list holds any string
    other than "nan", "inf", "-inf" (a bracket inside a string would mislead the count)."""
    end = body.find(b"]", start + 1)
    if end < 0 or body.find(b"[", start + 1, end) >= 0:  # nested: count the brackets
        end = _close(body, start + 1, 1, 0)
    if end is None:
        return None
    quotes = body.count(b'"', start, end + 1)
    if quotes and quotes != 2 * sum(body.count(token, start, end + 1) for token in _NONFINITE):
        return None
    return end + 1


def _close(body: bytes, start: int, depth: int, target: int, size: int | None = None) -> int | None:
    """The first `]` in body[start:size] that brings the bracket depth (`depth` at `start`) to `target`."""
    size = len(body) if size is None else size
    step = _FIRST_BLOCK
    while start < size:
        block = np.frombuffer(body, dtype=np.uint8, count=min(step, size - start), offset=start)
        step = min(2 * step, _BLOCK)
        at = np.flatnonzero((block == ord("[")) | (block == ord("]")))  # few: rows, not numbers
        steps = np.where(block[at] == ord("["), 1, -1)
        levels = np.cumsum(steps) + depth
        hits = np.flatnonzero((levels == target) & (steps < 0))
        if hits.size:
            return start + int(at[hits[0]])
        depth = int(levels[-1]) if levels.size else depth
        start += block.size
    return None


def _row_close(body: bytes, start: int, end: int) -> int | None:
    """In a list of rank 2, the next `]` closes a row, whether `start` is inside one or between two;
    were the list not so nested after all, the slice it ends would not parse."""
    close = body.find(b"]", start, end)
    return None if close < 0 else close


def _read(
    body: bytes, start: int, end: int, shape: tuple[int, ...], dt: Any, out: np.ndarray, filled: int
) -> int:
    """Parse the list body[start:end] (shape `shape`) into out[filled:], a slice of whole rows at a time;
    returns how many elements are filled after it."""
    inner = numel(shape[1:])
    position = _skip(body, start + 1, end)  # just inside the list's `[`
    while True:
        if len(shape) == 1:
            stop = body.find(b",", min(position + SLICE_BYTES, end - 1), end - 1)
            last = stop < 0
            stop = piece_end = end - 1 if last else stop
        elif inner <= SLICE_BYTES // 4:  # at least 2 text bytes a number: such a row fits a slice
            limit = min(position + SLICE_BYTES, end - 1)
            if len(shape) == 2:
                close = _row_close(body, limit, end - 1)
            else:
                depth = 1 + body.count(b"[", position, limit) - body.count(b"]", position, limit)
                close = _close(body, limit, depth, 1, end - 1)
            piece_end = (close + 1) if close is not None else _last_row_end(body, position, end)
            stop = _skip(body, piece_end, end)
            last = stop >= end - 1
        else:  # rows too large for one slice: each row read in slices
            close = _close(body, position + 1, 2, 1, end - 1)
            if close is None or body[position] != ord("["):
                raise _Unsure
            filled = _read(body, position, close + 1, shape[1:], dt, out, filled)
            after = _skip(body, close + 1, end)
            if after >= end - 1:
                return filled
            if body[after] != ord(","):
                raise _Unsure
            position = _skip(body, after + 1, end)
            continue
        try:
            # pydantic's own JSON parser: the numbers are the ones the ordinary parse would make
            values = from_json(b"[" + body[position:piece_end] + b"]")
        except (ValueError, RecursionError):
            raise _Unsure from None
        # A slice of bare numbers where rows belong would pass as a flat list; one row in it, and the
        # payload rules judge the slice's nesting like any other.
        if not values or (len(shape) > 1 and type(values[0]) is not list):
            raise _Unsure
        piece = (len(values), *shape[1:])
        if filled + numel(piece) > out.size:
            raise _Unsure
        flat = values_to_array(values, dt, "data", Layout(piece, None, numel(piece)))
        if flat.size != numel(piece):
            raise _Unsure
        out[filled : filled + flat.size] = flat
        filled += flat.size
        if last:
            return filled
        if body[stop] != ord(","):
            raise _Unsure
        position = stop + 1


def _last_row_end(body: bytes, position: int, end: int) -> int:
    """The end of the last row when a slice reaches the list's close: just before its final `]`."""
    stop = end - 1
    while stop > position and body[stop - 1] in _WHITESPACE:
        stop -= 1
    return stop


def _skip(body: bytes, position: int, end: int) -> int:
    while position < end and body[position] in _WHITESPACE:
        position += 1
    return position
