"""oneDNN Graph MatMul: dst = src x weights (+ bias), over broadcast batch dims.

The last two dims of each operand are the matrix (rows, columns); the dims before them are batch dims,
broadcast against each other (app/core/shapes.broadcast_shapes), the shorter operand unsqueezed on the
left. transpose_a / transpose_b swap an operand's last two dims; a 1-D operand is unsqueezed instead
(src [K] -> [1, K], weights [K] -> [K, 1]) and the added dim is dropped from dst, as the page says.

Evaluation: f32 accumulation in a stated order (k ascending, each product rounded to f32, then added,
no fused multiply-add), bias added once, dst rounded once to its dtype. oneDNN blocks and fuses the
sum differently: the tolerance below covers that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from app.core.diagnostics import Rule
from app.core.engine import Context, assumption_rules
from app.core.family import ONEDNN_VERSION, Attr, In, Out, attr, build, constraints, rows
from app.core.mismatch import Tolerance
from app.core.registry import KernelSteps
from app.core.shapes import Dim, Shape, broadcast_shapes, dims_conflict, equate, format_shape, numel

KIND = "MatMul"
PAGE = "oneDNN Graph MatMul"

ATTRS = (
    Attr("transpose_a", "bool", "Transposes the last two dims of src (no effect on a 1-D src).", default=False),
    Attr("transpose_b", "bool", "Transposes the last two dims of weights (no effect on a 1-D weights).", default=False),
    Attr(
        "accumulation_mode",
        "string",
        "The accumulation mode of the sum over K.",
        default="strict",
        values=("strict", "relaxed", "any", "f32", "s32", "f16"),
    ),
)  # fmt: skip

TABLE = rows(
    "src weights bias dst",
    "f32 f32 f32 f32",
    "bf16 bf16 bf16 f32,bf16",
    "f16 f16 f16 f32,f16",
)
# op_def.hpp: src, weights, bias of one type T, dst of T1 (both f32, bf16, f16); check_matmul_dtype
# (op_def_constraint.cpp) then refuses a dst that is neither src's dtype nor f32.
_SCHEMA_NAMES, _SCHEMA = constraints("src:T weights:T bias:T dst:T1", T="f32 bf16 f16", T1="f32 bf16 f16")
ACCEPTS = (_SCHEMA_NAMES, frozenset(row for row in _SCHEMA if row[3] in (row[0], "f32")))

RULES = (
    Rule(f"{KIND}.rank", "src and weights have rank 1 or more.", f"{PAGE}, General"),
    Rule(f"{KIND}.k", "src's columns (K) equal weights' rows (K), after transposition and 1-D unsqueezing.",
         f"{PAGE}, General (the formula's sum over k)"),
    Rule(f"{KIND}.batch", "The batch dims (all but the last two) of src and weights broadcast: equal, or 1.",
         f"{PAGE}, General (broadcasting of batch dimensions)"),
    *assumption_rules(f"{KIND}.batch", "A symbolic or unknown batch dim is broadcast against other sizes",
                      f"{PAGE}, General"),
    *assumption_rules(f"{KIND}.k", "src's K and weights' K are symbolic dims that may differ",
                      f"{PAGE}, General (the formula's sum over k)"),
    Rule(f"{KIND}.bias", "bias broadcasts to dst one way: its rank is at most dst's and each of its dims, "
         "aligned on the right, is 1 or dst's (oneDNN 3.13 aborts the process on any other bias).",
         f"{PAGE}, General (the formula's bias(m, n)); {ONEDNN_VERSION}, measured"),
    Rule(f"{KIND}.onednn.accumulation_mode", f"accumulation_mode f32, s32 or f16 on f32 inputs: the page lists "
         f"them, {ONEDNN_VERSION} accepts the op and then aborts the process when compiling it.",
         f"{PAGE}, Operation attributes; {ONEDNN_VERSION}, measured", "warning"),
)  # fmt: skip

NOTES = (
    "The page's table has no int8 rows and oneDNN 3.13's schema refuses s8 and u8 inputs at add_op: "
    "int8 MatMul is written Dequantize -> MatMul (f32) -> Quantize in oneDNN Graph, so s8/u8 here are errors.",
    "bf16 and f16 inputs give dst f32 or their own dtype: declare dst to choose; undeclared, its dtype is "
    "open and the evaluation asks for it.",
    "A 1-D src and a 1-D weights give a rank-0 dst, as oneDNN 3.13 infers.",
)


def _operands(d: Any) -> tuple[Shape, Shape, bool, bool]:
    """src and weights as matrices: 1-D operands unsqueezed, transposes applied."""
    a, b = tuple(d.inputs[0].shape), tuple(d.inputs[1].shape)
    ta, tb = attr(d, "transpose_a") and len(a) > 1, attr(d, "transpose_b") and len(b) > 1
    a2 = (1, *a) if len(a) == 1 else (*a[:-2], a[-1], a[-2]) if ta else a
    b2 = (*b, 1) if len(b) == 1 else (*b[:-2], b[-1], b[-2]) if tb else b
    return a2, b2, ta, tb


def _k_axis(rank: int, transposed: bool, first: bool) -> int:
    """Where K lies in the operand as given: src's last dim (its first with transpose_a), weights'
    second last (its last with transpose_b); a 1-D operand's only dim."""
    if rank == 1:
        return 0
    return rank - 2 if transposed == first else rank - 1


def shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    a, b = d.inputs[0].shape, d.inputs[1].shape
    ok = True
    for index, s in ((0, a), (1, b)):
        if s is not None and len(s) == 0:
            name = ("src", "weights")[index]
            ctx.error(
                f"{KIND}.rank", f"inputs[{index}].shape", f"{name} has rank 0; {KIND} needs rank 1 or more"
            )
            ok = False
    if not ok:
        return None
    if a is None or b is None:
        return [None]
    a2, b2, ta, tb = _operands(d)
    ka, kb = a2[-1], b2[-2]
    axis_a, axis_b = _k_axis(len(a), ta, True), _k_axis(len(b), tb, False)
    _, conflict, assumed = equate(ka, kb, "src's K and weights' K")
    if assumed is not None:
        ctx.assume(f"{KIND}.k", f"inputs[1].shape[{axis_b}]", assumed)
    if conflict:
        ctx.error(
            f"{KIND}.k",
            f"inputs[1].shape[{axis_b}]",
            f"src's K is {ka} (dim {axis_a} of src {format_shape(a)}{', transpose_a' if ta else ''}) but "
            f"weights' K is {kb} (dim {axis_b} of weights {format_shape(b)}{', transpose_b' if tb else ''}); "
            "they must be equal",
        )
        ok = False
    batch = broadcast_shapes(_ones_meet_zeros(a2[:-2], b2[:-2]))
    for problem in batch.problems:
        ctx.error(
            f"{KIND}.batch",
            f"inputs[{problem.input}].shape[{problem.axis}]",
            f"batch dims of src {format_shape(a)} and weights {format_shape(b)}: "
            + problem.message.replace("input 0", "src").replace("input 1", "weights"),
        )
    for assumption in batch.assumptions:
        ctx.assume(
            f"{KIND}.batch",
            f"inputs[{assumption.input}].shape[{assumption.axis}]",
            assumption,
            assumption.message.replace("input 0", "src").replace("input 1", "weights"),
        )
    if not ok or batch.problems or batch.shape is None:
        return None
    dst: Shape = (*batch.shape, *((a2[-2],) if len(a) > 1 else ()), *((b2[-1],) if len(b) > 1 else ()))
    _check_bias(d, ctx, dst)
    _check_accumulation(d, ctx)
    return [dst]


def _ones_meet_zeros(a: Shape, b: Shape) -> list[Shape]:
    """The batch dims with a 1 facing a 0 made 0: the page's "broadcasted if the dimension is 1" is NumPy's
    rule, where a 1 stretches to 0 too (oneDNN 3.13 gives batch 0 for [0, 2, 3] x [1, 3, 4]);
    shapes.broadcast_shapes keeps ONNX's stricter one, where the largest size wins."""
    a, b = list(a), list(b)
    for i in range(1, min(len(a), len(b)) + 1):
        if {a[-i], b[-i]} == {0, 1}:
            a[-i] = b[-i] = 0
    return [tuple(a), tuple(b)]


def _check_bias(d: Any, ctx: Context, dst: Shape) -> None:
    if len(d.inputs) < 3 or d.inputs[2].shape is None:
        return
    bias = d.inputs[2].shape
    if len(bias) > len(dst):
        ctx.error(
            f"{KIND}.bias",
            "inputs[2].shape",
            f"bias {format_shape(bias)} has rank {len(bias)}, above dst's {len(dst)} {format_shape(dst)}; "
            "bias must broadcast to dst",
        )
        return
    offset = len(dst) - len(bias)
    for axis, size in enumerate(bias):
        want: Dim = dst[offset + axis]
        if size != 1 and dims_conflict(size, want):
            ctx.error(
                f"{KIND}.bias",
                f"inputs[2].shape[{axis}]",
                f"bias {format_shape(bias)} has {size} in dim {axis}, where dst {format_shape(dst)} has {want}; "
                f"each bias dim, aligned on the right, must be 1 or dst's",
            )


def _check_accumulation(d: Any, ctx: Context) -> None:
    mode = attr(d, "accumulation_mode")
    if mode in ("f32", "s32", "f16") and d.inputs[0].dtype == "f32":
        ctx.warn(
            f"{KIND}.onednn.accumulation_mode",
            "attrs.accumulation_mode",
            f"accumulation_mode {mode} on f32 inputs: {ONEDNN_VERSION} aborts the process compiling it "
            "(measured); the page lists the mode",
        )


def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
    a = arrays[0].astype(np.float32)
    b = arrays[1].astype(np.float32)
    rank_a, rank_b = a.ndim, b.ndim
    a = a[None, :] if rank_a == 1 else np.swapaxes(a, -1, -2) if attr(d, "transpose_a") else a
    b = b[:, None] if rank_b == 1 else np.swapaxes(b, -1, -2) if attr(d, "transpose_b") else b
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    k = a.shape[-1]
    with np.errstate(all="ignore"):  # inf and NaN are answers here
        if k == 0:
            acc = np.zeros((*batch, a.shape[-2], b.shape[-1]), np.float32)
        else:
            acc = a[..., :, 0:1] * b[..., 0:1, :]  # starting from the first product keeps an all -0 sum -0
            acc = np.broadcast_to(acc, (*batch, *acc.shape[-2:])).copy()
            for i in range(1, k):
                acc += a[..., :, i : i + 1] * b[..., i : i + 1, :]
        if rank_a == 1:
            acc = acc[..., 0, :]
        if rank_b == 1:
            acc = acc[..., 0]
        if len(arrays) > 2:
            acc = acc + arrays[2].astype(np.float32)
    return [acc]


def kernel_steps(d: Any, arrays: Sequence[np.ndarray]) -> KernelSteps:
    a2, b2, _, _ = _operands(d)
    batch = np.broadcast_shapes(tuple(a2[:-2]), tuple(b2[:-2]))  # type: ignore[arg-type]
    k = a2[-1]
    macs = numel(batch) * a2[-2] * b2[-1] * k  # type: ignore[operator]
    return KernelSteps(
        macs, "inputs[1].shape", f"{macs:,} multiply-adds: the batch's {a2[-2]} x {b2[-1]} dst, K = {k} each"
    )


OP = build(
    KIND,
    family="matmul",
    page=PAGE,
    summary="dst = src x weights (+ bias): a matrix product over the last two dims, batch dims broadcast.",
    inputs=(
        In("src", "The left matrix (rows M, columns K), with batch dims before them."),
        In("weights", "The right matrix (rows K, columns N), with batch dims before them."),
        In("bias", "Added to the product; broadcasts to dst.", optional=True),
    ),
    outputs=(Out("dst", "The batch dims broadcast, then M and N (less the dim a 1-D operand added)."),),
    table=TABLE,
    accepts=ACCEPTS,
    shape=shape,
    kernel=kernel,
    attrs=ATTRS,
    rules=RULES,
    notes=NOTES,
    examples=(
        {
            "kind": KIND,
            "attrs": {"transpose_b": True},
            "inputs": [
                {"dtype": "f32", "shape": [2, 3], "data": [[1, 2, 3], [4, 5, 6]]},
                {"dtype": "f32", "shape": [2, 3], "data": [[1, 0, -1], [0.5, 0.5, 0.5]]},
                {"dtype": "f32", "shape": [2], "data": [0, 1]},
            ],
        },
    ),
    tolerance=Tolerance(
        ulps=64,
        absolute=1e-5,
        why="a sum of K products in f32: oneDNN blocks it and fuses multiply and add, the reference adds k "
        "ascending without fusing; measured against oneDNN 3.13 on seeded inputs: at most 45 ulps at K = 257 "
        "(tests/ops/oracle/matmul)",
    ),
    kernel_steps=kernel_steps,
)

OPS = (OP,)
