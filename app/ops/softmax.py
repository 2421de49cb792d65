"""oneDNN Graph's softmax family: SoftMax, LogSoftmax and their backward ops.

One attribute they share, `axis` (s64; SoftMax's pages default it to 1, LogSoftmax's to -1), which
must name a dim of src: in [-r, r-1] (the pages say "arbitrary s64 value", but oneDNN 3.13 aborts the
process on an axis out of range, measured; here it is an error named by rule `<Kind>.axis.range`,
checked by app/core/shapes.py's axis_problems). Every output has src's shape, except SoftMax's optional
`stats`, which has 1 at the axis. The backward ops take diff_dst and dst of one shape.

Evaluation in f64 from the decoded inputs, rounded once to each output's dtype; oneDNN computes in
f32 with its own exp and log, so answers differ in the last bits, within each member's Tolerance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from app.core import family
from app.core.diagnostics import Rule
from app.core.engine import Context
from app.core.family import ONEDNN_VERSION, Attr, In, Out, attr, constraints, rows
from app.core.mismatch import Tolerance
from app.core.shapes import Shape, axis_problems, dims_conflict, format_shape, wrap_axes

FAMILY = "softmax"
FLOATS = "f32 bf16 f16"

# Measured against oneDNN 3.13 on seeded f32 inputs (tests/ops/oracle/softmax): SoftMax's dst within
# 15 ulps, its stats within 26; LogSoftmax within 3.8e-6 absolutely (up to thousands of ulps for values
# near 0); the backward ops within 77 ulps, 1.2e-7 absolutely.
SOFTMAX_TOLERANCE = Tolerance(
    ulps=32,
    absolute=1e-6,
    why="exp and log computed in f64 and rounded once to dst's dtype; oneDNN computes them in f32 with "
    "its own approximations and sums in another order",
)
LOG_SOFTMAX_TOLERANCE = Tolerance(
    ulps=32,
    absolute=1e-5,
    why="src - max - log(sum) computed in f64 and rounded once; oneDNN's f32 log of the sum is off by a "
    "few ulps of the sum's log, which is absolute error in a result that may be near 0",
)
# diff_dst minus a sum over the axis: the difference can cancel, so near 0 only an absolute bound holds.
BACKWARD_TOLERANCE = Tolerance(
    ulps=32,
    absolute=1e-6,
    why="computed in f64 and rounded once; oneDNN sums the products over the axis in f32 in another "
    "order, and the difference with diff_dst can cancel, so values near 0 are bounded absolutely",
)


def _axis_attr(default: int, what: str) -> Attr:
    return Attr(
        "axis", "s64", f"The axis {what} is computed along; negative counts from the back.", default=default
    )


def _axis_rule(kind: str) -> Rule:
    return Rule(
        f"{kind}.axis.range",
        "axis is in [-r, r-1], r the rank of src.",
        f"oneDNN Graph {kind}, attribute axis (an axis names a dim of src; {ONEDNN_VERSION} aborts the process on one "
        "out of range)",
    )


def _axis(kind: str, d: Any, ctx: Context, port: str) -> int | None:
    """The axis wrapped into [0, r), or None: src's rank unknown, or the axis out of range (reported)."""
    shape = d.inputs[0].shape
    if shape is None:
        return None
    axis = attr(d, "axis", ctx.spec.extra)
    default = "" if "axis" in d.attrs.model_fields_set else " (the default)"
    for problem in axis_problems([axis], len(shape), operand=port):
        ctx.error(f"{kind}.axis.range", "attrs.axis", f"{kind}: {problem.message}{default}")
        return None
    return wrap_axes([axis], len(shape))[0]


def _asked_outputs(d: Any, required: int, ports: int) -> int:
    """Outputs to answer: as many as declared (within the ports: the engine names a wrong count), else
    the required ones."""
    return required if d.outputs is None else max(required, min(len(d.outputs), ports))


# (descriptor, inputs in f64, the axis wrapped) -> outputs in f64
Formula = Callable[[Any, Sequence[np.ndarray], int], list[np.ndarray]]


def build(
    kind: str,
    summary: str,
    formula: Formula,
    *,
    attrs: Sequence[Attr],
    inputs: Sequence[In],
    outputs: Sequence[Out],
    table: Any,
    accepts: Any,
    tolerance: Tolerance,
    rules: Sequence[Rule] = (),
    notes: Sequence[str] = (),
) -> Any:
    """A member: outputs of src's shape (SoftMax's stats with 1 at the axis), checked axis, f64 formula."""
    port = inputs[0].name
    required = sum(1 for o in outputs if not o.optional)

    def shape(d: Any, ctx: Context) -> list[Shape | None] | None:
        src = d.inputs[0].shape
        for index in range(1, len(d.inputs)):  # the backward ops: dst has diff_dst's shape
            _same_shape(kind, d, index, ctx)
        if src is None:  # the axis cannot be checked yet
            return [None] * _asked_outputs(d, required, len(outputs))
        axis = _axis(kind, d, ctx, port)
        if axis is None:
            return None
        answer: list[Shape | None] = [src]
        if _asked_outputs(d, required, len(outputs)) > 1:
            answer.append(tuple(1 if i == axis else dim for i, dim in enumerate(src)))
        return answer

    def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
        wide = [a.astype(np.float64) for a in arrays]
        axis = wrap_axes([attr(d, "axis", spec.extra)], wide[0].ndim)[0]
        with np.errstate(all="ignore"):  # inf and NaN are answers here, not faults; rounded once
            results = formula(d, wide, axis)
            return [
                r.astype(t)
                for r, t in zip(results[: _asked_outputs(d, required, len(outputs))], out, strict=False)
            ]

    spec = family.build(
        kind,
        family=FAMILY,
        page=kind,
        summary=summary,
        inputs=inputs,
        outputs=outputs,
        table=table,
        accepts=accepts,
        shape=shape,
        kernel=kernel,
        attrs=attrs,
        rules=(_axis_rule(kind), *rules),
        notes=(
            f"{ONEDNN_VERSION} aborts the process (SIGABRT) on an axis out of range; opspec names the rule.",
            *notes,
            f"Evaluation: {tolerance.why}.",
        ),
        tolerance=tolerance,
        examples=(_example(kind, inputs, outputs),),
    )
    return spec


def _example(kind: str, inputs: Sequence[In], outputs: Sequence[Out]) -> dict[str, Any]:
    """Every input [2, 3] f32 with data, along the last axis; every output declared (dst f32). A
    backward op's dst is its forward op's output: probabilities, or their logs."""
    dst = [[-1.609438, -1.203973, -0.693147], [-1.386294, -0.693147, -1.386294]]
    data = [[[0.5, 1, 2], [0, 0, 0]], dst if kind.startswith("Log") else [[0.2, 0.3, 0.5], [0.25, 0.5, 0.25]]]
    shapes = {"stats": [2, 1]}
    return {
        "kind": kind,
        "attrs": {"axis": -1},
        "inputs": [{"dtype": "f32", "shape": [2, 3], "data": data[i]} for i in range(len(inputs))],
        "outputs": [{"dtype": "f32", "shape": shapes.get(o.name, [2, 3])} for o in outputs],
    }


def _same_shape(kind: str, d: Any, index: int, ctx: Context) -> None:
    first, other = d.inputs[0], d.inputs[index]
    if first.shape is None or other.shape is None:
        return
    if len(first.shape) != len(other.shape) or any(map(dims_conflict, first.shape, other.shape)):
        ctx.error(
            f"{kind}.shapes",
            f"inputs[{index}].shape",
            f"{kind}: dst has shape {format_shape(other.shape)}, but diff_dst has {format_shape(first.shape)}; "
            "they must be equal",
        )


def _shapes_rule(kind: str) -> Rule:
    return Rule(
        f"{kind}.shapes",
        "dst has diff_dst's shape (both are the forward op's output).",
        f"oneDNN Graph {kind}, Inputs (diff_dst and dst: the forward dst and its gradient)",
    )


# --- formulas (in f64) -----------------------------------------------------------------------------


def _softmax(d: Any, x: Sequence[np.ndarray], axis: int) -> list[np.ndarray]:
    src = x[0]
    top = np.max(src, axis=axis, keepdims=True, initial=-np.inf)  # initial: a zero-size axis
    e = np.exp(src - top)
    total = np.sum(e, axis=axis, keepdims=True)
    dst, stats = e / total, top + np.log(total)
    if d.attrs.mode == "inf_as_zero":
        # A slice of -inf only: zeros, not 0/0 (the page); its stats are 0 as well (oneDNN 3.13, measured).
        empty = np.isneginf(top)
        dst = np.where(empty, 0.0, dst)
        stats = np.where(empty, 0.0, stats)
    return [dst, stats]


def _log_softmax(d: Any, x: Sequence[np.ndarray], axis: int) -> list[np.ndarray]:
    src = x[0]
    top = np.max(src, axis=axis, keepdims=True, initial=-np.inf)
    shifted = src - top
    return [shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))]


def _softmax_backward(d: Any, x: Sequence[np.ndarray], axis: int) -> list[np.ndarray]:
    diff_dst, dst = x
    return [dst * (diff_dst - np.sum(diff_dst * dst, axis=axis, keepdims=True))]


def _log_softmax_backward(d: Any, x: Sequence[np.ndarray], axis: int) -> list[np.ndarray]:
    diff_dst, dst = x
    return [diff_dst - np.exp(dst) * np.sum(diff_dst, axis=axis, keepdims=True)]


# --- the members -----------------------------------------------------------------------------------


def narrowed(schema: Any, keep: Callable[[tuple[str, ...]], bool]) -> Any:
    """oneDNN's type constraints (`constraints`) narrowed by an op_def_constraint.cpp check."""
    names, admitted = schema
    return names, frozenset(row for row in admitted if keep(row))


SOFTMAX = build(
    "SoftMax",
    "dst = exp(src - max) / sum(exp(src - max)) along axis; stats = max + log(sum), optional.",
    _softmax,
    attrs=(
        _axis_attr(1, "SoftMax"),
        Attr(
            "mode",
            "string",
            "none: the plain formula (NaN for a slice of only -inf); inf_as_zero: zeros there.",
            default="none",
            values=("none", "inf_as_zero"),
        ),
    ),
    inputs=(In("src", "The tensor."),),
    outputs=(
        Out("dst", "src's shape."),
        Out("stats", "src's shape with 1 at axis: max + log(sum(exp(src - max))).", optional=True),
    ),
    table=rows("src dst stats", "f32 f32,bf16,f16 f32", "bf16 f32,bf16 f32", "f16 f32,f16 f32"),
    # check_softmax_dtype: src and dst differ only when one of them is f32.
    accepts=narrowed(
        constraints("src:T1 dst:T2 stats:T3", T1=FLOATS, T2=FLOATS, T3="f32"),
        lambda row: row[0] == row[1] or "f32" in row[:2],
    ),
    tolerance=SOFTMAX_TOLERANCE,
    notes=(
        "A slice holding NaN or +inf: the formula gives NaN throughout; oneDNN 3.13 gives NaN at that "
        "element, 0 elsewhere and +inf stats (measured).",
        "mode inf_as_zero on a slice of only -inf: zeros, and stats 0 as oneDNN 3.13 gives (the page is "
        "silent on stats).",
    ),
)
LOG_SOFTMAX = build(
    "LogSoftmax",
    "dst = log(softmax(src)) along axis, as src - max - log(sum(exp(src - max))).",
    _log_softmax,
    attrs=(_axis_attr(-1, "LogSoftmax"),),
    inputs=(In("src", "The tensor."),),
    outputs=(Out("dst", "src's shape and dtype."),),
    table=rows("src dst", "f32 f32", "bf16 bf16", "f16 f16"),
    accepts=constraints("src:T dst:T", T=FLOATS),
    tolerance=LOG_SOFTMAX_TOLERANCE,
    notes=(
        "A slice holding NaN or +inf: the formula gives NaN throughout; oneDNN 3.13 gives NaN at that "
        "element and -inf elsewhere (measured).",
    ),
)
SOFTMAX_BACKWARD = build(
    "SoftMaxBackward",
    "diff_src = dst * (diff_dst - sum(diff_dst * dst)) along axis.",
    _softmax_backward,
    attrs=(_axis_attr(1, "SoftMax"),),
    inputs=(In("diff_dst", "The gradient of SoftMax's dst."), In("dst", "SoftMax's dst."),),
    outputs=(Out("diff_src", "diff_dst's shape."),),
    # The page's columns are Dst, Diff_dst, Diff_src; here in port order.
    table=rows("diff_dst dst diff_src", "f32 f32 f32", "bf16 bf16 f32,bf16", "f16 f16 f32,f16"),
    # check_softmax_bwd_output_dtype: diff_src is diff_dst's dtype or f32.
    accepts=narrowed(constraints("diff_dst:T1 dst:T1 diff_src:T2", T1=FLOATS, T2=FLOATS),
                     lambda row: row[2] in (row[0], "f32")),
    tolerance=BACKWARD_TOLERANCE,
    rules=(_shapes_rule("SoftMaxBackward"),),
    notes=("oneDNN 3.13 accepts a dst of another shape than diff_dst at add_op and aborts at compile.",),
)  # fmt: skip
LOG_SOFTMAX_BACKWARD = build(
    "LogSoftmaxBackward",
    "diff_src = diff_dst - exp(dst) * sum(diff_dst) along axis.",
    _log_softmax_backward,
    attrs=(_axis_attr(-1, "LogSoftmax"),),
    inputs=(In("diff_dst", "The gradient of LogSoftmax's dst."), In("dst", "LogSoftmax's dst."),),
    outputs=(Out("diff_src", "diff_dst's shape."),),
    table=rows("diff_dst dst diff_src", "f32 f32 f32", "bf16 bf16 bf16", "f16 f16 f16"),
    accepts=constraints("diff_dst:T dst:T diff_src:T", T=FLOATS),
    tolerance=BACKWARD_TOLERANCE,
    rules=(_shapes_rule("LogSoftmaxBackward"),),
    notes=("oneDNN 3.13 accepts a dst of another shape than diff_dst at add_op and aborts at compile.",),
)  # fmt: skip

OPS = (SOFTMAX, LOG_SOFTMAX, SOFTMAX_BACKWARD, LOG_SOFTMAX_BACKWARD)
