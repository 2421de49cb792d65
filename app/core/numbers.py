"""Bounded text for values a client chose: integers of any size, long strings, floats without NumPy's repr.

A message that echoes a request value must stay short whatever the value: Python refuses to print an
int of more than 4,300 digits (and a 2,000-digit dim product would be a 2 KB message anyway), and a
5 MB string echoed twice makes a 10 MB answer.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
)

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
INT64_RANGE = "[-9223372036854775808, 9223372036854775807]"
INT64_SCHEMA = {"type": "integer", "minimum": INT64_MIN, "maximum": INT64_MAX}
ECHO_CHARS = 200  # how much of a client's string a message repeats


def format_int(value: int) -> str:
    """An integer as text: in full up to 30 digits, else by its order of magnitude."""
    if -(10**30) < value < 10**30:
        return str(value)
    digits = math.floor(math.log10(abs(value))) + 1  # math.log10 takes ints of any size, to a float
    if 10 ** (digits - 1) > abs(value):  # 10**2200 - 1 rounds up to 2200.0
        digits -= 1
    return f"{'-' if value < 0 else ''}<an integer of {digits:,} digits>"


def format_count(value: int) -> str:
    """A count or size with thousands separators, by order of magnitude past 30 digits."""
    return f"{value:,}" if -(10**30) < value < 10**30 else format_int(value)


def clip(text: str, most: int = ECHO_CHARS) -> str:
    """At most `most` characters of `text`, with "..." where the rest was cut."""
    return text if len(text) <= most else text[: most - 3] + "..."


def show(value: Any) -> str:
    """A request value for a message: short, and as the client wrote it (repr for strings)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return format_int(int(value))
    if isinstance(value, float):
        return repr(float(value))  # float(): never NumPy's np.float64(...) repr
    if isinstance(value, str):
        return clip(repr(value))
    if isinstance(value, list | tuple):
        shown, size = [], 2
        for item in value:
            text = show(item)
            size += len(text) + 2
            if size > ECHO_CHARS:
                shown.append(f"... ({len(value):,} in all)")
                break
            shown.append(text)
        return "[" + ", ".join(shown) + "]"
    return clip(repr(value))


def in_int64(value: int) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError(f"{format_int(value)} is outside the int64 range {INT64_RANGE}")
    return value


def integral(value: Any) -> int:
    """JSON's integer: 3 and 3.0 (JSON Schema counts both), never true or "3"."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{show(value)} is not an integer")
    return value


Integer = Annotated[int, BeforeValidator(integral)]
"""An integer as JSON Schema has it (what the schema says is what is accepted)."""

Int64 = Annotated[
    Integer,
    AfterValidator(in_int64),
    WithJsonSchema(INT64_SCHEMA),
]
"""A strict integer that a real implementation can hold: int64."""


def int64s_as_given(values: Any, items: ValidatorFunctionWrapHandler) -> Any:
    """A wrap validator for a list[Int64] field: Int64 gives an int within int64 back unchanged, so a
    list of only those is its own answer; any other list goes item by item through Int64 (its
    errors, its paths)."""
    if type(values) is list and all_int64(values):
        return list(values)  # a list of its own, as validation gives
    return items(values)


def all_int64(values: list) -> bool:
    """Every item a plain int (not a bool) within int64: what Int64 gives back unchanged."""
    return all(type(v) is int and INT64_MIN <= v <= INT64_MAX for v in values)


F64_RANGE = "[-1.7976931348623157e+308, 1.7976931348623157e+308]"
NOT_FINITE = (
    f"is not a finite number: a JSON number beyond the f64 range {F64_RANGE} (such as 1e400), or a "
    "non-standard NaN/Infinity literal, which opspec refuses"
)


def finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{value!r} {NOT_FINITE}")
    return value


def bounded(value: Any) -> Any:
    """Each number of a number or a list of them: ints in int64, floats finite."""
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, float):
            finite(item)
        elif isinstance(item, int):
            in_int64(item)
    return value


# Strict: JSON's true and false are not numbers (the schema says integer, and so do we).
def _no_bools_or_strings(value: Any) -> Any:
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, bool | str):
            raise ValueError(f"{show(item)} is not a number")
    return value


def _infinity_spelled(value: Any) -> Any:
    """A bound may be infinite, spelled as the wire spells it in data ("inf", "-inf"): a JSON number
    beyond the range (1e400) still is an error, never silently infinity."""
    if value in ("inf", "-inf"):
        return float(value)
    return bounded(_no_bools_or_strings(value))


Numbers = Annotated[float | list[float], BeforeValidator(_no_bools_or_strings), AfterValidator(bounded)]
Bound = Annotated[float, BeforeValidator(_infinity_spelled)]
"""A finite number, or an infinity written "inf" or "-inf": a bound that may be left open (Clamp's)."""
Float = Annotated[float, BeforeValidator(_no_bools_or_strings), AfterValidator(bounded)]
"""One finite number, never a bool or a string: an item of an f32 list attribute (oneDNN's scales)."""
"""An int64 or a finite float, or a list of them: what JSON can spell (1e400 parses as inf; NaN is not
JSON)."""
Int64s = Annotated[
    Integer | list[Integer],
    AfterValidator(bounded),
    WithJsonSchema({"anyOf": [INT64_SCHEMA, {"type": "array", "items": INT64_SCHEMA}]}),
]
