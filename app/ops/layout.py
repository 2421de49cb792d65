"""oneDNN Graph's layout and graph-building ops: StaticReshape, StaticTranspose, Concat, GenIndex,
Dropout, End, Wildcard.

The first four move or index elements without arithmetic, so their kernels are exact. Dropout's mask
comes from oneDNN's own PRNG, which the page names but does not define: it is checked in full and
evaluated where the PRNG does not matter (probability 0). End takes one input and gives nothing.
Wildcard stands for any computation: its outputs are what it declares, and it says it cannot be
checked further.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import Field, create_model

from app.core import dims, family
from app.core.diagnostics import Rule
from app.core.dtypes import DTYPES
from app.core.engine import Context, NotEvaluable, assumption_rules
from app.core.family import ONEDNN, ONEDNN_VERSION, Attr, In, Out, attr, constraints, rows
from app.core.numbers import show
from app.core.registry import Attrs, Descriptor, OpSpec, OutputType, Port
from app.core.shapes import (
    Assumption,
    Dim,
    Shape,
    axis_problems,
    dims_conflict,
    equate,
    format_shape,
    wrap_axes,
)

FAMILY = "layout"
FLOAT_SAME = rows("src dst", "f32 f32", "bf16 bf16", "f16 f16")
FLOAT_SCHEMA = constraints("src:T dst:T", T="f32 bf16 f16")
SRC = In("src", "The tensor.")


def build(kind: str, **fields: Any) -> Any:
    """A member of the family: its page is its kind; one src, the float table, unless it says otherwise."""
    defaults = {"inputs": (SRC,), "table": FLOAT_SAME, "accepts": FLOAT_SCHEMA}
    return family.build(kind, family=FAMILY, page=kind, **{**defaults, **fields})


def _page(kind: str) -> str:
    return f"{ONEDNN} {kind}"


def _axis_rule(kind: str, d: Any, ctx: Context, rank: int) -> int | None:
    """The `axis` attribute wrapped into [0, rank), or None after naming it out of range."""
    axis = attr(d, "axis")
    for problem in axis_problems([axis], rank, operand="src"):
        ctx.error(f"{kind}.axis.range", "attrs.axis", f"{kind}: {problem.message}")
        return None
    return wrap_axes([axis], rank)[0]


# --- StaticReshape -------------------------------------------------------------------------------

RESHAPE = "StaticReshape"


def _reshape(d: Any, ctx: Context) -> list[Shape] | None:
    src: Shape | None = d.inputs[0].shape
    shape, special = attr(d, "shape"), attr(d, "special_zero")
    out: list[Dim] = []
    inferred: int | None = None
    ok = True
    for index, value in enumerate(shape):
        path = f"attrs.shape[{index}]"
        if value < -1:
            ctx.error(f"{RESHAPE}.shape.value", path, f"shape[{index}] is {value}; each entry is >= -1 "
                      "(-1: inferred; 0: a zero-size dim, or src's dim with special_zero)")  # fmt: skip
            ok = False
        elif value == -1:
            if inferred is not None:
                ctx.error(f"{RESHAPE}.shape.inferred", path, f"shape {show(shape)} has a second -1 at "
                          f"position {index} (the first at {inferred}); at most one dim is inferred")  # fmt: skip
                ok = False
            inferred = index
            out.append(None)
        elif value == 0 and special:
            if src is not None and index >= len(src):
                ctx.error(f"{RESHAPE}.shape.special_zero", path, f"shape[{index}] is 0 with special_zero, which "
                          f"copies src's dim {index}, but src {format_shape(src)} has rank {len(src)}")  # fmt: skip
                ok = False
            out.append(None if src is None else src[index] if index < len(src) else None)
        else:
            out.append(value)
    if not ok:
        return None
    if src is not None:
        _reshape_volume(src, out, inferred, shape, ctx)
    return [tuple(out)]


def _reshape_volume(src: Shape, out: list[Dim], inferred: int | None, shape: Any, ctx: Context) -> None:
    """The volume rule, and the -1 it infers (in `out`), over expressions: src's element count and the
    other dims' product compared, or divided exactly; where that holds only for some sizes, said."""
    others = dims.product(dim for index, dim in enumerate(out) if index != inferred)
    volume_dim = dims.product(src)
    if volume_dim is None or others is None:
        return  # an unknown dim on either side: nothing to compare
    volume = (
        f"src {format_shape(src)} holds {volume_dim:,} elements"
        if type(volume_dim) is int
        else f"src {format_shape(src)} holds {volume_dim} elements"
    )
    held = f"{others:,}" if type(others) is int else str(others)
    if inferred is None:
        if dims_conflict(volume_dim, others):
            ctx.error(f"{RESHAPE}.shape.volume", "attrs.shape", f"{volume}, but shape {show(shape)} holds "
                      f"{held}; a reshape keeps the element count")  # fmt: skip
        elif volume_dim != others:
            _, _, assumed = equate(
                volume_dim, others, f"shape {show(shape)}: src's element count and shape's"
            )
            if assumed is not None:
                ctx.assume(f"{RESHAPE}.shape.volume", "attrs.shape", assumed)
        return
    if others == 0:
        ctx.error(f"{RESHAPE}.shape.volume", "attrs.shape", f"shape {show(shape)}: the dims besides -1 multiply "
                  "to 0, so -1 cannot be inferred")  # fmt: skip
        return
    remainder = dims.mod(volume_dim, others)
    if remainder == 0:
        out[inferred] = dims.floordiv(volume_dim, others)
    elif remainder is None or not dims.can_be(remainder, 0):
        ctx.error(f"{RESHAPE}.shape.volume", "attrs.shape", f"{volume}, which the other dims of shape "
                  f"{show(shape)} ({held} elements) do not divide; -1 has no integer size")  # fmt: skip
    else:
        out[inferred] = dims.floordiv(volume_dim, others)
        condition = f"{_operand(volume_dim)} % {_operand(others)} == 0"
        message = (
            f"{volume}, in rows of {held} (shape {show(shape)}): -1 is {out[inferred]} where {condition}, "
            "and no size otherwise"
        )
        engine = dims.by_engine(volume_dim) or dims.by_engine(others)
        ctx.assume(f"{RESHAPE}.shape.volume", "attrs.shape", Assumption(message, engine, None, (condition,)))


def _operand(dim: Dim) -> str:
    """A dim as an operand of `%`: parenthesised unless a name, a number or a product."""
    text = str(dim)
    return (
        text if type(dim) is int or all(op not in text for op in (" + ", " - ", "//", "%")) else f"({text})"
    )


STATIC_RESHAPE = build(
    RESHAPE,
    summary="dst = src with the dims of `shape` (-1 inferred; 0 copies src's dim with special_zero).",
    outputs=(Out("dst", "shape's dims; src's dtype."),),
    shape=_reshape,
    kernel=lambda d, arrays, out: [arrays[0].reshape(_static_shape(d, arrays[0]))],
    attrs=(
        Attr("shape", "s64[]", "dst's dims: -1 inferred (at most one), 0 as special_zero says.", required=True),
        Attr("special_zero", "bool", "true: a 0 in shape copies src's dim there; false: 0 is a zero-size dim.",
             required=True),
    ),
    rules=(
        Rule(f"{RESHAPE}.shape.value", "Each entry of shape is >= -1.", f"{_page(RESHAPE)}, attribute shape"),
        Rule(f"{RESHAPE}.shape.inferred", "At most one entry of shape is -1.", f"{_page(RESHAPE)}, attribute shape"),
        Rule(f"{RESHAPE}.shape.special_zero", "With special_zero, a 0 in shape is at a position src has.",
             f"{_page(RESHAPE)}, attribute special_zero"),
        Rule(f"{RESHAPE}.shape.volume", "dst holds as many elements as src (the -1 makes it so, exactly).",
             f"{_page(RESHAPE)}, General"),
        *assumption_rules(f"{RESHAPE}.shape.volume", "dst holds as many elements as src, or the -1 divides "
                          "them exactly, only for some values of the symbols", f"{_page(RESHAPE)}, General"),
    ),
    notes=("oneDNN 3.13 checks shape only at compile time ('run pass lower_down failed' for two -1s).",),
)  # fmt: skip


def _static_shape(d: Any, src: np.ndarray) -> tuple[int, ...]:
    shape = [
        src.shape[i] if v == 0 and attr(d, "special_zero") else v for i, v in enumerate(attr(d, "shape"))
    ]
    if -1 in shape:
        rest = math.prod(v for v in shape if v != -1)
        shape[shape.index(-1)] = src.size // rest
    return tuple(shape)


# --- StaticTranspose ------------------------------------------------------------------------------

TRANSPOSE = "StaticTranspose"


def _transpose(d: Any, ctx: Context) -> list[Shape] | None:
    src: Shape | None = d.inputs[0].shape
    order = attr(d, "order")
    if src is None:
        return [None]  # type: ignore[list-item]
    rank = len(src)
    if len(order) != rank:
        ctx.error(f"{TRANSPOSE}.order.count", "attrs.order", f"order {show(order)} has {len(order)} entries for "
                  f"src {format_shape(src)} of rank {rank}; give one per dim")  # fmt: skip
        return None
    ok = True
    for problem in axis_problems(order, rank, operand="src"):
        ok = False
        path = f"attrs.order[{problem.position}]"
        if problem.kind == "range":
            ctx.error(f"{TRANSPOSE}.order.range", path, f"order: {problem.message}")
        else:
            ctx.error(f"{TRANSPOSE}.order.unique", path, f"order[{problem.position}] = {problem.axis} names dim "
                      f"{problem.axis % rank} again (order[{problem.first}]); order is a permutation")  # fmt: skip
    if not ok:
        return None
    return [tuple(src[axis] for axis in wrap_axes(order, rank))]


STATIC_TRANSPOSE = build(
    TRANSPOSE,
    summary="dst = src with its dims permuted: dst dim i is src dim order[i].",
    outputs=(Out("dst", "src's dims in `order`; src's dtype."),),
    shape=_transpose,
    kernel=lambda d, arrays, out: [np.transpose(arrays[0], wrap_axes(attr(d, "order"), arrays[0].ndim))],
    attrs=(Attr("order", "s64[]", "The permutation: each dim of src once, in [-N, N-1].", required=True),),
    rules=(
        Rule(f"{TRANSPOSE}.order.count", "order has one entry per dim of src.", f"{_page(TRANSPOSE)}, attribute order"),
        Rule(f"{TRANSPOSE}.order.range", "Each entry of order is in [-N, N-1], N the rank of src.",
             f"{_page(TRANSPOSE)}, attribute order"),
        Rule(f"{TRANSPOSE}.order.unique", "No dim repeats in order once negatives are wrapped.",
             f"{_page(TRANSPOSE)}, attribute order"),
    ),
    notes=("An empty order: oneDNN 3.13 infers the reversed dims but does not compile it; the page has no such "
           "case, so it is an error here (StaticTranspose.order.count).",),
)  # fmt: skip


# --- Concat ---------------------------------------------------------------------------------------

CONCAT = "Concat"
CONCAT_MOST = 64  # oneDNN 3.13's schema: 1 to 64 inputs


def _concat(d: Any, ctx: Context) -> list[Shape] | None:
    inputs = d.inputs
    if len(inputs) > CONCAT_MOST:
        ctx.warn(f"{CONCAT}.onednn.inputs", "inputs", f"{len(inputs)} inputs; {ONEDNN_VERSION} takes at most "
                 f"{CONCAT_MOST}")  # fmt: skip
    first = inputs[0]
    for index, tensor in enumerate(inputs[1:], 1):
        if tensor.dtype != first.dtype:
            ctx.error(f"{CONCAT}.inputs.dtype", f"inputs[{index}].dtype", f"input {index} is {tensor.dtype}, input 0 "
                      f"is {first.dtype}; Concat's inputs share one dtype")  # fmt: skip
    shapes = [t.shape for t in inputs]
    known = [(i, s) for i, s in enumerate(shapes) if s is not None]
    if not known:
        return [None]  # type: ignore[list-item]
    lead, rank = known[0][0], len(known[0][1])
    ok = True
    for index, shape in known[1:]:
        if len(shape) != rank:
            ctx.error(f"{CONCAT}.inputs.rank", f"inputs[{index}].shape", f"input {index} has rank {len(shape)} "
                      f"{format_shape(shape)}, input {lead} rank {rank}; Concat's inputs share one rank")  # fmt: skip
            ok = False
    axis = _axis_rule(CONCAT, d, ctx, rank)
    if not ok or axis is None:
        return None
    out: list[Dim] = []
    for dim in range(rank):
        if dim == axis:
            sizes = [s[axis] for s in shapes] if None not in shapes else [None]  # type: ignore[index]
            out.append(sum(sizes) if all(type(v) is int for v in sizes) else dims.total(sizes))  # type: ignore[arg-type]
            continue
        decided = next((s[dim] for _, s in known if isinstance(s[dim], int)), known[0][1][dim])
        for index, shape in known:
            if shape[dim] == decided:
                continue
            if dims_conflict(shape[dim], decided):
                ctx.error(f"{CONCAT}.inputs.dim", f"inputs[{index}].shape[{dim}]", f"input {index} has {shape[dim]} "
                          f"in dim {dim}, where another input has {decided}; only the axis dim ({axis}) may differ")  # fmt: skip
                ok = False
                continue
            decided, _, assumed = equate(decided, shape[dim], f"in dim {dim} (not the axis, {axis})")
            if assumed is not None:
                ctx.assume(f"{CONCAT}.inputs.dim", f"inputs[{index}].shape[{dim}]", assumed)
        out.append(decided)
    return [tuple(out)] if ok else None


CONCAT_OP = build(
    CONCAT,
    summary="dst = the inputs joined along `axis`, in order.",
    inputs=(In("src_i", "The tensors to join: one or more, of one dtype and rank.", variadic=True),),
    outputs=(Out("dst", "The inputs' dims, with the axis dims summed; their dtype."),),
    table=rows("src_i dst", "f32 f32", "f16 f16", "bf16 bf16"),
    accepts=constraints("src_i:T dst:T", T="f32 bf16 f16"),
    shape=_concat,
    kernel=lambda d, arrays, out: [np.concatenate(arrays, axis=wrap_axes([attr(d, "axis")], arrays[0].ndim)[0])],
    attrs=(Attr("axis", "s64", "The dim to join along, in [-r, r-1].", required=True),),
    rules=(
        Rule(f"{CONCAT}.axis.range", "axis is in [-r, r-1], r the inputs' rank.", f"{_page(CONCAT)}, attribute axis"),
        Rule(f"{CONCAT}.inputs.dtype", "Every input has the same dtype.", f"{_page(CONCAT)}, input src_i"),
        Rule(f"{CONCAT}.inputs.rank", "Every input has the same rank.", f"{_page(CONCAT)}, input src_i"),
        Rule(f"{CONCAT}.inputs.dim", "The inputs' dims are equal except along axis.", f"{_page(CONCAT)}, input src_i"),
        *assumption_rules(f"{CONCAT}.inputs.dim", "Two inputs' symbolic dims beside the axis may differ",
                          f"{_page(CONCAT)}, input src_i"),
        Rule(f"{CONCAT}.onednn.inputs", f"{ONEDNN_VERSION} takes at most {CONCAT_MOST} inputs; the page sets no "
             "limit.", f"{ONEDNN_VERSION} op schema", "warning"),
    ),
)  # fmt: skip


# --- GenIndex -------------------------------------------------------------------------------------

GENINDEX = "GenIndex"


def _genindex(d: Any, ctx: Context) -> list[Shape] | None:
    src = d.inputs[0].shape
    if src is not None and _axis_rule(GENINDEX, d, ctx, len(src)) is None:
        return None
    return [src]


def _indices(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
    src = arrays[0]
    axis = wrap_axes([attr(d, "axis")], src.ndim)[0]
    shape = [1] * src.ndim
    shape[axis] = src.shape[axis]
    return [np.broadcast_to(np.arange(src.shape[axis], dtype=np.int32).reshape(shape), src.shape).copy()]


GEN_INDEX = build(
    GENINDEX,
    summary="dst[i...] = the index of i... along `axis`, as s32, in src's shape.",
    outputs=(Out("dst", "src's shape, s32."),),
    table=rows("src dst", "f32 s32", "bf16 s32", "f16 s32"),
    accepts=constraints("src:T1 dst:T2", T1="f32 bf16 f16", T2="s32"),
    shape=_genindex,
    kernel=_indices,
    attrs=(Attr("axis", "s64", "The dim whose index each element gets, in [-r, r-1].", required=True),),
    rules=(Rule(f"{GENINDEX}.axis.range", "axis is in [-r, r-1], r the rank of src.", f"{_page(GENINDEX)}, attribute axis"),),
    notes=("oneDNN 3.13 accepts an out-of-range axis at add_op and refuses it at compile time.",),
)  # fmt: skip


# --- Dropout --------------------------------------------------------------------------------------

DROPOUT = "Dropout"


def _dropout(d: Any, ctx: Context) -> list[Shape] | None:
    for index, name in ((1, "seed"), (2, "offset")):
        if d.inputs[index].dtype == "u64":
            ctx.warn(f"{DROPOUT}.onednn.seed_dtype", f"inputs[{index}].dtype", f"{name} is u64, as the page's table "
                     f"says; {ONEDNN_VERSION} takes s64 only")  # fmt: skip
    probability = ctx.values(3)
    if probability is not None:
        bad = probability[~((probability >= 0) & (probability <= 1))]
        if bad.size:
            ctx.error(f"{DROPOUT}.probability.range", "inputs[3].data", f"probability {show(float(bad[0]))} is "
                      "outside [0, 1]")  # fmt: skip
    src = d.inputs[0].shape
    return [src, src][: _outputs(d)]


def _outputs(d: Any) -> int:
    """dst, and the mask when the descriptor declares it (an optional output)."""
    return 2 if d.outputs is not None and len(d.outputs) >= 2 else 1


def _dropout_kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
    src, probability = arrays[0], arrays[3]
    if probability.size and np.all(probability == 0):
        return [src.copy(), np.ones(src.shape, dtype=np.uint8)][: _outputs(d)]
    raise NotEvaluable(
        "inputs[3].data",
        "Dropout's mask comes from oneDNN's PRNG (a variation of Philox the page does not define); it is "
        "evaluated only with probability 0, where nothing is dropped",
    )


DROPOUT_OP = build(
    DROPOUT,
    summary="dst = mask * src / (1 - P), mask = PRNG(seed, offset) > P; mask optionally given as u8.",
    inputs=(SRC, In("seed", "The PRNG's seed."), In("offset", "The PRNG's offset."),
            In("probability", "P, the chance of dropping each element, in [0, 1].")),
    outputs=(Out("dst", "src's shape and dtype."), Out("mask", "src's shape, u8: 1 kept, 0 dropped.", optional=True)),
    table=rows("src seed offset probability dst mask", "f32 u64 u64 f32 f32 u8", "bf16 u64 u64 f32 bf16 u8",
               "f16 u64 u64 f32 f16 u8"),
    accepts=constraints("src:T seed:S offset:O probability:P dst:T mask:M", T="f32 bf16 f16", S="s64", O="s64",
                        P="f32", M="u8"),
    shape=_dropout,
    kernel=_dropout_kernel,
    rules=(
        Rule(f"{DROPOUT}.probability.range", "probability, when its value is given, is in [0, 1].",
             f"{_page(DROPOUT)}, General"),
        Rule(f"{DROPOUT}.onednn.seed_dtype", f"{ONEDNN_VERSION} takes seed and offset as s64 only; the page's "
             "table says u64.", f"{ONEDNN_VERSION} op schema", "warning"),
    ),
    notes=(
        "seed and offset: the page's table says u64, oneDNN's schema s64 (benchdnn writes s64): s64 is valid with "
        "the Dropout.onednn.dtypes warning, u64 with Dropout.onednn.seed_dtype.",
        "mask is an optional second output (the table's column; oneDNN takes 1 or 2 outputs).",
        "Evaluation: only with probability 0 (dst = src, mask all 1); otherwise the mask depends on oneDNN's "
        "PRNG, which the page does not define.",
    ),
)  # fmt: skip


# --- End ------------------------------------------------------------------------------------------

END = build(
    "End",
    summary="Marks where a tensor's uses end; one input, no outputs.",
    outputs=(),
    table=rows("src", "f32", "f16", "bf16"),
    accepts=constraints("src:T", T="f32 f16 bf16 s8 u8 s32"),
    shape=lambda d, ctx: [],
    kernel=lambda d, arrays, out: [],
    notes=("The page's table has a Dst column, but End has no outputs: its src column is the table.",),
)


# --- Wildcard -------------------------------------------------------------------------------------

WILDCARD = "Wildcard"
WILDCARD_PAGE = _page(WILDCARD)


class WildcardAttrs(Attrs):
    """Wildcard takes no attribute."""


WildcardOp = create_model(
    "WildcardOp",
    __base__=Descriptor,
    kind=(Literal["Wildcard"], ...),
    attrs=(WildcardAttrs, Field(default_factory=WildcardAttrs)),
)


def _wildcard_infer(d: Any, ctx: Context) -> list[OutputType]:
    ctx.warn(f"{WILDCARD}.unchecked", "kind", "Wildcard stands for any computation: its outputs are taken as "
             "declared, and nothing about it can be checked further")  # fmt: skip
    return [OutputType(t.dtype, None if t.shape is None else tuple(t.shape)) for t in d.outputs or []]


def _wildcard_evaluate(d: Any, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    raise NotEvaluable("kind", "Wildcard stands for any computation; it has no reference to evaluate")


ANY = frozenset(DTYPES)
WILDCARD_OP = OpSpec(
    kind=WILDCARD,
    model=WildcardOp,
    source=WILDCARD_PAGE,
    summary="Any computation, to keep a graph connected: any inputs, the outputs as declared.",
    inputs=(Port("src", ANY, "Any tensors, any number.", optional=True, variadic=True),),
    outputs=(Port("dst", ANY, "Any tensors, as declared.", optional=True, variadic=True),),
    rules=(
        Rule(f"{WILDCARD}.unchecked", "A Wildcard's outputs are taken as declared; it cannot be checked "
             "further.", f"{WILDCARD_PAGE}, General", "warning"),
    ),
    infer=_wildcard_infer,
    evaluate=_wildcard_evaluate,
    dtype_source=f"{WILDCARD_PAGE}, Supported data types (arbitrary)",
    notes=("The page accepts any inputs and outputs of any dtype; oneDNN 3.13 adds it and never compiles it.",),
    family=FAMILY,
)  # fmt: skip

OPS = (STATIC_RESHAPE, STATIC_TRANSPOSE, CONCAT_OP, GEN_INDEX, DROPOUT_OP, END, WILDCARD_OP)
