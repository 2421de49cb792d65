"""oneDNN Graph's pooling ops: AvgPool, MaxPool and their backward ops.

One window rule for the family (`_window`): kernel, strides, pads_begin, pads_end and dilations give
one entry per spatial dim, auto_pad may replace the pads, and each spatial output size is
app/core/windows.window_output (floor or ceil). One kernel shape: src is padded once (with -inf for
the maximum, 0 for the average), and each kernel tap is a strided slice of it, vectorised over the whole
output; the taps are visited in row-major order of the kernel.

- MaxPool: the maximum over the window's taps inside src (padding never wins); NaN propagates. Exact.
- AvgPool: f32 sum of the taps in row-major kernel order, divided by the taps inside src
  (exclude_pad) or by the kernel's size (the page's DENOM = KH * KW). Within `AVG_TOLERANCE`.
- MaxPoolBackward: each diff_dst value goes to the first tap (row-major) holding its window's maximum.
- AvgPoolBackward: each diff_dst value is spread over its window's taps inside src, divided as forward.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core import data_format, family
from app.core.data_format import DATA_FORMAT
from app.core.diagnostics import Rule
from app.core.engine import Context
from app.core.family import ONEDNN, Attr, In, Out, attr, constraints, rows
from app.core.mismatch import Tolerance
from app.core.numbers import show
from app.core.registry import KernelSteps
from app.core.shapes import Dim, Shape, dims_conflict, format_shape
from app.core.windows import ONEDNN_AUTO_PAD, auto_pad_mode, auto_pads, effective_kernel, window_output

FAMILY = "pooling"
F32 = np.float32

AVG_TOLERANCE = Tolerance(
    ulps=4,
    absolute=1e-6,
    why="an f32 sum of the window's taps: oneDNN may add them in another order (and divide by a reciprocal); "
    "a backward sum of shares of opposite signs may cancel to near 0, hence the absolute part",
)

LISTS = ("kernel", "strides", "pads_begin", "pads_end", "dilations")
WINDOW = (
    Attr("strides", "s64[]", "How far the window moves along each spatial dim: positive.", required=True),
    Attr("pads_begin", "s64[]", "Padding before each spatial dim: non-negative; ignored when auto_pad is "
         "same_upper, same_lower or valid.", required=True),
    Attr("pads_end", "s64[]", "Padding after each spatial dim: non-negative; ignored when auto_pad is "
         "same_upper, same_lower or valid.", required=True),
    Attr("kernel", "s64[]", "The window's size along each spatial dim: positive.", required=True),
)  # fmt: skip
AUTO_PAD = Attr(
    "auto_pad",
    "string",
    "How the pads are computed: none uses pads_begin and pads_end. oneDNN spells the values None, SAME_UPPER, "
    "SAME_LOWER, VALID; both spellings are read.",
    default="none",
    values=(*ONEDNN_AUTO_PAD, *ONEDNN_AUTO_PAD.values()),
)
ROUNDING = Attr(
    "rounding_type", "string", "How the output size is rounded.", default="floor", values=("floor", "ceil")
)
EXCLUDE_PAD = Attr(
    "exclude_pad", "bool", "Whether padded positions are left out of the average's count.", required=True
)
DILATIONS = Attr("dilations", "s64[]", "The distance between the window's taps along each spatial dim: positive; "
                 "all 1 (no dilation) by default.")  # fmt: skip


def _page(kind: str) -> str:
    return f"{ONEDNN} {kind}"


def _rules(kind: str, *, dilations: bool, ceil: bool, backward: str | None) -> list[Rule]:
    page = _page(kind)
    rules = [
        Rule(f"{kind}.src.rank", "The data tensor has rank >= 3: N, C and at least one spatial dim.",
             f"{page}, formula"),
        Rule(f"{kind}.window.rank", "kernel, strides, pads_begin, pads_end (and dilations) have one entry per "
             "spatial dim (empty pads mean 0).", f"{page}, Operation attributes"),
        Rule(f"{kind}.kernel.range", "Every kernel entry is positive.", f"{page}, attribute kernel"),
        Rule(f"{kind}.strides.range", "Every stride is positive.", f"{page}, attribute strides"),
        Rule(f"{kind}.pads.range", "Every pads_begin and pads_end entry is non-negative (oneDNN refuses a "
             "negative one at add_op).", f"{page}, attributes pads_begin and pads_end"),
        Rule(f"{kind}.window.fits", "The (dilated) kernel fits in each padded spatial dim at least once.",
             f"{page}, formula"),
        Rule(f"{kind}.onednn.auto_pad", "oneDNN 3.13 reads auto_pad only as None, SAME_UPPER, SAME_LOWER or VALID: "
             "the page's lowercase spelling is refused at add_op.", "oneDNN 3.13 op schema", "warning"),
    ]  # fmt: skip
    rules.append(
        Rule(
            f"{kind}.window.empty",
            "A window position that holds no element of src (padding only) has a value the page leaves open.",
            f"{page}, formula",
            "warning",
        )
    )
    if dilations:
        rules.append(
            Rule(f"{kind}.dilations.range", "Every dilation is positive.", f"{page}, attribute dilations")
        )
    if ceil:
        rules.append(
            Rule(
                f"{kind}.onednn.ceil_include_pad",
                "oneDNN 3.13 does not run rounding_type ceil with exclude_pad "
                "false (an unsupported partition).",
                "oneDNN 3.13 pool patterns",
                "warning",
            )
        )
    if backward:
        rules.append(Rule(f"{kind}.diff_dst.shape", "diff_dst has the shape the forward op gives for src.",
                          f"{page}, {backward}"))  # fmt: skip
    return rules


@dataclass(frozen=True)
class Window:
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads: tuple[tuple[Dim, Dim] | None, ...]  # per spatial dim; None where auto_pad needs an unknown size
    ceil: bool

    def outputs(self, sizes: Sequence[Dim]) -> list[Dim]:
        return [
            None if pads is None else window_output(size, k, s, d, pads[0], pads[1], self.ceil)
            for size, k, s, d, pads in zip(
                sizes, self.kernel, self.strides, self.dilations, self.pads, strict=True
            )
        ]


def _lists(kind: str, d: Any, ctx: Context, n: int | None) -> dict[str, list[int]] | None:
    """The window's lists, each checked for length (n spatial dims) and range; None when one is wrong."""
    values = {name: getattr(d.attrs, name, None) for name in LISTS}
    if values["dilations"] is None:
        values["dilations"] = [1] * len(values["kernel"] or ())
    if n is None:
        n = len(values["kernel"] or ())
    ok = True
    for name, items in values.items():
        if items is None:
            continue
        if name.startswith("pads") and not items:
            values[name] = items = [0] * n  # oneDNN reads empty pads as zeros
        if len(items) != n:
            ctx.error(
                f"{kind}.window.rank",
                f"attrs.{name}",
                f"{name} has {len(items)} entries {show(items)}; {kind} needs one per spatial dim: {n}",
            )
            ok = False
            continue
        low, rule, what = (0, "pads", "non-negative") if name.startswith("pads") else (1, name, "positive")
        for index, value in enumerate(items):
            if value < low:
                ctx.error(
                    f"{kind}.{rule}.range",
                    f"attrs.{name}[{index}]",
                    f"{name}[{index}] is {value}; {kind} needs every {name} entry {what}",
                )
                ok = False
    return values if ok else None  # type: ignore[return-value]


def _auto_pad(kind: str, d: Any, ctx: Context) -> str:
    spelling = attr(d, "auto_pad")
    mode = auto_pad_mode(spelling) or "none"
    given = (
        d.attrs.auto_pad is not None and "auto_pad" in d.attrs.model_fields_set
    )  # absent or null: the default
    if given and spelling != ONEDNN_AUTO_PAD[mode]:
        ctx.warn(
            f"{kind}.onednn.auto_pad",
            "attrs.auto_pad",
            f"auto_pad {show(spelling)} is the page's spelling; oneDNN 3.13 refuses it at add_op and reads only "
            f"{show(ONEDNN_AUTO_PAD[mode])}",
        )
    return mode


def _window(kind: str, d: Any, ctx: Context, sizes: Sequence[Dim] | None) -> Window | None:
    """The window's parameters with the pads resolved (auto_pad), checked; None when a check failed."""
    lists = _lists(kind, d, ctx, None if sizes is None else len(sizes))
    mode = _auto_pad(kind, d, ctx)
    if lists is None:
        return None
    kernel, strides, dilations = lists["kernel"], lists["strides"], lists["dilations"]
    n = len(kernel)
    pads: list[tuple[Dim, Dim] | None] = []
    for i in range(n):
        if mode == "none":
            pads.append((lists["pads_begin"][i], lists["pads_end"][i]))
        else:
            size = None if sizes is None else sizes[i]
            pads.append(auto_pads(size, kernel[i], strides[i], dilations[i], mode))
    ceil = getattr(d.attrs, "rounding_type", None) == "ceil"
    window = Window(tuple(kernel), tuple(strides), tuple(dilations), tuple(pads), ceil)
    if sizes is not None and not _fits(kind, ctx, window, sizes):
        return None
    if sizes is not None:
        _empty_windows(kind, ctx, window, sizes)
    return window


def _empty_windows(kind: str, ctx: Context, window: Window, sizes: Sequence[Dim]) -> None:
    """Warn where a window position has no tap inside src (all in the padding, or past it with ceil)."""
    for i, (size, out) in enumerate(zip(sizes, window.outputs(sizes), strict=True)):
        pads = window.pads[i]
        if not isinstance(size, int) or not isinstance(out, int) or pads is None or out > 1 << 16:
            continue
        k, s, dil = window.kernel[i], window.strides[i], window.dilations[i]
        for o in range(out):
            first = o * s - pads[0]  # where the window's first tap lands
            t = 0 if first >= 0 else (-first + dil - 1) // dil  # the first tap at or after position 0
            if not (t < k and first + t * dil < size):
                ctx.warn(
                    f"{kind}.window.empty",
                    "attrs.kernel",
                    f"spatial dim {i}: window {o} holds no element of src (only padding); the pages leave its "
                    "value open: here the maximum is -inf, the average 0 (exclude_pad false) or NaN (0 / 0)",
                )
                return


def _fits(kind: str, ctx: Context, window: Window, sizes: Sequence[Dim]) -> bool:
    ok = True
    for i, (size, k, dil, pads) in enumerate(
        zip(sizes, window.kernel, window.dilations, window.pads, strict=True)
    ):
        if isinstance(size, int) and pads is not None and size + pads[0] + pads[1] < effective_kernel(k, dil):  # type: ignore[operator]
            ctx.error(
                f"{kind}.window.fits",
                "attrs.kernel",
                f"spatial dim {i}: the kernel spans {effective_kernel(k, dil)} (kernel {k}, dilation {dil}) but the "
                f"padded size is {size + pads[0] + pads[1]} ({size} + pads {pads[0]} and {pads[1]}); the window "
                "never fits",
            )
            ok = False
    return ok


def _spatial(
    kind: str, d: Any, ctx: Context, shape: Shape | None, name: str, path: str
) -> tuple[list[int] | None, bool]:
    """(spatial axes, usable): the data tensor's shape checked for rank >= 3."""
    if shape is None:
        return None, True
    if len(shape) < 3:
        ctx.error(
            f"{kind}.src.rank",
            path,
            f"{name} has shape {format_shape(shape)}; {kind} needs rank >= 3 (N, C and at least one spatial dim)",
        )
        return None, False
    return data_format.spatial_axes(attr(d, "data_format"), len(shape)), True


def _with_spatial(shape: Shape, axes: Sequence[int], sizes: Sequence[Dim]) -> Shape:
    out = list(shape)
    for axis, size in zip(axes, sizes, strict=True):
        out[axis] = size
    return tuple(out)


def _forward_shape(
    kind: str, d: Any, ctx: Context, shape: Shape | None, name: str = "src", path: str = "inputs[0].shape"
) -> tuple[Shape | None, bool]:
    """The forward op's output shape for src of `shape`, and whether every check passed."""
    axes, usable = _spatial(kind, d, ctx, shape, name, path)
    sizes = None if axes is None else [shape[a] for a in axes]  # type: ignore[index]
    window = _window(kind, d, ctx, sizes)
    if window is None or not usable:
        return None, False
    if shape is None or axes is None:
        return None, True
    return _with_spatial(shape, axes, window.outputs(sizes)), True  # type: ignore[arg-type]


def _check_diff_dst(
    kind: str, d: Any, ctx: Context, index: int, expected: Shape | None, src: Shape | None
) -> bool:
    got = d.inputs[index].shape
    if got is None or expected is None:
        return True
    if len(got) != len(expected) or any(dims_conflict(a, b) for a, b in zip(got, expected, strict=True)):
        ctx.error(
            f"{kind}.diff_dst.shape",
            f"inputs[{index}].shape",
            f"diff_dst has shape {format_shape(got)}; for src {format_shape(src)} this window gives "
            f"{format_shape(expected)}",
        )
        return False
    return True


def _ceil_include_pad(kind: str, d: Any, ctx: Context) -> None:
    if attr(d, "rounding_type") == "ceil" and d.attrs.exclude_pad is False:
        ctx.warn(
            f"{kind}.onednn.ceil_include_pad",
            "attrs.rounding_type",
            "rounding_type ceil with exclude_pad false: oneDNN 3.13 reports such a partition as unsupported",
        )


# --- kernels ----------------------------------------------------------------------------------------


def _to_ncx(x: np.ndarray, d: Any) -> np.ndarray:
    return np.moveaxis(x, data_format.channel_of(d, x.ndim), 1)


def _from_ncx(x: np.ndarray, d: Any) -> np.ndarray:
    return np.moveaxis(x, 1, data_format.channel_of(d, x.ndim))


def _resolved(d: Any, sizes: Sequence[int]) -> Window:
    """The window of a descriptor that validated, its pads known (evaluation has every size)."""
    kernel = list(d.attrs.kernel)
    dilations = list(getattr(d.attrs, "dilations", None) or [1] * len(kernel))
    strides = list(d.attrs.strides)
    mode = auto_pad_mode(attr(d, "auto_pad")) or "none"
    if mode == "none":
        begin = list(d.attrs.pads_begin) or [0] * len(kernel)
        end = list(d.attrs.pads_end) or [0] * len(kernel)
        pads = tuple(zip(begin, end, strict=True))
    else:
        pads = tuple(
            auto_pads(s, k, st, dl, mode)
            for s, k, st, dl in zip(sizes, kernel, strides, dilations, strict=True)
        )
    ceil = getattr(d.attrs, "rounding_type", None) == "ceil"
    return Window(tuple(kernel), tuple(strides), tuple(dilations), pads, ceil)  # type: ignore[arg-type]


# The padded canvas is made whole while it holds at most this many times the elements of src and dst
# together (plus a little): beyond that (strides of 2^40 with ceil rounding, pads of millions), each tap
# reads src through index arrays instead, so memory follows src and dst, never the reach of the windows.
CANVAS_GROWTH = 4
CANVAS_SLACK = 4096


@dataclass(frozen=True)
class Taps:
    """A padded canvas for the spatial dims and, for each kernel tap, the strided slice of it the tap reads.

    Where that canvas would be far larger than src and dst (`gather`), the canvas is src with one padding
    cell after each spatial dim, and each tap reads it through index arrays that send every position
    outside src to that cell: the same values, in memory bounded by src and dst."""

    window: Window
    sizes: tuple[int, ...]
    out: tuple[int, ...]
    before: tuple[int, ...]  # padding before each spatial dim of the canvas
    after: tuple[int, ...]
    gather: bool = False

    @classmethod
    def of(cls, window: Window, sizes: Sequence[int], out: Sequence[int] | None = None) -> Taps:
        out = tuple(window.outputs(sizes)) if out is None else tuple(out)  # type: ignore[arg-type]
        before, after = [], []
        for size, o, k, s, dil, pads in zip(
            sizes, out, window.kernel, window.strides, window.dilations, window.pads, strict=True
        ):
            reach = (o - 1) * s + effective_kernel(k, dil) if o else 0
            before.append(pads[0])  # type: ignore[index]
            after.append(max(0, reach - pads[0] - size))  # type: ignore[index]
        canvas = math.prod(size + b + a for size, b, a in zip(sizes, before, after, strict=True))
        gather = canvas > CANVAS_GROWTH * (math.prod(sizes) + math.prod(out)) + CANVAS_SLACK
        return cls(window, tuple(sizes), out, tuple(before), tuple(after), gather)  # type: ignore[arg-type]

    @property
    def origin(self) -> tuple[int, ...]:
        """Where src starts in the canvas, per spatial dim."""
        return (0,) * len(self.sizes) if self.gather else self.before

    def pad(self, x: np.ndarray, value: float) -> np.ndarray:
        if self.gather:
            return np.pad(x, [(0, 0), (0, 0), *[(0, 1)] * len(self.sizes)], constant_values=value)
        widths = [(0, 0), (0, 0), *zip(self.before, self.after, strict=True)]
        return np.pad(x, widths, constant_values=value)

    def slices(self):
        """(tap index, what the tap reads of the canvas: a tuple of slices, or of index arrays when
        `gather`), taps in row-major order. Each tap reads a position once, so `canvas[view] += ...`
        adds once per position (the gather's shared padding cell is cropped away)."""
        w = self.window
        for tap, offsets in enumerate(itertools.product(*(range(k) for k in w.kernel))):
            if self.gather:
                axes = []
                for o, dil, s, n, size, b in zip(
                    offsets, w.dilations, w.strides, self.out, self.sizes, self.before, strict=True
                ):
                    start = o * dil - b  # Python's ints: huge strides and pads cannot wrap
                    axes.append(
                        np.array([p if 0 <= (p := start + j * s) < size else size for j in range(n)], np.intp)
                    )
                yield tap, (slice(None), slice(None), *np.ix_(*axes))
                continue
            yield (
                tap,
                (
                    slice(None),
                    slice(None),
                    *tuple(
                        slice(o * dil, o * dil + (n - 1) * s + 1, s) if n else slice(0, 0)
                        for o, dil, s, n in zip(offsets, w.dilations, w.strides, self.out, strict=True)
                    ),
                ),
            )

    def counts(self, exclude_pad: bool) -> np.ndarray:
        """The average's divisor per output position: taps inside src, or the kernel's size."""
        if not exclude_pad:
            return np.full(self.out, F32(math.prod(self.window.kernel)), dtype=F32)
        inside = self.pad(np.ones((1, 1, *self.sizes), dtype=F32), 0)
        total = np.zeros((1, 1, *self.out), dtype=F32)
        for _, where in self.slices():
            total += inside[where]
        return total[0, 0]


def _max_pool(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x = _to_ncx(arrays[0], d)
    taps = Taps.of(_resolved(d, x.shape[2:]), x.shape[2:])
    best, _ = _max_and_where(x, taps)
    return [_from_ncx(best, d)]


def _max_and_where(x: np.ndarray, taps: Taps) -> tuple[np.ndarray, np.ndarray]:
    """The window maximum and the first tap (row-major) holding it; NaN wins and stays."""
    canvas = taps.pad(x, -np.inf)
    best = np.full((*x.shape[:2], *taps.out), -np.inf, dtype=x.dtype)
    where = np.zeros(best.shape, dtype=np.int64)
    for tap, view in taps.slices():
        v = canvas[view]
        take = (v > best) | (np.isnan(v) & ~np.isnan(best))
        best = np.where(take, v, best)
        where = np.where(take, tap, where)
    return best, where


def _avg_pool(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x = _to_ncx(arrays[0], d).astype(F32, copy=False)
    taps = Taps.of(_resolved(d, x.shape[2:]), x.shape[2:])
    canvas = taps.pad(x, 0)
    total = np.zeros((*x.shape[:2], *taps.out), dtype=F32)
    with np.errstate(all="ignore"):
        for _, view in taps.slices():
            total += canvas[view]
        return [_from_ncx(total / taps.counts(d.attrs.exclude_pad), d)]


def _max_pool_backward(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x, dy = _to_ncx(arrays[0], d), _to_ncx(arrays[1], d).astype(F32, copy=False)
    taps = Taps.of(_resolved(d, x.shape[2:]), x.shape[2:])
    _, where = _max_and_where(x, taps)
    canvas = taps.pad(np.zeros(x.shape, dtype=F32), 0)
    for tap, view in taps.slices():
        canvas[view] += np.where(where == tap, dy, F32(0))
    return [_from_ncx(_crop(canvas, taps), d)]


def _avg_pool_backward(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    dy = _to_ncx(arrays[0], d).astype(F32, copy=False)
    full = _avg_backward_src_shape(d, arrays)
    ncx = _to_ncx(np.empty(full, dtype=np.uint8), d).shape
    taps = Taps.of(_resolved(d, ncx[2:]), ncx[2:], dy.shape[2:])
    canvas = taps.pad(np.zeros(ncx, dtype=F32), 0)
    with np.errstate(all="ignore"):
        share = dy / taps.counts(d.attrs.exclude_pad)
        for _, view in taps.slices():
            canvas[view] += share
    return [_from_ncx(_crop(canvas, taps), d)]


def _crop(canvas: np.ndarray, taps: Taps) -> np.ndarray:
    return canvas[
        (
            slice(None),
            slice(None),
            *tuple(slice(b, b + s) for b, s in zip(taps.origin, taps.sizes, strict=True)),
        )
    ]


def _steps(d: Any, arrays: Sequence[np.ndarray]) -> KernelSteps:
    taps = math.prod(d.attrs.kernel or ())
    elements = max((a.size for a in arrays), default=0)
    return KernelSteps(
        taps * (8 + elements // 512),
        "attrs.kernel",
        f"{taps:,} kernel taps, each a pass over {elements:,} elements",
    )


# --- the ops ----------------------------------------------------------------------------------------

FLOATS = rows("src dst", "f32 f32", "bf16 bf16", "f16 f16")
SCHEMA = constraints("src:T dst:T", T="f32 bf16 f16")


def _avg_pool_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    _ceil_include_pad("AvgPool", d, ctx)
    shape, ok = _forward_shape("AvgPool", d, ctx, d.inputs[0].shape)
    return [shape] if ok else None


def _max_pool_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    shape, ok = _forward_shape("MaxPool", d, ctx, d.inputs[0].shape)
    return [shape] if ok else None


def build(kind: str, summary: str, attrs: tuple[Attr, ...], **more: Any):
    """AvgPool or MaxPool: src to dst, one dtype."""
    return family.build(
        kind,
        family=FAMILY,
        page=kind,
        summary=summary,
        inputs=(In("src", "The data: [N, C, spatial...] or [N, spatial..., C] per data_format."),),
        outputs=(Out("dst", "src's N and C; each spatial dim the number of window positions."),),
        table=FLOATS,
        accepts=SCHEMA,
        attrs=attrs,
        kernel_steps=_steps,
        **more,
    )


AVG_POOL = build(
    "AvgPool",
    "The average of each window of src (padded positions counted or not, per exclude_pad).",
    (*WINDOW, EXCLUDE_PAD, ROUNDING, AUTO_PAD, DATA_FORMAT),
    rules=_rules("AvgPool", dilations=False, ceil=True, backward=None),
    shape=_avg_pool_shape,
    kernel=_avg_pool,
    tolerance=AVG_TOLERANCE,
)
MAX_POOL = build(
    "MaxPool",
    "The maximum of each window of src (padding never wins).",
    (*WINDOW, ROUNDING, AUTO_PAD, DILATIONS, DATA_FORMAT),
    rules=_rules("MaxPool", dilations=True, ceil=False, backward=None),
    shape=_max_pool_shape,
    kernel=_max_pool,
)


def _max_pool_backward_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    kind = "MaxPoolBackward"
    src = d.inputs[0].shape
    expected, ok = _forward_shape(kind, d, ctx, src)
    if ok and not _check_diff_dst(kind, d, ctx, 1, expected, src):
        return None
    return [src] if ok else None


MAX_POOL_BACKWARD = family.build(
    "MaxPoolBackward",
    family=FAMILY,
    page="MaxPoolBackward",
    summary="The gradient of MaxPool: each diff_dst value goes to where its window's maximum was in src.",
    inputs=(
        In("src", "The forward op's src."),
        In("diff_dst", "The gradient of dst: MaxPool's output shape."),
    ),
    outputs=(Out("diff_src", "src's shape."),),
    table=rows("src diff_dst diff_src", "f32 f32 f32", "bf16 bf16 bf16", "f16 f16 f16"),
    accepts=constraints("src:T diff_dst:T diff_src:T", T="f32 bf16 f16"),
    attrs=(*WINDOW, AUTO_PAD, DILATIONS, DATA_FORMAT),
    rules=_rules("MaxPoolBackward", dilations=True, ceil=False, backward="Inputs (diff_dst)"),
    notes=(
        "Where a window holds its maximum more than once, the gradient goes to the first such tap in "
        "row-major order of the kernel.",
    ),
    shape=_max_pool_backward_shape,
    kernel=_max_pool_backward,
    kernel_steps=_steps,
)


APB = "AvgPoolBackward"


def _avg_backward_src_shape(d: Any, arrays: Sequence[np.ndarray]) -> tuple[int, ...]:
    if len(arrays) > 1:
        return tuple(int(v) for v in arrays[1].reshape(-1))
    return tuple(d.attrs.src_shape)


def _avg_pool_backward_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    diff_dst = d.inputs[0].shape
    given = d.attrs.src_shape
    src: Shape | None = None
    path = "attrs.src_shape"
    if len(d.inputs) > 1:
        path = "inputs[1]"
        ctx.warn(
            f"{APB}.onednn.src_shape_input",
            "inputs[1]",
            "src_shape as an input: oneDNN 3.13 infers no shape from it (unimplemented); give the attribute "
            "src_shape to run on it",
        )
        tensor = d.inputs[1]
        if tensor.shape is not None and len(tensor.shape) != 1:
            ctx.error(f"{APB}.src_shape.rank", "inputs[1].shape",
                      f"the src_shape input must be 1-D; it has shape {format_shape(tensor.shape)}")  # fmt: skip
            return None
        values = ctx.values(1)
        if values is not None:
            src = tuple(int(v) for v in values.reshape(-1))
        elif tensor.shape is not None and isinstance(tensor.shape[0], int):
            src = (None,) * tensor.shape[0]
    elif given is not None:
        src = tuple(given)
    else:
        ctx.error(f"{APB}.src_shape.missing", "attrs",
                  f"{APB} needs src_shape, as the input or the attribute; neither is given")  # fmt: skip
        return None
    if src is not None:
        bad = [i for i, v in enumerate(src) if isinstance(v, int) and v <= 0]
        for i in bad:
            ctx.error(f"{APB}.src_shape.range", f"{path}[{i}]" if path.startswith("attrs") else path,
                      f"src_shape[{i}] is {src[i]}; {APB} needs positive sizes")  # fmt: skip
        if bad:
            return None
        if diff_dst is not None and len(src) != len(diff_dst):
            ctx.error(
                f"{APB}.src_shape.rank",
                path,
                f"src_shape {format_shape(src)} has rank {len(src)}; diff_dst {format_shape(diff_dst)} has rank "
                f"{len(diff_dst)}",
            )
            return None
    # the forward window on src_shape: diff_dst must be its output
    expected, ok = _forward_shape(APB, d, ctx, src, "src_shape", path)
    if ok and not _check_diff_dst(APB, d, ctx, 0, expected, src):
        return None
    return [src] if ok else None


AVG_POOL_BACKWARD = family.build(
    APB,
    family=FAMILY,
    page=APB,
    summary="The gradient of AvgPool: each diff_dst value spread over its window's positions in src.",
    inputs=(
        In("diff_dst", "The gradient of dst: AvgPool's output shape for src_shape."),
        In(
            "src_shape",
            "The forward op's src shape, 1-D s32 (before the attribute when both are given).",
            optional=True,
        ),
    ),
    outputs=(Out("diff_src", "src_shape."),),
    table=rows("diff_dst src_shape diff_src", "f32 s32 f32", "bf16 s32 bf16", "f16 s32 f16"),
    accepts=None,
    attrs=(
        *WINDOW,
        EXCLUDE_PAD,
        AUTO_PAD,
        DATA_FORMAT,
        Attr("src_shape", "s64[]", "The forward op's src shape: positive sizes."),
    ),
    rules=[
        *_rules(APB, dilations=False, ceil=False, backward="Inputs (diff_dst)"),
        Rule(
            f"{APB}.src_shape.missing",
            "src_shape is given, as the input or the attribute.",
            f"{_page(APB)}, note on src_shape",
        ),
        Rule(
            f"{APB}.src_shape.rank",
            "src_shape is 1-D (the input) with diff_dst's rank entries.",
            f"{_page(APB)}, Inputs",
        ),
        Rule(
            f"{APB}.src_shape.range", "src_shape's sizes are positive.", f"{_page(APB)}, attribute src_shape"
        ),
        Rule(
            f"{APB}.onednn.src_shape_input",
            "oneDNN 3.13 infers no shape from the src_shape input.",
            "oneDNN 3.13 shape inference (infer_pool_bwd_output_shape)",
            "warning",
        ),
    ],
    shape=_avg_pool_backward_shape,
    kernel=_avg_pool_backward,
    tolerance=AVG_TOLERANCE,
    kernel_steps=_steps,
)

OPS = (AVG_POOL, MAX_POOL, AVG_POOL_BACKWARD, MAX_POOL_BACKWARD)
