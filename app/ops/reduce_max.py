"""ReduceMax from the oneDNN Graph operation spec (seed 002), with the decisions of SPEC-NOTES.

A member of the reduction family (app/ops/reduction.py), whose axes rule it checks with and whose exact
kernel it runs (ReduceMin runs it too); its own module keeps its descriptor model, which the msgspec first
pass (app/ops/first_pass.py) mirrors, the fast paths of a plain ReduceMax (quick_verdict for the check,
quick_evaluate for app.library's evaluate), and NumPy's departure from the kernel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import Field, StrictBool, field_validator

from app.core.dtypes import DTYPES, FLOATS
from app.core.engine import Verdict
from app.core.mismatch import Implementation, Modelled, differing_positions
from app.core.numbers import Int64, int64s_as_given
from app.core.payload import buffer_nbytes
from app.core.registry import PLAIN_KEYS, PLAIN_TENSOR_KEYS, Attrs, Descriptor, OpSpec, OutputType, Port
from app.core.shapes import dims_conflict, reduce_shape, wrap_axes
from app.ops.reduction import FAMILY, AxesRule, reduce_max, reduced_axes

if TYPE_CHECKING:
    from app.core.config import Settings

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


# --- the library's lane: a plain ReduceMax of one array, evaluated without the full way ---------------

# Its attributes' keys, and its source dtypes by their canonical names (the only spelling taken here: an
# alias goes the full way, which answers with the canonical name).
_PLAIN_ATTRS = ({"axes"}, {"axes", "keep_dims"})
_PLAIN_SOURCES = {name: DTYPES[name] for name in ("f32", "f16", "bf16")}


def quick_evaluate(descriptor: Any, settings: Settings) -> list[tuple[str, np.ndarray]] | None:
    """The output of the commonest evaluation, a plain ReduceMax of one array, or None for anything
    else, which goes the full way (pydantic's pass, the check, the limits). Held to the full way by
    tests/ops/test_reduce_max.py, test_quick_evaluate_answers_as_the_full_way.

    For a 1 MB reduction the full way's Python was ~30 us of a ~130 us answer with warm caches, and
    ~200 us with cold ones (onnxruntime's whole run: ~80 / ~350 us). Taken here only when the full way
    would find nothing to report: the canonical dtype and keys, plain ints, axes non-empty, in range
    and unique, no dim of 0, the array of that dtype and shape, and every limit met."""
    if (
        type(descriptor) is not dict
        or descriptor.get("kind") != "ReduceMax"
        or descriptor.keys() not in PLAIN_KEYS
    ):
        return None
    attrs, inputs = descriptor.get("attrs"), descriptor["inputs"]
    if (
        type(attrs) is not dict
        or attrs.keys() not in _PLAIN_ATTRS
        or type(inputs) is not list
        or len(inputs) != 1
    ):
        return None
    axes, keep_dims, tensor = attrs["axes"], attrs.get("keep_dims", False), inputs[0]
    if type(axes) is not list or not axes or type(keep_dims) is not bool or type(tensor) is not dict:
        return None
    dtype, shape, data = tensor.get("dtype"), tensor.get("shape"), tensor.get("data")
    if tensor.keys() != PLAIN_TENSOR_KEYS or type(data) is not np.ndarray or type(shape) is not list:
        return None
    dt = _PLAIN_SOURCES.get(dtype) if type(dtype) is str else None
    rank = len(shape)
    if dt is None or data.dtype != dt.numpy or not 0 < rank <= settings.max_rank:
        return None
    if any(type(dim) is not int for dim in shape) or data.shape != tuple(shape) or 0 in data.shape:
        return None
    if any(type(axis) is not int or not -rank <= axis < rank for axis in axes):
        return None
    reduced = wrap_axes(axes, rank)
    if len(reduced) < len(axes) or data.size > settings.max_elements:
        return None
    out_count = data.size // math.prod(data.shape[axis] for axis in reduced)
    if buffer_nbytes(data) + out_count * data.itemsize > settings.max_total_bytes:
        return None
    view = data.view()
    view.flags.writeable = False  # as the full way gives the kernel the caller's array
    result = reduce_max(view, reduced, keep_dims)
    return [(dtype, result)]


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
    quick_evaluate=quick_evaluate,
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
