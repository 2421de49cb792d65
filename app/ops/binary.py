"""oneDNN Graph's binary ops: dst = f(src_0, src_1) under `auto_broadcast`, and the ops that broadcast
one operand to the other by their own rules (Select, PReLU, BiasAdd, and their backward ops); Pow,
an elementwise power with an attribute exponent, sits here with them as its page's family does.

One shape rule for the two-input members (`none`: the shapes are equal; `numpy`: multidirectional
broadcasting, app/core/shapes.py's, with NumPy's 0 beside 1), one kernel shape: the inputs converted
to f32, the IEEE f32 operation, the result rounded once to dst's dtype (an integer dst saturated
first, as oneDNN does). Each member is a row: its page, its dtype table, oneDNN's schema, its function.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from app.core import family
from app.core.data_format import channel_of
from app.core.diagnostics import Rule
from app.core.engine import Context, assumption_rules
from app.core.family import ONEDNN, ONEDNN_VERSION, Attr, In, Out, attr, constraints, rows
from app.core.mismatch import Tolerance
from app.core.shapes import Shape, broadcast_shapes, dims_conflict, format_shape

FAMILY = "binary"
FLOATS = "f32 bf16 f16"

AUTO_BROADCAST = Attr(
    "auto_broadcast",
    "string",
    "Specifies rules used for auto-broadcasting of src tensors.",
    default="numpy",
    values=("none", "numpy"),
)


def data_format(description: str) -> Attr:
    return Attr("data_format", "string", description, default="NXC", values=("NCX", "NXC"))


# The pages' tables. Add and Subtract list s32 besides the floats and the f32-with-16-bit mixes;
# Multiply and Divide the floats and the mixes; Maximum, Minimum and SquaredDifference one float T.
SAME_FLOATS = ("f32 f32 f32", "bf16 bf16 bf16", "f16 f16 f16")
MIXED = ("f32 bf16,f16 f32", "bf16,f16 f32 f32")
ARITHMETIC_S32 = rows("src_0 src_1 dst", *SAME_FLOATS, *MIXED, "s32 s32 s32")
ARITHMETIC = rows("src_0 src_1 dst", *SAME_FLOATS, *MIXED)
ONE_FLOAT = rows("src_0 src_1 dst", *SAME_FLOATS)
# oneDNN's schemas: three independent type variables (any mix of the listed dtypes) or one T.
SCHEMA_S32 = constraints(
    "src_0:T1 src_1:T2 dst:T3", T1=f"{FLOATS} s32", T2=f"{FLOATS} s32", T3=f"{FLOATS} s32"
)
SCHEMA_MIX = constraints("src_0:T1 src_1:T2 dst:T3", T1=FLOATS, T2=FLOATS, T3=FLOATS)
SCHEMA_T = constraints("src_0:T src_1:T dst:T", T=FLOATS)


def one_float(ports: str) -> dict[str, Any]:
    """The table most of these pages have (f32, bf16 or f16, one dtype on every port) and oneDNN's schema
    for it (one T): `table` and `accepts` for `build`."""
    table = rows(ports, *(" ".join([dtype] * len(ports.split())) for dtype in FLOATS.split()))
    return {"table": table, "accepts": constraints(" ".join(f"{p}:T" for p in ports.split()), T=FLOATS)}


# --- rules -------------------------------------------------------------------------------------------


def _page(kind: str) -> str:
    return f"{ONEDNN} {kind}"


def broadcast_rules(kind: str) -> tuple[Rule, ...]:
    page = _page(kind)
    return (
        Rule(f"{kind}.auto_broadcast.none", "With auto_broadcast none, the inputs' shapes are equal.",
             f"{page}, Inputs (note on auto_broadcast)"),
        Rule(f"{kind}.broadcast", "With auto_broadcast numpy, the inputs broadcast together: ranks aligned on the "
             "right, each dim equal or 1 (a 1 beside a 0 gives 0, as in NumPy).",
             f"{page}, Inputs (note on auto_broadcast)"),
        *assumption_rules(f"{kind}.broadcast", "A symbolic or unknown dim is broadcast against other sizes",
                          f"{page}, Inputs"),
    )  # fmt: skip


# --- shapes ------------------------------------------------------------------------------------------


def _numpy_zeros(shapes: Sequence[Shape | None]) -> tuple[list[Shape | None], list[int]]:
    """oneDNN's numpy broadcasting is NumPy's: a 1 beside a 0 stretches to 0 (`[0]` with `[1]` or with a
    scalar gives `[0]`), where broadcast_shapes' strict rule takes the largest size. Reading such a 1 as
    0 first (a missing leading dim too: the shape is padded, and the pad returned to map axes back)
    makes the shared rule give NumPy's answer and leaves every other case to it."""
    known = [s for s in shapes if s is not None]
    rank = max((len(s) for s in known), default=0)
    zero_columns = set()
    for dim in range(rank):
        sizes = {s[dim - rank + len(s)] if dim - rank + len(s) >= 0 else 1 for s in known}
        if 0 in sizes and sizes <= {0, 1}:
            zero_columns.add(dim)
    if not zero_columns:
        return list(shapes), [0] * len(shapes)
    out: list[Shape | None] = []
    pads = []
    for s in shapes:
        if s is None:
            out.append(s)
            pads.append(0)
            continue
        pad = rank - len(s) if any(dim < rank - len(s) for dim in zero_columns) else 0
        full = (1,) * pad + tuple(s)
        lead = rank - len(full)
        out.append(
            tuple(0 if size == 1 and axis + lead in zero_columns else size for axis, size in enumerate(full))
        )
        pads.append(pad)
    return out, pads


_INPUT = re.compile(r"\binputs? (\d+(?:, \d+)*)")


def broadcast(kind: str, d: Any, ctx: Context, ports: Sequence[tuple[int, str]]) -> Shape | bool | None:
    """The shape the inputs at `ports` (index, name) give under auto_broadcast; False after an error."""
    shapes = [d.inputs[i].shape for i, _ in ports]
    if attr(d, "auto_broadcast") == "none":
        return _equal_shapes(kind, ctx, ports, shapes)
    padded, pads = _numpy_zeros(shapes)
    answer = broadcast_shapes(padded)
    names = {str(k): name for k, (_, name) in enumerate(ports)}
    for p in answer.problems:
        index, name = ports[p.input]
        largest = p.largest
        ctx.error(
            f"{kind}.broadcast",
            f"inputs[{index}].shape[{p.axis - pads[p.input]}]",
            f"{kind}: {name} {format_shape(shapes[p.input])} has {p.size} in dim {p.dim} of the broadcast, where "
            f"another input has {largest}; with auto_broadcast numpy each input has {largest} or 1 there",
        )
    for a in answer.assumptions:
        index, _ = ports[a.input]
        message = _INPUT.sub(lambda m: ", ".join(names[k] for k in m.group(1).split(", ")), a.message)
        ctx.assume(f"{kind}.broadcast", f"inputs[{index}].shape[{a.axis - pads[a.input]}]", a, message)
    return False if answer.problems else answer.shape


def _equal_shapes(
    kind: str, ctx: Context, ports: Sequence[tuple[int, str]], shapes: Sequence[Shape | None]
) -> Shape | bool | None:
    _, first_name = ports[0]
    out = shapes[0]
    ok = True
    for (index, name), shape in zip(ports[1:], shapes[1:], strict=True):
        if shape is None or out is None:
            out = out if out is not None else shape
            continue
        if len(shape) != len(out) or any(dims_conflict(a, b) for a, b in zip(shape, out, strict=True)):
            ctx.error(
                f"{kind}.auto_broadcast.none",
                f"inputs[{index}].shape",
                f"{kind}: {name} has shape {format_shape(shape)} and {first_name} {format_shape(shapes[0])}; with "
                "auto_broadcast none the shapes must be equal (numpy broadcasts them)",
            )
            ok = False
            continue
        out = tuple(
            a if isinstance(a, int) else b if isinstance(b, int) else a
            for a, b in zip(out, shape, strict=True)
        )
    return out if ok else False


# --- kernels -----------------------------------------------------------------------------------------


def _f32(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32, copy=False)


def rounded(y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """An f32 result rounded once to dst's dtype. An integer dst is saturated first to the integers f32
    holds within its range (s32: [-2^31, 2^31 - 128]), then rounded to nearest even, as oneDNN does."""
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        high = np.float32(info.max)
        if int(high) > info.max:
            high = np.nextafter(high, np.float32(0))
        return np.rint(np.clip(y, np.float32(info.min), high)).astype(dtype)
    return y


def maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a > b ? a : b: src_1 where they tie (so Maximum(-0, +0) is +0 and Maximum(+0, -0) is -0) or where
    either is NaN (a NaN src_1 is kept, a NaN src_0 dropped), as oneDNN 3.13 computes it."""
    return np.where(a > b, a, b)


def minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a < b ? a : b, with ties and NaN as in `maximum`."""
    return np.where(a < b, a, b)


def squared_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    diff = a - b
    return diff * diff


F32_OPS = (
    "the inputs converted to f32, one IEEE f32 operation, the result rounded once (to nearest even) to dst"
)


def build(
    kind: str,
    formula: str,
    fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
    *,
    table: Any,
    accepts: Any,
    computed: str,
    notes: Sequence[str] = (),
) -> Any:
    """A two-input member: `fn(src_0, src_1)` on the inputs in f32, broadcast under auto_broadcast."""

    def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
        with np.errstate(all="ignore"):  # inf and NaN are answers here, not faults
            return [rounded(fn(_f32(arrays[0]), _f32(arrays[1])), out[0])]

    def shape(d: Any, ctx: Context) -> list[Shape | None] | None:
        dst = broadcast(kind, d, ctx, ((0, "src_0"), (1, "src_1")))
        return None if dst is False else [dst]  # type: ignore[list-item]

    return family.build(
        kind,
        family=FAMILY,
        page=kind,
        summary=formula,
        inputs=(In("src_0", "The first operand."), In("src_1", "The second operand.")),
        outputs=(Out("dst", "The inputs' broadcast shape; dtype per the table."),),
        table=table,
        accepts=accepts,
        shape=shape,
        kernel=kernel,
        attrs=(AUTO_BROADCAST,),
        rules=broadcast_rules(kind),
        notes=(f"Computed as {computed}.", *notes),
    )


S32_NOTE = (
    "s32 inputs are computed in f32 as oneDNN 3.13 computes them: a value beyond 2^24 is rounded on the way "
    "in (16777217 + 0 gives 16777216), and a sum past the s32 range saturates to -2^31 or 2^31 - 128, the "
    "largest f32 within it."
)
MIXED_NOTE = (
    "f32 with bf16 or f16 (the mixed rows) is computed in f32: the 16-bit input converts exactly. A dst beyond "
    "the table that oneDNN's schema admits (benchdnn's Multiply bf16 x bf16 -> f32) is valid with the "
    "`{kind}.onednn.dtypes` warning and computed the same way."
)

ADD = build("Add", "dst = src_0 + src_1, elementwise, with broadcasting.", np.add,
             table=ARITHMETIC_S32, accepts=SCHEMA_S32, computed=F32_OPS,
             notes=(S32_NOTE, MIXED_NOTE.format(kind="Add")))  # fmt: skip
SUBTRACT = build("Subtract", "dst = src_0 - src_1, elementwise, with broadcasting.", np.subtract,
                  table=ARITHMETIC_S32, accepts=SCHEMA_S32, computed=F32_OPS,
                  notes=(S32_NOTE, MIXED_NOTE.format(kind="Subtract")))  # fmt: skip
MULTIPLY = build("Multiply", "dst = src_0 * src_1, elementwise, with broadcasting.", np.multiply,
                  table=ARITHMETIC, accepts=SCHEMA_MIX, computed=F32_OPS,
                  notes=(MIXED_NOTE.format(kind="Multiply"),))  # fmt: skip
DIVIDE = build("Divide", "dst = src_0 / src_1, elementwise, with broadcasting.", np.divide,
                table=ARITHMETIC, accepts=SCHEMA_MIX, computed=F32_OPS,
                notes=("IEEE division: x / 0 is +-inf, 0 / 0 and inf / inf are NaN, as oneDNN 3.13 gives.",
                       MIXED_NOTE.format(kind="Divide")))  # fmt: skip
MAXIMUM = build("Maximum", "dst = max(src_0, src_1), elementwise, with broadcasting.", maximum,
                 table=ONE_FLOAT, accepts=SCHEMA_T, computed="src_0 > src_1 ? src_0 : src_1 in f32, rounded once to dst",
                 notes=("On a tie or a NaN, src_1 is the answer, as oneDNN 3.13 computes it (measured on every "
                        "broadcast layout): Maximum(-0, +0) = +0 but Maximum(+0, -0) = -0; Maximum(NaN, 1) = 1 but "
                        "Maximum(1, NaN) = NaN. The page says max(); the seed op Max (ONNX) lets NaN absorb.",))  # fmt: skip
MINIMUM = build("Minimum", "dst = min(src_0, src_1), elementwise, with broadcasting.", minimum,
                 table=ONE_FLOAT, accepts=SCHEMA_T, computed="src_0 < src_1 ? src_0 : src_1 in f32, rounded once to dst",
                 notes=("On a tie or a NaN, src_1 is the answer, as oneDNN 3.13 computes it: Minimum(-0, +0) = +0, "
                        "Minimum(+0, -0) = -0, Minimum(NaN, 1) = 1, Minimum(1, NaN) = NaN.",))  # fmt: skip
SQUARED_DIFFERENCE = build(
    "SquaredDifference", "dst = (src_0 - src_1)^2, elementwise, with broadcasting.", squared_difference,
    table=ONE_FLOAT, accepts=SCHEMA_T, computed="d = src_0 - src_1 and d * d, two IEEE f32 operations, rounded once to dst",
)  # fmt: skip
GREATER_EQUAL = build(
    "GreaterEqual", "dst = src_0 >= src_1, elementwise, with broadcasting; a boolean tensor.", np.greater_equal,
    table=rows("src_0 src_1 dst", "f32 f32 boolean", "bf16 bf16 boolean", "f16 f16 boolean", "s32 s32 boolean"),
    accepts=constraints("src_0:T1 src_1:T1 dst:T2", T1=f"{FLOATS} s32", T2="boolean"),
    computed="the IEEE f32 comparison src_0 >= src_1 of the inputs converted to f32 (false where either is NaN; "
    "-0 >= +0 is true)",
    notes=("s32 inputs are compared in f32, as oneDNN 3.13 does: beyond 2^24 two integers may compare equal "
           "(16777216 >= 16777217 is true).",),
)  # fmt: skip


# --- Select ------------------------------------------------------------------------------------------


def _select_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    """Step 1: src_0 and src_1 broadcast together (numpy); step 2: cond broadcasts one way to that."""
    if attr(d, "auto_broadcast") == "none":
        dst = _equal_shapes(
            "Select", ctx, ((0, "cond"), (1, "src_0"), (2, "src_1")), [t.shape for t in d.inputs]
        )
        return None if dst is False else [dst]  # type: ignore[list-item]
    dst = broadcast("Select", d, ctx, ((1, "src_0"), (2, "src_1")))
    if dst is False:
        return None
    cond = d.inputs[0].shape
    if cond is None or dst is None:
        return [dst]  # type: ignore[list-item]
    if len(cond) > len(dst):  # type: ignore[arg-type]
        ctx.error("Select.cond.broadcast", "inputs[0].shape",
                  f"Select: cond {format_shape(cond)} has rank {len(cond)}, above the rank {len(dst)} of src_0 and "  # type: ignore[arg-type]
                  f"src_1 broadcast {format_shape(dst)}; cond broadcasts one way to it")  # type: ignore[arg-type]  # fmt: skip
        return None
    ok = True
    lead = len(dst) - len(cond)  # type: ignore[arg-type]
    for axis, size in enumerate(cond):
        want = dst[axis + lead]  # type: ignore[index]
        if size != 1 and dims_conflict(size, want):
            ctx.error("Select.cond.broadcast", f"inputs[0].shape[{axis}]",
                      f"Select: cond {format_shape(cond)} has {size} in dim {axis}, against {want} of src_0 and src_1 "
                      f"broadcast {format_shape(dst)} (aligned on the right); cond's size must be {want} or 1")  # type: ignore[arg-type]  # fmt: skip
            ok = False
    return [dst] if ok else None  # type: ignore[list-item]


def _select(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
    return [np.where(arrays[0].astype(bool, copy=False), arrays[1], arrays[2])]


SELECT = family.build(
    "Select",
    family=FAMILY,
    page="Select",
    summary="dst = cond ? src_0 : src_1, elementwise; src_0 and src_1 broadcast together, cond one way to them.",
    inputs=(
        In("cond", "The boolean condition."),
        In("src_0", "Taken where cond is true."),
        In("src_1", "Taken where cond is false."),
    ),
    outputs=(Out("dst", "src_0 and src_1's broadcast shape and dtype."),),
    table=rows(
        "cond src_0 src_1 dst", "boolean f32 f32 f32", "boolean bf16 bf16 bf16", "boolean f16 f16 f16"
    ),
    accepts=constraints("cond:T1 src_0:T2 src_1:T2 dst:T2", T1="boolean", T2=FLOATS),
    shape=_select_shape,
    kernel=_select,
    attrs=(AUTO_BROADCAST,),
    rules=(
        *broadcast_rules("Select"),
        Rule(
            "Select.cond.broadcast",
            "With auto_broadcast numpy, cond broadcasts one way to src_0 and src_1's "
            "broadcast shape: aligned on the right, each of its dims equal there or 1, its rank no higher.",
            f"{_page('Select')}, Broadcasting rules, step 2",
        ),
    ),
    notes=(
        "Computed as a selection: dst holds src_0's or src_1's value bit for bit (NaN, -0 kept).",
        f"The page's invalid example (cond [3, 5] against [2, 3, 4, 5]) is an error here; {ONEDNN_VERSION} accepts "
        "the op and aborts (SIGABRT) when it compiles it.",
    ),
    examples=(
        {
            "kind": "Select",
            "inputs": [
                {"dtype": "boolean", "shape": [4, 5]},
                {"dtype": "f32", "shape": [2, 3, 4, 5]},
                {"dtype": "f32", "shape": [2, 3, 4, 5]},
            ],
        },
    ),
)


# --- BiasAdd, BiasAddBackward --------------------------------------------------------------------------


def _channels(kind: str, d: Any, ctx: Context, name: str) -> int | None:
    """src's channel axis, or None (reported) when src has no room for both N and C."""
    shape = d.inputs[0].shape
    if shape is None:
        return None
    if len(shape) < 2:
        ctx.error(f"{kind}.{name}.rank", "inputs[0].shape",
                  f"{kind}: {name} {format_shape(shape)} has rank {len(shape)}; it needs rank 2 or more (a batch dim "
                  f"and a channel dim, as data_format {attr(d, 'data_format')} lays them out)")  # fmt: skip
        return None
    return channel_of(d, len(shape))


def _bias_add_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    src, bias = d.inputs[0].shape, d.inputs[1].shape
    axis = _channels("BiasAdd", d, ctx, "src")
    ok = src is None or axis is not None
    if bias is not None and len(bias) != 1:
        ctx.error("BiasAdd.bias.rank", "inputs[1].shape",
                  f"BiasAdd: bias {format_shape(bias)} has rank {len(bias)}; bias is 1-D")  # fmt: skip
        ok = False
    elif bias is not None and axis is not None and dims_conflict(bias[0], src[axis]):
        ctx.error("BiasAdd.bias.size", "inputs[1].shape[0]",
                  f"BiasAdd: bias has {bias[0]} elements, but src {format_shape(src)} has {src[axis]} channels (dim "
                  f"{axis} under data_format {attr(d, 'data_format')}); they must be equal")  # fmt: skip
        ok = False
    return [src] if ok else None


def _at_channel(values: np.ndarray, rank: int, axis: int) -> np.ndarray:
    """A 1-D per-channel tensor shaped to broadcast along `axis` of a rank-`rank` tensor."""
    shape = [1] * rank
    shape[axis] = values.shape[0]
    return values.reshape(shape)


def _bias_add(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
    src, bias = _f32(arrays[0]), _f32(arrays[1])
    with np.errstate(all="ignore"):
        return [src + _at_channel(bias, src.ndim, channel_of(d, src.ndim))]


def channel_sum(values: np.ndarray, axis: int) -> np.ndarray:
    """The sum over every dim but `axis`, accumulated in f32 one position after another in row-major
    order of the other dims (np.cumsum is sequential; its last row is the sum)."""
    channels = values.shape[axis]
    rows = math.prod(size for other, size in enumerate(values.shape) if other != axis)
    return running_sum(np.moveaxis(values, axis, -1).reshape(rows, channels))


def running_sum(rows: np.ndarray) -> np.ndarray:
    """rows[0] + rows[1] + ... in f32, one after another from +0 (so -0s alone sum to +0, as oneDNN's do);
    a single row is its own sum, -0 kept (oneDNN adds nothing where nothing is reduced)."""
    if rows.shape[0] == 1:
        return rows[0].astype(np.float32, copy=False)
    start = np.zeros((1, *rows.shape[1:]), np.float32)
    return np.cumsum(np.concatenate([start, rows.astype(np.float32, copy=False)]), axis=0, dtype=np.float32)[
        -1
    ]


def _bias_add_backward_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    shape = d.inputs[0].shape
    if shape is None:
        return [None]
    axis = _channels("BiasAddBackward", d, ctx, "diff_dst")
    if axis is None:
        return None
    if len(shape) < 4:
        ctx.warn("BiasAddBackward.onednn.rank", "inputs[0].shape",
                 f"BiasAddBackward: diff_dst {format_shape(shape)} has rank {len(shape)}; {ONEDNN_VERSION}'s shape "
                 "inference asks for rank 4 or more, and its CPU engine runs no BiasAddBackward partition")  # fmt: skip
    return [(shape[axis],)]


SUM_TOLERANCE = Tolerance(
    ulps=16,
    absolute=1e-5,
    why="a sum in f32: ours adds in row-major order of the reduced positions, one after another from +0; "
    "oneDNN's order is its own (measured: up to 10 ulps apart on 40 standard-normal terms)",
)

BIAS_ADD = family.build(
    "BiasAdd",
    family=FAMILY,
    page="BiasAdd",
    summary="dst = src + bias, bias (1-D) added along src's channel dim.",
    inputs=(In("src", "The input tensor, rank 2 or more."), In("bias", "1-D, one value per channel of src.")),
    outputs=(Out("dst", "src's shape and dtype."),),
    **one_float("src bias dst"),
    shape=_bias_add_shape,
    kernel=_bias_add,
    attrs=(data_format("Controls how to interpret the shape of `src` and `dst`."),),
    rules=(
        Rule(
            "BiasAdd.src.rank",
            "src has rank 2 or more: a batch dim and a channel dim.",
            f"{_page('BiasAdd')}, General and attribute data_format",
        ),
        Rule("BiasAdd.bias.rank", "bias is 1-D.", f"{_page('BiasAdd')}, Inputs (note on bias)"),
        Rule(
            "BiasAdd.bias.size",
            "bias has as many elements as src has channels (dim 1 for NCX, the last for NXC).",
            f"{_page('BiasAdd')}, Inputs (note on bias)",
        ),
    ),
    notes=(f"Computed as {F32_OPS}; bias[c] is added to every element of channel c.",),
)

BIAS_ADD_BACKWARD = family.build(
    "BiasAddBackward",
    family=FAMILY,
    page="BiasAddBackward",
    summary="diff_bias[c] = the sum of diff_dst over every dim but the channel dim.",
    inputs=(In("diff_dst", "The gradient of BiasAdd's dst."),),
    outputs=(Out("diff_bias", "1-D, one value per channel; diff_dst's dtype."),),
    **one_float("diff_dst diff_bias"),
    shape=_bias_add_backward_shape,
    kernel=lambda d, arrays, out: [channel_sum(_f32(arrays[0]), channel_of(d, arrays[0].ndim))],
    attrs=(data_format("Controls how to interpret the shape of `diff_dst` and `diff_bias`."),),
    rules=(
        Rule(
            "BiasAddBackward.diff_dst.rank",
            "diff_dst has rank 2 or more: a batch dim and a channel dim.",
            f"{_page('BiasAddBackward')}, General and attribute data_format",
        ),
        Rule(
            "BiasAddBackward.onednn.rank",
            f"{ONEDNN_VERSION}'s shape inference asks for rank 4 or more; the page does not.",
            f"{ONEDNN_VERSION} shape inference (infer_bias_backprop_output_shape)",
            "warning",
        ),
    ),
    notes=(
        "Computed as a sum in f32, row-major order of the reduced positions, one after another (stated tolerance).",
        f"{ONEDNN_VERSION}'s CPU engine has no kernel for BiasAddBackward alone (the partition is not supported); "
        "benchdnn's biasadd_bwd.json spells the kind BiasAddBackprop, which oneDNN does not know (not checked).",
    ),
    tolerance=SUM_TOLERANCE,
)


# --- PReLU, PReLUBackward -----------------------------------------------------------------------------


def _slope_view(d: Any, src_rank: int, slope_shape: tuple[int, ...], per_channel: bool) -> tuple[int, ...]:
    """slope's shape as it broadcasts against src: a 1-D per-channel slope at the channel dim, any other
    aligned on the right."""
    if len(slope_shape) == 1 and per_channel and src_rank >= 1:
        shape = [1] * src_rank
        shape[channel_of(d, src_rank)] = slope_shape[0]
        return tuple(shape)
    return slope_shape


def _right_aligned(kind: str, ctx: Context, src: Shape, slope: Shape, what: str) -> bool:
    """slope broadcasts one way to src, aligned on the right: rank no higher, each dim equal or 1."""
    if len(slope) > len(src):
        ctx.error(f"{kind}.slope.shape", "inputs[1].shape",
                  f"{kind}: slope {format_shape(slope)} has rank {len(slope)}, above src {format_shape(src)}'s "
                  f"{len(src)}; {what}")  # fmt: skip
        return False
    lead = len(src) - len(slope)
    ok = True
    for axis, size in enumerate(slope):
        if size != 1 and dims_conflict(size, src[axis + lead]):
            ctx.error(f"{kind}.slope.shape", f"inputs[1].shape[{axis}]",
                      f"{kind}: slope {format_shape(slope)} has {size} in dim {axis}, against {src[axis + lead]} of "
                      f"src {format_shape(src)} (aligned on the right); {what}")  # fmt: skip
            ok = False
    return ok


PRELU_RULES = "slope is 1-D of src's channel count (per_channel_broadcast true), 1-D of src's last dim (false), or nD with each dim, from the right, src's or 1"


def _prelu_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    src, slope = d.inputs[0].shape, d.inputs[1].shape
    if src is None or slope is None:
        return [src]
    if not src:
        ctx.warn("PReLU.onednn.rank", "inputs[0].shape",
                 f"PReLU: src {format_shape(src)} has rank 0; {ONEDNN_VERSION} refuses to compile it (invalid_shape)")  # fmt: skip
    elif len(src) == 1 and attr(d, "data_format") != "NCX":
        ctx.warn("PReLU.onednn.rank", "inputs[0].shape",
                 f"PReLU: src {format_shape(src)} has rank 1 under data_format NXC; {ONEDNN_VERSION} aborts the "
                 "process (SIGSEGV) compiling it (under NCX it runs, dim 0 the channel)")  # fmt: skip
    if len(slope) == 1:
        per_channel = attr(d, "per_channel_broadcast") is not False
        if not src:
            ctx.error("PReLU.slope.shape", "inputs[1].shape",
                      f"PReLU: slope {format_shape(slope)} is 1-D, but src has rank 0: no dim to match; {PRELU_RULES}")  # fmt: skip
            return None
        axis = channel_of(d, len(src)) if per_channel else len(src) - 1
        if dims_conflict(slope[0], src[axis]):
            which = (f"channel dim {axis} (data_format {attr(d, 'data_format')})" if per_channel
                     else f"last dim {axis} (per_channel_broadcast false)")  # fmt: skip
            ctx.error("PReLU.slope.shape", "inputs[1].shape[0]",
                      f"PReLU: slope has {slope[0]} elements, but src {format_shape(src)} has {src[axis]} in its "
                      f"{which}; {PRELU_RULES}")  # fmt: skip
            return None
        return [src]
    return [src] if _right_aligned("PReLU", ctx, src, slope, PRELU_RULES) else None


def _prelu(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
    src = _f32(arrays[0])
    per_channel = attr(d, "per_channel_broadcast") is not False
    slope = _f32(arrays[1]).reshape(_slope_view(d, src.ndim, arrays[1].shape, per_channel))
    zero = np.float32(0)
    with np.errstate(all="ignore"):
        # 0 > src ? 0 : src and 0 < src ? 0 : src: src itself on a tie (-0 stays -0) and on NaN.
        return [np.where(zero > src, zero, src) + slope * np.where(zero < src, zero, src)]


PRELU = family.build(
    "PReLU",
    family=FAMILY,
    page="PReLU",
    summary="dst = src where src >= 0, slope * src where src < 0; slope broadcast one way to src.",
    inputs=(In("src", "The input tensor."), In("slope", "The negative slope, broadcast to src.")),
    outputs=(Out("dst", "src's shape and dtype."),),
    **one_float("src slope dst"),  # the page's columns are Src Dst Slope: ports here are inputs, then outputs
    shape=_prelu_shape,
    kernel=_prelu,
    attrs=(
        data_format("Denotes the data format of the input and output data."),
        Attr(
            "per_channel_broadcast",
            "bool",
            "Denotes whether to apply per_channel broadcast when slope is 1D tensor.",
            default=True,
        ),
    ),
    rules=(
        Rule(
            "PReLU.slope.shape",
            f"Only slope broadcasts, one way to src: {PRELU_RULES}.",
            f"{_page('PReLU')}, Broadcasting Rules 1-3",
        ),
        Rule(
            "PReLU.onednn.rank",
            f"{ONEDNN_VERSION} runs PReLU on src of rank 2 or more, and of rank 1 under data_format NCX; it "
            "refuses rank 0 at compile (invalid_shape), and rank 1 under NXC aborts the process (SIGSEGV).",
            f"{ONEDNN_VERSION}, measured",
            "warning",
        ),
    ),
    notes=(
        "Computed as oneDNN 3.13 computes it (measured on -0, NaN and infinities): pos = 0 > src ? 0 : src, "
        "neg = 0 < src ? 0 : src (each src itself on a tie or NaN), dst = pos + slope * neg, IEEE f32 operations, "
        "rounded once to dst. So -0 with slope -2 gives +0, -1 with slope -0 gives +0, and a NaN or infinite "
        "slope gives NaN even where src is positive (slope * 0); the page's formula would keep src there.",
    ),
)

PRELU_BWD_RULES = (
    "1-D of src's channel count or of 1, or nD equal to src's shape without its first dim (PyTorch and "
    "TensorFlow cases)"
)


def _prelu_backward_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    src, slope = d.inputs[0].shape, d.inputs[1].shape
    diff_dst = d.inputs[2].shape
    if (
        src is not None
        and diff_dst is not None
        and (
            len(src) != len(diff_dst) or any(dims_conflict(a, b) for a, b in zip(src, diff_dst, strict=True))
        )
    ):
        ctx.error("PReLUBackward.diff_dst.shape", "inputs[2].shape",
                  f"PReLUBackward: diff_dst {format_shape(diff_dst)} and src {format_shape(src)} differ; they are "
                  "the same shape (PReLU's dst and src)")  # fmt: skip
        return None
    if src is None or slope is None:
        return [src, slope]
    if len(slope) == 1:
        if not src:
            ctx.error("PReLUBackward.slope.shape", "inputs[1].shape",
                      f"PReLUBackward: slope is 1-D, but src has rank 0: no channel dim; slope is {PRELU_BWD_RULES}")  # fmt: skip
            return None
        axis = channel_of(d, len(src))
        if slope[0] != 1 and dims_conflict(slope[0], src[axis]):
            ctx.error("PReLUBackward.slope.shape", "inputs[1].shape[0]",
                      f"PReLUBackward: slope has {slope[0]} elements, but src {format_shape(src)} has {src[axis]} "
                      f"channels (dim {axis}, data_format {attr(d, 'data_format')}); slope is {PRELU_BWD_RULES}")  # fmt: skip
            return None
        return [src, slope]
    if not _right_aligned("PReLUBackward", ctx, src, slope, f"slope is {PRELU_BWD_RULES}"):
        return None
    tail = src[1:]
    if len(slope) != len(tail) or any(dims_conflict(a, b) for a, b in zip(slope, tail, strict=True)):
        ctx.warn("PReLUBackward.onednn.slope", "inputs[1].shape",
                 f"PReLUBackward: slope {format_shape(slope)} is not src {format_shape(src)} without its first dim "
                 f"{format_shape(tail)}; the page lists only that nD form, {ONEDNN_VERSION} broadcasts any slope "
                 "whose dims, from the right, are src's or 1")  # fmt: skip
    return [src, slope]


def _prelu_backward(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
    src, slope_in, diff_dst = _f32(arrays[0]), _f32(arrays[1]), _f32(arrays[2])
    view = _slope_view(d, src.ndim, slope_in.shape, per_channel=slope_in.shape != (1,))
    slope = slope_in.reshape(view)
    positive = (src > 0).astype(np.float32)
    negative = (src <= 0).astype(np.float32)  # NaN is neither: its diff_src is 0 * diff_dst
    with np.errstate(all="ignore"):
        diff_src = diff_dst * (positive + negative * slope)
        each = src * diff_dst * negative
        # Summed over the dims slope broadcasts along, in row-major order, one position after another.
        full = (1,) * (src.ndim - len(view)) + tuple(view)
        kept = [axis for axis, size in enumerate(full) if size != 1 or src.shape[axis] == 1]
        moved = np.moveaxis(each, kept, list(range(src.ndim - len(kept), src.ndim)))
        sizes = [src.shape[a] for a in kept]
        reduced = math.prod(size for axis, size in enumerate(src.shape) if axis not in kept)
        flat = moved.reshape(reduced, *sizes)
        total = running_sum(flat)
    return [diff_src, np.asarray(total, np.float32).reshape(slope_in.shape)]


PRELU_BACKWARD = family.build(
    "PReLUBackward",
    family=FAMILY,
    page="PReLUBackward",
    summary="diff_src = diff_dst where src > 0, slope * diff_dst elsewhere; diff_slope sums src * diff_dst where "
    "src <= 0 over the dims slope broadcasts along.",
    inputs=(
        In("src", "PReLU's src."),
        In("slope", "PReLU's slope."),
        In("diff_dst", "The gradient of PReLU's dst."),
    ),
    outputs=(Out("diff_src", "src's shape."), Out("diff_slope", "slope's shape.")),
    **one_float("src slope diff_dst diff_src diff_slope"),
    shape=_prelu_backward_shape,
    kernel=_prelu_backward,
    attrs=(data_format("Denotes the data format of the input and output data."),),
    rules=(
        Rule(
            "PReLUBackward.slope.shape",
            f"Only slope broadcasts, one way to src: {PRELU_BWD_RULES}; any other "
            "slope whose dims, from the right, are src's or 1 is PReLUBackward.onednn.slope.",
            f"{_page('PReLUBackward')}, Broadcasting Rules 1-3",
        ),
        Rule(
            "PReLUBackward.onednn.slope",
            f"An nD slope beyond the page's form that {ONEDNN_VERSION} accepts "
            "(broadcast from the right, as benchdnn's [1, 1, 1, 1, 1] against a 5-D src).",
            f"{ONEDNN_VERSION}, measured",
            "warning",
        ),
        Rule(
            "PReLUBackward.diff_dst.shape", "diff_dst has src's shape.", f"{_page('PReLUBackward')}, Inputs"
        ),
    ),
    notes=(
        "Computed as oneDNN 3.13 computes it (measured on -0, NaN and infinities): p = 1 where src > 0, n = 1 "
        "where src <= 0 (both 0 for NaN); diff_src = diff_dst * (p + n * slope); each position's src * diff_dst * "
        "n, summed in f32 over the dims slope broadcasts along, in row-major order (stated tolerance: oneDNN "
        "adds in its own order).",
        "A 1-D slope of one element broadcasts to every channel; of the channel count, along data_format's "
        "channel dim.",
    ),
    tolerance=SUM_TOLERANCE,
)


# --- Pow ---------------------------------------------------------------------------------------------


def _pow(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
    with np.errstate(all="ignore"):
        src = arrays[0].astype(np.float64)
        # An array of exponents: NumPy's scalar fast paths (sqrt for 0.5, ...) would give sqrt(-0) = -0
        # where pow(-0, 0.5) is +0.
        beta = np.full_like(src, np.float32(attr(d, "beta")))
        return [np.power(src, beta).astype(np.float32)]


F32_MAX = float(np.finfo(np.float32).max)


def _pow_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    beta = attr(d, "beta")
    if isinstance(beta, list) or not abs(beta) <= F32_MAX:
        given = f"a list of {len(beta)} values" if isinstance(beta, list) else f"{beta:g}, beyond f32's range"
        ctx.error("Pow.beta.f32", "attrs.beta",
                  f"Pow: beta is {given}; beta is one f32 value, within +-{F32_MAX:g}")  # fmt: skip
        return None
    return [d.inputs[0].shape]


POW = family.build(
    "Pow",
    family=FAMILY,
    page="Pow",
    summary="dst = src ^ beta, elementwise, beta an attribute.",
    inputs=(In("src", "The base."),),
    outputs=(Out("dst", "src's shape and dtype."),),
    **one_float("src dst"),
    shape=_pow_shape,
    kernel=_pow,
    attrs=(Attr("beta", "f32", "exponent, beta in the formula.", required=True),),
    rules=(Rule("Pow.beta.f32", "beta is one f32 value.", f"{_page('Pow')}, Operation attributes"),),
    notes=(
        "Computed as C's pow on src and beta in f64, rounded to f32, then once to dst: IEEE pow's special cases "
        "(x^0 = 1 even for NaN, a negative base with a non-integer beta gives NaN, (-0)^-1 = -inf).",
        f"{ONEDNN_VERSION} runs Pow only fused into another op's partition (alone: partition not supported); "
        "its eltwise pow approximates exp(beta * log(src)), hence the tolerance.",
    ),
    tolerance=Tolerance(
        ulps=4,
        why="oneDNN's pow is an approximation of exp(beta * log(src)) in f32; ours is pow "
        "in f64 rounded to f32, within half an ulp",
    ),
)

OPS = (
    ADD,
    SUBTRACT,
    MULTIPLY,
    DIVIDE,
    MAXIMUM,
    MINIMUM,
    SQUARED_DIFFERENCE,
    GREATER_EQUAL,
    SELECT,
    POW,
    PRELU,
    PRELU_BACKWARD,
    BIAS_ADD,
    BIAS_ADD_BACKWARD,
)
