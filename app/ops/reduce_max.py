"""ReduceMax from the oneDNN Graph operation spec (seed 002), with the decisions of SPEC-NOTES.

A member of the reduction family (app/ops/reduction.py), whose axes rule it checks with; its own
module keeps its descriptor model, which the msgspec first pass (app/first_pass.py) mirrors, and its
exact kernel with NumPy's departure from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import Field, StrictBool, field_validator

from app.core.dtypes import FLOATS
from app.core.engine import Verdict
from app.core.mismatch import Implementation, Modelled, differing_positions
from app.core.numbers import Int64, int64s_as_given
from app.core.registry import Attrs, Descriptor, OpSpec, OutputType, Port
from app.core.shapes import dims_conflict, reduce_shape, wrap_axes
from app.ops.reduction import FAMILY, AxesRule, reduce_max, reduced_axes

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


AXES = AxesRule(KIND, "maximum", "-inf", SRC_DTYPES)
RULES = AXES.rules(SPEC, "SPEC-NOTES, ReduceMax")
infer = AXES.infer


def quick_verdict(d: ReduceMaxOp) -> Verdict | None:
    """The verdict of a plain ReduceMax, worked out without the check's context and report: one src of
    a dtype of the table with a known shape, no 0 dim, no data, strides or quant; axes given, in range
    and unique; a declared dst, if any, of src's dtype and a shape that agrees. Such a descriptor has
    nothing to report (no error, no warning), so its verdict is valid with dst's type. Anything else is
    None: the full check answers, with its findings. Held to check's verdict by
    tests/ops/test_reduce_max.py, test_quick_verdict_is_the_full_checks."""
    inputs = d.inputs
    if len(inputs) != 1:
        return None
    src = inputs[0]
    shape, dtype, axes = src.shape, src.dtype, d.attrs.axes
    if (
        dtype not in SRC_DTYPES
        or shape is None
        or not axes
        or src.data is not None
        or src.strides is not None
        or src.quant is not None
        or 0 in shape
    ):
        return None
    reduced = wrap_axes(axes, len(shape))
    if len(reduced) != len(axes):  # an axis out of range or repeated
        return None
    inferred = reduce_shape(shape, reduced, d.attrs.keep_dims)
    declared = d.outputs
    if declared is not None:
        if len(declared) != 1:
            return None
        dst = declared[0]
        if dst.dtype != dtype or dst.strides is not None:
            return None
        if dst.shape is not None and (
            len(dst.shape) != len(inferred) or any(map(dims_conflict, inferred, dst.shape))
        ):
            return None
    return Verdict(KIND, True, [OutputType(dtype, inferred)], [])


def output_dtypes(d: ReduceMaxOp) -> list[str | None]:
    return [d.inputs[0].dtype if d.inputs[0].dtype in SRC_DTYPES else None]


def evaluate(d: ReduceMaxOp, arrays: list[np.ndarray]) -> list[np.ndarray]:
    src = arrays[0]
    reduced = reduced_axes(d, arrays)
    if not reduced:
        return [src.copy()]
    return [reduce_max(src, reduced, d.attrs.keep_dims)]


def _numpy_max(
    d: ReduceMaxOp, arrays: Sequence[np.ndarray], expected: Sequence[np.ndarray]
) -> Modelled | None:
    """np.max over the axes: its maximum keeps -0 or +0 by the order it meets them (NaN still absorbs).
    Not modelled for the identity (no axes) or an empty maximum, which np.max refuses."""
    src = arrays[0]
    reduced = reduced_axes(d, arrays)
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
    model=ReduceMaxOp,
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
    quick_verdict=quick_verdict,
    evaluate=evaluate,
    implementations=IMPLEMENTATIONS,
    family=FAMILY,
    dtype_source=f"{SPEC}, Supported Data Types",
    dtype_table=(
        {"src": "f32", "axes": "s32", "dst": "f32"},
        {"src": "bf16", "axes": "s32", "dst": "bf16"},
        {"src": "f16", "axes": "s32", "dst": "f16"},
    ),
    notes=AXES.notes(),
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
