"""Dims and shapes, with the two rules every op family shares: axis normalisation and broadcasting.

A dim is an int >= 0, a symbol such as "N" (a size we know by name only), or None (unknown; the wire
spells it -1, null or "?"). A shape is a tuple of dims, or None when even the rank is unknown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

Dim = int | str | None
Shape = tuple[Dim, ...]

SYMBOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_dim(value: object) -> Dim:
    """A wire dim to our form; ValueError says what a dim may be."""
    if isinstance(value, bool):
        raise ValueError(f"dim {value!r} is a boolean; a dim is an integer >= 0, -1, null, '?' or a symbol")
    if value is None or value == "?" or value == -1:
        return None
    if isinstance(value, int):
        if value < -1:
            raise ValueError(f"dim {value} is negative; a dim is an integer >= 0, or -1 for unknown")
        return value
    if isinstance(value, str) and SYMBOL.match(value):
        return value
    raise ValueError(
        f"dim {value!r} is not a dim; a dim is an integer >= 0, -1 / null / '?' for unknown, "
        "or a symbol such as 'N'"
    )


def wire_dim(dim: Dim) -> int | str:
    return -1 if dim is None else dim


def wire_shape(shape: Shape | None) -> list[int | str] | None:
    return None if shape is None else [wire_dim(d) for d in shape]


def is_static(shape: Shape | None) -> bool:
    return shape is not None and all(isinstance(d, int) for d in shape)


def numel(shape: Shape) -> int:
    """Element count of a static shape (math.prod is exact: no int64 overflow on huge dims)."""
    return math.prod(shape)  # type: ignore[arg-type]


def format_shape(shape: Shape | None) -> str:
    if shape is None:
        return "[?] (unknown rank)"
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def dims_conflict(a: Dim, b: Dim) -> bool:
    """True only when two dims are provably different: two known integers that differ.

    A symbol may stand for any size, so "N" against 3 or "N" against "M" is not a conflict."""
    return isinstance(a, int) and isinstance(b, int) and a != b


# --- axes -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AxisProblem:
    position: int  # index into the axes list as given
    kind: str  # "range" or "duplicate"
    message: str


@dataclass(frozen=True)
class NormalizedAxes:
    axes: tuple[int, ...]  # in the order given, each in [0, rank)
    problems: tuple[AxisProblem, ...]


def normalize_axes(axes: Sequence[int], rank: int, *, operand: str = "src") -> NormalizedAxes:
    """Wrap negative axes by `rank`, and report every axis out of [-rank, rank-1] and every repeat.

    The one place for axis checks (as torch's canonicalize_dim and TVM's NormalizeAxes): ops map the
    problem kinds to their own rule ids and paths."""
    problems: list[AxisProblem] = []
    seen: dict[int, int] = {}
    normalized: list[int] = []
    for position, axis in enumerate(axes):
        if not -rank <= axis < rank:
            allowed = f"[{-rank}, {rank - 1}]" if rank else "empty: it has no axes"
            problems.append(
                AxisProblem(
                    position, "range", f"axis {axis} is out of range {allowed} for {operand} of rank {rank}"
                )
            )
            continue
        wrapped = axis + rank if axis < 0 else axis
        if wrapped in seen:
            first = axes[seen[wrapped]]
            same = (
                f"axis {axis}" if axis == first else f"axis {axis} (= {wrapped} for {operand} of rank {rank})"
            )
            problems.append(
                AxisProblem(
                    position,
                    "duplicate",
                    f"{same} repeats axis {first} at position {seen[wrapped]}; each axis may be reduced once",
                )
            )
            continue
        seen[wrapped] = position
        normalized.append(wrapped)
    return NormalizedAxes(tuple(normalized), tuple(problems))


# --- broadcasting -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BroadcastProblem:
    input: int  # index of the offending input
    dim: int  # output dim, counted from the left of the output shape
    size: int
    largest: int
    message: str


@dataclass
class Broadcast:
    shape: Shape | None
    problems: list[BroadcastProblem] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)


def broadcast_shapes(shapes: Sequence[Shape | None]) -> Broadcast:
    """Multidirectional broadcasting with the strict "largest or 1" rule (ONNX, as SONNX pins it).

    Ranks are right-aligned with leading 1s; each output dim is the largest size there and every
    input must have that size or 1. Unlike NumPy, a 0 does not win over 1: [0] with [1] is an error.
    Symbols are kept where they decide a dim, and each guess the answer rests on is stated."""
    known = [(i, s) for i, s in enumerate(shapes) if s is not None]
    rank = max((len(s) for _, s in known), default=0)
    result = Broadcast(shape=None)
    out: list[Dim] = []
    for dim in range(rank):
        column = [(i, s[dim - (rank - len(s))] if dim >= rank - len(s) else 1) for i, s in known]
        out.append(_broadcast_dim(dim, column, result))
    if len(known) == len(shapes):
        result.shape = tuple(out)
    return result


def _broadcast_dim(dim: int, column: list[tuple[int, Dim]], result: Broadcast) -> Dim:
    sizes = [size for _, size in column if isinstance(size, int)]
    largest = max(sizes, default=1)
    for index, size in column:
        if isinstance(size, int) and size not in (largest, 1):
            why = f"input {index} has size {size} in dim {dim}, where the largest size is {largest}; "
            why += f"each input must have {largest} or 1 there"
            if size == 0:
                why += " (NumPy would stretch the 1 to 0, but here a dim takes the largest size, so 0 is neither)"
            result.problems.append(BroadcastProblem(index, dim, size, largest, why))
    symbols = list(dict.fromkeys(size for _, size in column if isinstance(size, str)))
    unknown = [index for index, size in column if size is None]
    if largest != 1:
        for name in symbols:
            result.assumptions.append(f"dim {dim}: {name} is taken to be {largest} or 1")
        return largest
    if len(symbols) == 1 and not unknown:
        return symbols[0]
    if symbols or unknown:
        if len(symbols) > 1 or (symbols and unknown):
            names = " and ".join([*symbols, *(["the unknown size"] if unknown else [])])
            result.assumptions.append(f"dim {dim}: {names} must be equal or 1; the size there is unknown")
        return None
    return 1


def reduce_shape(shape: Shape, axes: Sequence[int], keep_dims: bool) -> Shape:
    """The shape rule every reduction shares: reduced dims become 1, or go when keep_dims is false.

    `axes` must already be normalised (in [0, rank), unique)."""
    reduced = set(axes)
    if keep_dims:
        return tuple(1 if axis in reduced else dim for axis, dim in enumerate(shape))
    return tuple(dim for axis, dim in enumerate(shape) if axis not in reduced)
