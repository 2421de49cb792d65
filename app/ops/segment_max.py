"""SegmentMax-16 from the OpenVINO operation set 16 (seeds 000 and 001), with the decisions of SPEC-NOTES.

Rows of data (its first dim) belong to segments by segment_ids, which are sorted and >= 0. The output
has one row per segment; the number of segments comes from num_segments when its value is known,
else from max(segment_ids) + 1 when the ids are known (0 when there are none), else it is unknown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BeforeValidator, Field

from app.core.diagnostics import Rule
from app.core.dtypes import DTYPES, INDEX, NUMERIC
from app.core.engine import Context
from app.core.kernels import has_negative_zero, widen
from app.core.mismatch import Case, Implementation, MismatchClass, Modelled, equal_bits, listing
from app.core.numbers import show
from app.core.payload import element_index, encode
from app.core.registry import Attrs, Descriptor, OpSpec, OutputType, Port
from app.core.shapes import Dim, dims_conflict, format_shape

KIND = "SegmentMax"
SPEC = "OpenVINO SegmentMax-16"
NOTES = "SPEC-NOTES, SegmentMax-16"
OPENVINO = "SPEC-NOTES, SegmentMax-16 (OpenVINO 2026.4 CPU)"
FILL_MODES = ("ZERO", "LOWEST")
# The types OpenVINO 2026.4's CPU plugin computes in a narrower one (SPEC-NOTES, measured): the values
# are converted to it, the maximum taken there and converted back, and LOWEST is that type's lowest.
COMPUTE_TYPE = {
    "f16": "f32",
    "f64": "f32",
    "s16": "s32",
    "s64": "s32",
    "u16": "s32",
    "u32": "s32",
    "u64": "s32",
}
# So they fill LOWEST segments with another value than the spec's.
WRONG_LOWEST = frozenset(COMPUTE_TYPE)


def _fill_mode(value: Any) -> Any:
    """Either spelling's value, upper-cased: OpenVINO reads the modes case-insensitively."""
    if isinstance(value, str) and value.upper() in FILL_MODES:
        return value.upper()
    if isinstance(value, str):
        raise ValueError(f"fill mode {show(value)} is not one of {', '.join(FILL_MODES)} (any case)")
    return value  # not a string: pydantic's own type error says so


FillMode = Annotated[Literal["ZERO", "LOWEST"], BeforeValidator(_fill_mode)]


class SegmentMaxAttrs(Attrs):
    # Neither name is required by the schema: a descriptor without one is answered with a verdict that
    # cites SegmentMax.fill_mode.required, and the schema says what the service answers.

    fill_mode: FillMode | None = Field(
        None,
        description="Required. What an empty segment holds: ZERO (0) or LOWEST (the lowest finite value of "
        "data's type). Read case-insensitively, answered upper-case.",
    )
    empty_segment_value: FillMode | None = Field(
        None,
        description="The stale name of fill_mode in the spec's XML examples: accepted with a warning. Give "
        "one of the two names, not both.",
        json_schema_extra={"deprecated": True},  # the page shows it only when a descriptor uses it
    )

    @property
    def mode(self) -> str | None:
        return self.fill_mode or self.empty_segment_value


class SegmentMaxOp(Descriptor):
    kind: Literal["SegmentMax", "SegmentMax-16"]
    attrs: SegmentMaxAttrs = Field(default_factory=SegmentMaxAttrs)


RULES = (
    Rule(f"{KIND}.fill_mode.required", "The fill_mode attribute is given.", f"{SPEC}, attribute fill_mode"),
    Rule(f"{KIND}.fill_mode.exclusive", "fill_mode and its stale name empty_segment_value are not both given.",
         NOTES),
    Rule(f"{KIND}.fill_mode.stale_name", "empty_segment_value is the stale name of fill_mode; say fill_mode.",
         f"{SPEC}, Examples (SPEC-NOTES: the name is stale)", "warning"),
    Rule(f"{KIND}.data.rank", "data has rank 1 or more: segments run along its first dim.", f"{SPEC}, input data"),
    Rule(f"{KIND}.segment_ids.rank", "segment_ids is a 1-D tensor.", f"{SPEC}, input segment_ids"),
    Rule(f"{KIND}.segment_ids.length", "segment_ids has one id per row: its length is data's first dim.",
         f"{SPEC}, input segment_ids"),
    Rule(f"{KIND}.segment_ids.sorted", "segment_ids never decrease from one position to the next.",
         f"{SPEC}, input segment_ids"),
    Rule(f"{KIND}.segment_ids.negative", "No segment id is below 0.", f"{SPEC}, input segment_ids"),
    Rule(f"{KIND}.num_segments.rank", "num_segments is a scalar: rank 0, shape [].",
         f"{SPEC}, input num_segments (SPEC-NOTES: the examples' <dim>0</dim> means rank 0)"),
    Rule(f"{KIND}.num_segments.negative", "num_segments is 0 or more.", f"{SPEC}, input num_segments"),
    Rule(f"{KIND}.openvino.nan", "OpenVINO's CPU plugin skips NaN inside a segment instead of giving NaN.",
         OPENVINO, "warning"),
    Rule(f"{KIND}.openvino.neg_inf", "OpenVINO's CPU plugin gives the lowest finite value, not -inf, for a "
         "segment of only -inf.", OPENVINO, "warning"),
    Rule(f"{KIND}.openvino.lowest_dtype", "OpenVINO's CPU plugin fills empty LOWEST segments with a wrong value "
         "for f16, s16, u16, u32 and u64.", OPENVINO, "warning"),
    Rule(f"{KIND}.openvino.empty_ids", "OpenVINO's CPU plugin crashes on empty segment_ids without "
         "num_segments.", OPENVINO, "warning"),
    Rule(f"{KIND}.openvino.negative_ids", "OpenVINO does not reject negative segment ids and crashes at run "
         "time.", OPENVINO, "warning"),
    Rule(f"{KIND}.openvino.negative_count", "OpenVINO accepts a negative num_segments and infers 0 segments.",
         OPENVINO, "warning"),
)  # fmt: skip


def _element_path(index: int, position: int, shape: tuple[int, ...]) -> str:
    """The request path of one element of inputs[index], by its row-major position."""
    return f"inputs[{index}].data{element_index(position, shape)}"


# --- attributes ---------------------------------------------------------------------------------


def _check_fill_mode(d: SegmentMaxOp, ctx: Context) -> None:
    attrs = d.attrs
    if attrs.empty_segment_value is not None:
        if attrs.fill_mode is not None:
            ctx.error(
                f"{KIND}.fill_mode.exclusive",
                "attrs.empty_segment_value",
                f"both fill_mode ({attrs.fill_mode}) and its stale name empty_segment_value "
                f"({attrs.empty_segment_value}) are given; give fill_mode only",
            )
        else:
            ctx.warn(
                f"{KIND}.fill_mode.stale_name",
                "attrs.empty_segment_value",
                f"empty_segment_value is the stale name the spec's XML examples use; it is read as "
                f"fill_mode={attrs.empty_segment_value}, but OpenVINO reads only fill_mode",
            )
    elif attrs.fill_mode is None:
        ctx.error(
            f"{KIND}.fill_mode.required",
            "attrs.fill_mode",
            f"fill_mode is required: {' or '.join(FILL_MODES)}, what an empty segment holds",
        )


# --- shapes and index values --------------------------------------------------------------------


def _check_shapes(d: SegmentMaxOp, ctx: Context) -> None:
    data, ids = d.inputs[0], d.inputs[1]
    if data.rank == 0:
        ctx.error(
            f"{KIND}.data.rank",
            "inputs[0].shape",
            "data must have rank 1 or more (segments run along its first dim); it has shape [] (rank 0)",
        )
    if ids.rank is not None and ids.rank != 1:
        ctx.error(
            f"{KIND}.segment_ids.rank",
            "inputs[1].shape",
            f"segment_ids must be 1-D; it has shape {format_shape(ids.shape)} (rank {ids.rank})",
        )
    elif ids.rank == 1 and data.rank and dims_conflict(ids.shape[0], data.shape[0]):
        ctx.error(
            f"{KIND}.segment_ids.length",
            "inputs[1].shape[0]",
            f"segment_ids has length {ids.shape[0]}, but data {format_shape(data.shape)} has "
            f"{data.shape[0]} rows; there must be one id per row",
        )
    count = d.inputs[2] if len(d.inputs) > 2 else None
    if count is not None and count.rank not in (0, None):
        hint = ""
        if count.shape == (0,):
            hint = " (the spec's XML examples draw it as <dim>0</dim>, but a scalar is meant)"
        ctx.error(
            f"{KIND}.num_segments.rank",
            "inputs[2].shape",
            f"num_segments must be a scalar, shape []; it has shape {format_shape(count.shape)}{hint}",
        )


def _ids_empty(d: SegmentMaxOp) -> bool:
    """segment_ids is known to hold no ids: its length is 0, or unknown beside data with no rows."""
    ids, data = d.inputs[1], d.inputs[0]
    if ids.rank != 1:
        return False
    length = ids.shape[0]  # type: ignore[index]
    no_rows = bool(data.shape) and data.shape[0] == 0  # type: ignore[index]
    return length == 0 or (no_rows and not isinstance(length, int))


def _segment_ids(d: SegmentMaxOp, ctx: Context) -> tuple[np.ndarray | None, bool]:
    """The ids' values when known (empty ids need no data), and whether they are valid."""
    ids = d.inputs[1]
    if ids.rank != 1 or ids.dtype not in INDEX:
        return None, False
    values = np.zeros(0, dtype=np.int64) if _ids_empty(d) else ctx.values(1)
    if values is None:
        return None, False
    non_negative = _check_non_negative(values, ctx)
    return values, _check_sorted(values, ctx) and non_negative


def _check_non_negative(ids: np.ndarray, ctx: Context) -> bool:
    if _all_non_negative(ids):
        return True
    negative = np.flatnonzero(ids < 0)
    if negative.size == 0:
        return True
    first = int(negative[0])
    path = f"inputs[1].data[{first}]"
    more = f" ({negative.size} ids are negative in all)" if negative.size > 1 else ""
    ctx.error(
        f"{KIND}.segment_ids.negative",
        path,
        f"segment id {ids[first]} at position {first} is negative{more}; ids must be >= 0",
    )
    ctx.warn(
        f"{KIND}.openvino.negative_ids",
        path,
        "OpenVINO does not check for negative segment ids and crashes when it runs this",
    )
    return False


def _all_non_negative(ids: np.ndarray) -> bool:
    """No id below 0, by one minimum (no temporary): 0.2 against 0.65 ms for 4M s32 ids, a scan for
    the ones to report only when there are. Held to that scan by tests/ops/test_segment_max.py,
    test_value_shortcuts_answer_as_the_full_scans."""
    return not ids.size or ids.min() >= 0


def _check_sorted(ids: np.ndarray, ctx: Context) -> bool:
    falls = np.flatnonzero(ids[1:] < ids[:-1])
    if falls.size == 0:
        return True
    first = int(falls[0]) + 1
    ctx.error(
        f"{KIND}.segment_ids.sorted",
        f"inputs[1].data[{first}]",
        f"segment_ids must be sorted in non-decreasing order; id {ids[first]} at position {first} is below "
        f"id {ids[first - 1]} at position {first - 1}",
    )
    return False


def _num_segments(d: SegmentMaxOp, ctx: Context) -> int | None:
    """num_segments' value when it is given, a scalar, known and valid."""
    if len(d.inputs) < 3 or d.inputs[2].rank != 0 or d.inputs[2].dtype not in INDEX:
        return None
    values = ctx.values(2)
    if values is None:
        return None
    count = int(values)
    if count < 0:
        ctx.error(
            f"{KIND}.num_segments.negative",
            "inputs[2].data",
            f"num_segments is {count}; it must be 0 or more",
        )
        ctx.warn(
            f"{KIND}.openvino.negative_count",
            "inputs[2].data",
            f"OpenVINO accepts num_segments {count} and infers 0 segments, where the spec allows none",
        )
        return None
    return count


def _implied_count(ids: np.ndarray) -> int:
    """The segment count when num_segments is absent: max(ids) + 1, and 0 for no ids."""
    return int(ids.max()) + 1 if ids.size else 0


def _segment_count(d: SegmentMaxOp, ids: np.ndarray | None, count: int | None) -> Dim:
    """The output's first dim: num_segments, else max(ids) + 1 for ids >= 0, else unknown."""
    if len(d.inputs) > 2:
        return count
    if ids is None or (ids.size and ids.min() < 0):
        return None
    return _implied_count(ids)


def output_dtypes(d: SegmentMaxOp) -> list[str | None]:
    return [d.inputs[0].dtype if d.inputs[0].dtype in NUMERIC else None]


# --- where OpenVINO's CPU plugin answers differently --------------------------------------------


def _warn_openvino_values(ctx: Context, data: np.ndarray, ids: np.ndarray, count: int) -> None:
    """NaN, and segments of only -inf, among the rows that reach the output (ids sorted, valid)."""
    rows = data[: count_below(ids, count)]
    if rows.size == 0 or not DTYPES[ctx.descriptor.inputs[0].dtype].is_float:
        return
    wide = widen(rows)
    if not _may_hold_nan_or_minus_inf(wide):
        return
    nan = np.isnan(wide)
    if nan.any():
        position = int(np.argmax(nan))
        ctx.warn(
            f"{KIND}.openvino.nan",
            _element_path(0, position, data.shape),
            "data holds NaN, so its segment's maximum is NaN here; OpenVINO's CPU plugin skips NaN (a "
            "segment of only NaN gets the lowest finite value there)",
        )
    minus_inf = np.isneginf(wide)
    if not minus_inf.any():
        return
    starts = run_starts(ids[: rows.shape[0]])
    only = np.logical_and.reduceat(minus_inf, starts, axis=0)
    if only.any():
        run, *inner = (int(i) for i in np.unravel_index(int(np.argmax(only)), only.shape))
        position = int(np.ravel_multi_index((int(starts[run]), *inner), data.shape))
        where = f" at inner index {inner}" if inner else ""
        ctx.warn(
            f"{KIND}.openvino.neg_inf",
            _element_path(0, position, data.shape),
            f"segment {int(ids[starts[run]])} holds only -inf{where}, so its maximum is -inf there; "
            "OpenVINO's CPU plugin gives the lowest finite value instead",
        )


def _may_hold_nan_or_minus_inf(wide: np.ndarray) -> bool:
    """NaN or -inf among the values, by one minimum: np.minimum gives NaN where any value is NaN, and
    -inf where there is -inf and no NaN. One pass with no temporary, where np.isnan and np.isneginf
    each wrote one (0.2 against 2.5 ms for 4M f32); held to them by tests/ops/test_segment_max.py,
    test_value_shortcuts_answer_as_the_full_scans."""
    low = np.minimum.reduce(wide, axis=None)
    return bool(np.isnan(low) or low == -np.inf)


def _may_have_empty(ids: np.ndarray | None, ids_ok: bool, count: Dim) -> bool:
    if ids is None or not ids_ok or not isinstance(count, int):
        return True
    return run_starts(ids[: count_below(ids, count)]).size < count


def _warn_openvino_shapes(d: SegmentMaxOp, ctx: Context, ids, ids_ok: bool, count: Dim) -> None:
    dtype = d.inputs[0].dtype
    if d.attrs.mode == "LOWEST" and dtype in WRONG_LOWEST and _may_have_empty(ids, ids_ok, count):
        lowest = DTYPES[dtype].lowest
        lowest = lowest if isinstance(lowest, int) else f"{float(lowest):.8g}"
        path = "attrs.fill_mode" if d.attrs.fill_mode else "attrs.empty_segment_value"
        ctx.warn(
            f"{KIND}.openvino.lowest_dtype",
            path,
            f"an empty segment holds {dtype}'s lowest value {lowest}; OpenVINO's CPU plugin computes {dtype} "
            "in f32 or i32 and fills a different value",
        )
    if len(d.inputs) < 3 and _ids_empty(d):
        ctx.warn(
            f"{KIND}.openvino.empty_ids",
            "inputs[1].shape[0]",
            "segment_ids is empty and num_segments is absent, so there are 0 segments; OpenVINO's CPU "
            "plugin crashes on this",
        )


# --- the kernel --------------------------------------------------------------------------------


def _run_max(wide: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """np.maximum over the runs wide[starts[i]:starts[i+1]] along axis 0, with +0 above -0.

    A run whose maximum is 0 holds nothing above 0 and no NaN, so any value in it without the sign bit
    is +0: the fix needs one pass over the sign bits, and only when some maximum is -0."""
    result = None
    if wide.ndim > 1 and wide.size > len(wide) and starts.size:  # rows of more than one element
        lengths = np.diff(starts, append=len(wide))
        longest = int(lengths.max())
        if longest <= _FOLD_LONGEST_RUN:
            result = _fold_runs(wide, starts, lengths, longest)
    if result is None:
        result = np.maximum.reduceat(wide, starts, axis=0)
    if wide.dtype.kind == "f" and has_negative_zero(result):  # a +0 maximum is right: +0 is in its run
        zero = result == 0
        negative = np.logical_and.reduceat(np.signbit(wide), starts, axis=0)
        result[zero] = np.where(negative[zero], -0.0, 0.0)
    return result


# Up to this many rows in the longest run, folding rows by their place in the run beats reduceat.
_FOLD_LONGEST_RUN = 64


def _fold_runs(wide: np.ndarray, starts: np.ndarray, lengths: np.ndarray, longest: int) -> np.ndarray:
    """np.maximum over each run of rows, a whole row at a time: the k-th rows of every run at least
    k + 1 long are folded in one vectorised step, `longest` steps in all.

    reduceat along axis 0 walks each row's elements column by column (3x OpenVINO on [40,000 x 100]
    with runs of ~4 rows). Runs sorted longest first make the runs still going at step k a prefix, so
    each step is one gather and one in-place maximum on a contiguous block. An empty run (length 0,
    from the caller's binary search) gets a junk row, as reduceat gives it; the caller fills it."""
    order = np.argsort(-lengths, kind="stable")
    ordered = starts[order]
    acc = wide[np.minimum(ordered, len(wide) - 1)]
    still_going = len(lengths) - np.cumsum(np.bincount(lengths, minlength=longest + 1))
    for k in range(1, longest):
        m = int(still_going[k])
        np.maximum(acc[:m], wide[ordered[:m] + k], out=acc[:m])
    result = np.empty_like(acc)
    result[order] = acc
    return result


def run_starts(ids: np.ndarray) -> np.ndarray:
    """Where each run of equal values in a sorted 1-D array begins (empty for an empty array)."""
    if ids.size == 0:
        return np.zeros(0, dtype=np.intp)
    return np.concatenate(([0], np.flatnonzero(ids[1:] != ids[:-1]) + 1))


def count_below(ids: np.ndarray, count: int) -> int:
    """How many of the sorted `ids` are below `count` (a Python int, which may not fit ids' dtype)."""
    if ids.size == 0 or count > ids[-1]:
        return ids.size
    return int(np.searchsorted(ids, ids.dtype.type(count)))  # a Python int would cast all of ids first


def segment_max(x: np.ndarray, ids: np.ndarray, count: int, fill: int | float) -> np.ndarray:
    """Maximum of the rows of x (axis 0) that share a segment id, for segments 0 .. count-1.

    `ids` are sorted and >= 0, one per row; rows with an id >= count are dropped, and a segment no row
    belongs to gets `fill`. NaN absorbs and +0 beats -0, as in reduce_max."""
    kept = count_below(ids, count)
    out_shape = (count, *x.shape[1:])
    if kept == 0:
        return np.full(out_shape, fill, dtype=x.dtype)
    ids, wide = ids[:kept], widen(x[:kept])
    slots = int(ids[-1]) + 1  # segments up to the last kept id; those after it are all empty
    if slots * 4 <= kept:
        # Few segments for many rows: find each segment's first row by binary search (no pass over
        # the ids), reduce every segment, then overwrite the empty ones, whose reduceat rows are junk.
        segments = np.arange(slots, dtype=ids.dtype)  # ids' own type: other keys cast all of ids first
        starts = np.searchsorted(ids, segments)
        empty = ids[starts] != segments
        result = _run_max(wide, starts)
        if slots == count and result.dtype == x.dtype:
            result[empty] = fill
            return result
        out = np.empty(out_shape, dtype=x.dtype)
        out[:slots] = result
        out[:slots][empty] = fill
        out[slots:] = fill
        return out
    starts = run_starts(ids)
    out = np.full(out_shape, fill, dtype=x.dtype)
    out[ids[starts]] = _run_max(wide, starts)
    return out


# --- the op -------------------------------------------------------------------------------------


def infer(d: SegmentMaxOp, ctx: Context) -> list[OutputType] | None:
    data = d.inputs[0]
    _check_fill_mode(d, ctx)
    _check_shapes(d, ctx)
    ids, ids_ok = _segment_ids(d, ctx)
    count = _segment_count(d, ids, _num_segments(d, ctx))
    _warn_openvino_shapes(d, ctx, ids, ids_ok, count)
    values = ctx.values(0)
    rows_match = values is not None and ids is not None and values.ndim >= 1 and len(values) == ids.size
    if rows_match and ids_ok and isinstance(count, int):
        _warn_openvino_values(ctx, values, ids, count)
    if data.dtype not in NUMERIC or data.rank == 0:
        return None
    shape = None if data.shape is None else (count, *data.shape[1:])
    return [OutputType(data.dtype, shape)]


def evaluate(d: SegmentMaxOp, arrays: list[np.ndarray]) -> list[np.ndarray]:
    data, ids = arrays[0], arrays[1]
    count = int(arrays[2]) if len(arrays) > 2 else _implied_count(ids)
    fill = DTYPES[d.inputs[0].dtype].lowest if d.attrs.mode == "LOWEST" else 0
    return [segment_max(data, ids, count, fill)]


# --- verification: why a given output differs, and OpenVINO's CPU plugin as a modelled kernel -----------

MISMATCH_CLASSES = (
    MismatchClass("empty_fill", "An empty segment holds a value other than its fill (zero, -inf, another "
                  "type's lowest where LOWEST is due, ...); the detail names the value given."),
    MismatchClass("segment_boundary", "The value belongs to a neighbouring segment: its maximum, or a row just "
                  "across the boundary."),
)  # fmt: skip


@dataclass(frozen=True)
class _Segments:
    ids: np.ndarray  # the ids of the rows that reach the output
    count: int
    inner: int  # elements per output row

    def bounds(self, segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """First row and one past the last row of each segment (equal for an empty one)."""
        return np.searchsorted(self.ids, segments, "left"), np.searchsorted(self.ids, segments, "right")


def _segments(case: Case) -> _Segments:
    ids, out = case.inputs[1], case.expected[0]
    count = out.shape[0]
    return _Segments(ids[: count_below(ids, count)], count, math.prod(out.shape[1:]))


def _openvino_lowest(dtype: str) -> Any:
    """The lowest value as OpenVINO's CPU plugin takes it: its compute type's, cast to dtype (wrapping for
    integers as C++ does; f32's lowest overflows f16 to -inf)."""
    source = DTYPES[COMPUTE_TYPE.get(dtype, dtype)]
    with np.errstate(over="ignore"):
        return np.array(source.lowest, dtype=source.numpy).astype(DTYPES[dtype].numpy)[()]


def _fill_name(dtype: str, got: Any) -> str:
    """What an empty segment was filled with, in words: zero, -inf, the type's lowest, or the value;
    and, where OpenVINO's CPU plugin would fill the same, that its compute type's lowest gives it."""
    dt = DTYPES[dtype]
    value = np.asarray(got, dtype=dt.numpy)
    shown = encode(value, dtype, as_base64=False)
    if value == 0:
        name = "zero"
    elif dt.is_float and np.isneginf(value.astype(np.float64)):
        name = "-inf"
    elif value == dt.lowest:
        return f"{dtype}'s lowest ({shown})"
    else:
        name = f"{shown}"
    compute = COMPUTE_TYPE.get(dtype)
    if compute is not None and equal_bits(value, np.asarray(_openvino_lowest(dtype)), dt.is_float):
        name += f" ({compute}'s lowest {DTYPES[compute].lowest} cast to {dtype})"
    return name


def classify(case: Case, index: int, at: np.ndarray, want: np.ndarray, got: np.ndarray) -> np.ndarray:
    seg = _segments(case)
    segment, column = np.divmod(at, seg.inner)
    first, end = seg.bounds(segment)
    is_float = DTYPES[case.descriptor.inputs[0].dtype].is_float
    spec_rows = case.expected[0].reshape(seg.count, seg.inner)
    rows = case.inputs[0].reshape(case.inputs[0].shape[0], seg.inner)
    boundary = np.zeros(at.shape, dtype=bool)
    for neighbour in (segment - 1, segment + 1):
        there = np.clip(neighbour, 0, seg.count - 1)
        n_first, n_end = seg.bounds(there)
        usable = (neighbour >= 0) & (neighbour < seg.count) & (n_first < n_end)
        boundary |= usable & equal_bits(got, spec_rows[there, column], is_float)
    for row in (first - 1, end) if seg.ids.size else ():  # the rows just before and after the segment's own
        usable = (row >= 0) & (row < seg.ids.size)
        boundary |= usable & equal_bits(got, rows[np.clip(row, 0, seg.ids.size - 1), column], is_float)
    classes = np.full(at.shape, "", dtype=object)
    classes[boundary] = "segment_boundary"
    classes[first == end] = "empty_fill"
    return classes


def explain(case: Case, index: int, position: int, want: Any, got: Any, cls: str) -> str | None:
    d = case.descriptor
    dtype = d.inputs[0].dtype
    segment = position // _segments(case).inner
    if cls == "empty_fill":
        due = encode(np.asarray(want), dtype, as_base64=False)
        return f"segment {segment} is empty: filled with {_fill_name(dtype, got)} where {d.attrs.mode}'s {due} is due"
    if cls == "segment_boundary":
        return f"segment {segment} holds a value of a neighbouring segment's rows"
    if cls == "nan_dropped":
        return f"segment {segment} holds NaN here, so its maximum is NaN"
    if cls == "value" and DTYPES[dtype].is_float and np.isneginf(np.float64(want)):
        return f"segment {segment} holds only -inf here, so its maximum is -inf"
    return None


def _openvino_max(
    data: np.ndarray, ids: np.ndarray, count: int, compute: np.dtype | None, is_float: bool
) -> np.ndarray:
    """Each segment's maximum as OpenVINO's CPU plugin takes it, NaN skipped (-inf where none is left),
    in `compute` when it narrows data's type: values converted there (integers wrapping as C++'s casts do)
    and the maxima converted back."""
    work = data if compute is None else _cast(data, compute)
    if is_float:
        wide = widen(work)
        result = segment_max(np.where(np.isnan(wide), -np.inf, wide).astype(wide.dtype), ids, count, -np.inf)
    else:
        result = segment_max(work, ids, count, 0)
    return _cast(result, data.dtype)


def _cast(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(dtype)


def _openvino_cpu(d: SegmentMaxOp, arrays: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> Modelled:
    """NaN skipped, the lowest value for a segment of only NaN or -inf; f16 and f64 computed in f32, s16,
    s64, u16, u32 and u64 in s32 (values converted), and LOWEST taken in that compute type."""
    data, ids, spec = arrays[0], arrays[1], expected[0]
    dtype = d.inputs[0].dtype
    is_float = DTYPES[dtype].is_float
    compute = COMPUTE_TYPE.get(dtype)
    count = spec.shape[0]
    kept = count_below(ids, count)
    inner = math.prod(data.shape[1:])  # explicit: reshape cannot infer it from no rows
    lowest = _openvino_lowest(dtype)
    fill = lowest if d.attrs.mode == "LOWEST" else 0
    present = np.zeros(count, dtype=bool)
    present[ids[:kept]] = True
    has_nan = np.zeros(count, dtype=bool)
    out = _openvino_max(data, ids, count, None if compute is None else DTYPES[compute].numpy, is_float)
    own = out  # the same model computed in data's own type: what the conversion changed
    if compute is not None:
        own = _openvino_max(data, ids, count, None, is_float)
    if is_float:
        nan = np.isnan(widen(data))
        has_nan[ids[:kept][nan[:kept].reshape(kept, inner).any(axis=1)]] = True
        only = np.isneginf(widen(out).astype(np.float64)) & present.reshape((count,) + (1,) * (out.ndim - 1))
        out = out.copy()
        out[only] = lowest
        own = own.copy()
        own[
            np.isneginf(widen(own).astype(np.float64)) & present.reshape((count,) + (1,) * (own.ndim - 1))
        ] = lowest
    out[~present] = fill
    own[~present] = fill
    differ = ~equal_bits(out, spec, is_float).reshape(count, inner).all(axis=1)
    converted = differ & present & ~equal_bits(out, own, is_float).reshape(count, inner).all(axis=1)
    parts = []
    if converted.any():
        parts.append(
            f"values computed in {compute} (converted from {dtype}, and back) in "
            f"{listing('segment', np.flatnonzero(converted).tolist())}"
        )
    differ &= ~converted
    for what, segments in (
        ("NaN ignored in", differ & has_nan),
        (f"the lowest value {encode(np.asarray(lowest), dtype, as_base64=False)} for a segment of only NaN or "
         "-inf in", differ & present & ~has_nan),
        (f"empty segments filled with {_fill_name(dtype, fill)}, not {dtype}'s lowest, in",
         differ & ~present),
    ):  # fmt: skip
        if segments.any():
            parts.append(f"{what} {listing('segment', np.flatnonzero(segments).tolist())}")
    return Modelled([out], "; ".join(parts))


IMPLEMENTATIONS = (
    Implementation(
        "OpenVINO 2026.4 CPU",
        f"{OPENVINO}: NaN skipped within a segment; the lowest value for a segment of only NaN or -inf; f16 and "
        "f64 computed in f32, s16, s64, u16, u32 and u64 in i32 (values converted: a u32 of 4,000,000,000 becomes "
        "negative and loses its segment's maximum), f32, bf16, s8, s32, u8 and boolean in their own type; so "
        "LOWEST fills f32's lowest for f64, -inf for f16, i32's lowest for s64, 0 for s16 and u16, 2^31 for u32, "
        '2^64 - 2^31 for u64. Recorded: specs/segment_max.json, the "verify: OpenVINO\'s CPU answer" cases',
        _openvino_cpu,
    ),
)


OP = OpSpec(
    kind=KIND,
    model=SegmentMaxOp,
    source=SPEC,
    summary="Maximum of data's rows per segment, segments given by sorted ids; empty segments filled.",
    inputs=(
        Port("data", NUMERIC, "Rank >= 1; its rows (first dim) are grouped into segments."),
        Port("segment_ids", INDEX, "1-D, one sorted id >= 0 per row of data."),
        Port(
            "num_segments",
            INDEX,
            "Scalar: how many segments the output has (rows with larger ids are "
            "dropped, missing segments are empty). Default max(segment_ids) + 1.",
            optional=True,
        ),
    ),
    outputs=(Port("output", NUMERIC, "data's dtype and shape, with num_segments as the first dim."),),
    rules=RULES,
    infer=infer,
    output_dtypes=output_dtypes,
    evaluate=evaluate,
    mismatch_classes=MISMATCH_CLASSES,
    classify=classify,
    explain=explain,
    implementations=IMPLEMENTATIONS,
    dtype_source=f"{SPEC}, Types",
    dtype_table=tuple(
        {"data": t, "segment_ids": i, "num_segments": n, "output": t}
        for t in sorted(NUMERIC, key=list(DTYPES).index)
        for i in sorted(INDEX)
        for n in sorted(INDEX)
    ),
    notes=(
        "The spec's XML examples call the attribute empty_segment_value; OpenVINO reads fill_mode (any case) "
        "and writes zero / lowest. opspec accepts the stale name with a warning.",
        "OpenVINO's CPU plugin skips NaN within a segment, where the spec's maximum (and opspec) gives NaN; "
        "a segment of only NaN or only -inf gets the lowest finite value there instead of NaN / -inf.",
        "OpenVINO's CPU plugin computes f16, s16, u16, u32 and u64 in f32 or i32, so LOWEST fills empty "
        "segments with a value other than the type's lowest.",
        "OpenVINO's CPU plugin crashes on empty segment_ids without num_segments; opspec answers 0 segments.",
        "OpenVINO checks that segment_ids are sorted, but not that they are >= 0: negative ids crash at run "
        "time. opspec rejects them.",
        "OpenVINO accepts a negative num_segments (-2) and infers 0 segments; opspec rejects it.",
    ),
    examples=(
        {
            "kind": "SegmentMax",
            "attrs": {"fill_mode": "LOWEST"},
            "inputs": [
                {"dtype": "f32", "shape": ["N", 4]},
                {"dtype": "s64", "shape": ["N"]},
                {"dtype": "s32", "shape": [], "data": 3},
            ],
            "outputs": [{"dtype": "f32", "shape": [3, 4]}],
        },
        {
            "kind": "SegmentMax",
            "attrs": {"fill_mode": "ZERO"},
            "inputs": [
                {"dtype": "f32", "shape": [8], "data": [1, 7, -2, "nan", 4, -0.5, -3, -1]},
                {"dtype": "s32", "shape": [8], "data": [0, 0, 0, 1, 1, 3, 5, 5]},
            ],
        },
    ),
)
