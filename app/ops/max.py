"""Max from ONNX, as the SONNX safety-related profile constrains it (seed 004), with SPEC-NOTES.

Y = Max(X1, ..., XN): 1 to 2147483647 inputs of one dtype T, broadcast together under the strict
rule (each output dim is the largest size there; every input has that size or 1), elementwise
maximum with NaN absorbing and +0 above -0. Rule ids name the op, then the profile's own constraint:
Max.C1 (arity and type), Max.C2 (broadcasting) and Max.RI, Max.RJ, ... (the per-dim restriction, one
letter per output dim from the left). They were the bare C1, C2, RI ... until every rule id named its op
first (another op's spec may have a C1 too); `former` keeps the old id, which --ignore still reads.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import Field

from app.core.diagnostics import Rule
from app.core.dtypes import DTYPES, NUMERIC
from app.core.engine import Context, assumption_rules
from app.core.kernels import maximum
from app.core.mismatch import Implementation, Modelled, differing_positions
from app.core.registry import VARIADIC_MAX, Attrs, Descriptor, OpSpec, OutputType, Port
from app.core.shapes import broadcast_shapes

KIND = "Max"
SPEC = "ONNX Max under the SONNX profile"
T = NUMERIC  # bfloat16, double, float, float16, int8..int64, uint8..uint64: the seed's list
# The profile names the per-dim restrictions after the index letters I, J, K, L, ... of the output
# dims; past Z there is no letter, and C2 itself stands for the restriction.
C1, C2 = f"{KIND}.C1", f"{KIND}.C2"
DIM_LETTERS = "IJKLMNOPQRSTUVWXYZ"


class MaxAttrs(Attrs):
    """Max has no attributes: any name given is an unknown-attribute error."""


class MaxOp(Descriptor):
    kind: Literal["Max"]
    attrs: MaxAttrs = Field(default_factory=MaxAttrs)


def restriction_id(dim: int) -> str:
    """The rule id for the size restriction in output dim `dim` (from the left): Max.RI, Max.RJ, ...,
    after the profile's RI, RJ, ..."""
    return f"{KIND}.R{DIM_LETTERS[dim]}" if 0 <= dim < len(DIM_LETTERS) else C2


RULES = (
    Rule(C1, f"There are 1 to {VARIADIC_MAX} inputs, all of one dtype T from the profile's list; Y is T.",
         f"{SPEC}, constraint C1 and the type list (SPEC-NOTES: one type for every input)", former="C1"),
    Rule(C2, "Inputs broadcast together: ranks aligned on the right, each output dim the largest size "
         "there; also cited for a dim without a letter or counted from the right.", f"{SPEC}, constraint C2",
         former="C2"),
    *(
        Rule(restriction_id(dim), f"In output dim {dim} ({letter}) each input's size is the largest size "
             "there, or 1.", f"{SPEC}, restriction R{letter} of the broadcasting rule", former=f"R{letter}")
        for dim, letter in enumerate(DIM_LETTERS)
    ),
    *assumption_rules(f"{KIND}.broadcast", "A symbolic or unknown dim is broadcast against other sizes",
                      f"{SPEC}, constraint C2"),
)  # fmt: skip


def _common_dtype(d: MaxOp, ctx: Context) -> str | None:
    """T, the one dtype every input shares; each input that breaks ranks with the first is reported.

    Inputs whose dtype is outside T's list were reported by the engine already (Max.C1), so they are
    left out here rather than reported twice."""
    inputs = d.inputs
    dtype = inputs[0].dtype if inputs else None
    if dtype in T and all(tensor.dtype == dtype for tensor in inputs):
        return dtype  # the common case: nothing to list or report
    listed = [(index, tensor.dtype) for index, tensor in enumerate(d.inputs) if tensor.dtype in T]
    if not listed:
        return None
    first, dtype = listed[0]
    mixed = [(index, other) for index, other in listed if other != dtype]
    for index, other in mixed:
        ctx.error(
            C1,
            f"inputs[{index}].dtype",
            f"input {index} has dtype {other}, but input {first} has {dtype}; all inputs of Max share one "
            "dtype T",
        )
    if mixed or len(listed) < len(d.inputs):
        return None
    return dtype


def infer(d: MaxOp, ctx: Context) -> list[OutputType] | None:
    dtype = _common_dtype(d, ctx)
    broadcast = broadcast_shapes([tensor.shape for tensor in d.inputs])
    for problem in broadcast.problems:
        ctx.error(
            restriction_id(problem.dim), f"inputs[{problem.input}].shape[{problem.axis}]", problem.message
        )
    for assumption in broadcast.assumptions:
        ctx.assume(f"{KIND}.broadcast", f"inputs[{assumption.input}].shape[{assumption.axis}]", assumption)
    if dtype is None or broadcast.problems:
        return None
    return [OutputType(dtype, broadcast.shape)]


def output_dtypes(d: MaxOp) -> list[str | None]:
    dtypes = {tensor.dtype for tensor in d.inputs}
    return [dtypes.pop() if len(dtypes) == 1 and dtypes <= T else None]


def evaluate(d: MaxOp, arrays: list[np.ndarray]) -> list[np.ndarray]:
    return [maximum(arrays)]


def _numpy_maximum(d: MaxOp, arrays: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> Modelled:
    """np.maximum folded over the inputs from the left: on a tie of -0 and +0 it keeps an operand by its
    position, not by its sign (NaN still absorbs)."""
    with np.errstate(invalid="ignore"):  # NaN is an answer here, not a fault (ml_dtypes' bf16 warns)
        out = functools.reduce(np.maximum, arrays[1:], arrays[0])
    out = np.array(np.broadcast_to(out, expected[0].shape))
    where = differing_positions(expected[0], out, DTYPES[d.inputs[0].dtype].is_float)
    return Modelled([out], f"-0 kept over +0 by operand order at {where}")


IMPLEMENTATIONS = (
    Implementation(
        "NumPy maximum (np.maximum folded over the inputs)",
        "SPEC-NOTES, Max: NumPy's maximum answers Max(-0, +0) by operand order. Recorded: "
        'specs/max.json, "verify: NumPy\'s maximum keeps -0 by operand order"',
        _numpy_maximum,
    ),
)


OP = OpSpec(
    kind=KIND,
    model=MaxOp,
    source=SPEC,
    summary="Elementwise maximum of 1 or more broadcast inputs of one dtype; NaN absorbs, +0 beats -0.",
    inputs=(
        Port(
            "X",
            T,
            "X1 ... XN: the tensors to compare, all of one dtype, broadcast together.",
            variadic=True,
            dtype_rule=C1,
        ),
    ),
    outputs=(Port("Y", T, "The inputs' dtype; the broadcast shape."),),
    rules=RULES,
    infer=infer,
    output_dtypes=output_dtypes,
    evaluate=evaluate,
    implementations=IMPLEMENTATIONS,
    dtype_source=f"{SPEC}, the type list in the operator's heading",
    count_rule=C1,
    dtype_table=tuple({"X": dtype, "Y": dtype} for dtype in DTYPES if dtype in T),
    notes=(
        "NumPy's maximum answers Max(-0, +0) by operand order; the profile's maximum, and opspec, give +0 in "
        "either order.",
        "onnxruntime 1.32's CPU Max keeps the earlier or the later of -0 and +0 depending on the dtype, the "
        "shapes and the element's place in a vector loop (measured over shapes up to [2, 3]: f16 the earlier, "
        "f32 and f64 mostly the later, some mixed within one output), so POST /v1/verify names its answers "
        "signed_zero but models no onnxruntime answer; NumPy's np.maximum is modelled.",
        "NumPy broadcasts [0] with [1] to [0]; under the profile a dim is the largest size, 1, so [0] with "
        "[1] (or with a scalar) is an error.",
        "ONNX reports a broadcast clash as 'Incompatible dimensions' without the shapes, and its checker "
        "passes a mixed-dtype Max unless type checking is asked for; opspec names the input, the dim and "
        "the sizes, and reports a mixed dtype as Max.C1.",
    ),
    examples=(
        {
            "kind": "Max",
            "inputs": [{"dtype": "f32", "shape": ["N", 3, 1]}, {"dtype": "f32", "shape": [4]}],
            "outputs": [{"dtype": "f32", "shape": ["N", 3, 4]}],
        },
        {
            "kind": "Max",
            "inputs": [
                {"dtype": "f32", "shape": [2, 3], "data": [[1, "nan", -0.0], [4, "-inf", 0.0]]},
                {"dtype": "f32", "shape": [3], "data": [2, 0, 0.0]},
                {"dtype": "f32", "shape": [2, 1], "data": [[-1], [5]]},
            ],
        },
    ),
)
