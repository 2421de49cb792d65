"""Tensor payloads: wire data to NumPy arrays and back, exactly.

Exactness rules: 64-bit integers never pass through a float; NaN and the infinities travel as the
strings "nan", "inf", "-inf"; -0.0 stays -0.0; f16 and bf16 are rounded once, to nearest even, from
the decimal's double. Sizes are checked against the limits before anything is allocated.
"""

from __future__ import annotations

import binascii
import math
import sys
from typing import Any, NamedTuple

import ml_dtypes
import numpy as np
import pybase64

from app.core.config import Settings
from app.core.diagnostics import PathError
from app.core.dtypes import DTYPES, DType
from app.core.numbers import NOT_FINITE, format_count, show
from app.core.rounding import round_once
from app.core.shapes import format_shape, is_static, numel
from app.core.tensors import Tensor

NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
# The wire's byte order is little-endian; on such a machine (every one we run on) no swap is needed.
_LITTLE_ENDIAN = sys.byteorder == "little"
F64_MAX = float(np.finfo(np.float64).max)


class PayloadError(PathError):
    """The data does not fit the tensor."""

    fault = "data"  # the common rule it is reported under: `<kind>.inputs.<fault>`


class BufferTooShort(PayloadError):
    """A strided tensor's memory buffer ends before its last element (MLI: not enough capacity)."""

    fault = "capacity"  # reported under `<kind>.inputs.capacity` by ops that have that rule


class LimitExceeded(PathError):
    """A size limit from Settings would be crossed; nothing has been allocated yet."""

    def __init__(self, path: str, limit: str, message: str):
        super().__init__(path, message)
        self.limit = limit  # the Settings field, so the answer can name it


class Layout(NamedTuple):  # a tuple, not a frozen dataclass: built per input per request, its __init__ showed
    """How many elements the payload must hold, and how to view them."""

    shape: tuple[int, ...]
    strides: tuple[int, ...] | None  # elements; None for dense row-major
    buffer: int  # elements the data must provide at least (exactly, when dense)


def layout(tensor: Tensor, path: str) -> Layout:
    shape = tensor.shape
    if not is_static(shape):
        raise PayloadError(
            f"{path}.shape", f"data needs a shape with every dim a known integer; got {format_shape(shape)}"
        )
    static: tuple[int, ...] = shape  # type: ignore[assignment]
    if tensor.strides is None:
        return Layout(static, None, numel(static))
    for axis, stride in enumerate(tensor.strides):
        if stride < 0:
            raise PayloadError(
                f"{path}.strides[{axis}]", f"stride {stride} is negative; strides must be >= 0"
            )
    empty = numel(static) == 0
    # A dim of size 1 never steps, and a tensor with no elements reads nothing, so those strides are
    # never used: 0 in their place keeps NumPy's byte strides (int64) in range whatever was given.
    strides = tuple(0 if empty or d == 1 else s for d, s in zip(static, tensor.strides, strict=True))
    extent = 0 if empty else 1 + sum((d - 1) * s for d, s in zip(static, strides, strict=True))
    return Layout(static, strides, extent)


def decode(tensor: Tensor, path: str, settings: Settings) -> np.ndarray:
    """The tensor's data as an array of its dtype and shape (a strided view when strides are given)."""
    dt = DTYPES[tensor.dtype]
    lay = layout(tensor, path)
    if lay.buffer > settings.max_elements:
        raise LimitExceeded(
            path,
            "max_elements",
            f"{path} holds {format_count(lay.buffer)} elements, above the limit of {settings.max_elements:,} (max_elements)",
        )
    if lay.strides is not None or not lay.buffer:  # dense with no 0 dim: its dims multiply to lay.buffer
        refuse_wide_dims(lay.shape, path, f"{path}.shape", settings)
    data = tensor.data
    if isinstance(data, np.ndarray):
        flat = _from_array(data, dt, f"{path}.data", lay)
    elif isinstance(data, dict):
        flat = _from_base64(data, dt, f"{path}.data", lay, settings)
    else:
        flat = values_to_array(data, dt, f"{path}.data", lay)
    if lay.strides is None:  # dense: the payload held exactly lay.buffer elements, checked above
        return flat if flat.shape == lay.shape else flat.reshape(lay.shape)  # a 1-D payload is its shape
    if flat.size > settings.max_elements:  # a strided buffer may run on past its last element
        raise LimitExceeded(
            path,
            "max_elements",
            f"{path}'s memory buffer holds {flat.size:,} elements, above the limit of {settings.max_elements:,} "
            "(max_elements)",
        )
    itemsize = flat.itemsize
    # Strided over the raw bits, then viewed as the type: as_strided goes through the array interface,
    # which has no spelling for ml_dtypes' types (f8_e5m2 came out as '<f1' and a TypeError, a 500).
    raw = np.lib.stride_tricks.as_strided(
        flat.view(f"u{itemsize}"),
        shape=lay.shape,
        strides=tuple(s * itemsize for s in lay.strides),
        writeable=False,
    )
    return raw.view(flat.dtype)


def buffer_nbytes(array: np.ndarray) -> int:
    """Bytes of the memory an array views: for a strided input, the whole decoded buffer, not numel."""
    largest, node = array.nbytes, array.base
    while node is not None:  # as_strided puts a non-array wrapper between the view and its buffer
        if isinstance(node, np.ndarray):
            largest = max(largest, node.nbytes)
        node = getattr(node, "base", None)
    return largest


def refuse_wide_dims(shape: tuple[int, ...], name: str, path: str, settings: Settings) -> None:
    """A shape whose non-zero dims multiply past max_elements is refused even when a 0 leaves it no
    elements: NumPy multiplies the non-zero dims (and the item size) to lay it out, and that product
    overflows whatever the 0 ([0, 2**24, 2**24, 2**24] as much as [2**63, 0])."""
    spread = math.prod(d for d in shape if d)
    if spread > settings.max_elements:
        what = "has a dim of" if spread == max(shape) else "has non-zero dims multiplying to"
        raise LimitExceeded(
            path,
            "max_elements",
            f"{name} {format_shape(shape)} {what} {format_count(spread)}, above the limit of "
            f"{settings.max_elements:,} (max_elements)",
        )


def is_base64(data: Any) -> bool:
    return isinstance(data, dict) and data.get("encoding") == "base64"


def _from_base64(data: dict, dt: DType, path: str, lay: Layout, settings: Settings) -> np.ndarray:
    # Two keys, "encoding" being "base64" and "bytes" a string: exactly {"encoding", "bytes"}.
    if len(data) != 2 or data.get("encoding") != "base64" or not isinstance(data.get("bytes"), str):
        raise PayloadError(path, 'encoded data must be {"encoding": "base64", "bytes": "<base64 string>"}')
    text = data["bytes"]
    approx = len(text) * 3 // 4
    # A strided buffer may hold padding past its last element, up to the element limit.
    most = lay.buffer if lay.strides is None else max(lay.buffer, settings.max_elements)
    if approx > max(most, 1) * dt.itemsize + 3:
        what = (
            f"{path} holds about {approx:,} bytes, but {format_count(lay.buffer)} elements of {dt.name} need"
        )
        raise PayloadError(path, f"{what} {format_count(lay.buffer * dt.itemsize)}")
    try:
        raw = pybase64.b64decode(text, validate=True)  # SIMD: 16x the standard library's strict decoder
    except (binascii.Error, ValueError) as exc:
        raise PayloadError(path, f"bytes is not valid base64: {exc}") from None
    count, rest = divmod(len(raw), dt.itemsize)
    if rest:
        raise PayloadError(
            path, f"{len(raw)} bytes is not a whole number of {dt.name} elements ({dt.itemsize} bytes each)"
        )
    _check_count(path, count, lay, dt)
    if dt.name in NIBBLES:
        _check_nibbles(raw, dt, path, lay)
    # Read-only over the decoded bytes, no copy on a little-endian machine: kernels never write inputs.
    if _LITTLE_ENDIAN:
        return np.frombuffer(raw, dtype=dt.numpy)
    return np.frombuffer(raw, dtype=dt.numpy.newbyteorder("<")).astype(dt.numpy)


# s4 / u4 travel one element per byte: the value in the low 4 bits with the high 4 bits clear (NumPy's
# ml_dtypes writes them so), or for s4 also sign-extended (an int8 holding -8..7). Any other byte would
# be read as its low 4 bits alone, silently: it is refused.
NIBBLES = {"s4": "0x00-0x0F, or 0xF8-0xFF for -8..-1", "u4": "0x00-0x0F"}


def _check_nibbles(raw: bytes, dt: DType, path: str, lay: Layout) -> None:
    octets = np.frombuffer(raw, dtype=np.uint8)
    bad = octets > 0x0F
    if dt.name == "s4":
        bad &= octets < 0xF8
    if bad.any():
        position = int(np.argmax(bad))
        shape = lay.shape if lay.strides is None else None
        raise PayloadError(
            f"{path}{element_index(position, shape)}",
            f"byte 0x{int(octets[position]):02X} is not a {dt.name} element; each byte holds one, as "
            f"{NIBBLES[dt.name]}",
        )


def _from_array(data: np.ndarray, dt: DType, path: str, lay: Layout) -> np.ndarray:
    """An array given in-process (the library face): used as it is, never copied, never written.

    Its dtype must be the tensor's own NumPy type (MLI's types as their raw integers), so nothing is
    converted: a cast here could round or wrap where the wire's checks would refuse."""
    if data.dtype != dt.numpy:
        raise PayloadError(
            path, f"data is an array of {data.dtype}, but a {dt.name} tensor takes an array of {dt.numpy}"
        )
    if lay.strides is None and data.shape != lay.shape:
        raise PayloadError(
            path,
            f"data has shape {format_shape(data.shape)}, but the tensor's shape is {format_shape(lay.shape)}",
        )
    if lay.strides is not None and data.ndim != 1:
        raise PayloadError(path, "with strides, data is the flat memory buffer: a 1-D array")
    _check_count(path, data.size, lay, dt)
    view = data.reshape(-1) if lay.strides is not None else data.view()
    view.flags.writeable = False  # kernels take their inputs read-only; the caller's array is theirs
    return view


def _check_count(path: str, count: int, lay: Layout, dt: DType) -> None:
    if lay.strides is None and count != lay.buffer:
        raise PayloadError(
            path,
            f"data holds {count:,} values, but shape {format_shape(lay.shape)} needs {format_count(lay.buffer)}",
        )
    if lay.strides is not None and count < lay.buffer:
        raise BufferTooShort(
            path,
            f"memory buffer holds {count:,} {dt.name} elements, but shape {format_shape(lay.shape)} with "
            f"strides {show(list(lay.strides))} reaches element {format_count(lay.buffer - 1)}",
        )


def values_to_array(data: Any, dt: DType, path: str, lay: Layout) -> np.ndarray:
    """Wire values (nested lists, or the flat buffer with strides) as a flat array of the dtype, by the
    payload rules; app/core/jsonlists.py feeds it a body's lists a slice of rows at a time."""
    if data is None:
        raise PayloadError(path, "no data given")
    if lay.strides is not None:
        if not isinstance(data, list) or any(isinstance(v, list) for v in data):
            raise PayloadError(path, "with strides, data is the flat memory buffer: one list of values")
        expected: tuple[int, ...] | None = None
    else:
        expected = lay.shape
    try:
        values = np.array(data, dtype=object)
    except ValueError:
        raise PayloadError(
            path, "data is ragged: nested lists must have equal lengths at each level"
        ) from None
    if (
        expected is not None
        and len(expected) != 1
        and values.ndim == 1
        and values.size == numel(expected)
        and not any(isinstance(v, list) for v in values)
    ):
        expected = None  # a flat list of every element in row-major order (as MLI and oneDNN hold them)
    # Nested lists cannot spell dims after a 0 ([2, 0, 4] is [[], []]): any empty nesting fits an empty shape.
    if expected is not None and values.shape != expected and not (values.size == 0 == numel(expected)):
        if any(isinstance(v, list) for v in values.reshape(-1)):
            raise PayloadError(path, "data is ragged: nested lists must have equal lengths at each level")
        given = format_shape(values.shape)
        flat_too = f" (or a flat list of all {format_count(numel(expected))})" if values.ndim == 1 else ""
        raise PayloadError(
            path, f"data has shape {given}, but the tensor's shape is {format_shape(expected)}{flat_too}"
        )
    flat = values.reshape(-1)
    _check_count(path, flat.size, lay, dt)
    if dt.is_float:
        return _floats(flat, dt, path, expected)
    if dt.category == "bool":
        _only(flat, (bool,), "true or false", path, expected)
        return flat.astype(np.bool_)
    return _integers(flat, dt, path, expected)


def element_index(position: int, shape: tuple[int, ...] | None) -> str:
    """The index of a row-major position as a request path suffix: `[i]`, or `[i][j]...` by shape."""
    if shape is None or len(shape) <= 1:
        return f"[{position}]"
    return "".join(f"[{i}]" for i in np.unravel_index(position, shape))


def _only(flat: np.ndarray, allowed: tuple[type, ...], expected: str, path: str, shape) -> None:
    if all(t in allowed for t in set(map(type, flat))):
        return
    position, value = next((i, v) for i, v in enumerate(flat) if type(v) not in allowed)
    raise PayloadError(f"{path}{element_index(position, shape)}", f"value {show(value)} is not {expected}")


def _floats(flat: np.ndarray, dt: DType, path: str, shape) -> np.ndarray:
    """One rule for every float dtype: a finite number beyond the dtype's finite range is an error
    naming the value and the range; the non-finite values are written "nan", "inf", "-inf"."""
    kinds = set(map(type, flat))
    if not kinds <= {int, float, str}:
        _only(flat, (int, float, str), 'a number or one of "nan", "inf", "-inf"', path, shape)
    spelled = None  # where the strings were: their non-finite values are meant
    if str in kinds:
        spelled = np.zeros(flat.size, dtype=bool)
        for position, value in enumerate(flat):
            if type(value) is str:
                if value not in NONFINITE:
                    raise PayloadError(
                        f"{path}{element_index(position, shape)}",
                        f'string {show(value)} is not a value; the only strings are "nan", "inf", "-inf"',
                    )
                flat[position] = NONFINITE[value]
                spelled[position] = True
    try:
        doubles = flat.astype(np.float64)
    except OverflowError:  # an int past f64's range: find it without printing its digits
        position = next(i for i, v in enumerate(flat) if type(v) is int and abs(v) > F64_MAX)
        raise PayloadError(
            f"{path}{element_index(position, shape)}",
            f"value {show(flat[position])} is outside the finite range of {dt.name} {_range(dt)}",
        ) from None
    nonfinite = ~np.isfinite(doubles)
    if spelled is not None:
        nonfinite &= ~spelled
    if nonfinite.any():  # JSON has no such numbers: 1e400 parsed as inf, or NaN / Infinity literals
        position = int(np.argmax(nonfinite))
        raise PayloadError(
            f"{path}{element_index(position, shape)}",
            f'value {show(float(doubles[position]))} {NOT_FINITE}; write "nan", "inf", "-inf" as strings',
        )
    if spelled is not None and not has_infinity(dt):
        infinite = spelled & np.isinf(doubles)
        if infinite.any():
            position = int(np.argmax(infinite))
            raise PayloadError(
                f"{path}{element_index(position, shape)}",
                f"{dt.name} has no infinity; {show(flat[position])} cannot be held (its values are finite or NaN)",
            )
    result = to_float_type(doubles, dt)
    # Past the finite range a float type gives inf, or NaN for one without infinity (f8_e4m3).
    overflow = ~np.isfinite(result) & np.isfinite(doubles)
    if overflow.any():
        position = int(np.argmax(overflow))
        raise PayloadError(
            f"{path}{element_index(position, shape)}",
            f"value {show(float(doubles[position]))} is outside the finite range of {dt.name} {_range(dt)}",
        )
    return result


def _range(dt: DType) -> str:
    return f"[{float(dt.lowest)!r}, {float(dt.highest)!r}]"


def has_infinity(dt: DType) -> bool:
    return dt.name not in NO_INFINITY


NO_INFINITY = frozenset({"f8_e4m3"})  # e4m3fn: finite values and NaN only


# Types ml_dtypes rounds f64 into through f32 (two roundings); f16, f32 and f64 round directly.
def to_float_type(doubles: np.ndarray, dt: DType) -> np.ndarray:
    """Round doubles to `dt` once, to nearest even (app/core/rounding.py)."""
    return round_once(doubles, dt.numpy)


def _integers(flat: np.ndarray, dt: DType, path: str, shape) -> np.ndarray:
    _only(flat, (int,), f"an integer ({dt.name})", path, shape)
    if flat.size:
        low, high = int(ml_dtypes.iinfo(dt.numpy).min), int(ml_dtypes.iinfo(dt.numpy).max)
        smallest, largest = min(flat), max(flat)
        if smallest < low or largest > high:
            bad = smallest if smallest < low else largest
            position = next(i for i, v in enumerate(flat) if v == bad)
            raise PayloadError(
                f"{path}{element_index(position, shape)}",
                f"value {show(bad)} is outside the range of {dt.name} [{low}, {high}]",
            )
    return flat.astype(dt.numpy)


# --- out ---------------------------------------------------------------------------------------


def encode(array: np.ndarray, dtype: str, *, as_base64: bool) -> Any:
    """An array to wire data: base64 of little-endian values, or nested lists with exact values."""
    dt = DTYPES[dtype]
    array = np.asarray(array, dtype=dt.numpy)  # not ascontiguousarray: it turns rank 0 into rank 1
    if as_base64:
        raw = array.tobytes() if _LITTLE_ENDIAN else array.astype(dt.numpy.newbyteorder("<")).tobytes()
        return {"encoding": "base64", "bytes": pybase64.b64encode_as_string(raw)}
    if not dt.is_float:
        return array.tolist()
    doubles = array.astype(np.float64)  # exact for every float type we have
    finite = np.isfinite(doubles)
    if finite.all():
        return doubles.tolist()
    values = doubles.astype(object)
    values[np.isnan(doubles)] = "nan"
    values[np.isposinf(doubles)] = "inf"
    values[np.isneginf(doubles)] = "-inf"
    return values.tolist()
