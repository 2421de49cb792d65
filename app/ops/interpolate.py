"""oneDNN Graph's Interpolate and InterpolateBackward: resizing the spatial dims of src.

The output's spatial sizes come from `sizes` (the attribute, or the optional 1-D s32 input), or from
`scales`: floor(size * scale), the product in f32 as oneDNN computes it. N and C are kept (symbols too);
a spatial size computed from an unknown one is unknown, except with scale 1.

Interpolation is separable: each spatial dim is resized on its own, in order, with the page's
coordinate transformation (scale = dst size / src size):
- half_pixel: x = (x_resized + 0.5) / scale - 0.5;
- align_corners: x = x_resized * (src - 1) / (dst - 1), 0 when dst is 1.
`nearest` takes src at floor(x + 0.5) (halves round up; the page does not say, oneDNN agrees on the
oracle's cases), clamped into src: exact. `linear` (and `bilinear`, `trilinear`, the same rule named
for 2 and 3 spatial dims) clamps x into [0, size - 1] and mixes the two neighbours: a * (1 - w) + b * w in
f32. oneDNN mixes the 2, 4 or 8 corners at once, so linear results agree within `TOLERANCE`.
InterpolateBackward is the adjoint: each diff_dst value goes back to the src positions it was taken
from, with the same weights (sums in f32, dims in reverse order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from app.core import data_format, dims, family
from app.core.data_format import DATA_FORMAT
from app.core.diagnostics import Rule
from app.core.engine import Context
from app.core.family import ONEDNN, Attr, In, Out, attr, rows
from app.core.mismatch import Tolerance
from app.core.numbers import show
from app.core.shapes import Dim, Shape, dims_conflict, format_shape

FAMILY = "interpolate"
F32 = np.float32
TOLERANCE = Tolerance(
    ulps=8,
    absolute=1e-6,
    why="linear modes mix neighbours one dim at a time here, all corners at once in oneDNN: each order "
    "rounds differently in f32 (and cancels near 0)",
)

ATTRS = (
    Attr("mode", "string", "Specifies type of interpolation.", required=True,
         values=("nearest", "linear", "bilinear", "trilinear")),
    Attr("coordinate_transformation_mode", "string", "How a coordinate in dst maps to one in src.",
         default="half_pixel", values=("half_pixel", "align_corners")),
    Attr("sizes", "s64[]", "dst's spatial sizes: positive. When given, scales is ignored."),
    Attr("scales", "f32[]", "The factor for each spatial dim: dst size = floor(src size * scale)."),
    DATA_FORMAT,
)  # fmt: skip


def _rules(kind: str, backward: bool) -> list[Rule]:
    page = f"{ONEDNN} {kind}"
    rules = [
        Rule(f"{kind}.src.rank", "src has rank >= 3: N, C and at least one spatial dim.", f"{page}, General"),
        Rule(f"{kind}.src.empty", "A spatial dim of size 0 stays 0: nothing interpolates into positions.",
             f"{page}, General"),
        Rule(f"{kind}.sizes.missing", "sizes or scales is given (the attribute sizes, the input sizes or the "
             "attribute scales).", f"{page}, note on sizes and scales"),
        Rule(f"{kind}.sizes.rank", "sizes and scales have one entry per spatial dim; the sizes input is 1-D.",
             f"{page}, attributes sizes and scales"),
        Rule(f"{kind}.sizes.range", "Every size is positive.", f"{page}, attribute sizes"),
        Rule(f"{kind}.scales.range", "Every scale is positive and gives a dst size of at least 1.",
             f"{page}, attribute scales"),
        Rule(f"{kind}.onednn.sizes_and_scales", "Both sizes and scales: the page ignores scales; oneDNN 3.13 "
             "refuses the op at add_op (exactly one of them).", f"{page}, note; oneDNN 3.13 op schema", "warning"),
        Rule(f"{kind}.onednn.sizes_input", "The sizes input without the sizes or scales attribute: oneDNN 3.13 "
             "refuses the op at add_op and infers no shape from the input.", "oneDNN 3.13 op schema", "warning"),
        Rule(f"{kind}.onednn.align_corners", "oneDNN 3.13 runs no align_corners interpolation (an unsupported "
             "partition).", "oneDNN 3.13 (the oracle)", "warning"),
    ]  # fmt: skip
    if backward:
        rules.append(Rule(f"{kind}.diff_dst.shape", "diff_dst has the shape Interpolate gives for src.",
                          f"{page}, Inputs"))  # fmt: skip
    return rules


# A scale whose f32 is m / 2^k with m and 2^k at most this gives `m * size // 2^k` on a symbolic size:
# the f32 product is exact while m * size < 2^24, so for every size below 2^18.
SCALE_TERMS = 64


def _scaled(size: Dim, scale: float) -> Dim:
    """floor(size * scale) with the product in f32 (oneDNN: static_cast<dim_t>(float(size) * scale));
    0 for a scale that is not a positive finite f32 or a product beyond int64, which callers refuse.
    On a symbolic size, an expression where the scale is a small dyadic fraction (0.5, 1.5, 2, 0.25:
    see SCALE_TERMS), else unknown: any other f32 scale rounds in a way no integer expression follows."""
    if scale == 1:
        return size
    if not isinstance(size, int):
        if size is None or not 0 < scale < math.inf:
            return None
        ratio = Fraction(float(F32(scale)))  # the f32's exact value: a dyadic fraction
        if ratio.numerator > SCALE_TERMS or ratio.denominator > SCALE_TERMS:
            return None
        return dims.floordiv(dims.mul(size, ratio.numerator), ratio.denominator)
    with np.errstate(over="ignore"):
        product = F32(size) * F32(scale)
    return int(product) if np.isfinite(product) and 0 < product < 2.0**63 else 0


def _dst_sizes(
    kind: str, d: Any, ctx: Context, sizes_input: int, sizes_in: Sequence[Dim]
) -> list[Dim] | None:
    """dst's spatial sizes for src's spatial sizes `sizes_in`; None after a reported error. An unknown
    count of spatial dims (src of unknown rank) gives a list of unknowns only when its length is known."""
    n = len(sizes_in)
    sizes, scales = d.attrs.sizes, d.attrs.scales
    has_input = len(d.inputs) > sizes_input
    if sizes is not None and scales is not None:
        ctx.warn(
            f"{kind}.onednn.sizes_and_scales",
            "attrs.scales",
            f"both sizes and scales are given: the page ignores scales {show(scales)}; oneDNN 3.13 refuses the op "
            "(exactly one of them)",
        )
    if has_input and sizes is None and scales is None:
        ctx.warn(
            f"{kind}.onednn.sizes_input",
            f"inputs[{sizes_input}]",
            "sizes is given only as the input: oneDNN 3.13 needs the sizes or scales attribute and refuses the op",
        )
    if has_input:
        return _input_sizes(kind, d, ctx, sizes_input, n)
    if sizes is not None:
        if not _length(kind, ctx, "attrs.sizes", "sizes", len(sizes), n):
            return None
        bad = [i for i, v in enumerate(sizes) if v <= 0]
        for i in bad:
            ctx.error(
                f"{kind}.sizes.range",
                f"attrs.sizes[{i}]",
                f"sizes[{i}] is {sizes[i]}; sizes must be positive",
            )
        return None if bad else list(sizes)
    if scales is not None:
        if not _length(kind, ctx, "attrs.scales", "scales", len(scales), n):
            return None
        out = [
            _scaled(size, scale) if 0 < scale < math.inf else 0
            for size, scale in zip(sizes_in, scales, strict=True)
        ]
        bad = [i for i, v in enumerate(out) if not 0 < scales[i] < math.inf or (v == 0 and sizes_in[i] != 0)]
        for i in bad:
            ctx.error(
                f"{kind}.scales.range",
                f"attrs.scales[{i}]",
                f"scales[{i}] is {show(scales[i])}: spatial dim {i} of size {sizes_in[i]} would become "
                f"{_scaled(sizes_in[i], scales[i]) if 0 < scales[i] < math.inf else 'no size'}; a scale must be "
                "positive and finite and give a size of at least 1 (and at most 2^63 - 1)",
            )
        return None if bad else out
    ctx.error(f"{kind}.sizes.missing", "attrs", f"{kind} needs sizes or scales; neither is given")
    return None


def _length(kind: str, ctx: Context, path: str, name: str, have: int, n: int) -> bool:
    if have != n:
        ctx.error(
            f"{kind}.sizes.rank", path, f"{name} has {have} entries; src has {n} spatial dims, one entry each"
        )
        return False
    return True


def _input_sizes(kind: str, d: Any, ctx: Context, index: int, n: int) -> list[Dim] | None:
    tensor = d.inputs[index]
    if tensor.shape is not None:
        if len(tensor.shape) != 1:
            ctx.error(f"{kind}.sizes.rank", f"inputs[{index}].shape",
                      f"the sizes input must be 1-D; it has shape {format_shape(tensor.shape)}")  # fmt: skip
            return None
        if isinstance(tensor.shape[0], int) and not _length(
            kind, ctx, f"inputs[{index}].shape", "the sizes input", tensor.shape[0], n
        ):
            return None
    values = ctx.values(index)
    if values is None:
        return [None] * n
    out = [int(v) for v in values.reshape(-1)]
    bad = [i for i, v in enumerate(out) if v <= 0]
    for i in bad:
        ctx.error(
            f"{kind}.sizes.range", f"inputs[{index}].data", f"sizes[{i}] is {out[i]}; sizes must be positive"
        )
    return None if bad else out


def _forward(kind: str, d: Any, ctx: Context, sizes_input: int) -> tuple[Shape | None, bool]:
    """Interpolate's dst shape for src (input 0); and whether every check passed."""
    if attr(d, "coordinate_transformation_mode") == "align_corners":
        ctx.warn(
            f"{kind}.onednn.align_corners",
            "attrs.coordinate_transformation_mode",
            "align_corners: oneDNN 3.13 reports such a partition as unsupported",
        )
    shape = d.inputs[0].shape
    if shape is None:
        return None, _dst_sizes_unknown_rank(kind, d, ctx)
    if len(shape) < 3:
        ctx.error(
            f"{kind}.src.rank",
            "inputs[0].shape",
            f"src has shape {format_shape(shape)}; {kind} needs rank >= 3 (N, C and at least one spatial dim)",
        )
        return None, False
    axes = data_format.spatial_axes(attr(d, "data_format"), len(shape))
    out = _dst_sizes(kind, d, ctx, sizes_input, [shape[a] for a in axes])
    if out is None:
        return None, False
    for i, (axis, size) in enumerate(zip(axes, out, strict=True)):
        if shape[axis] == 0 and size != 0:
            ctx.error(
                f"{kind}.src.empty",
                f"inputs[0].shape[{axis}]",
                f"src's spatial dim {i} has size 0: there is nothing to interpolate into {size} positions",
            )
            return None, False
    dst = list(shape)
    for axis, size in zip(axes, out, strict=True):
        dst[axis] = size
    return tuple(dst), True


def _dst_sizes_unknown_rank(kind: str, d: Any, ctx: Context) -> bool:
    if d.attrs.sizes is None and d.attrs.scales is None and len(d.inputs) <= (2 if kind == BACKWARD else 1):
        ctx.error(f"{kind}.sizes.missing", "attrs", f"{kind} needs sizes or scales; neither is given")
        return False
    return True


def _interpolate_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    shape, ok = _forward(KIND, d, ctx, 1)
    return [shape] if ok else None


def _backward_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    expected, ok = _forward(BACKWARD, d, ctx, 2)
    if not ok:
        return None
    got = d.inputs[1].shape
    if (
        got is not None
        and expected is not None
        and (
            len(got) != len(expected) or any(dims_conflict(a, b) for a, b in zip(got, expected, strict=True))
        )
    ):
        ctx.error(
            f"{BACKWARD}.diff_dst.shape",
            "inputs[1].shape",
            f"diff_dst has shape {format_shape(got)}; Interpolate gives {format_shape(expected)} for src "
            f"{format_shape(d.inputs[0].shape)}",
        )
        return None
    return [d.inputs[0].shape]


# --- kernels ----------------------------------------------------------------------------------------


def _taps(d: Any, n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Along one dim: the two src neighbours of each dst position and the second one's weight (linear), or
    the one src position (nearest; weight None)."""
    out = np.arange(n_out)
    align = attr(d, "coordinate_transformation_mode") == "align_corners"
    if d.attrs.mode == "nearest":
        if align:
            # floor(o * (in - 1) / (out - 1) + 0.5), in integers
            index = out * 0 if n_out == 1 else (2 * out * (n_in - 1) + (n_out - 1)) // (2 * (n_out - 1))
        else:
            index = ((2 * out + 1) * n_in) // (2 * n_out)  # floor(x + 0.5), x = (o + 0.5) * in / out - 0.5
        index = np.clip(index, 0, n_in - 1)
        return index, index, None
    o = out.astype(F32)
    if align:
        x = np.zeros(n_out, dtype=F32) if n_out == 1 else o * F32(n_in - 1) / F32(n_out - 1)
    else:
        x = (o + F32(0.5)) * F32(n_in) / F32(n_out) - F32(0.5)
    x = np.clip(x, F32(0), F32(n_in - 1))
    first = np.floor(x).astype(np.int64)
    return first, np.minimum(first + 1, n_in - 1), (x - first).astype(F32)


def _along(shape_len: int, axis: int, v: np.ndarray) -> np.ndarray:
    shape = [1] * shape_len
    shape[axis] = -1
    return v.reshape(shape)


def _interpolate(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x = arrays[0].astype(F32, copy=False)
    fmt = attr(d, "data_format")
    axes = data_format.spatial_axes(fmt, x.ndim)
    sizes = _sizes_of(d, arrays, [x.shape[a] for a in axes], 1)
    for axis, n_out in zip(axes, sizes, strict=True):
        first, second, weight = _taps(d, x.shape[axis], n_out)
        a = np.take(x, first, axis=axis)
        if weight is None:
            x = a
            continue
        w = _along(x.ndim, axis, weight)
        x = a * (F32(1) - w) + np.take(x, second, axis=axis) * w
    return [x]


def _interpolate_backward(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    src_shape = arrays[0].shape
    g = arrays[1].astype(F32, copy=False)
    axes = data_format.spatial_axes(attr(d, "data_format"), g.ndim)
    for axis in reversed(axes):
        n_in, n_out = src_shape[axis], g.shape[axis]
        first, second, weight = _taps(d, n_in, n_out)
        moved = np.moveaxis(g, axis, -1)
        back = np.zeros((*moved.shape[:-1], n_in), dtype=F32)
        if weight is None:
            np.add.at(back, (Ellipsis, first), moved)
        else:
            np.add.at(back, (Ellipsis, first), moved * (F32(1) - weight))
            np.add.at(back, (Ellipsis, second), moved * weight)
        g = np.moveaxis(back, -1, axis)
    return [g]


def _sizes_of(d: Any, arrays: Sequence[np.ndarray], sizes_in: Sequence[int], index: int) -> list[int]:
    if len(arrays) > index:
        return [int(v) for v in arrays[index].reshape(-1)]
    if d.attrs.sizes is not None:
        return list(d.attrs.sizes)
    return [_scaled(size, scale) for size, scale in zip(sizes_in, d.attrs.scales, strict=True)]  # type: ignore[misc]


KIND = "Interpolate"
BACKWARD = "InterpolateBackward"


def build(kind: str, summary: str, inputs: tuple[In, ...], output: Out, table: Any, **more: Any):
    return family.build(kind, family=FAMILY, page=kind, summary=summary, inputs=inputs, outputs=(output,), table=table,
                 accepts=None, attrs=ATTRS, rules=_rules(kind, backward=kind == BACKWARD), tolerance=TOLERANCE,
                 **more)  # fmt: skip


INTERPOLATE = build(
    KIND,
    "Resizes src's spatial dims to sizes (or by scales), by nearest or linear interpolation.",
    (
        In("src", "The data: [N, C, spatial...] or [N, spatial..., C] per data_format."),
        In("sizes", "dst's spatial sizes, 1-D s32.", optional=True),
    ),
    Out("dst", "src's N and C; the spatial dims from sizes or scales."),
    rows("src sizes dst", "f32 s32 f32", "bf16 s32 bf16", "f16 s32 f16"),
    shape=_interpolate_shape,
    kernel=_interpolate,
)
INTERPOLATE_BACKWARD = build(
    BACKWARD,
    "The gradient of Interpolate: each diff_dst value goes back to the src positions it came from.",
    (
        In("src", "The forward op's src."),
        In("diff_dst", "The gradient of dst: Interpolate's output shape for src."),
        In("sizes", "dst's spatial sizes, 1-D s32.", optional=True),
    ),
    Out("diff_src", "src's shape."),
    rows("src diff_dst sizes diff_src", "f32 f32 s32 f32", "bf16 bf16 s32 bf16", "f16 f16 s32 f16"),
    shape=_backward_shape,
    kernel=_interpolate_backward,
)

OPS = (INTERPOLATE, INTERPOLATE_BACKWARD)
