"""Comparing an implementation's output with the spec's, exactly, and what ops declare to explain it.

The comparison is on the bits: -0 against +0 is a difference, while two NaNs are equal whatever their
payloads (no spec fixes a NaN's payload). An op whose value is not defined exactly (a transcendental
function) states a Tolerance; a difference within it is classed `rounding`, and an answer whose only
differences are `rounding` ones conforms (verify still counts them). Big tensors are compared in chunks,
so a comparison never holds more than a chunk's worth of temporaries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

CHUNK = 1 << 16  # elements compared at once
FIRST = 20  # mismatches listed one by one, in row-major order


@dataclass(frozen=True)
class MismatchClass:
    id: str
    description: str  # one line, for GET /v1/ops/{kind}


FLOAT_CLASSES = (
    MismatchClass("nan_dropped", "A number where NaN is due: a NaN among the operands was skipped or lost."),
    MismatchClass("nan_invented", "NaN where a number is due."),
    MismatchClass("signed_zero", "-0 where +0 is due, or +0 where -0 is due (-0 < +0 in these specs)."),
)
VALUE = MismatchClass("value", "Any other wrong value.")
ROUNDING = MismatchClass(
    "rounding",
    "Within the op's stated tolerance of the spec's value, but not bit equal (another rounding or "
    "approximation of an inexact function); conformant, and counted.",
)


@dataclass(frozen=True)
class Tolerance:
    """How far an implementation's answer may lie from the reference kernel's and still conform, for ops
    whose value is not defined exactly (transcendental functions, sums in another order): within `ulps`
    units in the last place of the output dtype, or within `absolute` (for values near 0)."""

    ulps: int
    absolute: float = 0.0
    why: str = ""  # what makes the value inexact, for GET /v1/ops/{kind}


@dataclass(frozen=True)
class Case:
    """What a classifier may look at: the descriptor, its inputs, the spec's outputs and the given ones."""

    descriptor: Any
    inputs: Sequence[np.ndarray]
    expected: Sequence[np.ndarray]
    given: Sequence[np.ndarray]


@dataclass(frozen=True)
class Modelled:
    """A modelled implementation's answer on one case, and where on these inputs it departs from the spec."""

    outputs: list[np.ndarray]
    departures: str  # e.g. "NaN ignored in segments 3, 7"


@dataclass(frozen=True)
class Implementation:
    """A real implementation's documented departure from the spec, as an alternative kernel."""

    name: str  # "OpenVINO 2026.4 CPU"
    evidence: str  # where the behaviour is recorded
    run: Callable[
        [Any, Sequence[np.ndarray], Sequence[np.ndarray]], Modelled | None
    ]  # None: not modelled here


# (case, output index, flat positions, expected values, given values) -> a class id per position, or ""
Classify = Callable[[Case, int, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
# (case, output index, flat position, expected value, given value, class id) -> one sentence, or None
Explain = Callable[[Case, int, int, Any, Any, str], str | None]


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint8 if a.dtype == np.bool_ else f"u{a.itemsize}")


def equal_bits(a: np.ndarray, b: np.ndarray, is_float: bool) -> np.ndarray:
    """Elementwise: the same bits, or both NaN (arrays of one dtype, broadcast together)."""
    same = _bits(np.ascontiguousarray(a)) == _bits(np.ascontiguousarray(b))
    if is_float and not same.all():
        same |= np.isnan(a) & np.isnan(b)  # ml_dtypes gives bf16 its own isnan
    return same


def mismatch_chunks(
    expected: np.ndarray, given: np.ndarray, is_float: bool, chunk: int = CHUNK
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(flat positions, expected values, given values) of the mismatches, chunk by chunk, in row-major order."""
    want = np.ascontiguousarray(expected).reshape(-1)  # no copy: kernels and payloads give contiguous arrays
    got = np.ascontiguousarray(given).reshape(-1)
    for start in range(0, want.size, chunk):
        w, g = want[start : start + chunk], got[start : start + chunk]
        where = np.flatnonzero(~equal_bits(w, g, is_float))
        if where.size:
            yield start + where, w[where], g[where]


def identical(expected: np.ndarray, given: np.ndarray, is_float: bool) -> bool:
    return expected.shape == given.shape and next(mismatch_chunks(expected, given, is_float), None) is None


def float_classes(expected: np.ndarray, given: np.ndarray) -> np.ndarray:
    """The op-independent class of each float mismatch, "" where none applies."""
    classes = np.full(expected.shape, "", dtype=object)
    want_nan, got_nan = np.isnan(expected), np.isnan(given)
    classes[want_nan & ~got_nan] = "nan_dropped"
    classes[~want_nan & got_nan] = "nan_invented"
    classes[(expected == 0) & (given == 0)] = "signed_zero"
    return classes


def listing(noun: str, values: Sequence[Any], most: int = 8) -> str:
    """'segment 3', 'segments 3, 7' or 'segments 1, 2, ..., 8 and 12 more': what a departure touches."""
    shown = ", ".join(str(v) for v in values[:most])
    more = f" and {len(values) - most} more" if len(values) > most else ""
    return f"{noun}{'s' if len(values) > 1 else ''} {shown}{more}"


def index_of(position: int, shape: tuple[int, ...]) -> list[int]:
    """A flat row-major position as one index per dim ([] for a scalar)."""
    return [int(i) for i in np.unravel_index(position, shape)]


def index_text(position: int, shape: tuple[int, ...]) -> str:
    return str(index_of(position, shape))


def differing_positions(expected: np.ndarray, other: np.ndarray, is_float: bool, most: int = 8) -> str:
    """Where two answers of one shape differ, as text: '[0, 1], [1, 2] and 3 more'."""
    shown: list[str] = []
    total = 0
    for at, _, _ in mismatch_chunks(expected, other, is_float):
        total += at.size
        shown.extend(index_text(int(p), expected.shape) for p in at[: most - len(shown)])
    return ", ".join(shown) + (f" and {total - len(shown)} more" if total > len(shown) else "")


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise, how many values of the arrays' float dtype lie from a to b (+0 and -0 are one
    value): the bits read as sign and magnitude, mapped onto one ordered integer line. NaN and
    infinities give meaningless counts; callers class those first."""
    unsigned = f"u{a.itemsize}"
    sign = np.uint64(1) << np.uint64(8 * a.itemsize - 1)

    def line(x: np.ndarray) -> np.ndarray:
        bits = np.ascontiguousarray(x).view(unsigned).astype(np.uint64)
        magnitude = (bits & (sign - np.uint64(1))).astype(np.int64)
        return np.where(bits & sign, -magnitude, magnitude)

    return np.abs(line(a) - line(b))


def within_tolerance(tolerance: Tolerance, expected: np.ndarray, given: np.ndarray) -> np.ndarray:
    """Elementwise: given lies within `tolerance` of expected (both finite, of one float dtype): at most
    `ulps` values of the dtype away, or at most `absolute` away."""
    finite = np.isfinite(expected) & np.isfinite(given)
    near = ulp_distance(expected, given) <= tolerance.ulps
    if tolerance.absolute:
        with np.errstate(over="ignore", invalid="ignore"):
            gap = np.abs(expected.astype(np.float64) - given.astype(np.float64))
        near |= gap <= tolerance.absolute
    return finite & near
