"""Dims and shapes, with the rules every op family shares: axis normalisation, broadcasting, and
what an answer assumes where two sizes must be equal.

A dim is an int >= 0, None (unknown; the wire spells it -1, null or "?"), or a string: a symbol such
as "N" or an expression over symbols such as "S + T", in the canonical form app/core/dims.py writes
(so equal dims compare equal). A shape is a tuple of dims, or None when even the rank is unknown.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import NamedTuple

from app.core import dims
from app.core.dims import EXPR_CHARS, SYMBOL, SYMBOL_CHARS, Dim
from app.core.numbers import INT64_MAX, INT64_RANGE, format_int, show

__all__ = ["EXPR_CHARS", "SYMBOL", "SYMBOL_CHARS", "Dim", "Shape"]

Shape = tuple[Dim, ...]


def parse_dim(value: object) -> Dim:
    """A wire dim to our form; ValueError says what a dim may be."""
    if type(value) is int and 0 <= value <= INT64_MAX:  # the common case first: every dim comes here
        return value
    if isinstance(value, bool):
        raise ValueError(f"dim {value!r} is a boolean; a dim is an integer >= 0, -1, null, '?' or a symbol")
    if value is None or value == "?" or value == -1:
        return None
    if isinstance(value, int):
        if value < -1:
            raise ValueError(
                f"dim {format_int(value)} is negative; a dim is an integer >= 0, or -1 for unknown"
            )
        if value > INT64_MAX:
            raise ValueError(
                f"dim {format_int(value)} is outside the int64 range {INT64_RANGE}; no implementation "
                "can hold it"
            )
        return value
    if isinstance(value, str) and SYMBOL.match(value):
        if len(value) > SYMBOL_CHARS:
            raise ValueError(
                f"symbol {show(value)} is {len(value):,} characters long; at most {SYMBOL_CHARS}"
            )
        return value
    if isinstance(value, str):
        try:
            return dims.parse(value)
        except ValueError as exc:
            raise ValueError(
                f"dim expression {show(value)} {exc}; a dim expression is integers and symbols with "
                "+ - * // %, parentheses, min(a, b) and max(a, b)"
            ) from None
    raise ValueError(
        f"dim {show(value)} is not a dim; a dim is an integer >= 0, -1 / null / '?' for unknown, "
        "a symbol such as 'N', or an expression such as 'S + 1'"
    )


def wire_shape(shape: Shape | None) -> list[int | str] | None:
    """A shape as the wire writes it: an unknown dim as -1."""
    return None if shape is None else [-1 if dim is None else dim for dim in shape]


def is_static(shape: Shape | None) -> bool:
    if shape is None:
        return False
    for dim in shape:  # noqa: SIM110 (a loop, not all() over a generator: a third of the cost, on every check)
        if not isinstance(dim, int):
            return False
    return True


def numel(shape: Shape) -> int:
    """Element count of a static shape (math.prod is exact: no int64 overflow on huge dims)."""
    return math.prod(shape)  # type: ignore[arg-type]


def format_shape(shape: Shape | None) -> str:
    if shape is None:
        return "[?] (unknown rank)"
    return (
        "[" + ", ".join("?" if d is None else format_int(d) if isinstance(d, int) else d for d in shape) + "]"
    )


def dims_conflict(a: Dim, b: Dim) -> bool:
    """True only when two dims are provably different: two known integers that differ, or expressions
    no value of their symbols makes equal (`N + 1` and `N`, `N + 5` and 3).

    A symbol may stand for any size, so "N" against 3 or "N" against "M" is not a conflict."""
    if type(a) is int and type(b) is int:
        return a != b
    if a is None or b is None or a == b:
        return False
    return dims.differ(a, b)


# --- assumptions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Assumption:
    """What an answer takes for granted about sizes it does not know: said once per pair, as a warning
    when every name in it is the user's, as a note when an engine made one up (ONNX's unk__N, dyn__N).
    `unknown`: a size in it is unknown (-1), which is the user's in a descriptor and made up in a graph
    (Context.assume decides). `binding`: a name the rest of a graph reads as this dim from here on."""

    message: str
    engine: bool
    binding: tuple[str, Dim] | None = None
    pair: tuple[Dim, ...] = ()
    unknown: bool = False


def unify(a: Dim, b: Dim) -> tuple[Dim, tuple[str, Dim] | None]:
    """The dim an answer keeps where `a` and `b` are taken to be equal, and the name bound to it: a
    size over a name, the user's names over an engine's (opspec's dyn__N over ONNX's unk__N), an
    expression over a bare name, else `a`."""
    if _standing(b) < _standing(a):
        a, b = b, a
    name = b if dims.is_symbol(b) and b not in dims.symbols(a) else None
    return a, (None if name is None else (name, a))  # type: ignore[return-value]


def _standing(dim: Dim) -> int:
    """Which of two dims taken equal an answer keeps: the lowest."""
    if type(dim) is int:
        return 0
    bare = dims.is_symbol(dim)
    if not dims.by_engine(dim):
        return 2 if bare else 1
    if not bare:
        return 3
    return 5 if dim.startswith("unk__") else 4  # type: ignore[union-attr]


def equate(a: Dim, b: Dim, where: str) -> tuple[Dim, bool, Assumption | None]:
    """Two dims a rule needs equal (MatMul's K, concat's other dims): the dim the answer has, whether no
    value of the symbols makes them equal (an error), and the assumption an answer rests on otherwise.
    An unknown dim is taken as the other silently; `where` names the place for the message."""
    if a == b or b is None:
        return a, False, None
    if a is None:
        return b, False, None
    if dims_conflict(a, b):
        return a, True, None
    keep, binding = unify(a, b)
    message = f"{where}: {a} and {b} are taken to be equal; the answer has {keep}"
    return keep, False, Assumption(message, dims.by_engine(a) or dims.by_engine(b), binding, _pair(a, b))


def _pair(a: Dim, b: Dim) -> tuple[Dim, ...]:
    return tuple(sorted((a, b), key=str))


# --- axes -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AxisProblem:
    """One bad axis; the message is written only when asked for (a million repeats stay small)."""

    position: int  # index into the axes list as given
    kind: str  # "range" or "duplicate"
    axis: int
    rank: int
    operand: str
    first: int = -1  # for a duplicate: the position of the axis it repeats
    first_axis: int = 0

    @property
    def message(self) -> str:
        axis, rank, operand = format_int(self.axis), self.rank, self.operand
        if self.kind == "range":
            if rank:
                return f"axis {axis} is out of range [{-rank}, {rank - 1}] for {operand} of rank {rank}"
            return f"axis {axis} names no dim: {operand} has rank 0, so it has no axes"
        wrapped = self.axis + rank if self.axis < 0 else self.axis
        same = (
            f"axis {axis}"
            if self.axis == self.first_axis
            else f"axis {axis} (= {wrapped} for {operand} of rank {rank})"
        )
        return (
            f"{same} repeats axis {self.first_axis} at position {self.first}; each axis may be reduced once"
        )


def axis_problems(axes: Sequence[int], rank: int, *, operand: str = "src") -> Iterator[AxisProblem]:
    """Every axis out of [-rank, rank-1] and every repeat once negative axes are wrapped by `rank`.

    The one place for axis checks (as torch's canonicalize_dim and TVM's NormalizeAxes): ops map the
    problem kinds to their own rule ids and paths. A generator, so a million repeats are never held at
    once."""
    seen: dict[int, int] = {}
    for position, axis in enumerate(axes):
        if not -rank <= axis < rank:
            yield AxisProblem(position, "range", axis, rank, operand)
            continue
        wrapped = axis + rank if axis < 0 else axis
        if wrapped in seen:
            first = seen[wrapped]
            yield AxisProblem(position, "duplicate", axis, rank, operand, first, axes[first])
            continue
        seen[wrapped] = position


def wrap_axes(axes: Sequence[int], rank: int) -> tuple[int, ...]:
    """The axes in range wrapped into [0, rank), first occurrences in the order given (for axes that
    axis_problems has passed, or where the problems are not wanted)."""
    wrapped: dict[int, None] = {}  # ordered and unique
    for axis in axes:
        if -rank <= axis < rank:
            wrapped.setdefault(axis + rank if axis < 0 else axis)
    return tuple(wrapped)


# --- broadcasting -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BroadcastProblem:
    input: int  # index of the offending input
    axis: int  # index into that input's own shape
    dim: int  # output dim from the left; negative (from the right) when some input's rank is unknown
    size: Dim  # the offending size
    largest: Dim  # the size it cannot meet
    message: str


@dataclass(frozen=True)
class BroadcastAssumption(Assumption):
    input: int = 0  # the first input whose dim the assumption is about
    axis: int = 0  # index into that input's own shape
    dim: int = 0  # numbered as in BroadcastProblem


@dataclass
class Broadcast:
    shape: Shape | None
    problems: list[BroadcastProblem] = field(default_factory=list)
    assumptions: list[BroadcastAssumption] = field(default_factory=list)

    def assume(self, entry: _Entry, dim: int, message: str, engine: bool, pair: tuple[Dim, ...],
               binding: tuple[str, Dim] | None = None, unknown: bool = False) -> None:  # fmt: skip
        """An assumption, said once per pair of sizes (a symbol in several dims is one guess)."""
        if any(a.pair == pair for a in self.assumptions):
            return
        self.assumptions.append(
            BroadcastAssumption(message, engine, binding, pair, unknown, entry.input, entry.axis, dim)
        )


class _Entry(NamedTuple):  # a tuple, not a frozen dataclass: built per input per dim, its __init__ showed
    input: int
    axis: int
    size: Dim


def broadcast_shapes(shapes: Sequence[Shape | None]) -> Broadcast:
    """Multidirectional broadcasting with the strict "largest or 1" rule (ONNX, as SONNX pins it).

    Ranks are right-aligned with leading 1s; each output dim is the largest size there and every
    input must have that size or 1. Unlike NumPy, a 0 does not win over 1: [0] with [1] is an error.
    Symbolic dims are kept where they decide a dim; two that may be equal are taken to be (unified:
    the answer names one), two that differ by a known amount mean the smaller is 1, and a size no
    value of its symbols lets meet the others is a problem. Each guess the answer rests on is stated.
    An input of unknown rank makes the output's rank unknown; the others are still checked against
    each other."""
    static = _broadcast_static(shapes)
    if static is not None:
        return Broadcast(shape=static)
    known = [(index, shape) for index, shape in enumerate(shapes) if shape is not None]
    rank = max((len(shape) for _, shape in known), default=0)
    rank_known = len(known) == len(shapes)
    result = Broadcast(shape=None)
    out: list[Dim] = []
    for dim in range(rank):
        entries = [
            _Entry(index, axis, shape[axis])
            for index, shape in known
            if (axis := dim - rank + len(shape)) >= 0
        ]
        padded = len(entries) < len(known)  # some input is shorter: a leading 1 stands in for it
        out.append(_broadcast_dim(dim if rank_known else dim - rank, entries, padded, result))
    if rank_known:
        bound = {a.binding[0]: a.binding[1] for a in result.assumptions if a.binding is not None}
        result.shape = tuple([dims.substitute(d, bound) for d in out]) if bound else tuple(out)
    else:
        result.assumptions.clear()  # the answer is "rank unknown": it rests on no guess about sizes
    return result


def _broadcast_static(shapes: Sequence[Shape | None]) -> Shape | None:
    """The same rule on the common case, without an object per input per dim: every rank known, no
    unknown dim, and in each output dim the known sizes all the largest or 1, with any symbolic dims
    there one expression beside 1s only (it decides the size; no clash, no assumption). None when
    the full rule must speak (an unknown, a clash, a symbol against a size or another symbol)."""
    first = shapes[0] if shapes else None
    if first is not None and all(shape == first for shape in shapes) and None not in first:
        return tuple(first)  # every input of one shape (the common case): each dim is its own largest
    if any(shape is None for shape in shapes):
        return None
    out: list[Dim] = []
    # Each output dim's distinct sizes, from the right (a missing leading dim is a 1): a set per
    # column, not a look at every input's dim.
    for column in zip_longest(*[reversed(shape) for shape in shapes], fillvalue=1):  # type: ignore[arg-type]
        sizes = set(column)
        if None in sizes:
            return None
        if len(sizes) == 1:
            out.append(column[0])
            continue
        names = {size for size in sizes if type(size) is str}
        if names:
            if len(names) != 1 or sizes - names != {1}:
                return None
            out.append(names.pop())
            continue
        largest = max(sizes)  # type: ignore[type-var]
        if not sizes <= {largest, 1}:
            return None
        out.append(largest)
    out.reverse()
    return tuple(out)


def _dim_name(dim: int) -> str:
    if dim >= 0:
        return f"dim {dim}"
    return f"dim {dim} (counted from the right, as an input of unknown rank leaves the output's rank open)"


def _broadcast_dim(dim: int, entries: list[_Entry], padded: bool, result: Broadcast) -> Dim:
    sizes = [e.size for e in entries if type(e.size) is int] + ([1] if padded else [])
    largest = max(sizes, default=None)
    where = _dim_name(dim)
    if largest is not None:
        for e in entries:
            if type(e.size) is int and e.size not in (largest, 1):
                message = _mismatch(e, where, largest)
                result.problems.append(BroadcastProblem(e.input, e.axis, dim, e.size, largest, message))
    unsized = _by_name([e for e in entries if type(e.size) is not int])
    if largest is not None and largest != 1:
        for name, group in unsized.items():
            _against_size(name, group, largest, dim, where, result)
        return largest
    if not unsized:
        return 1
    names = [name for name in unsized if isinstance(name, str)]
    if len(names) < len(unsized):  # an unknown size among them
        if names:
            first = next(iter(unsized.values()))[0]
            who = " and ".join(_who(name, group) for name, group in unsized.items())
            message = f"in {where}, {who} must be equal or 1; the size there is unknown"
            pair = tuple(sorted(map(str, names)))
            result.assume(first, dim, message, all(map(dims.by_engine, names)), pair, unknown=True)
        return None
    out = names[0]
    for name in names[1:]:
        out = _against_other(out, unsized[out][0], name, unsized[name], dim, where, result)
    return out


def _against_size(name: str | int, group: list[_Entry], largest: int, dim: int, where: str,
                  result: Broadcast) -> None:  # fmt: skip
    """A symbolic (or unknown) size in a dim whose largest known size is `largest` (not 1)."""
    first = group[0]
    if not isinstance(name, str):
        message = f"{_who(name, group)} in {where} is taken to be {_pinned(largest)}"
        result.assume(
            first, dim, message, False, (f"input {first.input} {first.axis}", largest), unknown=True
        )
        return
    can_be_it, can_be_one = dims.can_be(name, largest), dims.can_be(name, 1)
    if not can_be_it and not can_be_one:
        message = (
            f"input {first.input} has {name} in {where}, where the largest size is {largest}; no value of its "
            f"symbols makes it {largest} or 1"
        )
        result.problems.append(BroadcastProblem(first.input, first.axis, dim, name, largest, message))
        return
    binding = None
    if can_be_it and can_be_one:
        pinned = _pinned(largest)
    elif can_be_it:
        pinned = f"{largest}: it cannot be 1"
        binding = (name, largest) if dims.is_symbol(name) else None
    else:
        pinned = f"1: it cannot be {largest}, the largest known size there"
        binding = (name, 1) if dims.is_symbol(name) else None
    message = f"{_who(name, group)} in {where} is taken to be {pinned}"
    result.assume(first, dim, message, dims.by_engine(name), _pair(name, largest), binding)


def _against_other(out: str, first: _Entry, name: str, group: list[_Entry], dim: int, where: str,
                   result: Broadcast) -> Dim:  # fmt: skip
    """Two symbolic sizes in one dim with no known size above 1: the one the answer keeps."""
    engine = dims.by_engine(out) or dims.by_engine(name)
    pair = _pair(out, name)
    if dims.differ(out, name):  # never equal: the smaller is 1, the larger is the size there
        low, _ = dims.bounds(dims.sub(name, out))
        larger, smaller = (name, out) if low > 0 else (out, name)
        at = group[0] if smaller == name else first
        if not dims.can_be(smaller, 1):
            message = (
                f"input {at.input} has {smaller} in {where}, which is never {larger} (input "
                f"{(first if at is group[0] else group[0]).input}'s) nor 1"
            )
            result.problems.append(BroadcastProblem(at.input, at.axis, dim, smaller, larger, message))
            return larger
        message = f"{smaller} (input {at.input}) in {where} is taken to be 1: it is never {larger}"
        result.assume(at, dim, message, engine, pair)
        return larger
    keep, binding = unify(out, name)
    message = (
        f"{_who(out, [first])} and {_who(name, group)} in {where} are taken to be equal (or one of them 1); "
        f"the answer has {keep}"
    )
    result.assume(first, dim, message, engine, pair, binding)
    return keep


def _by_name(entries: list[_Entry]) -> dict[str | int, list[_Entry]]:
    """Symbolic and unknown entries grouped: by expression, and each unknown dim on its own."""
    groups: dict[str | int, list[_Entry]] = {}
    for position, e in enumerate(entries):
        groups.setdefault(e.size if isinstance(e.size, str) else position, []).append(e)
    return groups


def _who(name: str | int, group: list[_Entry]) -> str:
    if not isinstance(name, str):
        return f"the unknown size of input {group[0].input}"
    inputs = [str(e.input) for e in group]
    return f"{name} (input{'s' if len(inputs) > 1 else ''} {', '.join(inputs)})"


def _pinned(largest: int) -> str:
    if largest == 0:
        return "0: the known sizes there are 0, and a 1 would make the largest size 1, which a 0 cannot match"
    return f"{largest} or 1, since the largest known size there is {largest}"


def _mismatch(e: _Entry, where: str, largest: int) -> str:
    message = f"input {e.input} has size {e.size} in {where}, where the largest size is {largest}; "
    if largest != 1:
        return message + f"each input must have {largest} or 1 there"
    return message + (
        "each input must have 1 there (NumPy would give 0 by stretching the 1 to 0, but here the dim takes "
        "the largest size, 1, and a 0 cannot be stretched to 1)"
    )


def reduce_shape(shape: Shape, axes: Sequence[int], keep_dims: bool) -> Shape:
    """The shape rule every reduction shares: reduced dims become 1, or go when keep_dims is false.

    `axes` must already be normalised (in [0, rank), unique)."""
    if keep_dims:
        kept = list(shape)
        for axis in axes:
            kept[axis] = 1
        return tuple(kept)
    reduced = set(axes)
    return tuple([dim for axis, dim in enumerate(shape) if axis not in reduced])
