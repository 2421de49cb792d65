"""Argmax from the embARC MLI kernel API (seed 003), with the decisions of SPEC-NOTES.

`in` is raw sa8 or fx16 memory, possibly strided; the answer is, per slice along `axis` (or for the
whole tensor when axis < 0), the top_k linear memory offsets, largest value first, with ties in the
order MLI's heap-based kernel leaves them. Every diagnostic names the status MLI's debug build returns
for the same fault (mli_chk_argmax in lib/src/private/src/mli_check.cc), where it has one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import AliasChoices, Field, PrivateAttr, WithJsonSchema, model_validator

from app.core.diagnostics import Rule
from app.core.engine import Context
from app.core.mismatch import Case, Implementation, MismatchClass, Modelled, listing
from app.core.numbers import Integer
from app.core.payload import buffer_nbytes, layout
from app.core.registry import Attrs, Descriptor, KernelSteps, OpSpec, OutputType, Port
from app.core.shapes import Shape, format_shape
from app.core.tensors import mli_quant_problems, mli_stride_problems

KIND = "Argmax"
SPEC = "embARC MLI Argmax"
CONDITIONS = f"{SPEC}, Conditions"
IN_DTYPES = frozenset({"sa8", "fx16"})
KERNEL_DTYPE = {"mli_krn_argmax_sa8": "sa8", "mli_krn_argmax_fx16": "fx16"}
MAX_RANK = 4  # MLI_MAX_RANK

BAD_TENSOR = "MLI_STATUS_BAD_TENSOR"
INCOMPATIBLE = "MLI_STATUS_INCOMPATEBLE_TENSORS"  # sic: MLI's own spelling
BAD_FUNC_CFG = "MLI_STATUS_BAD_FUNC_CFG"
TYPE_MISMATCH = "MLI_STATUS_TYPE_MISMATCH"
NOT_ENOUGH_MEMORY = "MLI_STATUS_NOT_ENGH_MEM"  # sic


# mli_argmax_cfg holds both fields as int32_t: a value outside it cannot reach the kernel at all.
Int32 = Annotated[
    Integer,
    Field(ge=-(1 << 31), le=(1 << 31) - 1),
    WithJsonSchema({"type": "integer", "minimum": -(1 << 31), "maximum": (1 << 31) - 1}),
]


class ArgmaxAttrs(Attrs):
    axis: Int32 = Field(
        description="Dim of in whose index picks the slice (0 is the outermost); negative: the whole tensor is "
        "one slice. Must be below in's rank. An int32, as in mli_argmax_cfg."
    )
    top_k: Int32 = Field(
        validation_alias=AliasChoices("top_k", "topk"),
        description="Positions returned per slice (MLI's cfg.topk; alias topk): from 1 to the slice size.",
    )
    _top_k_key: str = PrivateAttr("top_k")  # the spelling the request used, for diagnostic paths

    @model_validator(mode="wrap")
    @classmethod
    def _remember_spelling(cls, data: Any, handler: Any) -> ArgmaxAttrs:
        attrs = handler(data)
        if isinstance(data, dict) and "topk" in data:
            attrs._top_k_key = "topk"
        return attrs


class ArgmaxOp(Descriptor):
    kind: Literal["Argmax", "mli_krn_argmax_sa8", "mli_krn_argmax_fx16"]
    attrs: ArgmaxAttrs


RULES = (
    Rule(f"{KIND}.in.dtype", "in is raw sa8 or fx16 memory.", f"{SPEC}, List of Available Argmax Functions",
         status=TYPE_MISMATCH),
    Rule(f"{KIND}.in.kernel", "mli_krn_argmax_sa8 takes only sa8 and mli_krn_argmax_fx16 only fx16.",
         f"{SPEC}, List of Available Argmax Functions", status=TYPE_MISMATCH),
    Rule(f"{KIND}.in.rank", f"in has rank 1 to {MAX_RANK}.", f"{CONDITIONS} (valid tensor; MLI_MAX_RANK)",
         status=BAD_TENSOR),
    Rule(f"{KIND}.in.dim", "Every dim of in is at least 1.", f"{CONDITIONS} (valid tensor)", status=BAD_TENSOR),
    Rule(f"{KIND}.in.strides", "Every stride of in is positive and no dim's rows overlap the next dim's extent.",
         f"{CONDITIONS} (valid tensor); SPEC-NOTES, Argmax", status=BAD_TENSOR),
    Rule(f"{KIND}.in.inner_stride", "The innermost stride of in is 1.", f"{CONDITIONS}, mem_stride",
         status=INCOMPATIBLE),
    Rule(f"{KIND}.inputs.capacity", "A strided input's memory buffer reaches its last element.",
         f"{CONDITIONS} (valid tensor: capacity)", status=NOT_ENOUGH_MEMORY),
    Rule(f"{KIND}.quant.per_tensor", "An sa8 in is quantized per tensor (quant.dim absent or negative).",
         f"{CONDITIONS}, sa8", status=INCOMPATIBLE),
    Rule(f"{KIND}.quant.scalar", "Per-tensor scale, zero_point and scale_frac_bits are single numbers.",
         f"{CONDITIONS}, sa8", status=BAD_TENSOR),
    Rule(f"{KIND}.quant.scale", "An sa8 scale is positive.", f"{CONDITIONS} (valid tensor)", status=BAD_TENSOR),
    Rule(f"{KIND}.quant.zero_point", "An sa8 zero_point fits int16.", f"{CONDITIONS} (valid tensor)",
         status=INCOMPATIBLE),
    Rule(f"{KIND}.quant.ignored", "Quant fields of the other format (frac_bits on sa8, scale on fx16) mean "
         "nothing.", "opspec wire format", "warning"),
    Rule(f"{KIND}.axis.range", "axis is below in's rank (any negative axis means the whole tensor).",
         f"{SPEC}, mli_argmax_cfg axis; {CONDITIONS}", status=BAD_FUNC_CFG),
    Rule(f"{KIND}.top_k.range", "top_k is at least 1 and at most the slice size (numel, or numel / shape[axis]).",
         f"{CONDITIONS}, top_k"),
    Rule(f"{KIND}.out.strides", "A declared out is contiguous: strides [top_k, 1].", f"{CONDITIONS}, mem_stride"),
    # MLI checks out only through its byte capacity (top_k * dim_size * 4), hence one status for all three.
    Rule(f"{KIND}.outputs.dtype", "out is sa32.", f"{CONDITIONS}, out", status=NOT_ENOUGH_MEMORY),
    Rule(f"{KIND}.outputs.rank", "out has rank 2.", f"{CONDITIONS}, out", status=NOT_ENOUGH_MEMORY),
    Rule(f"{KIND}.outputs.dim", "out has shape [dim_size, top_k].", f"{CONDITIONS}, out",
         status=NOT_ENOUGH_MEMORY),
)  # fmt: skip

_QUANT_RULES = {
    "per_axis": f"{KIND}.quant.per_tensor",
    "not_scalar": f"{KIND}.quant.scalar",
    "scale": f"{KIND}.quant.scale",
    "zero_point": f"{KIND}.quant.zero_point",
}
_STRIDE_RULES = {
    "positive": f"{KIND}.in.strides",
    "overlap": f"{KIND}.in.strides",
    "inner": f"{KIND}.in.inner_stride",
}


# --- validation and shape ------------------------------------------------------------------------


def _check_in(d: ArgmaxOp, ctx: Context) -> None:
    src = d.inputs[0]
    wanted = KERNEL_DTYPE.get(d.kind)
    if wanted is not None and src.dtype in IN_DTYPES and src.dtype != wanted:
        ctx.error(f"{KIND}.in.kernel", "inputs[0].dtype", f"{d.kind} takes {wanted} input; in is {src.dtype}")
    if src.shape is not None:
        if not 1 <= len(src.shape) <= MAX_RANK:
            ctx.error(
                f"{KIND}.in.rank",
                "inputs[0].shape",
                f"in has rank {len(src.shape)} {format_shape(src.shape)}; MLI tensors have rank 1 to {MAX_RANK}",
            )
        for axis, dim in enumerate(src.shape):
            if dim == 0:
                ctx.error(
                    f"{KIND}.in.dim",
                    f"inputs[0].shape[{axis}]",
                    f"dim {axis} of in is 0; every dim must be >= 1",
                )
    for problem in mli_stride_problems(src.shape, src.strides):
        ctx.error(_STRIDE_RULES[problem.kind], f"inputs[0].{problem.field}", problem.message)
    if src.dtype in IN_DTYPES:
        for problem in mli_quant_problems(src, asymmetric=src.dtype == "sa8"):
            path = f"inputs[0].{problem.field}"
            if problem.kind == "ignored":
                ctx.warn(f"{KIND}.quant.ignored", path, problem.message)
            else:
                why = " (Argmax needs per-tensor quantization)" if problem.kind == "per_axis" else ""
                ctx.error(_QUANT_RULES[problem.kind], path, problem.message + why)


def _slice_size(shape: Shape, axis: int) -> tuple[int | None, str]:
    """Elements per slice, when every dim it depends on is a known integer, and how it was counted."""
    dims = list(shape)
    if axis >= 0:
        del dims[axis]
    known = all(isinstance(dim, int) for dim in dims)
    how = "numel" if axis < 0 else f"numel / shape[{axis}]"
    return (math.prod(dims) if known else None), how  # type: ignore[arg-type]


def _check_top_k(d: ArgmaxOp, ctx: Context, shape: Shape | None, axis_ok: bool) -> None:
    top_k, path = d.attrs.top_k, f"attrs.{d.attrs._top_k_key}"
    if top_k < 1:
        ctx.error(f"{KIND}.top_k.range", path, f"top_k {top_k} is below 1; at least one position per slice")
        return
    if shape is None or not axis_ok:
        return
    size, how = _slice_size(shape, d.attrs.axis)
    if size is not None and top_k > size:
        ctx.error(
            f"{KIND}.top_k.range",
            path,
            f"top_k {top_k} is above the slice size {size} ({how} of in {format_shape(shape)}); "
            f"it must be in [1, {size}]",
        )


def _check_out_strides(d: ArgmaxOp, ctx: Context) -> None:
    if not d.outputs or d.outputs[0].strides is None or len(d.outputs[0].strides) != 2:
        return
    contiguous = [d.attrs.top_k, 1]
    if d.outputs[0].strides != contiguous:
        ctx.error(
            f"{KIND}.out.strides",
            "outputs[0].strides",
            f"out's strides {d.outputs[0].strides} are not contiguous; for top_k {d.attrs.top_k} they must be "
            f"{contiguous}",
        )


def infer(d: ArgmaxOp, ctx: Context) -> list[OutputType] | None:
    _check_in(d, ctx)
    shape, axis = d.inputs[0].shape, d.attrs.axis
    axis_ok = shape is None or axis < len(shape)
    if not axis_ok:
        ctx.error(
            f"{KIND}.axis.range",
            "attrs.axis",
            f"axis {axis} is out of range for in of rank {len(shape)}: it must be below {len(shape)} "  # type: ignore[arg-type]
            "(or negative, for the whole tensor)",
        )
    _check_top_k(d, ctx, shape, axis_ok)
    _check_out_strides(d, ctx)
    if not axis_ok or d.attrs.top_k < 1:
        return None
    dim_size = 1 if axis < 0 else (None if shape is None else shape[axis])
    return [OutputType("sa32", (dim_size, d.attrs.top_k))]


def output_dtypes(d: ArgmaxOp) -> list[str | None]:
    return ["sa32"]


# --- evaluation ----------------------------------------------------------------------------------


def _slices(src: np.ndarray, axis: int) -> np.ndarray:
    """Row s = the slice with index s along axis, in row-major order; one row for a negative axis."""
    return src.reshape(1, -1) if axis < 0 else np.moveaxis(src, axis, 0).reshape(src.shape[axis], -1)


def kernel_steps(d: ArgmaxOp, arrays: list[np.ndarray]) -> KernelSteps:
    """A bound on the heap's sequential work: building and sorting k entries, and one sift per column
    that may rise above the heap's minimum; rows replayed together share their steps."""
    rows, k = _slices(arrays[0], d.attrs.axis), d.attrs.top_k
    cand_rows, _ = _candidates(rows, k)
    per_row = np.bincount(cand_rows, minlength=rows.shape[0])
    together = rows.shape[0] >= _VECTOR_ROWS
    heaps = 1 if together else rows.shape[0]
    rises = int(per_row.max(initial=0) if together else per_row.sum())
    levels = max(1, k.bit_length())
    why = (
        f"MLI's tie order is a heap of top_k {k} entries, sifted {levels} levels deep for each of up to "
        f"{rises:,} rising values in {heaps:,} heap(s) replayed one after another"
    )
    return KernelSteps((2 * k * heaps + rises) * levels, "attrs.top_k", why)


def evaluate(d: ArgmaxOp, arrays: list[np.ndarray]) -> list[np.ndarray]:
    src = arrays[0]
    return [_offsets(d, src, top_k_columns(_slices(src, d.attrs.axis), d.attrs.top_k))]


def _offsets(d: ArgmaxOp, src: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Columns of each slice (row) as linear offsets into in's memory, as int32."""
    axis = d.attrs.axis
    # The strides decode used: a size-1 dim's stride is never stepped and may be any size, so it is 0 there.
    strides = layout(d.inputs[0], "inputs[0]").strides or _dense_strides(src.shape)
    if axis < 0:
        outer, inner_shape, inner_strides = 0, src.shape, strides
    else:
        outer = strides[axis]
        inner_shape = src.shape[:axis] + src.shape[axis + 1 :]
        inner_strides = strides[:axis] + strides[axis + 1 :]
    offsets = np.arange(columns.shape[0], dtype=np.int64)[:, None] * outer
    if inner_shape:  # a rank-1 in sliced along its only axis has one-element slices: column 0 throughout
        for index, stride in zip(np.unravel_index(columns, inner_shape), inner_strides, strict=True):
            offsets = offsets + index * stride
    return offsets.astype(np.int32)


def _dense_strides(shape: tuple[int, ...]) -> list[int]:
    return [math.prod(shape[axis + 1 :]) for axis in range(len(shape))]


def top_k_columns(rows: np.ndarray, k: int) -> np.ndarray:
    """For each row, the columns of its k largest values in the order MLI's kernel leaves them.

    Where the k kept values are distinct and the k-th largest occurs once in the row, any correct
    top-k is the kernel's answer, so argpartition serves; the other rows replay the kernel's heap.
    For a small k the replay is cheaper than argpartition itself, unless many rows make it vectorised
    and ties are rare (few rows next to the value range), so then every row takes it at once."""
    many = rows.shape[0] >= _VECTOR_ROWS
    replay = _heap_rows if many else _heap_each
    ties_likely = rows.shape[1] * k > 1 << (8 * rows.itemsize)
    if k <= _SMALL_K and (ties_likely or not many):
        return replay(rows, k)
    out = np.empty((rows.shape[0], k), dtype=np.int64)
    plain, top = _distinct_top_k(rows, k)
    out[plain] = top[plain]
    tied = np.flatnonzero(~plain)
    if tied.size:
        out[tied] = (_heap_rows if tied.size >= _VECTOR_ROWS else _heap_each)(rows[tied], k)
    return out


def _distinct_top_k(rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    length = rows.shape[1]
    top = np.argpartition(rows, length - k, axis=1)[:, length - k :]
    values = np.take_along_axis(rows, top, axis=1)
    order = np.argsort(values, axis=1)[:, ::-1]
    top = np.take_along_axis(top, order, axis=1)
    values = np.take_along_axis(values, order, axis=1)
    distinct = np.all(values[:, :-1] > values[:, 1:], axis=1)
    kth_once = np.count_nonzero(rows == values[:, -1:], axis=1) == 1
    return distinct & kth_once, top


# The kernel's procedure, per row (SPEC-NOTES, Argmax): a min-heap d of the first k columns, then every
# later column p with v[p] >= v[d[0]] replaces d[0] and sifts down, then a heapsort. Two facts make it
# cheap: a p equal to the minimum never moves (sift needs a strictly smaller child), so it only matters
# if no later p replaces it, i.e. only the last such p after the last strict rise counts; and the
# minimum only grows, so a column below the k-th largest of everything before its block can be skipped.

_VECTOR_ROWS = 48  # below this many tied rows, a Python loop per row beats NumPy's per-call overhead
_SMALL_K = 64  # up to here the heap's k log k steps cost less than a pass of argpartition


def _candidates(rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of every column p >= k that may rise strictly above the heap's minimum, by row
    then column: blocks [k, 2k), [2k, 4k), ... keep only values above the k-th largest before them."""
    length = rows.shape[1]
    found_rows, found_cols = [], []
    best = rows[:, :k]  # the k largest so far (as a multiset), unordered
    start = k
    while start < length:
        stop = min(length, 2 * start)
        block = rows[:, start:stop]
        r, c = np.nonzero(block > best.min(axis=1, keepdims=True))
        found_rows.append(r)
        found_cols.append(c + start)
        if stop < length:
            merged = np.concatenate([best, _chunk_maxima(block, k)], axis=1)
            best = np.partition(merged, merged.shape[1] - k, axis=1)[:, -k:]
        start = stop
    if not found_rows:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    r, c = np.concatenate(found_rows), np.concatenate(found_cols)
    order = np.argsort(r, kind="stable")  # blocks are in column order, so columns stay ascending
    return r[order], c[order]


def _chunk_maxima(block: np.ndarray, k: int) -> np.ndarray:
    """A long block shrunk to the maxima of short chunks: still values of distinct columns, so the k
    largest of them still bound the k-th largest from below, at a fraction of the partition's cost."""
    width = min(8, block.shape[1] // (16 * k))
    if width < 2:
        return block
    usable = block.shape[1] // width * width
    maxima = block[:, 0:usable:width]
    for offset in range(1, width):
        maxima = np.maximum(maxima, block[:, offset:usable:width])
    return maxima


def _heap_each(rows: np.ndarray, k: int) -> np.ndarray:
    cand_rows, cand_cols = _candidates(rows, k)
    bounds = np.searchsorted(cand_rows, np.arange(rows.shape[0] + 1))
    out = np.empty((rows.shape[0], k), dtype=np.int64)
    for r, row in enumerate(rows):
        cols = cand_cols[bounds[r] : bounds[r + 1]]
        out[r] = _heap_row(row, k, cols.tolist(), row[cols].tolist())
    return out


def _heap_row(row: np.ndarray, k: int, cols: list[int], values: list[int]) -> list[int]:
    d, v = list(range(k)), row[:k].tolist()
    for i in range(k // 2 - 1, -1, -1):
        _sift(d, v, i, k)
    last_rise = k - 1
    for p, x in zip(cols, values, strict=True):
        if x > v[0]:
            d[0], v[0], last_rise = p, x, p
            _sift(d, v, 0, k)
    ties = np.flatnonzero(row[last_rise + 1 :] == v[0])
    if ties.size:
        d[0] = last_rise + 1 + int(ties[-1])
    for i in range(k - 1, 0, -1):
        d[0], d[i], v[0], v[i] = d[i], d[0], v[i], v[0]
        _sift(d, v, 0, i)
    return d


def _sift(d: list[int], v: list[int], i: int, n: int) -> None:
    while i < n // 2:
        s, left = i, 2 * i + 1
        if v[left] < v[s]:
            s = left
        if left + 1 < n and v[left + 1] < v[s]:
            s = left + 1
        if s == i:
            return
        d[i], d[s], v[i], v[s] = d[s], d[i], v[s], v[i]
        i = s


def _heap_rows(rows: np.ndarray, k: int) -> np.ndarray:
    """The same procedure for many rows at once: one NumPy step per heap step, across all rows."""
    n, length = rows.shape
    heap = np.tile(np.arange(k, dtype=np.int64), (n, 1))
    vals = rows[:, :k].astype(np.int32)
    everyone = np.arange(n)
    for i in range(k // 2 - 1, -1, -1):
        _sift_rows(heap, vals, everyone, i, k)
    last_rise = np.full(n, k - 1, dtype=np.int64)
    cand_rows, cand_cols = _candidates(rows, k)
    if cand_rows.size:
        counts = np.bincount(cand_rows, minlength=n)
        slot = np.arange(cand_rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
        cols = np.zeros((counts.max(), n), dtype=np.int64)  # slot-major: each step reads one row
        cols[slot, cand_rows] = cand_cols
        cand_vals = np.full(cols.shape, np.iinfo(np.int32).min, dtype=np.int32)
        cand_vals[slot, cand_rows] = rows[cand_rows, cand_cols]
        for j in range(cols.shape[0]):
            rise = np.flatnonzero(cand_vals[j] > vals[:, 0])
            if rise.size:
                heap[rise, 0] = last_rise[rise] = cols[j, rise]
                vals[rise, 0] = cand_vals[j, rise]
                _sift_rows(heap, vals, rise, 0, k)
    last_tie = length - 1 - np.argmax((rows == vals[:, :1])[:, ::-1], axis=1)
    late = last_tie > last_rise
    heap[late, 0] = last_tie[late]
    for i in range(k - 1, 0, -1):
        heap[:, [0, i]] = heap[:, [i, 0]]
        vals[:, [0, i]] = vals[:, [i, 0]]
        _sift_rows(heap, vals, everyone, 0, i)
    return heap


def _sift_rows(heap: np.ndarray, vals: np.ndarray, rows: np.ndarray, start: int, n: int) -> None:
    """sift(start, n) in each of `rows`, on flat indices (fewer NumPy calls per level)."""
    width = heap.shape[1]
    flat_heap, flat_vals = heap.reshape(-1), vals.reshape(-1)  # views: heap and vals are contiguous
    base = rows * width
    here = base + start
    while here.size:
        at = here - base
        going = at < n // 2
        if not going.all():
            base, here, at = base[going], here[going], at[going]
        left = here + at + 1  # base + 2 * at + 1
        pick = np.where(flat_vals[left] < flat_vals[here], left, here)
        right = np.minimum(left + 1, base + n - 1)  # a missing right child reads the left one: never smaller
        pick = np.where(flat_vals[right] < flat_vals[pick], right, pick)
        moved = pick != here
        base, here, pick = base[moved], here[moved], pick[moved]
        flat_heap[here], flat_heap[pick] = flat_heap[pick], flat_heap[here]
        flat_vals[here], flat_vals[pick] = flat_vals[pick], flat_vals[here]
        here = pick


# --- verification: why a given out differs, and the orders other implementations break ties in --------

MISMATCH_CLASSES = (
    MismatchClass("tie_order", "An offset holding the same raw value as the due one: ties broken in another "
                  "order (first-occurrence, last-occurrence or other)."),
    MismatchClass("padding_read", "An offset inside in's memory buffer that is stride padding, not an element."),
    MismatchClass("not_top_k", "An offset in the slice whose value is below the slice's top_k largest."),
)  # fmt: skip
NOTES_ARGMAX = "SPEC-NOTES, Argmax"
RECORDED = "Recorded: specs/argmax.json,"


@dataclass(frozen=True)
class _Located:
    """Offsets into in's memory, resolved: on an element or not, in padding or not, slice and value."""

    element: np.ndarray
    padding: np.ndarray
    slice: np.ndarray
    value: np.ndarray


def _locate(d: ArgmaxOp, src: np.ndarray, offsets: np.ndarray) -> _Located:
    """MLI's strides never let one dim's rows overlap the next dim's extent, so dividing by each stride
    in turn, outermost first, gives the only index an offset can have."""
    strides = d.inputs[0].strides or _dense_strides(src.shape)
    buffer = buffer_nbytes(src) // src.itemsize
    rest = offsets.astype(np.int64)
    inside = (rest >= 0) & (rest < buffer)
    element = inside.copy()
    index = []
    for dim, stride in zip(src.shape, strides, strict=True):
        step = rest // stride
        rest = rest - step * stride
        element &= step < dim
        index.append(np.clip(step, 0, dim - 1))
    value = src[tuple(index)].astype(np.int64)
    row = index[d.attrs.axis] if d.attrs.axis >= 0 else np.zeros(offsets.shape, dtype=np.int64)
    return _Located(element, inside & ~element, row, value)


def classify(case: Case, index: int, at: np.ndarray, want: np.ndarray, got: np.ndarray) -> np.ndarray:
    d, src, k = case.descriptor, case.inputs[0], case.descriptor.attrs.top_k
    row = at // k
    given, due = _locate(d, src, got), _locate(d, src, want)
    kth = _locate(d, src, case.expected[0][row, k - 1]).value
    in_slice = given.element & (given.slice == row)
    classes = np.full(at.shape, "", dtype=object)
    classes[given.padding] = "padding_read"
    classes[in_slice & (given.value == due.value)] = "tie_order"
    classes[in_slice & (given.value < kth)] = "not_top_k"
    return classes


def _tie_break_columns(rows: np.ndarray, k: int, *, last_first: bool) -> np.ndarray:
    """Each row's top k columns with equal values in index order: lowest index first, or highest first.

    Only values at or above the row's k-th largest are sorted, so the work and memory follow the
    candidates (k per row, more only where the k-th value ties), not the whole tensor."""
    n, length = rows.shape
    kth = np.partition(rows, length - k, axis=1)[:, length - k : length - k + 1]
    r, c = np.nonzero(rows >= kth)
    order = np.lexsort((-c if last_first else c, -rows[r, c].astype(np.int64), r))
    r, c = r[order], c[order]
    return c[np.searchsorted(r, np.arange(n))[:, None] + np.arange(k)]


def _tie_order(case: Case, row: int) -> str:
    d, src = case.descriptor, case.inputs[0]
    rows = _slices(src, d.attrs.axis)[row : row + 1]
    given = case.given[0][row]
    for name, last_first in (("first-occurrence", False), ("last-occurrence", True)):
        ordered = _offsets(d, src, _tie_break_columns(rows, d.attrs.top_k, last_first=last_first))
        if np.array_equal(ordered[0], given):
            return name
    return "other"


def explain(case: Case, index: int, position: int, want: Any, got: Any, cls: str) -> str | None:
    d, src = case.descriptor, case.inputs[0]
    k = d.attrs.top_k
    row = position // k
    where = _locate(d, src, np.array([got]))
    value = int(where.value[0])
    if cls == "tie_order":
        return (
            f"slice {row}: offset {got} holds the same value {value}; the slice's ties are given in "
            f"{_tie_order(case, row)} order, where MLI's heap order is due"
        )
    if cls == "padding_read":
        return f"offset {got} lies in in's stride padding, not on an element"
    if cls == "not_top_k":
        return f"offset {got} holds {value}, below the {k} largest values of slice {row}"
    if not where.element[0] and not where.padding[0]:
        return f"offset {got} is outside in's memory of {buffer_nbytes(src) // src.itemsize} elements"
    if int(where.slice[0]) != row:
        return f"offset {got} is an element of slice {int(where.slice[0])}, not of slice {row}"
    return f"offset {got} holds {value}, one of the slice's {k} largest but at another rank"


def _differing_slices(model: np.ndarray, expected: np.ndarray) -> list[int]:
    return np.flatnonzero((model != expected).any(axis=1)).tolist()


def _ties_by_index(last_first: bool) -> Any:
    order = "highest-index-first" if last_first else "lowest-index-first"

    def run(d: ArgmaxOp, arrays: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> Modelled:
        src = arrays[0]
        out = _offsets(
            d, src, _tie_break_columns(_slices(src, d.attrs.axis), d.attrs.top_k, last_first=last_first)
        )
        return Modelled(
            [out], f"ties in {order} order in {listing('slice', _differing_slices(out, expected[0]))}"
        )

    return run


def _slice_positions(d: ArgmaxOp, arrays: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> Modelled:
    src = arrays[0]
    out = top_k_columns(_slices(src, d.attrs.axis), d.attrs.top_k).astype(np.int32)
    slices = listing("slice", _differing_slices(out, expected[0]))
    return Modelled([out], f"positions within the slice, not memory offsets, in {slices}")


TIES_EVIDENCE = f"{NOTES_ARGMAX}: MLI's tie order is neither lowest-index-first nor highest-first"
IMPLEMENTATIONS = (
    Implementation("lowest-index-first ties (a stable sort by value)",
                   f'{TIES_EVIDENCE}. {RECORDED} "verify: first-occurrence ties"', _ties_by_index(last_first=False)),
    Implementation("highest-index-first ties",
                   f'{TIES_EVIDENCE}. {RECORDED} "verify: last-occurrence ties"', _ties_by_index(last_first=True)),
    Implementation("slice positions instead of memory offsets (NumPy-style indices)",
                   f"{NOTES_ARGMAX}: offsets are positions in in's memory (strides applied), not NumPy's argmax "
                   f'indices. {RECORDED} "verify: slice positions instead of offsets"', _slice_positions),
)  # fmt: skip


OP = OpSpec(
    kind=KIND,
    model=ArgmaxOp,
    source=SPEC,
    summary="Per slice along axis (or for the whole tensor), the memory offsets of the top_k largest raw "
    "values, largest first, ties in MLI's kernel order.",
    inputs=(Port("in", IN_DTYPES, "sa8 or fx16 memory, rank 1 to 4, optionally strided (mem_stride)."),),
    outputs=(Port("out", frozenset({"sa32"}), "Shape [dim_size, top_k]: linear offsets into in's memory."),),
    rules=RULES,
    infer=infer,
    output_dtypes=output_dtypes,
    evaluate=evaluate,
    kernel_steps=kernel_steps,
    mismatch_classes=MISMATCH_CLASSES,
    classify=classify,
    explain=explain,
    implementations=IMPLEMENTATIONS,
    dtype_source=f"{SPEC}, List of Available Argmax Functions",
    dtype_table=(
        {"kind": "mli_krn_argmax_sa8", "in": "sa8", "out": "sa32"},
        {"kind": "mli_krn_argmax_fx16", "in": "fx16", "out": "sa32"},
    ),
    notes=(
        "MLI checks these conditions only in debug builds (MLI_DBG_ENABLE_RETURNCODES); a release build returns "
        "MLI_STATUS_OK on a wrong output shape.",
        "MLI's debug check accepts axis == rank (it tests axis <= rank) and then reads shape[rank]; opspec "
        "rejects it as the spec says (axis must be below the rank).",
        "MLI's debug check never compares top_k with the slice size; out's capacity must only equal "
        "top_k * dim_size * 4 bytes (else MLI_STATUS_NOT_ENGH_MEM), so top_k.range has no MLI status.",
        "MLI checks out only through that byte capacity: a declared out of the right size but another shape, "
        "type or (non-contiguous) strides passes its debug build.",
        "Ties follow the kernel's heap, not index order: [5,5,3,5] with top_k 3 gives [1,0,3].",
        "Offsets are positions in in's memory (strides applied), not NumPy's argmax indices.",
    ),
    examples=(
        {
            "kind": "mli_krn_argmax_sa8",
            "attrs": {"axis": 1, "top_k": 2},
            "inputs": [{"dtype": "sa8", "shape": [2, "W", 4], "quant": {"scale": 1, "zero_point": 0}}],
            "outputs": [{"dtype": "sa32", "shape": ["W", 2]}],
        },
        {
            "kind": "Argmax",
            "attrs": {"axis": 0, "top_k": 2},
            "inputs": [
                {
                    "dtype": "fx16",
                    "shape": [2, 3],
                    "strides": [4, 1],
                    "data": [5, 9, 5, 99, -1, 7, 7, 99],
                    "quant": {"frac_bits": 8},
                }
            ],
        },
    ),
)
