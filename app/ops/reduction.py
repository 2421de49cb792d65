"""oneDNN Graph's reductions: ReduceL1, ReduceL2, ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceSum.

The seven pages are one page with another formula: the same attributes (axes, keep_dims), the same
ports (src, an optional 1-D s32 axes input, dst), the same dtype table, and oneDNN 3.13 runs them all
through one schema (op_def.hpp: check_reduce_axes, infer_reduce_output_shape). So the axes rule is
written once here (`AxesRule`, parameterised by kind: `<Kind>.axes.range` and so on) and each member
is a row: its page, what an empty reduction gives, and its kernel. ReduceMax, a seed op, keeps its
own module (its descriptor model is read by the msgspec first pass) and uses this rule.

The axes come from the attribute or from a second, 1-D s32 input, never both. Four cases, as TVM's
statistical ops tabulate them: axes empty -> identity; keep_dims -> reduced dims become 1;
otherwise reduced dims disappear; axes unknown (an input without data) -> dims unknown.

Evaluation: ReduceMin is exact (the mirror of ReduceMax: NaN absorbs, -0 < +0). The others accumulate
in f32 in a stated order (the reduced elements one at a time, in src's row-major order) and round
once to dst's dtype; an implementation that adds in another order differs by rounding, within
the member's `Tolerance`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from app.core import family
from app.core.diagnostics import Rule
from app.core.engine import Context
from app.core.family import ONEDNN_VERSION, Attr, In, Out, constraints, rows
from app.core.kernels import INF_BITS, NARROW_FLOATS, has_negative_zero, select_where_all_negative
from app.core.mismatch import Tolerance
from app.core.numbers import show
from app.core.registry import OutputType
from app.core.shapes import Shape, axis_problems, format_shape, reduce_shape, wrap_axes

FAMILY = "reduction"


class AxesRule:
    """The reductions' axes and shape rule for one kind: the axes from the attribute or the input,
    their range and uniqueness, keep_dims, unknown values, and oneDNN 3.13's departures as warnings.

    Rule ids are spelled once per kind here, not per check: a check is on every descriptor."""

    __slots__ = ("dtypes", "empty", "exclusive", "kind", "onednn_empty", "onednn_two", "onednn_zero", "range",
                 "rank", "reduce_empty", "unique", "what")  # fmt: skip

    def __init__(self, kind: str, what: str, empty: str, dtypes: frozenset[str]):
        self.kind = kind
        self.dtypes = dtypes  # src's dtypes that give dst a dtype (src's)
        self.what = what  # the reduction's noun: "maximum", "sum", ...
        self.empty = empty  # what a reduction over no values gives: "-inf", "0", ...
        self.exclusive = f"{kind}.axes.exclusive"
        self.rank = f"{kind}.axes.rank"
        self.range = f"{kind}.axes.range"
        self.unique = f"{kind}.axes.unique"
        self.reduce_empty = f"{kind}.reduce.empty"
        self.onednn_two = f"{kind}.onednn.two_inputs"
        self.onednn_empty = f"{kind}.onednn.empty_axes"
        self.onednn_zero = f"{kind}.onednn.zero_size"

    def rules(self, page: str, decisions: str) -> tuple[Rule, ...]:
        """The rules this one checks; `page` cites the spec page, `decisions` where the service decided."""
        kind, version = self.kind, ONEDNN_VERSION
        return (
            Rule(self.exclusive, "At most one of the axes attribute and the axes input is given.",
                 f"{page}, attribute axes and input axes: exactly one should be available (SPEC-NOTES: at most one)"),
            Rule(self.rank, "The axes input is a 1-D tensor.", f"{page}, input axes"),
            Rule(self.range, "Every axis is in [-r, r-1], r the rank of src.", f"{page}, attribute axes"),
            Rule(self.unique, "No axis repeats once negative axes are wrapped.", f"{page}, input axes"),
            Rule(self.reduce_empty, f"Reducing over a zero-size dim is an empty {self.what}: {self.empty}.",
                 decisions, "warning"),
            Rule(self.onednn_two, f"{version} rejects every {kind} with the axes input.",
                 f"{decisions} ({version})", "warning"),
            Rule(self.onednn_empty, f"{version} does not support empty axes (the identity).",
                 f"{decisions} ({version})", "warning"),
            Rule(self.onednn_zero, f"{version} fails on a src with a zero-size dim that is not reduced.",
                 f"{decisions} ({version})", "warning"),
        )  # fmt: skip

    def notes(self) -> tuple[str, ...]:
        kind = self.kind
        return (
            f"oneDNN 3.13 fills the default axes=[] before checking that exactly one axes source is given, so "
            f"it rejects every two-input {kind}; opspec accepts the input when the attribute is absent or empty.",
            "oneDNN 3.13 does not support empty axes (the partition is unsupported); the spec says identity.",
            "oneDNN 3.13 crashes on a zero-size dim that is not reduced ([2,0,4], axes [2] -> [2,0]).",
            "oneDNN 3.13 skips the dst shape check when any declared dim is -1; opspec still checks the rank.",
            "oneDNN reports out-of-range and repeated axes only at compile time ('run pass lower_down failed'); "
            "opspec reports them at validation, naming the axis and the range.",
        )

    def infer(self, d: Any, ctx: Context) -> list[OutputType] | None:
        """dst's dtype (src's, when one of `dtypes`) and shape (None for an unknown rank); None when an
        axes rule failed or src's dtype is not one of `dtypes`. A whole shape rule, so that ReduceMax's
        check calls it as its own (no layer between: the check is on every descriptor)."""
        src = d.inputs[0]
        dtype = src.dtype if src.dtype in self.dtypes else None
        if len(d.inputs) < 2:  # the common case, inline
            axes, path = list(d.attrs.axes or ()), "attrs.axes"
        else:
            axes, path = self._axes_input(d, ctx)
        keep = d.attrs.keep_dims  # None (absent, where no default fills it) reads as false
        if axes == []:  # whatever src's rank: oneDNN rejects empty axes before it looks at shapes
            ctx.warn(
                self.onednn_empty,
                path,
                f"empty axes make {self.kind} the identity (dst = src), as the spec says; oneDNN 3.13 reports "
                "such a partition as unsupported",
            )
        if src.shape is None:
            if axes is not None and not self._check_repeats(axes, path, ctx):
                return None
            return None if dtype is None else [OutputType(dtype, None)]
        rank = len(src.shape)
        if axes is None:
            shape = self._unknown_values(d, src.shape, keep, ctx)
            return None if dtype is None or shape is False else [OutputType(dtype, shape)]
        reduced = wrap_axes(axes, rank)
        if len(reduced) < len(axes):  # an axis dropped: out of range or a repeat, which axis_problems names
            for problem in axis_problems(axes, rank, operand="src"):
                rule = self.range if problem.kind == "range" else self.unique
                ctx.error(rule, f"{path}[{problem.position}]", lambda problem=problem: problem.message)
            return None
        if 0 in src.shape:  # the zero-size findings, looked for only where there is a 0
            self._zero_size(src.shape, reduced, ctx)
        if dtype is None:
            return None
        return [OutputType(dtype, reduce_shape(src.shape, reduced, keep))]

    def _axes_input(self, d: Any, ctx: Context) -> tuple[list[int] | None, str]:
        """The axes from the axes input and the path they came from; None when it has no values yet."""
        attribute = d.attrs.axes
        if attribute:
            ctx.error(
                self.exclusive,
                "attrs.axes",
                f"axes is given both as the attribute {show(attribute)} and as input 1; give exactly one of them",
            )
        ctx.warn(
            self.onednn_two,
            "inputs[1]",
            f"oneDNN 3.13 fills in the attribute's default axes=[] and then rejects any {self.kind} that also "
            "has the axes input; give the axes as the attribute to run on it",
        )
        axes_input = d.inputs[1]
        if axes_input.rank is not None and axes_input.rank != 1:
            ctx.error(
                self.rank,
                "inputs[1].shape",
                f"the axes input must be 1-D; it has shape {format_shape(axes_input.shape)}",
            )
            return None, "inputs[1].data"
        if axes_input.shape == (0,):
            return [], "inputs[1].shape"  # an empty axes input needs no data: its values are known, none
        values = ctx.values(1)
        if values is None or values.dtype.kind not in "iu":  # axes of another dtype (NaN!) are not axes:
            return None, "inputs[1].data"  # the dtype rule has said so; int() of a NaN raised (a 500)
        return [int(v) for v in values.reshape(-1)], "inputs[1].data"

    def _check_repeats(self, axes: list[int], path: str, ctx: Context) -> bool:
        """With src's rank unknown, axes cannot be wrapped or range-checked, but a value given twice is a
        repeat at any rank; True when there is none."""
        first: dict[int, int] = {}
        for position, axis in enumerate(axes):
            if axis in first:
                ctx.error(
                    self.unique,
                    f"{path}[{position}]",
                    f"axis {axis} repeats axis {axis} at position {first[axis]}; each axis may be reduced once",
                )
            first.setdefault(axis, position)
        return len(first) == len(axes)

    def _unknown_values(
        self, d: Any, shape: Shape, keep: bool, ctx: Context
    ) -> Shape | Literal[False] | None:
        """An axes input without values: with keep_dims the rank stays and only dims already 1 are certain.
        False when the axes cannot be unique."""
        rank = len(shape)
        axes_shape = d.inputs[1].shape
        count = axes_shape[0] if axes_shape and len(axes_shape) == 1 else None
        if isinstance(count, int) and count > rank:
            # Wrapped into [0, r-1], more than r axes cannot all differ, whatever their values.
            ctx.error(
                self.unique,
                "inputs[1].shape[0]",
                f"the axes input holds {count} axes, but src {format_shape(shape)} has rank {rank}: "
                f"at most {rank} axes can be unique",
            )
            return False
        if count == rank:  # unique and in range, so every axis: which order they come in does not matter
            return reduce_shape(shape, range(rank), keep)
        if keep:
            return tuple(1 if dim == 1 else None for dim in shape)
        if isinstance(count, int):
            return (None,) * (rank - count)
        return None

    def _zero_size(self, shape: Shape, reduced: tuple[int, ...], ctx: Context) -> None:
        for axis in reduced:
            if shape[axis] == 0:
                ctx.warn(
                    self.reduce_empty,
                    f"inputs[0].shape[{axis}]",
                    f"axis {axis} of src has size 0, so its {self.what} is over no values; evaluation gives "
                    f"{self.empty}",
                )
        kept_zero = [axis for axis, dim in enumerate(shape) if dim == 0 and axis not in reduced]
        if kept_zero and reduced:
            ctx.warn(
                self.onednn_zero,
                f"inputs[0].shape[{kept_zero[0]}]",
                f"src {format_shape(shape)} has a zero-size dim {kept_zero[0]} that is not reduced; the "
                "answer is an empty tensor, but oneDNN 3.13 crashes on it",
            )


def reduced_axes(d: Any, arrays: Sequence[np.ndarray]) -> tuple[int, ...]:
    """The axes reduced, wrapped into [0, rank): from the attribute, or from the axes input's values."""
    axes = (d.attrs.axes or ()) if len(arrays) < 2 else arrays[1].reshape(-1).tolist()
    return wrap_axes(axes, arrays[0].ndim)


# --- the ReduceMax kernel (ReduceMin takes it too: _min) ----------------------------------------


def reduce_max(x: np.ndarray, axes: Sequence[int], keep_dims: bool) -> np.ndarray:
    """Maximum of x over `axes` (normalised, non-empty); an empty maximum is -inf (floats only)."""
    axes = tuple(axes)
    if any(x.shape[axis] == 0 for axis in axes):
        shape = tuple(1 if a in axes else d for a, d in enumerate(x.shape) if keep_dims or a not in axes)
        return np.full(shape, -np.inf, dtype=x.dtype)
    if x.dtype in NARROW_FLOATS:
        return _reduce_max_bits16(x, axes, keep_dims)
    result = _reduce(np.maximum, x, axes, keep_dims)
    if x.dtype.kind == "f" and has_negative_zero(result):  # a +0 result is right: +0 is among its values
        zero = result == 0
        positive_zero = np.any((x == 0) & ~np.signbit(x), axis=axes, keepdims=keep_dims)
        result = np.where(zero, np.where(positive_zero, 0.0, -0.0).astype(x.dtype), result)
    return np.asarray(result)


def _reduce_max_bits16(x: np.ndarray, axes: tuple[int, ...], keep_dims: bool) -> np.ndarray:
    """reduce_max of f16 or bf16 on the bits as int16, by the order _exact_max_bits16 explains.

    Its passes (the signed maximum, the minimum where it is negative, the check for NaNs with the sign
    set) each read all of x, so a large x is reduced in slabs along its first kept axis, each of about
    _SLAB_BYTES: the passes after the first read the slab from cache (2.1 -> 1.3 ms on [4,1024,1024]
    axes [0]). Slabs of the first axis keep x's layout; slabs of a later one are used only where the
    last axis is kept and is not that one, as otherwise they would be narrow columns or lose the rows
    that _reduce takes by reduceat (slower on [4,1024,1024] axes [0,2])."""
    bits = x.view(np.int16)
    floor = 0x8000 | INF_BITS[x.dtype]
    last = x.ndim - 1
    kept = next((axis for axis in range(x.ndim) if axis not in axes), last)  # none kept: not cut
    if x.nbytes <= _SLAB_BYTES or kept == last or (kept and last in axes):
        return _reduce_max_bits16_slab(bits, axes, keep_dims, floor).view(x.dtype)
    step = max(1, _SLAB_BYTES * x.shape[kept] // x.nbytes)
    before = (slice(None),) * kept
    slabs = [
        _reduce_max_bits16_slab(bits[(*before, slice(start, start + step))], axes, keep_dims, floor)
        for start in range(0, x.shape[kept], step)
    ]
    # every axis before the first kept one is reduced: without keep_dims the slabs meet along axis 0
    return np.concatenate(slabs, axis=kept if keep_dims else 0).view(x.dtype)


# Bytes of a 16-bit input reduced at a time (reduce_max): a slab and its results stay in L2.
_SLAB_BYTES = 1 << 19


def _reduce_max_bits16_slab(
    signed: np.ndarray, axes: tuple[int, ...], keep_dims: bool, floor: int
) -> np.ndarray:
    """The signed maximum, the signed minimum only where every value is negative, NaNs with the sign
    set (bits above `floor` as unsigned) put back only when there are any: the result's bits."""
    result = _reduce(np.maximum, signed, axes, keep_dims)
    select_where_all_negative(result, lambda: _reduce(np.minimum, signed, axes, keep_dims) ^ result)
    unsigned = signed.view(np.uint16)
    if signed.size and unsigned.max() > floor:
        nans = _reduce(np.maximum, unsigned, axes, keep_dims)
        np.copyto(result.view(np.uint16), nans, where=nans > floor)
    return result


# Rows shorter than this are left to ufunc.reduce: reduceat's start indices (8 bytes a row) would take
# more than a quarter of a 16-bit input's own memory.
_SHORTEST_ROW = 16


def _reduce(ufunc: np.ufunc, x: np.ndarray, axes: tuple[int, ...], keep_dims: bool) -> np.ndarray:
    """ufunc reduced over `axes` (wrapped, unique, non-empty) as a new array, also when 0-d.

    NumPy's reduce along the last axis pays a cost per row that reduceat over the flat array does not
    (0.22 against 0.15 ms for the rows of [1024,1024] f32, 1.7x on rows of 64), so the trailing reduced
    axes of a C-contiguous x are reduced as rows that way, and any axes before them after it, on the
    smaller result. The same ufunc on the same values: the same maximum, NaN and all."""
    trailing = 0
    while trailing < len(axes) and x.ndim - 1 - trailing in axes:
        trailing += 1
    kept = x.shape[: x.ndim - trailing]
    row = x.size // math.prod(kept) if x.size else 0
    if not trailing or row < _SHORTEST_ROW or not x.flags.c_contiguous:  # (reshape would copy x)
        return np.asarray(ufunc.reduce(x, axis=axes, keepdims=keep_dims))
    starts = _row_starts(x.size, row) if x.size // row <= _CACHED_STARTS else np.arange(0, x.size, row)
    result = ufunc.reduceat(x.reshape(-1), starts).reshape(kept)
    earlier = tuple(axis for axis in axes if axis < len(kept))
    if earlier:
        result = np.asarray(ufunc.reduce(result, axis=earlier))
    if keep_dims:
        result = result.reshape([1 if axis in axes else size for axis, size in enumerate(x.shape)])
    return result


# Rows up to this many have their start indices kept (_row_starts): 32 shapes, 512 KiB each at most.
_CACHED_STARTS = 1 << 16


@functools.lru_cache(maxsize=32)
def _row_starts(size: int, row: int) -> np.ndarray:
    """np.arange(0, size, row), read-only, made once per shape: a repeated reduction (the common case)
    then skips an allocation and a fill, ~2 us of a ~100 us [1024,1024] reduction."""
    starts = np.arange(0, size, row)
    starts.flags.writeable = False
    return starts


# --- the members built on `build` ------------------------------------------------------------------

# Every page's table (Src, Dst, Axes; columns here in port order) and oneDNN's schema (T1 on src and
# dst, T2 on axes) say the same.
TABLE = rows("src axes dst", "f32 s32 f32", "bf16 s32 bf16", "f16 s32 f16")
FLOATS = frozenset({"f32", "bf16", "f16"})
SCHEMA = constraints("src:T1 axes:T2 dst:T1", T1="f32 bf16 f16", T2="s32")
ATTRS = (
    Attr("axes", "s64[]", "Axes of src to reduce, each in [-r, r-1]; negatives count from the end. Empty (the "
         "default) is the identity. Give this or the axes input, not both.", default=[]),
    Attr("keep_dims", "bool", "Keep each reduced dim as 1 instead of removing it.", default=False),
)  # fmt: skip
INPUTS = (
    In("src", "The tensor to reduce."),
    In("axes", "1-D, unique axes to reduce; instead of the attribute.", optional=True),
)
OUTPUTS = (Out("dst", "src's dtype; reduced dims 1 (keep_dims) or removed."),)

ORDER = (
    "accumulated in f32, the reduced elements one at a time in src's row-major order, rounded once to "
    "dst's dtype"
)

# (src widened to f32 with the reduced axes last, flattened into one: [..., n]) -> f32 result [...]
Fold = Callable[[np.ndarray], np.ndarray]


def _sequential(ufunc: np.ufunc, identity: float) -> Fold:
    """ufunc folded along the last axis strictly left to right from `identity` (accumulate, unlike
    reduce, never pairs), in f32. Starting from the identity matters for one case: a sum of -0s only
    is +0 (oneDNN 3.13 too), where a fold from the first element would give -0; the identity is applied
    last, which gives the same answer (+0 + x is x for every other x, and 1 * x is always x)."""

    start = np.float32(identity)

    def fold(x: np.ndarray) -> np.ndarray:
        if x.shape[-1] == 0:
            return np.full(x.shape[:-1], identity, dtype=np.float32)
        return ufunc(start, ufunc.accumulate(x, axis=-1, dtype=np.float32)[..., -1])

    return fold


_sum = _sequential(np.add, 0.0)
_product = _sequential(np.multiply, 1.0)


# (src, the reduced axes wrapped and unique, keep_dims) -> dst before its rounding to dst's dtype
Reduce = Callable[[np.ndarray, tuple[int, ...], bool], np.ndarray]


def folded(fold: Fold) -> Reduce:
    """A reduction that widens src to f32 (exact for f16 and bf16), puts the reduced axes last in
    src's order (so row-major among them), flattens them into one and folds it."""

    def reduce(src: np.ndarray, reduced: tuple[int, ...], keep: bool) -> np.ndarray:
        kept = [axis for axis in range(src.ndim) if axis not in reduced]
        count = math.prod(src.shape[axis] for axis in reduced)
        x = np.transpose(src.astype(np.float32), kept + sorted(reduced))
        with np.errstate(all="ignore"):  # inf and NaN are answers here, not faults
            out = np.asarray(fold(x.reshape([src.shape[axis] for axis in kept] + [count])))
        if keep:
            out = out.reshape([1 if axis in reduced else size for axis, size in enumerate(src.shape)])
        return out

    return reduce


def _min(src: np.ndarray, reduced: tuple[int, ...], keep: bool) -> np.ndarray:
    """ReduceMax's maximum of -src, negated: negation is exact and turns -0 < +0 round."""
    return np.negative(reduce_max(np.negative(src), reduced, keep))


def build(
    kind: str,
    summary: str,
    what: str,
    empty: str,
    reduce: Reduce,
    tolerance: Tolerance | None,
    notes: Sequence[str] = (),
) -> Any:
    """A reduction from its page: `what` names its result, `empty` says what a reduction over no values
    gives, `reduce` computes it."""
    rule = AxesRule(kind, what, empty, FLOATS)

    def shape(d: Any, ctx: Context) -> list[Shape | None] | None:
        out = rule.infer(d, ctx)  # src's dtype is build's to check: only the shape is taken here
        return None if out is None else [out[0].shape]

    def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
        src, reduced = arrays[0], reduced_axes(d, arrays)
        if not reduced:
            return [src.copy()]
        with np.errstate(over="ignore"):  # rounded once to dst's dtype: beyond its range is inf
            return [reduce(src, reduced, d.attrs.keep_dims is True).astype(out[0])]

    return family.build(
        kind,
        family=FAMILY,
        page=kind,
        summary=summary,
        inputs=INPUTS,
        outputs=OUTPUTS,
        table=TABLE,
        accepts=SCHEMA,
        shape=shape,
        kernel=kernel,
        attrs=ATTRS,
        rules=rule.rules(f"oneDNN Graph {kind}", f"docs/ops/reduction.md, {kind}"),
        notes=(*rule.notes(), *notes, *((f"Evaluation: {tolerance.why}.",) if tolerance else ())),
        examples=(
            {
                "kind": kind,
                "attrs": {"axes": [1], "keep_dims": True},
                "inputs": [{"dtype": "f32", "shape": [2, "N", 4]}],
                "outputs": [{"dtype": "f32", "shape": [2, 1, 4]}],
            },
            {
                "kind": kind,
                "attrs": {"axes": [0, -1]},
                "inputs": [{"dtype": "f32", "shape": [2, 3], "data": [[1, 0.5, 3], [-0.0, 5, -2]]}],
            },
        ),
        tolerance=tolerance,
    )


def _inexact(what: str) -> Tolerance:
    """Measured against oneDNN 3.13 on seeded f32 inputs (tests/ops/oracle/reduction): within 5 ulps."""
    return Tolerance(
        ulps=16,
        absolute=1e-6,
        why=f"{what} {ORDER}; oneDNN adds in vector lanes and blocks, another order, so the last bits differ",
    )


# fmt: off
REDUCE_L1 = build("ReduceL1", "L1 norm (sum of |src|) over the given axes.", "L1 norm", "0",
                   folded(lambda x: _sum(np.abs(x))), _inexact("|src|"))
REDUCE_L2 = build("ReduceL2", "L2 norm (square root of the sum of squares) over the given axes.", "L2 norm",
                   "0", folded(lambda x: np.sqrt(_sum(x * x))), _inexact("src * src"))
REDUCE_MEAN = build("ReduceMean", "Arithmetic mean of src over the given axes.", "mean", "NaN (0 / 0)",
                     folded(lambda x: _sum(x) / np.float32(x.shape[-1])), _inexact("src, divided by the count,"))
REDUCE_MIN = build("ReduceMin", "Minimum of src over the given axes (NaN absorbs, -0 below +0).", "minimum",
                    "+inf", _min, None, notes=(
    "oneDNN 3.13 answers the minimum of -0 and +0 by operand order ([-0, +0] gives +0) and skips a NaN "
    "unless it comes last ([1, NaN, 2] gives 2); opspec's minimum is exact: -0 below +0, NaN absorbs.",))
REDUCE_PROD = build("ReduceProd", "Product of src over the given axes.", "product", "1",
                     folded(_product), _inexact("the product of src"))
REDUCE_SUM = build("ReduceSum", "Sum of src over the given axes.", "sum", "0", folded(_sum), _inexact("src"))
# fmt: on

OPS = (REDUCE_L1, REDUCE_L2, REDUCE_MEAN, REDUCE_MIN, REDUCE_PROD, REDUCE_SUM)
