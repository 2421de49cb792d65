"""oneDNN Graph's convolution family: Convolution, ConvTranspose and their backward ops.

All six are one sliding window seen from two sides. The *big* side is the convolution's input (its
src, diff_src; the transposed op's dst, diff_dst), the *small* side the convolution's output, and the
weights hold, per tap, a matrix from one side's channels to the other's:

    op                            big side          small side        weights          computes
    Convolution                   src               dst (out)         weights          small
    ConvolutionBackwardData       diff_src (out)    diff_dst          weights          big
    ConvolutionBackwardWeights    src               diff_dst          diff_weights     weights
    ConvTranspose                 dst (out)         src               weights          big
    ConvTransposeBackwardData     diff_dst          diff_src (out)    weights          small
    ConvTransposeBackwardWeights  diff_dst          src               diff_weights     weights

The weights' letters: for the convolution ops O is the small side's channels and I the big side's per
group; for the transposed ops I is the small side's channels and O the big side's per group (oneDNN
reads IOX weights [in_channels, out_channels / groups, ...]; benchdnn's grouped deconvolutions are
written so). Sizes along each spatial dim come from app/core/windows.py: small = window_output(big),
big = transposed_output(small) for ConvTranspose, and where both sides are given they must agree.

Evaluation, in NCX and [small channels, big channels per group, taps] order, f32 throughout: for each
tap in row-major order, one matrix product per group over the channels (NumPy's matmul in f32),
added to the accumulator; bias last; the answer rounded once to dst's dtype.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core import dims, family
from app.core.diagnostics import Rule
from app.core.engine import Context
from app.core.family import ONEDNN_VERSION, Attr, In, Out, rows
from app.core.mismatch import Tolerance
from app.core.numbers import show
from app.core.registry import KernelSteps, OpSpec
from app.core.shapes import Dim, Shape, dims_conflict, format_shape
from app.core.windows import (
    AUTO_PAD_MODES,
    ONEDNN_AUTO_PAD,
    auto_pad_mode,
    auto_pads,
    transposed_output,
    window_fits,
    window_output,
)

FAMILY = "convolution"
SPATIAL = (1, 2, 3)  # spatial ranks: 1-D to 3-D, as the pages' formulas and oneDNN's kernels have them
MAX_NDIMS = 12  # oneDNN's DNNL_MAX_NDIMS: the length of its default output_padding / dst_shape

# --- the members as data ----------------------------------------------------------------------------

BIG, SMALL, WEIGHTS = "big", "small", "weights"


@dataclass(frozen=True)
class Member:
    kind: str
    transposed: bool  # weights' letters: small side I (transposed ops) or O (convolution ops)
    computes: str  # BIG, SMALL or WEIGHTS
    big: int | None  # the input index of each part, None for the computed one (or a shape input's)
    small: int | None
    weights: int | None
    shape_attr: str | None = None  # dst_shape / weights_shape: the computed part's shape, as an attribute
    has_bias: bool = False
    has_output_padding: bool = False

    @property
    def small_letter(self) -> str:
        return "I" if self.transposed else "O"

    @property
    def big_letter(self) -> str:
        return "O" if self.transposed else "I"


CONVOLUTION = Member("Convolution", False, SMALL, big=0, small=None, weights=1, has_bias=True)
CONV_BWD_DATA = Member(
    "ConvolutionBackwardData", False, BIG, big=None, small=0, weights=1, shape_attr="dst_shape",
    has_output_padding=True,
)  # fmt: skip
CONV_BWD_WEIGHTS = Member(
    "ConvolutionBackwardWeights", False, WEIGHTS, big=0, small=1, weights=None, shape_attr="weights_shape"
)
CONV_TRANSPOSE = Member(
    "ConvTranspose", True, BIG, big=None, small=0, weights=1, has_bias=True, has_output_padding=True
)
CONVT_BWD_DATA = Member(
    "ConvTransposeBackwardData", True, SMALL, big=0, small=None, weights=1, has_output_padding=True
)
CONVT_BWD_WEIGHTS = Member(
    "ConvTransposeBackwardWeights", True, WEIGHTS, big=1, small=0, weights=None, shape_attr="weights_shape",
    has_output_padding=True,
)  # fmt: skip


def _attrs(member: Member, weights_formats: tuple[str, ...]) -> tuple[Attr, ...]:
    out = [
        Attr("strides", "s64[]", "The step of the window along each spatial dim (positive).", required=True),
        Attr("pads_begin", "s64[]", "Zeros added before each spatial dim (non-negative).", required=True),
        Attr("pads_end", "s64[]", "Zeros added after each spatial dim (non-negative).", required=True),
        Attr("dilations", "s64[]", "The distance between kernel taps along each spatial dim (positive).",
             required=True),
        Attr("auto_pad", "string", "How the padding is worked out: none, same_upper, same_lower, valid "
             "(oneDNN spells them None, SAME_UPPER, SAME_LOWER, VALID).", default="None"),
        Attr("groups", "s64", "The number of groups the channels are split into (positive).", default=1),
        Attr("data_format", "string", "How the data tensors' dims are ordered: NCX or NXC.", default="NXC",
             values=("NCX", "NXC")),
        Attr("weights_format", "string", "How the weights' dims are ordered.", default=weights_formats[-1],
             values=weights_formats),
    ]  # fmt: skip
    if member.has_output_padding:
        out.insert(
            5,
            Attr(
                "output_padding",
                "s64[]",
                "Extra size added at the end of each spatial dim of the transposed output (non-negative).",
                default=[0] * MAX_NDIMS,
            ),
        )
    if member.shape_attr:
        part = "diff_src" if member.computes == BIG else "diff_weights"
        out.append(Attr(member.shape_attr, "s64[]", f"The shape of {part} (positive values)."))
    return tuple(out)


# --- shapes -----------------------------------------------------------------------------------------


def split_data(shape: Shape, fmt: str) -> tuple[Dim, Dim, Shape]:
    """(batch, channels, spatial dims) of a data tensor in NCX or NXC."""
    return (
        (shape[0], shape[1], tuple(shape[2:])) if fmt == "NCX" else (shape[0], shape[-1], tuple(shape[1:-1]))
    )


def join_data(n: Dim, c: Dim, spatial: Sequence[Dim], fmt: str) -> Shape:
    return (n, c, *spatial) if fmt == "NCX" else (n, *spatial, c)


def weights_axes(fmt: str, rank: int) -> dict[str, Any]:
    """Where O, I and the spatial dims X lie in a weights tensor of this format and rank."""
    if fmt.endswith("X"):
        return {fmt[0]: 0, fmt[1]: 1, "X": tuple(range(2, rank))}
    return {fmt[1]: rank - 2, fmt[2]: rank - 1, "X": tuple(range(rank - 2))}


def split_weights(shape: Shape, fmt: str, member: Member) -> tuple[Dim, Dim, Shape]:
    """(small side's channels, big side's channels per group, kernel dims)."""
    axes = weights_axes(fmt, len(shape))
    return (
        shape[axes[member.small_letter]],
        shape[axes[member.big_letter]],
        tuple(shape[a] for a in axes["X"]),
    )


def join_weights(small: Dim, big: Dim, kernel: Sequence[Dim], fmt: str, member: Member) -> Shape:
    rank = len(kernel) + 2
    axes = weights_axes(fmt, rank)
    out: list[Dim] = [None] * rank
    out[axes[member.small_letter]] = small
    out[axes[member.big_letter]] = big
    for axis, size in zip(axes["X"], kernel, strict=True):
        out[axis] = size
    return tuple(out)


@dataclass
class Window:
    """The attributes resolved to one spatial rank: per-dim strides, dilations and the given pads."""

    strides: list[int]
    dilations: list[int]
    pads_begin: list[int]
    pads_end: list[int]
    output_padding: list[int]
    mode: str  # auto_pad, lowercase
    groups: int

    def pads(self, i: int, big: Dim, kernel: Dim, transposed: bool) -> tuple[Dim, Dim] | None:
        """The pads along spatial dim i: given, or as auto_pad works them out (from the big side's size,
        except ConvTranspose's, which depend on no size)."""
        if self.mode == "none":
            return self.pads_begin[i], self.pads_end[i]
        return auto_pads(big, kernel, self.strides[i], self.dilations[i], self.mode, transposed)


def _window(d: Any, member: Member, r: int) -> Window:
    def per_dim(name: str, fill: int) -> list[int]:
        value = getattr(d.attrs, name) or ()
        return value if len(value) == r else (list(value) + [fill] * r)[:r]  # short lists: reported already

    return Window(
        per_dim("strides", 1),
        per_dim("dilations", 1),
        per_dim("pads_begin", 0),
        per_dim("pads_end", 0),
        per_dim("output_padding", 0) if member.has_output_padding else [0] * r,
        auto_pad_mode(_get(d, member, "auto_pad")) or "none",
        _get(d, member, "groups"),
    )


def _get(d: Any, member: Member, name: str) -> Any:
    """An attribute's value, its default when absent (oneDNN's defaults: the transposed ops' weights XOI)."""
    value = getattr(d.attrs, name)
    return DEFAULTS[member.kind][name] if value is None else value


@dataclass
class Parts:
    """The shapes of the three parts (None where unknown), and where each came from."""

    big: Shape | None
    small: Shape | None
    weights: Shape | None
    given_shape: str | None = None  # where the computed part's shape was read, for messages


def _given_shape(
    d: Any, member: Member, ctx: Context | None, arrays: Sequence[np.ndarray] | None
) -> tuple[Shape | None, str | None]:
    """The computed part's shape, for the backward ops that are told it: the shape input's values (they
    take precedence, as the pages say), else the attribute."""
    if len(d.inputs) > 2:
        values = arrays[2] if arrays is not None else ctx.values(2) if ctx is not None else None
        if values is not None and values.ndim == 1:
            return tuple(int(v) for v in values), "inputs[2].data"
        return None, None
    value = getattr(d.attrs, member.shape_attr)  # type: ignore[arg-type]
    if value is None:
        return None, None
    return tuple(value), f"attrs.{member.shape_attr}"


def _parts(
    d: Any, member: Member, ctx: Context | None = None, arrays: Sequence[np.ndarray] | None = None
) -> Parts:
    def given(index: int | None) -> Shape | None:
        if index is None:
            return None
        s = arrays[index].shape if arrays is not None else d.inputs[index].shape
        return None if s is None else tuple(s)

    parts = Parts(given(member.big), given(member.small), given(member.weights))
    if member.shape_attr is not None:
        shape, where = _given_shape(d, member, ctx, arrays)
        if member.computes == BIG:
            parts.big = shape
        else:
            parts.weights = shape
        parts.given_shape = where
    return parts


PART_NAMES = {
    "Convolution": {BIG: "src", SMALL: "dst", WEIGHTS: "weights"},
    "ConvolutionBackwardData": {BIG: "diff_src", SMALL: "diff_dst", WEIGHTS: "weights"},
    "ConvolutionBackwardWeights": {BIG: "src", SMALL: "diff_dst", WEIGHTS: "diff_weights"},
    "ConvTranspose": {BIG: "dst", SMALL: "src", WEIGHTS: "weights"},
    "ConvTransposeBackwardData": {BIG: "diff_dst", SMALL: "diff_src", WEIGHTS: "weights"},
    "ConvTransposeBackwardWeights": {BIG: "diff_dst", SMALL: "src", WEIGHTS: "diff_weights"},
}


def _path(member: Member, part: str, parts: Parts) -> str:
    index = getattr(member, part)
    if index is not None:
        return f"inputs[{index}].shape"
    return parts.given_shape or "attrs"


# Each list attribute and its lowest allowed value (output_padding last: not every member has it).
LOWEST_VALUES = (("strides", 1), ("dilations", 1), ("pads_begin", 0), ("pads_end", 0), ("output_padding", 0))


class _Check:
    """The family's shape rule: every rule of the family's table checked on one descriptor."""

    def __init__(self, d: Any, member: Member, ctx: Context):
        self.d, self.m, self.ctx, self.kind = d, member, ctx, member.kind
        self.names = PART_NAMES[member.kind]
        self.ok = True

    def error(self, rule: str, path: str, message: str) -> None:
        self.ctx.error(f"{self.kind}.{rule}", path, message)
        self.ok = False

    def run(self) -> list[Shape | None] | None:
        d, m = self.d, self.m
        self._attr_values()
        parts = _parts(d, m, self.ctx)
        if m.shape_attr is not None:
            self._shape_given(parts)
        r = self._spatial_rank(parts)
        if not self.ok:
            return None
        if r is None:
            return [None]
        self._lengths(r)
        if not self.ok:
            return None
        window = _window(d, m, r)
        fmt, wfmt = _get(d, m, "data_format"), _get(d, m, "weights_format")
        big = split_data(parts.big, fmt) if parts.big is not None else (None, None, (None,) * r)
        small = split_data(parts.small, fmt) if parts.small is not None else (None, None, (None,) * r)
        weights = (
            split_weights(parts.weights, wfmt, m) if parts.weights is not None else (None, None, (None,) * r)
        )
        self._channels(parts, big, small, weights, window.groups, wfmt)
        if m.has_bias and len(d.inputs) > 2:
            g = window.groups
            out_channels = weights[0] if m.computes == SMALL else _times(weights[1], g)
            self._bias(out_channels)
        spatial = self._spatial(parts, big[2], small[2], weights[2], window)
        if not self.ok:
            return None
        return [self._answer(parts, big, small, weights, spatial, window.groups, fmt, wfmt)]

    # -- attributes --

    def _attr_values(self) -> None:
        d = self.d
        for name, low in LOWEST_VALUES[: 5 if self.m.has_output_padding else 4]:
            values = getattr(d.attrs, name)
            if values and min(values) < low:
                for i, v in enumerate(values):
                    if v < low:
                        what = "positive" if low else "non-negative"
                        rule = {"pads_begin": "pads", "pads_end": "pads"}.get(name, name)
                        self.error(
                            f"{rule}.value",
                            f"attrs.{name}[{i}]",
                            f"{name}[{i}] is {v}; {self.kind}'s {name} are {what}",
                        )
        if self.m.transposed and self.m.computes != BIG and "output_padding" in d.attrs.model_fields_set:
            self.ctx.warn(
                f"{self.kind}.onednn.output_padding",
                "attrs.output_padding",
                f"{self.kind}'s page lists output_padding, but {ONEDNN_VERSION} refuses the attribute at add_op "
                '("not defined in spec"); it does not change this op\'s shapes',
            )
        groups = d.attrs.groups
        if groups is not None and groups < 1:
            self.error(
                "groups.value",
                "attrs.groups",
                f"groups is {groups}; {self.kind} needs a positive number of groups",
            )
        spelling = d.attrs.auto_pad
        if spelling is not None:
            mode = auto_pad_mode(spelling)
            if mode is None:
                self.error("auto_pad", "attrs.auto_pad", f"auto_pad is {show(spelling)}; {self.kind} supports "
                           f"{', '.join(AUTO_PAD_MODES)} (oneDNN spells them {', '.join(ONEDNN_AUTO_PAD.values())})")  # fmt: skip
            elif spelling != ONEDNN_AUTO_PAD[mode]:
                self.ctx.warn(f"{self.kind}.onednn.auto_pad", "attrs.auto_pad", f"auto_pad {show(spelling)} is the "
                              f"page's {mode}; {ONEDNN_VERSION} refuses that spelling at add_op and takes "
                              f"{show(ONEDNN_AUTO_PAD[mode])}")  # fmt: skip
        wfmt = d.attrs.weights_format
        if self.m.transposed and wfmt in ("OIX", "XIO"):
            self.ctx.warn(f"{self.kind}.onednn.weights_format", "attrs.weights_format", f"weights_format "
                          f"{wfmt} is in the page's attribute table, but {ONEDNN_VERSION} refuses it for "
                          f"{self.kind} at add_op (it takes IOX and XOI, as the page's note on weights says)")  # fmt: skip

    def _shape_given(self, parts: Parts) -> None:
        d, m = self.d, self.m
        name = m.shape_attr
        value = getattr(d.attrs, name)  # type: ignore[arg-type]
        if len(d.inputs) > 2:
            self.ctx.warn(f"{self.kind}.onednn.shape_input", "inputs[2]", f"{name} is given as an input; "
                          f"{ONEDNN_VERSION} supports no partition that reads it (it infers from the attribute "
                          "only)")  # fmt: skip
            shape_input = d.inputs[2].shape
            if shape_input is not None and len(shape_input) != 1:
                self.error(f"{name}.value", "inputs[2].shape", f"the {name} input has shape "
                           f"{format_shape(shape_input)}; it is a 1-D list of sizes")  # fmt: skip
        elif value is None:
            self.error(f"{name}.required", "attrs", f"{self.kind} needs {name}, as an attribute or as input 2; "
                       "neither is given")  # fmt: skip
        if parts.given_shape is not None:
            for i, v in enumerate(parts.big if m.computes == BIG else parts.weights):  # type: ignore[arg-type]
                if v < 1:
                    self.error(
                        f"{name}.value",
                        f"{parts.given_shape}[{i}]",
                        f"{name}[{i}] is {v}; sizes are positive",
                    )

    def _spatial_rank(self, parts: Parts) -> int | None:
        r = None
        for part in (BIG, SMALL, WEIGHTS):
            shape = getattr(parts, part)
            if shape is None:
                continue
            if not 3 <= len(shape) <= 5:
                self.error("rank", _path(self.m, part, parts), f"{self.names[part]} has rank {len(shape)} "
                           f"{format_shape(shape)}; {self.kind} takes rank 3 to 5 (1 to 3 spatial dims)")  # fmt: skip
                continue
            if r is None:
                r = len(shape) - 2
            elif len(shape) - 2 != r:
                self.error("rank", _path(self.m, part, parts), f"{self.names[part]} has rank {len(shape)} "
                           f"{format_shape(shape)}; the other tensors have rank {r + 2}")  # fmt: skip
        return r

    def _lengths(self, r: int) -> None:
        d = self.d
        for name in ("strides", "dilations", "pads_begin", "pads_end"):
            values = getattr(d.attrs, name)
            if values is not None and len(values) != r:
                self.error("attrs.length", f"attrs.{name}", f"{name} has {len(values)} entries {show(values)}; "
                           f"{r} spatial dim(s) need {r}")  # fmt: skip
        if self.m.has_output_padding and d.attrs.output_padding is not None:
            values = d.attrs.output_padding
            if len(values) < r or any(values[r:]):
                self.error("attrs.length", "attrs.output_padding", f"output_padding has {len(values)} entries "
                           f"{show(values)}; {r} spatial dim(s) need {r} (oneDNN's default has {MAX_NDIMS}: entries "
                           "past the spatial dims must be 0)")  # fmt: skip

    # -- channels --

    def _channels(self, parts: Parts, big, small, weights, g: int, wfmt: str) -> None:
        m, names = self.m, self.names
        if g < 1:
            return
        w_small, w_big = weights[0], weights[1]
        for part, channels in ((BIG, big[1]), (SMALL, small[1])):
            if isinstance(channels, int) and channels % g:
                self.error("groups", _path(m, part, parts), f"{names[part]} has {channels} channels, which "
                           f"groups {g} does not divide")  # fmt: skip
        if small[1] is None and isinstance(w_small, int) and w_small % g:  # the small side is computed
            self.error("groups", _path(m, WEIGHTS, parts), f"{self._weights_named(parts, wfmt)} has {w_small} {names[SMALL]} channels in "
                       f"its {m.small_letter} dim, which groups {g} does not divide")  # fmt: skip
        if isinstance(big[1], int) and not big[1] % g and dims_conflict(big[1] // g, w_big):
            self.error("channels", _path(m, WEIGHTS, parts), f"{names[BIG]} has {big[1]} channels, {big[1] // g} "
                       f"per group of {g}, but {self._weights_named(parts, wfmt)} has {w_big} in its "
                       f"{m.big_letter} dim")  # fmt: skip
        if dims_conflict(small[1], w_small):
            self.error("channels", _path(m, WEIGHTS, parts), f"{names[SMALL]} has {small[1]} channels, but "
                       f"{self._weights_named(parts, wfmt)} has {w_small} in its {m.small_letter} dim")  # fmt: skip
        if m.transposed and g > 1:
            self.ctx.warn(f"{self.kind}.onednn.group_layout", "attrs.groups", f"with groups {g}, {self.kind} "
                          f"reads {wfmt} weights as [in_channels, out_channels / groups] (oneDNN 3.13 and "
                          "benchdnn's graphs do), not the page note's [in_channels / groups, out_channels]")  # fmt: skip
        if (
            isinstance(parts.big, tuple)
            and isinstance(parts.small, tuple)
            and dims_conflict(big[0], small[0])
        ):
            self.error("batch", _path(m, SMALL, parts), f"{names[SMALL]} has batch {small[0]}, {names[BIG]} has "
                       f"{big[0]}")  # fmt: skip

    def _weights_named(self, parts: Parts, wfmt: str) -> str:
        return f"{self.names[WEIGHTS]} {format_shape(parts.weights)} ({wfmt})"

    def _bias(self, out: Dim) -> None:
        bias = self.d.inputs[2].shape
        if bias is None:
            return
        if len(bias) != 1 or dims_conflict(bias[0], out):
            self.error("bias", "inputs[2].shape", f"bias has shape {format_shape(bias)}; it is 1-D with one "
                       f"value per output channel ({out if out is not None else '?'}) (oneDNN aborts the "
                       "process on any other)")  # fmt: skip

    # -- spatial --

    def _spatial(self, parts: Parts, big_sp, small_sp, kernel, w: Window) -> list[Dim]:
        """The computed side's spatial dims; where both sides are given, their agreement."""
        m, names, out = self.m, self.names, []
        for i in range(len(kernel)):
            s, dil, k = w.strides[i], w.dilations[i], kernel[i]
            pads = w.pads(i, big_sp[i], k, transposed=m.kind == "ConvTranspose")
            if pads is None:
                self.ctx.warn(f"{self.kind}.auto_pad.unknown", "attrs.auto_pad", f"auto_pad {w.mode} needs "
                              f"{names[BIG]}'s size in spatial dim {i} and the kernel's; one is not known, so the "
                              "pads and that dim of the answer are unknown")  # fmt: skip
                out.append(None)
                continue
            pb, pe = pads
            if m is CONV_TRANSPOSE and w.output_padding[i] >= s and w.output_padding[i] > 0:
                self.error("output_padding.range", f"attrs.output_padding[{i}]", f"output_padding[{i}] is "
                           f"{w.output_padding[i]}; it must be less than the stride there ({s}): {ONEDNN_VERSION} "
                           "aborts the process otherwise")  # fmt: skip
            if m.computes == BIG and m.kind == "ConvTranspose":
                size = transposed_output(small_sp[i], k, s, dil, pb, pe, w.output_padding[i])
                if isinstance(size, int) and size < 1:
                    self.error("window", "attrs.pads_end", f"spatial dim {i} of {names[BIG]} comes out {size}: "
                               f"{s} * ({small_sp[i]} - 1) + the kernel's span less pads {pb} + {pe}")  # fmt: skip
                out.append(size)
                continue
            computed = window_output(big_sp[i], k, s, dil, pb, pe)
            if (
                isinstance(big_sp[i], int)
                and isinstance(k, int)
                and not window_fits(big_sp[i], k, dil, pb, pe)
            ):
                self.ctx.warn(f"{self.kind}.window", _path(m, BIG, parts), f"in spatial dim {i}, the kernel "
                              f"spans {(k - 1) * dil + 1} but {names[BIG]} padded is {big_sp[i] + pb + pe}: no "
                              f"window position, so {names[SMALL]} is empty there")  # fmt: skip
            if m.computes == SMALL:
                out.append(computed)
            elif dims_conflict(computed, small_sp[i]):
                self.error("shapes.agree", _path(m, SMALL if m.computes == BIG else BIG, parts), f"in spatial dim {i}, "
                           f"{names[BIG]}'s {big_sp[i]} gives {computed} window positions (kernel {k}, stride {s}, "
                           f"dilation {dil}, pads {pb}, {pe}), but {names[SMALL]} has {small_sp[i]} (oneDNN aborts "
                           "the process on this)")  # fmt: skip
        return out

    def _answer(
        self, parts: Parts, big, small, weights, spatial, g: int, fmt: str, wfmt: str
    ) -> Shape | None:
        m = self.m
        if m.computes == SMALL:
            return join_data(big[0], weights[0], spatial, fmt)
        if m.computes == WEIGHTS:
            if parts.weights is not None:
                return parts.weights
            per_group = dims.floordiv(big[1], g)
            return join_weights(small[1], per_group, weights[2], wfmt, m)
        if parts.big is not None:  # told (dst_shape)
            return parts.big
        if m.shape_attr is not None:  # a shape input without values: its length is the rank, if known
            shape_input = self.d.inputs[2].shape
            length = shape_input[0] if shape_input else None
            return (None,) * length if isinstance(length, int) else None
        return join_data(small[0], _times(weights[1], g), spatial, fmt)


def _times(channels: Dim, groups: int) -> Dim:
    """Per-group channels times the groups."""
    return dims.mul(channels, groups)


def shape_rule(member: Member):
    def rule(d: Any, ctx: Context) -> list[Shape | None] | None:
        return _Check(d, member, ctx).run()

    return rule


# --- evaluation -------------------------------------------------------------------------------------


@dataclass
class Plan:
    """One evaluation's geometry, static: pads resolved, every size known."""

    n: int
    big: tuple[int, ...]  # the big side's spatial dims (unpadded)
    small: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: list[int]
    dilations: list[int]
    pads: list[tuple[int, int]]
    groups: int
    big_channels: int
    small_channels: int

    def taps(self) -> list[tuple[int, ...]]:
        return list(itertools.product(*(range(k) for k in self.kernel)))

    def window(self, tap: tuple[int, ...]) -> tuple[slice, ...]:
        """The padded big side's positions the tap meets, one per small-side position."""
        return tuple(
            slice(t * d, t * d + (n - 1) * s + 1, s)
            for t, d, n, s in zip(tap, self.dilations, self.small, self.strides, strict=True)
        )

    @property
    def macs(self) -> int:
        per_group = self.big_channels // self.groups
        return self.n * self.small_channels * math.prod(self.small) * per_group * math.prod(self.kernel)


def _plan(d: Any, member: Member, arrays: Sequence[np.ndarray]) -> Plan:
    """The geometry of a descriptor that validated: the weights are given or told (weights_shape), one
    data side at least is given, the other comes from the windows as the shape rule has it."""
    fmt, wfmt = _get(d, member, "data_format"), _get(d, member, "weights_format")
    parts = _parts(d, member, arrays=arrays)
    w_small, w_big, kernel = split_weights(parts.weights, wfmt, member)  # type: ignore[arg-type]
    r = len(kernel)
    window = _window(d, member, r)
    g, transposed = window.groups, member.kind == "ConvTranspose"
    if parts.big is not None:
        n, big_c, big_sp = split_data(parts.big, fmt)
        pads = [window.pads(i, big_sp[i], kernel[i], transposed) for i in range(r)]
    else:  # ConvTranspose's pads depend on no size
        pads = [window.pads(i, None, kernel[i], transposed) for i in range(r)]
    if parts.small is not None:
        n, small_c, small_sp = split_data(parts.small, fmt)
    else:  # computed: the windows over the big side
        small_c = w_small
        small_sp = tuple(window_output(big_sp[i], kernel[i], window.strides[i], window.dilations[i], *pads[i])
                         for i in range(r))  # fmt: skip
    if parts.big is None:  # ConvTranspose: the transposed windows
        big_c = w_big * g
        big_sp = tuple(transposed_output(small_sp[i], kernel[i], window.strides[i], window.dilations[i], *pads[i],
                                         window.output_padding[i]) for i in range(r))  # fmt: skip
    return Plan(n, big_sp, small_sp, kernel, window.strides, window.dilations, pads, g, big_c, small_c)  # type: ignore[arg-type]


def _to_ncx(x: np.ndarray, fmt: str) -> np.ndarray:
    return x if fmt == "NCX" else np.moveaxis(x, -1, 1)


def _from_ncx(x: np.ndarray, fmt: str) -> np.ndarray:
    return x if fmt == "NCX" else np.moveaxis(x, 1, -1)


def _weights_order(fmt: str, rank: int, member: Member) -> list[int]:
    axes = weights_axes(fmt, rank)
    return [axes[member.small_letter], axes[member.big_letter], *axes["X"]]


def _pad(x: np.ndarray, plan: Plan) -> np.ndarray:
    return np.pad(x, [(0, 0), (0, 0), *plan.pads])


def correlate(x: np.ndarray, w: np.ndarray, plan: Plan) -> np.ndarray:
    """The small side from the big one: x [N, Cb, *big], w [Cs, Cb/g, *kernel] -> [N, Cs, *small]."""
    g, n = plan.groups, plan.n
    cb, cs = plan.big_channels // g, plan.small_channels // g
    xg = _pad(x, plan).reshape(n, g, cb, *np.add(plan.big, [sum(p) for p in plan.pads]))
    wg = w.reshape(g, cs, cb, *plan.kernel)
    acc = np.zeros((n, g, cs, math.prod(plan.small)), np.float32)
    for tap in plan.taps():
        patch = xg[(..., *plan.window(tap))].reshape(n, g, cb, -1)
        acc += np.matmul(wg[(..., *tap)], patch)
    return acc.reshape(n, g * cs, *plan.small)


def scatter(x: np.ndarray, w: np.ndarray, plan: Plan) -> np.ndarray:
    """The big side from the small one (the transpose of correlate): x [N, Cs, *small],
    w [Cs, Cb/g, *kernel] -> [N, Cb, *big]."""
    g, n = plan.groups, plan.n
    cb, cs = plan.big_channels // g, plan.small_channels // g
    padded = [b + sum(p) for b, p in zip(plan.big, plan.pads, strict=True)]
    acc = np.zeros((n, g, cb, *padded), np.float32)
    xg = x.reshape(n, g, cs, -1)
    wg = np.swapaxes(w.reshape(g, cs, cb, *plan.kernel), 1, 2)  # [g, cb, cs, *kernel]
    for tap in plan.taps():
        acc[(..., *plan.window(tap))] += np.matmul(wg[(..., *tap)], xg).reshape(n, g, cb, *plan.small)
    crop = tuple(slice(p[0], p[0] + b) for p, b in zip(plan.pads, plan.big, strict=True))
    return acc[(..., *crop)].reshape(n, g * cb, *plan.big)


def weights_gradient(big: np.ndarray, small: np.ndarray, plan: Plan) -> np.ndarray:
    """The weights from both sides: big [N, Cb, *big], small [N, Cs, *small] -> [Cs, Cb/g, *kernel];
    the batch summed last, in f32."""
    g, n = plan.groups, plan.n
    cb, cs = plan.big_channels // g, plan.small_channels // g
    xg = _pad(big, plan).reshape(n, g, cb, *np.add(plan.big, [sum(p) for p in plan.pads]))
    dyg = small.reshape(n, g, cs, -1)
    out = np.zeros((g, cs, cb, *plan.kernel), np.float32)
    for tap in plan.taps():
        patch = xg[(..., *plan.window(tap))].reshape(n, g, cb, -1)
        out[(..., *tap)] = np.matmul(dyg, np.swapaxes(patch, -1, -2)).sum(axis=0, dtype=np.float32)
    return out.reshape(g * cs, cb, *plan.kernel)


def kernel_for(member: Member):
    def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
        fmt, wfmt = _get(d, member, "data_format"), _get(d, member, "weights_format")
        plan = _plan(d, member, arrays)
        data = {part: _to_ncx(arrays[index].astype(np.float32), fmt) for part, index in
                ((BIG, member.big), (SMALL, member.small)) if index is not None}  # fmt: skip
        with np.errstate(all="ignore"):  # inf and NaN are answers here
            if member.computes == WEIGHTS:
                w = weights_gradient(data[BIG], data[SMALL], plan)
                order = _weights_order(wfmt, w.ndim, member)
                return [np.transpose(w, np.argsort(order))]
            w = np.transpose(
                arrays[member.weights].astype(np.float32), _weights_order(wfmt, arrays[1].ndim, member)
            )  # type: ignore[index]
            y = correlate(data[BIG], w, plan) if member.computes == SMALL else scatter(data[SMALL], w, plan)
            if member.has_bias and len(arrays) > 2:
                y = y + arrays[2].astype(np.float32).reshape(-1, *([1] * (y.ndim - 2)))
            return [_from_ncx(y, fmt)]

    return kernel


def steps_for(member: Member):
    def steps(d: Any, arrays: Sequence[np.ndarray]) -> KernelSteps:
        plan = _plan(d, member, arrays)
        return KernelSteps(
            plan.macs,
            f"inputs[{member.weights if member.weights is not None else 1}].shape",
            f"{plan.macs:,} multiply-adds: {math.prod(plan.kernel)} taps over {plan.n * plan.small_channels * math.prod(plan.small):,} "
            f"outputs of {plan.big_channels // plan.groups} channels each",
        )

    return steps


# --- the ops ----------------------------------------------------------------------------------------

TOLERANCE = Tolerance(
    ulps=128,
    absolute=1e-5,
    why="sums of channels x taps products in f32: oneDNN blocks and fuses them in its own order, the reference "
    "sums each tap's channels by matmul and adds the taps in row-major order; measured against oneDNN 3.13 "
    "on seeded inputs: at most 64 ulps, or 4e-6 where sums cancel near 0 (tests/ops/oracle/convolution)",
)


def _rules(member: Member, page: str) -> tuple[Rule, ...]:
    k = member.kind
    out = [
        Rule(f"{k}.rank", "The data tensors and weights have rank 3 to 5 (1 to 3 spatial dims), all the same.",
             f"{page}, General"),
        Rule(f"{k}.attrs.length", "strides, dilations, pads_begin and pads_end have one entry per spatial dim "
             "(oneDNN refuses other lengths, and aborts on empty pads).", f"{page}, Operation attributes"),
        Rule(f"{k}.strides.value", "Each stride is positive (oneDNN dies of a division by zero on 0).",
             f"{page}, Operation attributes"),
        Rule(f"{k}.dilations.value", "Each dilation is positive (oneDNN aborts on 0).", f"{page}, Operation attributes"),
        Rule(f"{k}.pads.value", "Each pad is non-negative.", f"{page}, Operation attributes"),
        Rule(f"{k}.groups.value", "groups is positive.", f"{page}, Operation attributes"),
        Rule(f"{k}.groups", "groups divides the input and the output channels (oneDNN aborts otherwise).",
             f"{page}, Execution arguments (note on weights)"),
        Rule(f"{k}.channels", "The weights' I and O dims match the data tensors' channels (one side per group).",
             f"{page}, Execution arguments (note on weights)"),
        Rule(f"{k}.batch", "The data tensors have the same batch.", f"{page}, General"),
        Rule(f"{k}.auto_pad", "auto_pad is none, same_upper, same_lower or valid, in any case.",
             f"{page}, Operation attributes"),
        Rule(f"{k}.onednn.auto_pad", f"auto_pad spelled otherwise than None, SAME_UPPER, SAME_LOWER, VALID: the "
             f"page's lowercase spellings are refused by {ONEDNN_VERSION} at add_op.",
             f"{page}, Operation attributes; {ONEDNN_VERSION}, measured", "warning"),
        Rule(f"{k}.auto_pad.unknown", "auto_pad needs a size that is not known: the pads and that dim of the "
             "answer are left unknown.", f"{page}, Operation attributes", "warning"),
        Rule(f"{k}.window", "The dilated kernel fits in the padded input at least once (else the output is "
             "empty there).", f"{page}, General (output size formula)", "warning"),
    ]  # fmt: skip
    if member.has_bias:
        out.append(Rule(f"{k}.bias", "bias is 1-D with one value per output channel (oneDNN aborts otherwise).",
                        f"{page}, General (the formula's bias(oc)); {ONEDNN_VERSION}, measured"))  # fmt: skip
    if member.has_output_padding:
        out.append(Rule(f"{k}.output_padding.value", "Each output_padding is non-negative.",
                        f"{page}, Operation attributes"))  # fmt: skip
    if member is CONV_TRANSPOSE:
        out.append(Rule(f"{k}.output_padding.range", "Each output_padding is less than the stride on its dim "
                        "(oneDNN aborts otherwise).", f"{page}, Operation attributes; {ONEDNN_VERSION}, measured"))  # fmt: skip
    if member.transposed and member.computes != BIG:
        out.append(Rule(f"{k}.onednn.output_padding", f"output_padding given: the page lists it, {ONEDNN_VERSION} "
                        "refuses the attribute at add_op.", f"{page}, Operation attributes; {ONEDNN_VERSION}, "
                        "measured", "warning"))  # fmt: skip
    if member.transposed:
        out += [
            Rule(f"{k}.onednn.weights_format", f"weights_format OIX or XIO, which the page's table lists and "
                 f"{ONEDNN_VERSION} refuses for this op.", f"{page}, Operation attributes", "warning"),
            Rule(f"{k}.onednn.group_layout", "With groups > 1, weights are read as [in_channels, out_channels / "
                 "groups], as oneDNN does; the page's note says [in_channels / groups, out_channels].",
                 f"{page}, Execution arguments (note on weights)", "warning"),
        ]  # fmt: skip
    if member.shape_attr:
        name = member.shape_attr
        out += [
            Rule(f"{k}.{name}.required", f"{name} is given, as an attribute or as input 2.",
                 f"{page}, Execution arguments (note)"),
            Rule(f"{k}.{name}.value", f"{name} is a list of positive sizes.", f"{page}, Operation attributes"),
            Rule(f"{k}.onednn.shape_input", f"{name} given as input 2: {ONEDNN_VERSION} supports no partition "
                 "reading it.", f"{page}, Execution arguments; {ONEDNN_VERSION}, measured", "warning"),
        ]  # fmt: skip
    if member.computes != SMALL or member.kind == "ConvTransposeBackwardData":
        out.append(Rule(f"{k}.shapes.agree", "Where both sides are given, the big side's windows give the "
                        "small side's spatial dims (oneDNN aborts otherwise).", f"{page}, General"))  # fmt: skip
    return tuple(out)


def build(
    member: Member, *, summary: str, inputs, outputs, table, weights_formats: tuple[str, ...], examples=()
) -> OpSpec:
    page = f"oneDNN Graph {member.kind}"
    return family.build(
        member.kind,
        family=FAMILY,
        page=page,
        summary=summary,
        inputs=inputs,
        outputs=outputs,
        table=table,
        accepts=None,
        shape=shape_rule(member),
        kernel=kernel_for(member),
        attrs=_attrs(member, weights_formats),
        rules=_rules(member, page),
        tolerance=TOLERANCE,
        kernel_steps=steps_for(member),
        notes=_notes(member),
        examples=examples,
    )


def _notes(member: Member) -> tuple[str, ...]:
    out = [
        "auto_pad: the page spells none, same_upper, same_lower, valid; oneDNN 3.13 takes only None, SAME_UPPER, "
        "SAME_LOWER, VALID (benchdnn's spelling). Both are accepted; the page's draws a warning.",
        "Where oneDNN 3.13 aborts the process (zero strides or dilations, groups not dividing the channels, a "
        "channel mismatch, a bias of the wrong shape, empty pads, output_padding not below the stride, sides "
        "that disagree), opspec names the rule as an error.",
    ]
    if member.transposed:
        out.append(
            "weights_format: the page's table lists OIX and XIO (default XIO), its note IOX and XOI; oneDNN 3.13 "
            "takes IOX and XOI only, default XOI, and reads grouped weights as [in_channels, out_channels / "
            "groups]. opspec follows oneDNN (absent means XOI) and warns on OIX / XIO."
        )
    if member.shape_attr:
        out.append(
            f"{member.shape_attr}: the input, when given with values, takes precedence over the attribute (as the "
            "page says); oneDNN 3.13 supports no partition reading the input."
        )
    return tuple(out)


FLOATS = ("f32 f32 f32 f32", "bf16 bf16 bf16 bf16", "f16 f16 f16 f16")
SHAPE_ROWS = ("f32 f32 s32 f32", "bf16 bf16 s32 bf16", "f16 f16 s32 f16")
CONV_WEIGHTS = ("OIX", "XIO")
TRANSPOSED_WEIGHTS = ("OIX", "XIO", "IOX", "XOI")  # the table's two, the note's two (oneDNN's default XOI)

SPECS: dict[str, OpSpec] = {}
SPECS["Convolution"] = build(
    CONVOLUTION,
    summary="dst = src correlated with weights (+ bias), with strides, dilations, pads and groups.",
    inputs=(In("src", "The data, NCX or NXC."), In("weights", "OIX or XIO."),
            In("bias", "One value per output channel.", optional=True)),
    outputs=(Out("dst", "The windows' results: spatial dims floor((I + pads - dilated kernel) / stride) + 1."),),
    table=rows("src weights bias dst", *FLOATS),
    weights_formats=CONV_WEIGHTS,
    examples=(
        {
            "kind": "Convolution",
            "attrs": {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1],
                      "data_format": "NCX", "weights_format": "OIX"},
            "inputs": [
                {"dtype": "f32", "shape": [1, 1, 3, 3], "data": [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]},
                {"dtype": "f32", "shape": [1, 1, 2, 2], "data": [[[[1, 0], [0, -1]]]]},
                {"dtype": "f32", "shape": [1], "data": [10]},
            ],
        },
    ),
)  # fmt: skip
SPECS["ConvTranspose"] = build(
    CONV_TRANSPOSE,
    summary="dst = the transposed convolution of src with weights (+ bias): each src element spreads its "
    "kernel over dst.",
    inputs=(In("src", "The data, NCX or NXC."), In("weights", "IOX or XOI: [in_channels, out_channels / groups]."),
            In("bias", "One value per output channel.", optional=True)),
    outputs=(Out("dst", "Spatial dims stride * (I - 1) + dilated kernel - pads + output_padding."),),
    table=rows("src weights bias dst", *FLOATS),
    weights_formats=TRANSPOSED_WEIGHTS,
)  # fmt: skip
SPECS["ConvolutionBackwardData"] = build(
    CONV_BWD_DATA,
    summary="diff_src = the gradient of Convolution with respect to src: diff_dst spread back through weights.",
    inputs=(In("diff_dst", "The gradient of Convolution's dst."), In("weights", "OIX or XIO."),
            In("dst_shape", "diff_src's shape (s32, 1-D); takes precedence over the attribute.", optional=True)),
    outputs=(Out("diff_src", "The shape dst_shape says."),),
    # The page's columns are Diff_dst Weights Diff_src Dst_shape; here in port order.
    table=rows("diff_dst weights dst_shape diff_src", *SHAPE_ROWS),
    weights_formats=CONV_WEIGHTS,
)  # fmt: skip
SPECS["ConvolutionBackwardWeights"] = build(
    CONV_BWD_WEIGHTS,
    summary="diff_weights = the gradient of Convolution with respect to weights: src's windows times diff_dst.",
    inputs=(In("src", "Convolution's src."), In("diff_dst", "The gradient of Convolution's dst."),
            In("weights_shape", "diff_weights' shape (s32, 1-D); takes precedence over the attribute.",
               optional=True)),
    outputs=(Out("diff_weights", "The shape weights_shape says."),),
    table=rows("src diff_dst weights_shape diff_weights", *SHAPE_ROWS),
    weights_formats=CONV_WEIGHTS,
)  # fmt: skip
SPECS["ConvTransposeBackwardData"] = build(
    CONVT_BWD_DATA,
    summary="diff_src = the gradient of ConvTranspose with respect to src: diff_dst correlated with weights.",
    inputs=(In("diff_dst", "The gradient of ConvTranspose's dst."),
            In("weights", "IOX or XOI: [in_channels, out_channels / groups].")),
    outputs=(Out("diff_src", "ConvTranspose's src shape: the windows over diff_dst."),),
    table=rows("diff_dst weights diff_src", "f32 f32 f32", "bf16 bf16 bf16", "f16 f16 f16"),
    weights_formats=TRANSPOSED_WEIGHTS,
)  # fmt: skip
SPECS["ConvTransposeBackwardWeights"] = build(
    CONVT_BWD_WEIGHTS,
    summary="diff_weights = the gradient of ConvTranspose with respect to weights.",
    inputs=(In("src", "ConvTranspose's src."), In("diff_dst", "The gradient of ConvTranspose's dst."),
            In("weights_shape", "diff_weights' shape (s32, 1-D); takes precedence over the attribute.",
               optional=True)),
    outputs=(Out("diff_weights", "The shape weights_shape says."),),
    table=rows("src diff_dst weights_shape diff_weights", *SHAPE_ROWS),
    weights_formats=TRANSPOSED_WEIGHTS,
)  # fmt: skip

OPS = tuple(SPECS.values())
DEFAULTS = {spec.kind: {a.name: a.default for a in spec.extra.attrs} for spec in OPS}
