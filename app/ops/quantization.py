"""oneDNN Graph's quantization and conversion ops: Quantize, Dequantize, DynamicQuantize,
DynamicDequantize, TypeCast, Reorder.

One shape rule (dst has src's shape) and one arithmetic, written once:

- quantize: q = src / scale in f32 (one rounding), then for an integer dst q + zp in f32, rounded half
  to even and saturated to dst's range (NaN gives 0); for an f8 dst, q rounded once to nearest even
  (e4m3 has no infinity: past 464 it is NaN; e5m2 overflows to inf).
- dequantize: dst = (src - zp) * scale in f32, rounded once to dst's dtype.

The static pair takes scales and zero points as attributes, the dynamic pair as input tensors; both
check their counts against the channel dim (per_channel) or the groups (DynamicDequantize's
per_group). Where oneDNN 3.13 departs from its pages (measured with the library), a warning says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

from app.core import dims, family
from app.core.diagnostics import Rule
from app.core.engine import Context
from app.core.family import ONEDNN, ONEDNN_VERSION, Attr, In, Out, attr, constraints, rows, same_as_input
from app.core.numbers import show
from app.core.shapes import Shape, axis_problems, format_shape, wrap_axes

FAMILY = "quantization"
F8 = ("f8_e4m3", "f8_e5m2")
PER_TENSOR, PER_CHANNEL, PER_GROUP = "per_tensor", "per_channel", "per_group"
BYTES = (np.dtype(np.int8), np.dtype(np.uint8))


def _qtype(values: tuple[str, ...]) -> Attr:
    return Attr(
        "qtype",
        "string",
        "Which quantization: per_tensor (one scale), per_channel (one per index along axis)"
        + (", per_group (one per group of group_shape)." if PER_GROUP in values else "."),
        default=PER_TENSOR,
        values=values,
    )


AXIS = Attr(
    "axis", "s64", "The channel dim of per_channel quantization, in [-r, r-1], r = rank(src).", default=1
)
SCALES = Attr(
    "scales", "f32[]", "The scales: one for per_tensor, one per channel for per_channel.", required=True
)
ZPS = Attr("zps", "s64[]", "The zero points, as many as scales; absent means zero. Not for f8 types.")
GROUP_SHAPE = Attr("group_shape", "s64[]", "For per_group: the group's size along each dim of src.")


def _rules(kind: str, *, dynamic: bool, grouped: bool = False) -> tuple[Rule, ...]:
    page = f"{ONEDNN} {kind}"
    where = "input" if dynamic else "attribute"
    rules = [
        Rule(f"{kind}.axis.range", "For per_channel, axis is in [-r, r-1], r the rank of src.",
             f"{page}, attribute axis"),
        Rule(f"{kind}.scales.count", "scales holds one value for per_tensor, src's size along axis for "
             "per_channel" + (", and src's rank with one value per group for per_group" if grouped else "")
             + ".", f"{page}, {where} scales"),
        Rule(f"{kind}.zps.count", "zps, when given, holds as many values as scales (as the scales rule says)"
             + (" in the same shape" if grouped else "") + ".", f"{page}, {where} zps"),
        Rule(f"{kind}.scales.extra", "per_channel with more scales (or zps) than channels: the first ones "
             "apply, the rest are unused, as oneDNN does.", f"{page}, General (scale_i, i in [0, ic-1])", "warning"),
        Rule(f"{kind}.onednn.negative_axis", f"{ONEDNN_VERSION} applies only the first scale (and zero point) "
             "to every element when a per_channel axis is negative.", f"{ONEDNN_VERSION}, measured", "warning"),
        Rule(f"{kind}.onednn.per_channel_zps", f"{ONEDNN_VERSION} does not compile per_channel quantization "
             "with non-zero zero points.", f"{ONEDNN_VERSION}, measured", "warning"),
    ]  # fmt: skip
    if dynamic:
        rules.append(
            Rule(f"{kind}.zps.extra", "As scales.extra, for the zps input.", f"{page}, input zps", "warning")
        )
        rules.append(
            Rule(f"{kind}.scales.rank", "scales and zps are 1-D for per_tensor and per_channel.",
                 f"{page}, inputs scales and zps")
        )  # fmt: skip
    else:
        rules.append(
            Rule(f"{kind}.zps.f8", "No zero points with an f8 type (f8_e4m3, f8_e5m2).", f"{page}, General")
        )
    if grouped:
        rules += [
            Rule(f"{kind}.group_shape.required", "per_group needs group_shape.", f"{page}, attribute group_shape"),
            Rule(f"{kind}.group_shape.value", "group_shape has one entry per dim of src (rank >= 2), each >= 1 "
                 "and dividing src's dim.", f"{page}, attribute group_shape; input scales"),
        ]  # fmt: skip
    return tuple(rules)


# --- checks --------------------------------------------------------------------------------------


def _qtype_of(d: Any) -> str:
    return attr(d, "qtype") or PER_TENSOR


def _axis_of(d: Any) -> int:
    axis = attr(d, "axis")
    return 1 if axis is None else axis


def _channel(kind: str, d: Any, ctx: Context, axis_path: str = "attrs.axis") -> tuple[str, int | None, Any]:
    """The quantization type, the channel axis (wrapped; None where unknown or wrong) and its size."""
    qtype = _qtype_of(d)
    src = d.inputs[0].shape
    if qtype != PER_CHANNEL or src is None:
        return qtype, None, None
    axis = _axis_of(d)
    problems = list(axis_problems([axis], len(src), operand="src"))
    if problems:
        ctx.error(f"{kind}.axis.range", axis_path, f"{kind}: {problems[0].message}")
        return qtype, None, None
    if axis < 0:
        ctx.warn(
            f"{kind}.onednn.negative_axis",
            axis_path,
            f"axis {axis} is valid, but {ONEDNN_VERSION} applies scales[0] to every element when the per_channel "
            f"axis is negative; write it as {axis + len(src)}",
        )
    wrapped = wrap_axes([axis], len(src))[0]
    return qtype, wrapped, src[wrapped]


def _count(kind: str, name: str, path: str, count: int, qtype: str, dim: Any, ctx: Context) -> None:
    """scales' (or zps') count against the channels: one for per_tensor; for per_channel at least one per
    channel, the rest unused (as oneDNN does), with a warning."""
    if qtype == PER_TENSOR and count != 1:
        ctx.error(f"{kind}.{name}.count", path, f"{kind} has {count} {name}; per_tensor takes exactly one")
    elif qtype == PER_CHANNEL and isinstance(dim, int) and count < dim:
        ctx.error(
            f"{kind}.{name}.count",
            path,
            f"{kind} has {count} {name}; per_channel takes one per channel: src has {dim} along axis",
        )
    elif qtype == PER_CHANNEL and isinstance(dim, int) and count > dim:
        ctx.warn(
            f"{kind}.{name}.extra",
            path,
            f"{kind} has {count} {name} for {dim} channel(s): the first {dim} apply, the rest are unused (as "
            f"{ONEDNN_VERSION} does)",
        )


def _check_static(kind: str, d: Any, ctx: Context) -> None:
    qtype, _, dim = _channel(kind, d, ctx)
    scales, zps = attr(d, "scales"), attr(d, "zps")
    if scales is not None:
        _count(kind, "scales", "attrs.scales", len(scales), qtype, dim, ctx)
    if zps is None:
        return
    f8 = [t.dtype for t in [*d.inputs, *(d.outputs or [])] if t.dtype in F8]
    if f8:
        ctx.error(
            f"{kind}.zps.f8",
            "attrs.zps",
            f"{kind} to or from {f8[0]} takes no zero points; zps {show(zps)} is given (leave it out)",
        )
    if scales is not None and len(zps) != len(scales):
        ctx.error(
            f"{kind}.zps.count",
            "attrs.zps",
            f"{kind} has {len(zps)} zps for {len(scales)} scales; give as many",
        )
    if qtype == PER_CHANNEL and any(zps):
        ctx.warn(
            f"{kind}.onednn.per_channel_zps",
            "attrs.zps",
            f"{ONEDNN_VERSION} does not compile per_channel {kind} with non-zero zero points "
            "('Reorder primitive does not support zero points for per-channel quantization')",
        )


def _check_dynamic(kind: str, d: Any, ctx: Context) -> None:
    qtype, _, dim = _channel(kind, d, ctx)
    if qtype == PER_GROUP:
        _check_groups(kind, d, ctx)
        return
    for index, name in ((1, "scales"), (2, "zps")):
        if index >= len(d.inputs) or d.inputs[index].shape is None:
            continue
        shape = d.inputs[index].shape
        if len(shape) != 1:
            ctx.error(
                f"{kind}.scales.rank",
                f"inputs[{index}].shape",
                f"{name} has shape {format_shape(shape)}; {kind} takes a 1-D {name} for {qtype}",
            )
        elif isinstance(shape[0], int):
            _count(kind, name, f"inputs[{index}].shape[0]", shape[0], qtype, dim, ctx)
    if qtype == PER_CHANNEL and len(d.inputs) > 2:
        ctx.warn(
            f"{kind}.onednn.per_channel_zps",
            "inputs[2]",
            f"{ONEDNN_VERSION} does not compile per_channel {kind} with a zps input "
            "('Reorder primitive does not support zero points for per-channel quantization')",
        )


def _check_groups(kind: str, d: Any, ctx: Context) -> None:
    src = d.inputs[0].shape
    groups = attr(d, "group_shape")
    if groups is None:
        ctx.error(f"{kind}.group_shape.required", "attrs", f"{kind} with qtype per_group needs group_shape")
        return
    if src is None:
        return
    if len(src) < 2 or len(groups) != len(src):
        ctx.error(
            f"{kind}.group_shape.value",
            "attrs.group_shape",
            f"group_shape {show(groups)} has {len(groups)} entries for src {format_shape(src)} of rank "
            f"{len(src)}; per_group takes one per dim of src, of rank 2 or more",
        )
        return
    want: list[Any] = []
    for axis, (size, dim) in enumerate(zip(groups, src, strict=True)):
        if size < 1 or (isinstance(dim, int) and dim % size):
            ctx.error(
                f"{kind}.group_shape.value",
                f"attrs.group_shape[{axis}]",
                f"group size {size} in dim {axis} does not divide src's {dim} ({format_shape(src)}); "
                "each group size is >= 1 and divides its dim",
            )
            return
        want.append(dims.floordiv(dim, size))
    for index, name in ((1, "scales"), (2, "zps")):
        if index < len(d.inputs):
            _check_group_tensor(kind, name, index, d.inputs[index].shape, want, groups, ctx)


def _check_group_tensor(
    kind: str, name: str, index: int, shape: Shape | None, want: list[Any], groups: Any, ctx: Context
) -> None:
    if shape is None:
        return
    if len(shape) != len(want):
        ctx.error(
            f"{kind}.{name}.count",
            f"inputs[{index}].shape",
            f"{name} has rank {len(shape)} {format_shape(shape)}; per_group takes src's rank {len(want)}",
        )
        return
    for axis, (got, expected) in enumerate(zip(shape, want, strict=True)):
        if isinstance(got, int) and isinstance(expected, int) and got != expected:
            ctx.error(
                f"{kind}.{name}.count",
                f"inputs[{index}].shape[{axis}]",
                f"{name} has {got} in dim {axis}; with group_shape {show(groups)} per_group takes "
                f"{format_shape(want)} (src's dim / group size)",
            )
            return


# --- kernels -------------------------------------------------------------------------------------


def _per_channel(values: Any, src: tuple[int, ...], axis: int | None) -> np.ndarray:
    """scales or zps as f32, shaped to broadcast along `axis` (or as one value); past the channels, unused."""
    array = np.asarray(values, dtype=np.float64).astype(np.float32).reshape(-1)
    if axis is None:
        return array[:1].reshape(())
    shape = [1] * len(src)
    shape[axis] = src[axis]
    return array[: src[axis]].reshape(shape)


def _axis(d: Any, rank: int) -> int | None:
    return wrap_axes([_axis_of(d)], rank)[0] if _qtype_of(d) == PER_CHANNEL else None


def _cast(src: np.ndarray, dst: np.dtype) -> np.ndarray:
    with np.errstate(over="ignore"):  # past dst's range is inf: an answer, not a fault
        return src.astype(dst)


def quantize(src: np.ndarray, scale: np.ndarray, zp: np.ndarray | None, dst: np.dtype) -> np.ndarray:
    with np.errstate(all="ignore"):  # x / 0 and NaN are answers here (saturated, or 0)
        q = src.astype(np.float32) / scale
        if dst in (np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)):
            return q.astype(dst)
        if zp is not None:
            q = q + zp
        info = np.iinfo(dst)
        rounded = np.clip(np.rint(q), info.min, info.max)
        return np.where(np.isnan(rounded), 0, rounded).astype(dst)


def dequantize(src: np.ndarray, scale: np.ndarray, zp: np.ndarray | None, dst: np.dtype) -> np.ndarray:
    x = src.astype(np.float32)
    if zp is not None:
        x = x - zp
    with np.errstate(over="ignore"):  # past dst's range is inf: an answer, not a fault
        return (x * scale).astype(dst)


def _static(fn: Any) -> Any:
    def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
        src = arrays[0]
        axis = _axis(d, src.ndim)
        zps = attr(d, "zps")
        zp = None if zps is None else _per_channel(zps, src.shape, axis)
        return [fn(src, _per_channel(attr(d, "scales"), src.shape, axis), zp, out[0])]

    return kernel


def _expand_groups(values: np.ndarray, groups: Sequence[int]) -> np.ndarray:
    for axis, size in enumerate(groups):
        if size > 1:
            values = np.repeat(values, size, axis=axis)
    return values


def _dynamic(fn: Any) -> Any:
    def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
        src = arrays[0]
        if _qtype_of(d) == PER_GROUP:
            groups = attr(d, "group_shape")
            scale = _expand_groups(arrays[1].astype(np.float32), groups)
            zp = _expand_groups(arrays[2].astype(np.float32), groups) if len(arrays) > 2 else None
            result = fn(src, scale, zp, np.dtype(np.float32))
            # oneDNN's grouped kernel for 8-bit src gives +0 where (src - zp) * scale is a zero (-0 + 0); for
            # 4-bit src a zero keeps its sign (measured, f32).
            return [_cast(result + np.float32(0) if src.dtype in BYTES else result, out[0])]
        axis = _axis(d, src.ndim)
        scale = _per_channel(arrays[1].astype(np.float32), src.shape, axis)
        zp = _per_channel(arrays[2].astype(np.float32), src.shape, axis) if len(arrays) > 2 else None
        return [fn(src, scale, zp, out[0])]

    return kernel


# --- members -------------------------------------------------------------------------------------

SRC = In("src", "The tensor.")
DST = Out("dst", "src's shape; its dtype as declared (the table's choice).")
QUANTIZED = "s8,u8,f8_e4m3,f8_e5m2"
INTEGER_NOTE = (
    "Integer results: q = src / scale in f32 (one rounding), + zp in f32, rounded half to even, saturated to "
    "dst's range; NaN gives 0. The page leaves rounding to the library; oneDNN 3.13 agrees on its f32 -> s8 / "
    "u8 outputs (measured)."
)
F8_NOTE = (
    "f8 results: q = src / scale rounded once to the f8 type, to nearest even; e4m3 has no infinity (past 464 "
    "it is NaN), e5m2 overflows to inf. oneDNN converts f32 -> f16 -> f8 (two roundings), so a value near a "
    "halfway point may differ by one f8 step."
)
AXIS_NOTE = (
    "axis is checked against src's rank only for per_channel; per_tensor ignores it (benchdnn writes axis 1 "
    "on rank-1 per_tensor Quantize)."
)


def build(kind: str, **fields: Any) -> Any:
    """A member of the family: its page is its kind; one src and one dst unless it says otherwise."""
    return family.build(kind, family=FAMILY, page=kind, **{"inputs": (SRC,), "outputs": (DST,), **fields})


def checked(check: Any, kind: str) -> Any:
    """The family's shape rule (dst has src's shape) after the member's own checks."""

    def rule(d: Any, ctx: Context) -> Any:
        check(kind, d, ctx)
        return same_as_input(0)(d, ctx)

    return rule


def build_static(kind: str, fn: Any, **fields: Any) -> Any:
    """Quantize or Dequantize: scales and zps as attributes."""
    return build(kind, shape=checked(_check_static, kind), kernel=_static(fn), rules=_rules(kind, dynamic=False),
                  attrs=(_qtype((PER_TENSOR, PER_CHANNEL)), AXIS, SCALES, ZPS), **fields)  # fmt: skip


def build_dynamic(kind: str, fn: Any, **fields: Any) -> Any:
    """DynamicQuantize or DynamicDequantize: scales and zps as inputs."""
    return build(kind, shape=checked(_check_dynamic, kind), kernel=_dynamic(fn), **fields)


QUANTIZE = build_static(
    "Quantize",
    quantize,
    summary="dst = round(src / scale + zp), per tensor or per channel; f32 to s8, u8, f8_e4m3, f8_e5m2.",
    table=rows("src dst", f"f32 {QUANTIZED}"),
    accepts=constraints("src:T1 dst:T2", T1="f32", T2="u8 s8 f8_e5m2 f8_e4m3"),
    notes=(INTEGER_NOTE, F8_NOTE, AXIS_NOTE),
    examples=(
        {
            "kind": "Quantize",
            "attrs": {"scales": [0.5], "zps": [2]},
            "inputs": [{"dtype": "f32", "shape": [4], "data": [0.25, 0.75, -1.0, 100.0]}],
            "outputs": [{"dtype": "s8", "shape": [4]}],
        },
    ),
)

DEQUANTIZE = build_static(
    "Dequantize",
    dequantize,
    summary="dst = (src - zp) * scale, per tensor or per channel; s8, u8, f8_e4m3, f8_e5m2 to f32.",
    outputs=(Out("dst", "src's shape, f32."),),
    table=rows("src dst", f"{QUANTIZED} f32"),
    accepts=constraints("src:T1 dst:T2", T1="u8 s8 f8_e5m2 f8_e4m3", T2="f32"),
    notes=("dst = (src - zp) * scale in f32, one rounding each; a zero result keeps its sign (oneDNN agrees).",
           AXIS_NOTE),
    examples=(
        {
            "kind": "Dequantize",
            "attrs": {"qtype": "per_channel", "axis": 0, "scales": [0.5, 2.0], "zps": [0, 0]},
            "inputs": [{"dtype": "u8", "shape": [2, 2], "data": [[1, 2], [3, 4]]}],
        },
    ),
)  # fmt: skip

DYNAMIC_QUANTIZE = build_dynamic(
    "DynamicQuantize",
    quantize,
    summary="Quantize with scales and zero points as input tensors; f32 to s8 or u8.",
    inputs=(SRC, In("scales", "f32, 1-D: one value, or one per channel."),
            In("zps", "1-D zero points, as many as scales.", optional=True)),
    table=rows("src scales zps dst", "f32 f32 s8,u8,s32 s8", "f32 f32 s8,u8,s32 u8"),
    accepts=constraints("src:T1 scales:T1 zps:T2 dst:T3", T1="f32", T2="u8 s8 s32", T3="u8 s8"),
    attrs=(_qtype((PER_TENSOR, PER_CHANNEL)), AXIS),
    rules=_rules("DynamicQuantize", dynamic=True),
    notes=(INTEGER_NOTE, AXIS_NOTE),
)  # fmt: skip

DYNAMIC_DEQUANTIZE = build_dynamic(
    "DynamicDequantize",
    dequantize,
    summary="Dequantize with scales and zero points as input tensors, per tensor, channel or group; s8, u8, "
    "s4, u4 to f32, bf16, f16.",
    inputs=(SRC, In("scales", "f32, bf16 or f16 (dst's dtype): one value, one per channel, or one per group."),
            In("zps", "Zero points, in scales' shape.", optional=True)),
    outputs=(Out("dst", "src's shape, scales' dtype."),),
    table=rows("src scales zps dst", *(f"{src} {f} {zps} {f}" for src, zps in (("s8,u8", "s8,u8,s32"),
               ("s4,u4", "s4,u4,s32")) for f in ("f16", "bf16", "f32"))),
    accepts=constraints("src:T1 scales:T2 zps:T3 dst:T2", T1="u8 s8 s4 u4", T2="bf16 f16 f32",
                        T3="u4 s4 u8 s8 s32"),
    attrs=(_qtype((PER_TENSOR, PER_CHANNEL, PER_GROUP)), AXIS, GROUP_SHAPE),
    rules=_rules("DynamicDequantize", dynamic=True, grouped=True),
    notes=(
        "dst = (src - zp) * scale in f32, rounded once to dst's dtype. per_tensor, per_channel and 4-bit per_group "
        "keep a zero result's sign; 8-bit per_group gives +0 there, as oneDNN's grouped kernel does (measured).",
        "The page's table pairs s4 / u4 with s4, u4, s32 zero points; oneDNN also accepts u8 ones (benchdnn's "
        "int4 graphs use them): valid, with the DynamicDequantize.onednn.dtypes warning.",
        "The attribute table lists per_tensor and per_channel; the page's text describes per_group with "
        "group_shape, which oneDNN accepts and benchdnn uses.",
        AXIS_NOTE,
    ),
)  # fmt: skip

TYPECAST = build(
    "TypeCast",
    summary="dst = src converted to dst's dtype, rounded to nearest even; f32 <-> bf16, f16.",
    table=rows("src dst", "bf16,f16 f32", "f32 bf16,f16"),
    # The schema's T1 x T2 less its constraint (not the same dtype, not bf16 <-> f16) is the table.
    accepts=None,
    shape=same_as_input(0),
    kernel=lambda d, arrays, out: [_cast(arrays[0], out[0])],
)

REORDER = build(
    "Reorder",
    summary="dst = src in another memory layout; the dtype does not change.",
    outputs=(Out("dst", "src's shape and dtype."),),
    table=rows("src dst", "f32 f32", "bf16 bf16", "f16 f16"),
    accepts=constraints("src:T dst:T", T="f32 bf16 f16"),
    shape=same_as_input(0),
    kernel=lambda d, arrays, out: [np.array(arrays[0], dtype=out[0])],  # a dense copy of any strided view
    notes=("Layouts are the descriptor's strides: src may be strided, dst is written dense (row-major).",),
)

OPS = (QUANTIZE, DEQUANTIZE, DYNAMIC_QUANTIZE, DYNAMIC_DEQUANTIZE, TYPECAST, REORDER)
