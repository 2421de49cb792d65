"""ReduceMax from the oneDNN Graph operation spec (seed 002), with the decisions of SPEC-NOTES.

The axes come from the attribute or from a second, 1-D s32 input, never both. Four cases, as TVM's
statistical ops tabulate them: axes empty -> identity; keep_dims -> reduced dims become 1;
otherwise reduced dims disappear; axes unknown (an input without data) -> dims unknown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import Field, StrictBool, field_validator

from app.core.diagnostics import Rule
from app.core.dtypes import FLOATS
from app.core.engine import Context
from app.core.kernels import reduce_max
from app.core.mismatch import Implementation, Modelled, differing_positions
from app.core.numbers import Int64, int64s_as_given, show
from app.core.registry import Attrs, Descriptor, OpSpec, OutputType, Port
from app.core.shapes import Shape, axis_problems, format_shape, reduce_shape, wrap_axes

KIND = "ReduceMax"
SPEC = "oneDNN Graph ReduceMax"
SRC_DTYPES = frozenset({"f32", "bf16", "f16"})
assert SRC_DTYPES <= FLOATS


class ReduceMaxAttrs(Attrs):
    axes: list[Int64] = Field(
        fail_fast=True,
        default_factory=list,
        description="Axes of src to reduce, each in [-r, r-1]; negatives count from the end. Empty (the "
        "default) is the identity. Give this or the axes input, not both.",
    )
    keep_dims: StrictBool = Field(False, description="Keep each reduced dim as 1 instead of removing it.")

    _axes = field_validator("axes", mode="wrap")(int64s_as_given)


class ReduceMaxOp(Descriptor):
    kind: Literal["ReduceMax"]
    attrs: ReduceMaxAttrs = Field(default_factory=ReduceMaxAttrs)


RULES = (
    Rule(f"{KIND}.axes.exclusive", "At most one of the axes attribute and the axes input is given.",
         f"{SPEC}, attribute axes and input axes: exactly one should be available (SPEC-NOTES: at most one)"),
    Rule(f"{KIND}.axes.rank", "The axes input is a 1-D tensor.", f"{SPEC}, input axes"),
    Rule(f"{KIND}.axes.range", "Every axis is in [-r, r-1], r the rank of src.", f"{SPEC}, attribute axes"),
    Rule(f"{KIND}.axes.unique", "No axis repeats once negative axes are wrapped.", f"{SPEC}, input axes"),
    Rule(f"{KIND}.reduce.empty", "Reducing over a zero-size dim is an empty maximum: -inf.",
         "SPEC-NOTES, ReduceMax", "warning"),
    Rule(f"{KIND}.onednn.two_inputs", "oneDNN 3.13 rejects every ReduceMax with the axes input.",
         "SPEC-NOTES, ReduceMax (oneDNN 3.13)", "warning"),
    Rule(f"{KIND}.onednn.empty_axes", "oneDNN 3.13 does not support empty axes (the identity).",
         "SPEC-NOTES, ReduceMax (oneDNN 3.13)", "warning"),
    Rule(f"{KIND}.onednn.zero_size", "oneDNN 3.13 fails on a src with a zero-size dim that is not reduced.",
         "SPEC-NOTES, ReduceMax (oneDNN 3.13)", "warning"),
)  # fmt: skip


def _axes_source(d: ReduceMaxOp, ctx: Context) -> tuple[list[int] | None, str]:
    """The axes to reduce and the path they came from; None when an axes input has no values yet."""
    if len(d.inputs) < 2:
        return list(d.attrs.axes), "attrs.axes"
    if d.attrs.axes:
        ctx.error(
            f"{KIND}.axes.exclusive",
            "attrs.axes",
            f"axes is given both as the attribute {show(d.attrs.axes)} and as input 1; give exactly one of them",
        )
    ctx.warn(
        f"{KIND}.onednn.two_inputs",
        "inputs[1]",
        "oneDNN 3.13 fills in the attribute's default axes=[] and then rejects any ReduceMax that also has "
        "the axes input; give the axes as the attribute to run on it",
    )
    axes_input = d.inputs[1]
    if axes_input.rank is not None and axes_input.rank != 1:
        ctx.error(
            f"{KIND}.axes.rank",
            "inputs[1].shape",
            f"the axes input must be 1-D; it has shape {format_shape(axes_input.shape)}",
        )
        return None, "inputs[1].data"
    if axes_input.shape == (0,):
        return [], "inputs[1].shape"  # an empty axes input needs no data: its values are known, none
    values = ctx.values(1)
    return (None if values is None else [int(v) for v in values.reshape(-1)]), "inputs[1].data"


def _check_repeats(axes: list[int], path: str, ctx: Context) -> bool:
    """With src's rank unknown, axes cannot be wrapped or range-checked, but a value given twice is a
    repeat at any rank; True when there is none."""
    first: dict[int, int] = {}
    for position, axis in enumerate(axes):
        if axis in first:
            ctx.error(
                f"{KIND}.axes.unique",
                f"{path}[{position}]",
                f"axis {axis} repeats axis {axis} at position {first[axis]}; each axis may be reduced once",
            )
        first.setdefault(axis, position)
    return len(first) == len(axes)


def infer(d: ReduceMaxOp, ctx: Context) -> list[OutputType] | None:
    src = d.inputs[0]
    dtype = src.dtype if src.dtype in SRC_DTYPES else None
    axes, path = _axes_source(d, ctx)
    keep = d.attrs.keep_dims
    if axes == []:  # whatever src's rank: oneDNN rejects empty axes before it looks at shapes
        ctx.warn(
            f"{KIND}.onednn.empty_axes",
            path,
            "empty axes make ReduceMax the identity (dst = src), as the spec says; oneDNN 3.13 reports "
            "such a partition as unsupported",
        )
    if src.shape is None:
        if axes is not None and not _check_repeats(axes, path, ctx):
            return None
        return None if dtype is None else [OutputType(dtype, None)]
    rank = len(src.shape)
    if axes is None:
        # Values unknown: with keep_dims the rank stays and only dims already 1 are certain.
        count = d.inputs[1].shape[0] if d.inputs[1].shape and len(d.inputs[1].shape) == 1 else None
        if isinstance(count, int) and count > rank:
            # Wrapped into [0, r-1], more than r axes cannot all differ, whatever their values.
            ctx.error(
                f"{KIND}.axes.unique",
                "inputs[1].shape[0]",
                f"the axes input holds {count} axes, but src {format_shape(src.shape)} has rank {rank}: "
                f"at most {rank} axes can be unique",
            )
            return None
        if count == rank:  # unique and in range, so every axis: which order they come in does not matter
            shape = reduce_shape(src.shape, range(rank), keep)
        elif keep:
            shape = tuple(1 if dim == 1 else None for dim in src.shape)
        elif isinstance(count, int):
            shape = (None,) * (rank - count)
        else:
            shape = None
        return None if dtype is None else [OutputType(dtype, shape)]
    reduced = wrap_axes(axes, rank)
    if len(reduced) < len(axes):  # an axis dropped: out of range or a repeat, which axis_problems names
        for problem in axis_problems(axes, rank, operand="src"):
            rule = f"{KIND}.axes.range" if problem.kind == "range" else f"{KIND}.axes.unique"
            ctx.error(rule, f"{path}[{problem.position}]", lambda problem=problem: problem.message)
        return None
    if 0 in src.shape:  # the zero-size findings, looked for only where there is a 0
        _zero_size(src.shape, reduced, ctx)
    if dtype is None:
        return None
    return [OutputType(dtype, reduce_shape(src.shape, reduced, keep))]


def _zero_size(shape: Shape, reduced: tuple[int, ...], ctx: Context) -> None:
    for axis in reduced:
        if shape[axis] == 0:
            ctx.warn(
                f"{KIND}.reduce.empty",
                f"inputs[0].shape[{axis}]",
                f"axis {axis} of src has size 0, so its maximum is over no values; evaluation gives -inf",
            )
    kept_zero = [axis for axis, dim in enumerate(shape) if dim == 0 and axis not in reduced]
    if kept_zero and reduced:
        ctx.warn(
            f"{KIND}.onednn.zero_size",
            f"inputs[0].shape[{kept_zero[0]}]",
            f"src {format_shape(shape)} has a zero-size dim {kept_zero[0]} that is not reduced; the "
            "answer is an empty tensor, but oneDNN 3.13 crashes on it",
        )


def output_dtypes(d: ReduceMaxOp) -> list[str | None]:
    return [d.inputs[0].dtype if d.inputs[0].dtype in SRC_DTYPES else None]


def _reduced(d: ReduceMaxOp, arrays: Sequence[np.ndarray]) -> tuple[int, ...]:
    """The axes reduced, wrapped into [0, rank): from the attribute, or from the axes input's values."""
    axes = d.attrs.axes if len(arrays) < 2 else arrays[1].reshape(-1).tolist()
    return wrap_axes(axes, arrays[0].ndim)


def evaluate(d: ReduceMaxOp, arrays: list[np.ndarray]) -> list[np.ndarray]:
    src = arrays[0]
    reduced = _reduced(d, arrays)
    if not reduced:
        return [src.copy()]
    return [reduce_max(src, reduced, d.attrs.keep_dims)]


def _numpy_max(
    d: ReduceMaxOp, arrays: Sequence[np.ndarray], expected: Sequence[np.ndarray]
) -> Modelled | None:
    """np.max over the axes: its maximum keeps -0 or +0 by the order it meets them (NaN still absorbs).
    Not modelled for the identity (no axes) or an empty maximum, which np.max refuses."""
    src = arrays[0]
    reduced = _reduced(d, arrays)
    if not reduced or any(src.shape[axis] == 0 for axis in reduced):
        return None
    with np.errstate(invalid="ignore"):  # NaN is an answer here, not a fault
        out = np.asarray(np.max(src, axis=tuple(reduced), keepdims=d.attrs.keep_dims))
    where = differing_positions(expected[0], out, is_float=True)
    return Modelled([out], f"-0 kept over +0 by the order np.max meets them at {where}")


IMPLEMENTATIONS = (
    Implementation(
        "NumPy max (np.max over the axes)",
        "SPEC-NOTES, Max: NumPy's maximum answers Max(-0, +0) by operand order, and np.max reduces with it. "
        'Recorded: specs/reduce_max.json, "verify: np.max keeps -0 by the order it meets it"',
        _numpy_max,
    ),
)


OP = OpSpec(
    kind=KIND,
    descriptor=ReduceMaxOp,
    source=SPEC,
    summary="Maximum of src over the given axes, keeping reduced dims as 1 or removing them.",
    inputs=(
        Port("src", SRC_DTYPES, "The tensor to reduce."),
        Port(
            "axes", frozenset({"s32"}), "1-D, unique axes to reduce; instead of the attribute.", optional=True
        ),
    ),
    outputs=(Port("dst", SRC_DTYPES, "src's dtype; reduced dims 1 (keep_dims) or removed."),),
    rules=RULES,
    infer=infer,
    output_dtypes=output_dtypes,
    evaluate=evaluate,
    implementations=IMPLEMENTATIONS,
    dtype_source=f"{SPEC}, Supported Data Types",
    dtype_table=(
        {"src": "f32", "axes": "s32", "dst": "f32"},
        {"src": "bf16", "axes": "s32", "dst": "bf16"},
        {"src": "f16", "axes": "s32", "dst": "f16"},
    ),
    notes=(
        "oneDNN 3.13 fills the default axes=[] before checking that exactly one axes source is given, so "
        "it rejects every two-input ReduceMax; opspec accepts the input when the attribute is absent or empty.",
        "oneDNN 3.13 does not support empty axes (the partition is unsupported); the spec says identity.",
        "oneDNN 3.13 crashes on a zero-size dim that is not reduced ([2,0,4], axes [2] -> [2,0]).",
        "oneDNN 3.13 skips the dst shape check when any declared dim is -1; opspec still checks the rank.",
        "oneDNN reports out-of-range and repeated axes only at compile time ('run pass lower_down failed'); "
        "opspec reports them at validation, naming the axis and the range.",
    ),
    examples=(
        {
            "kind": "ReduceMax",
            "attrs": {"axes": [1], "keep_dims": True},
            "inputs": [{"dtype": "f32", "shape": [2, "N", 4]}],
            "outputs": [{"dtype": "f32", "shape": [2, 1, 4]}],
        },
        {
            "kind": "ReduceMax",
            "attrs": {"axes": [0, -1]},
            "inputs": [{"dtype": "f32", "shape": [2, 3], "data": [[1, "nan", 3], [-0.0, 5, "-inf"]]}],
        },
    ),
)
