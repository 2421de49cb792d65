"""oneDNN Graph's normalization ops: BatchNorm (inference, forward training, backward), LayerNorm and its
backward, GroupNorm, RMSNorm.

Each normalizes src over some axes with a mean and a variance (given, or computed here), then scales
and shifts per channel. The family's parts, written once:
- which axes a member normalizes over (all but the channel for BatchNorm; begin_norm_axis to the end
  for LayerNorm and RMSNorm; each group of channels with the spatial dims for GroupNorm);
- the shape checks of the per-channel vectors (gamma, beta, mean, variance) and of the statistics;
- the arithmetic, in f32 with a stated order (`_moments`): the reduced axes are moved last and each
  row of n elements is summed by NumPy's pairwise summation in f32; mean = sum / n; variance is the
  second pass mean((x - mean)^2), biased (divided by n), as the pages' formulas say. oneDNN sums in
  its own blocked order, so the results agree within `TOLERANCE`, not bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from app.core import dims, family
from app.core.data_format import DATA_FORMAT, channel_of
from app.core.diagnostics import Rule
from app.core.engine import Context
from app.core.family import ONEDNN, Attr, In, Out, attr, constraints, rows
from app.core.mismatch import Tolerance
from app.core.numbers import show
from app.core.shapes import Shape, broadcast_shapes, dims_conflict, format_shape

FAMILY = "normalization"
F32 = np.float32

# Sums of n f32 values in two different orders differ by up to about log2(n) ulps of the sum; the
# normalised value divides by a square root and may cancel (x - mean near 0), hence the absolute part.
TOLERANCE = Tolerance(
    ulps=64,
    absolute=1e-5,
    why="means and variances are f32 sums: oneDNN sums in its own blocked order, this kernel pairwise "
    "(NumPy) along each row; the difference grows with log2 of the elements summed and with cancellation "
    "in x - mean",
)

EPSILON_REQUIRED = Attr(
    "epsilon", "f32", "A number added to the variance to avoid division by zero.", required=True
)
EPSILON = Attr("epsilon", "f32", "The constant to improve numerical stability.", default=1e-5)
BEGIN_NORM_AXIS = Attr(
    "begin_norm_axis",
    "s64",
    "The axis normalization starts at; it runs to the last dim. Negative values count from the end. "
    "Supported: [-r, r-1], r = rank(src).",
    default=-1,
)
USE_AFFINE = Attr(
    "use_affine", "bool", "Whether gamma and beta scale and shift the normalized value.", default=True
)
KEEP_STATS = Attr("keep_stats", "bool", "Whether mean and variance are outputs.", default=True)

# The pages' dtype table, the same for every member: src (and dst, diff_*) f32, bf16 or f16; the
# statistics and gamma/beta f32, or bf16 with a bf16 src. oneDNN's schema: T1 f32/bf16/f16 on the
# data ports, T2 f32/bf16 shared by the others; check_bn_data_type / check_norm_data_type refuse a bf16
# T2 unless src is bf16, which leaves exactly the page's table.
PAIRS = (("f32", "f32"), ("bf16", "f32"), ("bf16", "bf16"), ("f16", "f32"))


def norm_table(data: Sequence[str], order: Sequence[str], pairs=PAIRS):
    """The table over the ports in `order`: each data port the pair's first dtype, each aux port its second."""
    lines = [" ".join(src if port in data else other for port in order) for src, other in pairs]
    return rows(" ".join(order), *lines)


def norm_schema(data: Sequence[str], order: Sequence[str], t2: str = "f32 bf16"):
    names, admitted = constraints(
        " ".join(f"{p}:T1" if p in data else f"{p}:T2" for p in order), T1="f32 bf16 f16", T2=t2
    )
    src, other = order.index(data[0]), next(i for i, port in enumerate(order) if port not in data)
    # oneDNN's op-definition constraint: a bf16 statistic needs a bf16 src
    return names, frozenset(r for r in admitted if not (r[other] == "bf16" and r[src] != "bf16"))


def build(kind: str, *, data: Sequence[str], inputs, outputs, pairs=PAIRS, t2: str = "f32 bf16", **more: Any):
    """A member of the family: its page's name, the table and schema over its ports (`data` the ports
    that take src's dtype, the others the statistics' dtype), TOLERANCE unless it states its own."""
    ports = tuple(port.name for port in (*inputs, *outputs))
    more.setdefault("tolerance", TOLERANCE)
    return family.build(kind, family=FAMILY, page=kind, inputs=inputs, outputs=outputs,
                 table=norm_table(data, ports, pairs), accepts=norm_schema(data, ports, t2), **more)  # fmt: skip


def _page(kind: str) -> str:
    return f"{ONEDNN} {kind}"


# --- shape helpers ------------------------------------------------------------------------------------


def _rule(kind: str, name: str, statement: str, where: str, severity: str = "error") -> Rule:
    return Rule(f"{kind}.{name}", statement, f"{_page(kind)}, {where}", severity)  # type: ignore[arg-type]


def _positive(kind: str, name: str, d: Any, ctx: Context, why: str) -> bool:
    """An f32 attribute, when given, is one positive number (the wire's f32 type also reads a list)."""
    value = attr(d, name)
    if value is not None and (isinstance(value, list) or not value > 0):
        ctx.error(
            f"{kind}.{name}.range",
            f"attrs.{name}",
            f"{name} is {show(value)}; {kind} needs one positive value{why}",
        )
        return False
    return True


def _epsilon(kind: str, d: Any, ctx: Context) -> bool:
    return _positive(kind, "epsilon", d, ctx, " (it is added to the variance before the square root)")


def _vector(kind: str, rule: str, d: Any, ctx: Context, index: int, size: Any, what: str) -> bool:
    """Input `index`, when given, is 1-D with `size` elements (a per-channel vector)."""
    if index >= len(d.inputs):
        return True
    tensor = d.inputs[index]
    name = ctx.spec.port(index).name
    if tensor.shape is None:
        return True
    if len(tensor.shape) != 1:
        ctx.error(
            rule,
            f"inputs[{index}].shape",
            f"{name} has shape {format_shape(tensor.shape)}; {kind} needs a 1-D tensor of {what} ({size})",
        )
        return False
    if dims_conflict(tensor.shape[0], size):
        ctx.error(
            rule,
            f"inputs[{index}].shape[0]",
            f"{name} has {tensor.shape[0]} elements; {kind} needs {what}: {size}",
        )
        return False
    return True


def _same_shape(kind: str, rule: str, d: Any, ctx: Context, index: int, shape: Shape, what: str) -> bool:
    """Input `index` has `shape` (unknown dims and symbols pass)."""
    tensor = d.inputs[index]
    name = ctx.spec.port(index).name
    if tensor.shape is None or shape is None:
        return True
    if len(tensor.shape) != len(shape) or any(
        dims_conflict(a, b) for a, b in zip(tensor.shape, shape, strict=True)
    ):
        ctx.error(
            rule,
            f"inputs[{index}].shape",
            f"{name} has shape {format_shape(tensor.shape)}; {kind} needs {what} {format_shape(shape)}",
        )
        return False
    return True


def _product(sizes: Sequence[Any]) -> Any:
    """The element count of some dims: an int when all are known, an expression over their symbols
    (H * W), unknown when one is."""
    if all(type(x) is int for x in sizes):
        return math.prod(sizes)
    return dims.product(sizes)


def _norm_begin(kind: str, d: Any, ctx: Context, rank: int) -> int | None:
    """begin_norm_axis wrapped into [0, rank), or None (reported) when out of [-r, r-1]."""
    axis = attr(d, "begin_norm_axis")
    if not -rank <= axis < rank:
        ctx.error(
            f"{kind}.begin_norm_axis.range",
            "attrs.begin_norm_axis",
            f"begin_norm_axis {axis} is out of range [{-rank}, {rank - 1}] for src of rank {rank}"
            if rank
            else f"begin_norm_axis {axis} names no dim: src has rank 0",
        )
        return None
    wrapped = axis + rank if axis < 0 else axis
    if wrapped != rank - 1:
        ctx.warn(
            f"{kind}.onednn.begin_norm_axis",
            "attrs.begin_norm_axis",
            f"begin_norm_axis {axis} normalizes over {rank - wrapped} dims; oneDNN 3.13 reports such a partition "
            "as unsupported (it runs only the last dim)",
        )
    return wrapped


def _begin_rules(kind: str) -> list[Rule]:
    return [
        _rule(kind, "begin_norm_axis.range", "begin_norm_axis is in [-r, r-1], r = rank(src).",
              "attribute begin_norm_axis"),
        _rule(kind, "onednn.begin_norm_axis", "oneDNN 3.13 runs only begin_norm_axis = -1 (the last dim); "
              "others are unsupported partitions.", "oneDNN 3.13 (the oracle)", "warning"),
    ]  # fmt: skip


def _pair(kind: str, d: Any, ctx: Context, first: int, names: str, why: str) -> bool:
    """Inputs `first` and `first + 1` are both given or both absent (given = the count reaches them)."""
    if len(d.inputs) == first + 1:
        ctx.error(
            f"{kind}.inputs.count",
            "inputs",
            f"{kind} takes {names} both or neither{why}; only the first is given ({len(d.inputs)} inputs)",
        )
        return False
    return True


# --- arithmetic -------------------------------------------------------------------------------------


def _rows(x: np.ndarray, axes: Sequence[int]) -> tuple[np.ndarray, tuple[int, ...]]:
    """x with `axes` moved last and flattened into one: (rows, n) and the kept dims' shape."""
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    kept_shape = tuple(x.shape[a] for a in kept)
    n = math.prod(x.shape[a] for a in axes)
    return np.ascontiguousarray(moved).reshape(math.prod(kept_shape), n), kept_shape


def _unrows(values: np.ndarray, x_shape: tuple[int, ...], axes: Sequence[int]) -> np.ndarray:
    """The inverse of _rows for an array of x's size."""
    kept = [a for a in range(len(x_shape)) if a not in axes]
    order = kept + list(axes)
    moved = values.reshape(tuple(x_shape[a] for a in order))
    return np.transpose(moved, np.argsort(order))


def _moments(rows_: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and biased variance of each row, in f32: pairwise sums along the row (the stated order)."""
    n = F32(rows_.shape[1])
    mean = np.add.reduce(rows_, axis=1, dtype=F32) / n
    centred = rows_ - mean[:, None]
    var = np.add.reduce(centred * centred, axis=1, dtype=F32) / n
    return mean.astype(F32), var.astype(F32)


def _f32(a: np.ndarray) -> np.ndarray:
    return np.asarray(a).astype(F32, copy=False)


def _inv_std(var: np.ndarray, epsilon: float) -> np.ndarray:
    return F32(1) / np.sqrt(var + F32(epsilon))


def _batch_axes(d: Any, rank: int) -> list[int]:
    c = channel_of(d, rank)
    return [a for a in range(rank) if a != c]


def _channel_view(v: np.ndarray, rank: int, c: int) -> np.ndarray:
    """A per-channel vector shaped to broadcast along axis c of a rank-`rank` tensor."""
    shape = [1] * rank
    shape[c] = v.size
    return _f32(v).reshape(shape)


# --- BatchNorm ----------------------------------------------------------------------------------------

BN_NOTES = (
    "oneDNN's shape inference for BatchNormTrainingBackward needs src and diff_dst of rank >= 4; the "
    "page sets no such bound (a warning below rank 4).",
    "The page gives no formula. With diff_gamma and diff_beta: diff_beta = sum(diff_dst), diff_gamma = "
    "sum(diff_dst * x^), diff_src = gamma / sqrt(variance + epsilon) * (diff_dst - (diff_beta + x^ * "
    "diff_gamma) / n), x^ = (src - mean) / sqrt(variance + epsilon), n the elements per channel. With "
    "diff_src alone oneDNN 3.13 takes mean and variance as constants and ignores gamma: diff_src = "
    "diff_dst / sqrt(variance + epsilon); so does this kernel.",
)


def _bn_src(kind: str, d: Any, ctx: Context) -> tuple[Shape | None, Any, bool]:
    """src's shape, its channel count and whether src is usable (rank >= 2 where known)."""
    src = d.inputs[0]
    if src.shape is None:
        return None, None, True
    rank = len(src.shape)
    if rank < 2:
        ctx.error(
            f"{kind}.src.rank",
            "inputs[0].shape",
            f"src has shape {format_shape(src.shape)}; {kind} needs rank >= 2 (a batch and a channel dim)",
        )
        return src.shape, None, False
    return src.shape, src.shape[channel_of(d, rank)], True


def _bn_rules(kind: str) -> list[Rule]:
    return [
        _rule(kind, "epsilon.range", "epsilon is positive.", "attribute epsilon"),
        _rule(kind, "src.rank", "src has rank >= 2: a batch dim and a channel dim (data_format).", "formula"),
        _rule(kind, "channels", "Each per-channel input (gamma, beta, mean, variance) is 1-D with src's "
              "channel count (data_format decides which dim is the channel).", "Inputs and formula"),
    ]  # fmt: skip


def _bn_inference_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    kind = "BatchNormInference"
    ok = _epsilon(kind, d, ctx)
    shape, channels, usable = _bn_src(kind, d, ctx)
    if usable:
        for index in range(1, 5):
            ok &= _vector(kind, f"{kind}.channels", d, ctx, index, channels if channels is not None else None,
                          "src's channel count")  # fmt: skip
    return [shape] if ok and usable else None


def _bn_inference(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x = _f32(arrays[0])
    c = channel_of(d, x.ndim)
    gamma, beta, mean, var = (_channel_view(a, x.ndim, c) for a in arrays[1:5])
    with np.errstate(all="ignore"):
        scale = gamma * _inv_std(var, attr(d, "epsilon"))
        return [(x - mean) * scale + beta]


BN_INFERENCE = build(
    "BatchNormInference",
    summary="dst = gamma * (src - mean) / sqrt(variance + epsilon) + beta, per channel.",
    inputs=(
        In("src", "The data; the channel dim is per data_format."),
        In("gamma", "Scale, one per channel."),
        In("beta", "Shift, one per channel."),
        In("mean", "Mean, one per channel."),
        In("variance", "Variance, one per channel."),
    ),
    outputs=(Out("dst", "src's shape and dtype."),),
    data=("src", "dst"),
    attrs=(EPSILON_REQUIRED, DATA_FORMAT),
    rules=_bn_rules("BatchNormInference"),
    shape=_bn_inference_shape,
    kernel=_bn_inference,
    tolerance=Tolerance(ulps=4, absolute=1e-6, why="oneDNN folds gamma / sqrt(variance + epsilon) into one "
                        "scale and may fuse the multiply-add; each order rounds a few times in f32"),
)  # fmt: skip


BNF = "BatchNormForwardTraining"
ONEDNN_MOMENTUM = 0.5  # what oneDNN 3.13 uses without the attribute (seen through the oracle)


def _bn_forward_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    ok = _epsilon(BNF, d, ctx)
    momentum = d.attrs.momentum
    if momentum is None:
        ctx.warn(
            f"{BNF}.momentum.default",
            "attrs",
            f"momentum is not given and the page sets no default; oneDNN 3.13 weighs the running statistics "
            f"with {ONEDNN_MOMENTUM}, and so does evaluation here",
        )
    else:
        ok &= _positive(BNF, "momentum", d, ctx, "")
    ok &= _pair(BNF, d, ctx, 3, "gamma and beta", "")
    shape, channels, usable = _bn_src(BNF, d, ctx)
    if usable:
        for index in range(1, len(d.inputs)):
            ok &= _vector(BNF, f"{BNF}.channels", d, ctx, index, channels, "src's channel count")
    if not (ok and usable):
        return None
    vector = None if shape is None else (channels,)
    return [shape, vector, vector, vector, vector]


def _bn_forward(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x = _f32(arrays[0])
    axes = _batch_axes(d, x.ndim)
    c = channel_of(d, x.ndim)
    with np.errstate(all="ignore"):
        rows_, _ = _rows(x, axes)
        mean, var = _moments(rows_)
        gamma = _channel_view(arrays[3], x.ndim, c) if len(arrays) > 3 else F32(1)
        beta = _channel_view(arrays[4], x.ndim, c) if len(arrays) > 4 else F32(0)
        scale = gamma * _inv_std(_channel_view(var, x.ndim, c), attr(d, "epsilon"))
        dst = (x - _channel_view(mean, x.ndim, c)) * scale + beta
        m = F32(ONEDNN_MOMENTUM if d.attrs.momentum is None else d.attrs.momentum)
        running_mean = m * _f32(arrays[1]) + (F32(1) - m) * mean
        running_var = m * _f32(arrays[2]) + (F32(1) - m) * var
    return [dst, running_mean, running_var, mean, var]


BN_FORWARD = build(
    BNF,
    summary="Batch normalization with the batch's own mean and variance per channel; also the running and "
    "batch statistics.",
    inputs=(
        In("src", "The data; the channel dim is per data_format."),
        In("mean", "The running mean, one per channel."),
        In("variance", "The running variance, one per channel."),
        In("gamma", "Scale, one per channel; with beta or not at all.", optional=True),
        In("beta", "Shift, one per channel; with gamma or not at all.", optional=True),
    ),
    outputs=(
        Out("dst", "src's shape and dtype."),
        Out("running_mean", "[C]: momentum * mean + (1 - momentum) * batch_mean."),
        Out("running_variance", "[C]: momentum * variance + (1 - momentum) * batch_variance."),
        Out("batch_mean", "[C]: the mean over all dims but the channel."),
        Out("batch_variance", "[C]: the biased variance over all dims but the channel."),
    ),
    data=("src", "dst"),
    attrs=(
        EPSILON_REQUIRED,
        Attr("momentum", "f32", "Weight of the given running statistics in the new ones."),
        DATA_FORMAT,
    ),
    rules=[
        *_bn_rules(BNF),
        _rule(BNF, "momentum.range", "momentum, when given, is positive.", "attribute momentum"),
        _rule(BNF, "momentum.default", "Without momentum the running statistics are oneDNN's, with momentum "
              "0.5: the page sets no default.", "attribute momentum; oneDNN 3.13", "warning"),
    ],
    shape=_bn_forward_shape,
    kernel=_bn_forward,
)  # fmt: skip


BNB = "BatchNormTrainingBackward"


def _bn_backward_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    ok = _epsilon(BNB, d, ctx)
    shape, channels, usable = _bn_src(BNB, d, ctx)
    if usable:
        ok &= _same_shape(BNB, f"{BNB}.diff_dst.shape", d, ctx, 1, shape, "src's shape")
        for index in range(2, len(d.inputs)):
            ok &= _vector(BNB, f"{BNB}.channels", d, ctx, index, channels, "src's channel count")
        if shape is not None and len(shape) < 4:
            ctx.warn(
                f"{BNB}.onednn.rank",
                "inputs[0].shape",
                f"src has rank {len(shape)}; oneDNN 3.13's shape inference for {BNB} refuses src and "
                "diff_dst of rank below 4",
            )
    if not (ok and usable):
        return None
    vector = None if shape is None else (channels,)
    # diff_gamma and diff_beta come together or not at all: a descriptor declaring one output has neither
    if _bn_diff_src_only(d):
        if len(d.inputs) > 4:
            ctx.warn(
                f"{BNB}.gamma.ignored", "inputs[4]", "without diff_gamma and diff_beta, gamma is ignored"
            )
        return [shape]
    if len(d.inputs) < 5:
        ctx.warn(
            f"{BNB}.onednn.no_gamma",
            "inputs",
            "diff_gamma and diff_beta without gamma: oneDNN 3.13 aborts when it compiles this op",
        )
    return [shape, vector, vector]


def _bn_diff_src_only(d: Any) -> bool:
    return len(d.outputs or ()) == 1


def _bn_backward(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x, dy = _f32(arrays[0]), _f32(arrays[1])
    rank = x.ndim
    c = channel_of(d, rank)
    axes = _batch_axes(d, rank)
    with np.errstate(all="ignore"):
        mean = _channel_view(arrays[2], rank, c)
        inv = _inv_std(_channel_view(arrays[3], rank, c), attr(d, "epsilon"))
        if _bn_diff_src_only(d):
            # mean and variance taken as constants, gamma ignored: what oneDNN 3.13 computes (the oracle)
            return [dy * inv]
        gamma = _channel_view(arrays[4], rank, c) if len(arrays) > 4 else F32(1)
        xhat = (x - mean) * inv
        dy_rows, _ = _rows(dy, axes)
        prod_rows, _ = _rows(dy * xhat, axes)
        n = F32(dy_rows.shape[1])
        diff_beta = np.add.reduce(dy_rows, axis=1, dtype=F32)
        diff_gamma = np.add.reduce(prod_rows, axis=1, dtype=F32)
        diff_src = (
            gamma
            * inv
            * (dy - _channel_view(diff_beta, rank, c) / n - xhat * _channel_view(diff_gamma, rank, c) / n)
        )
    return [diff_src, diff_gamma, diff_beta]


BN_BACKWARD = build(
    BNB,
    summary="Gradients of batch normalization in training: diff_src, and diff_gamma, diff_beta per channel.",
    inputs=(
        In("src", "The forward op's src."),
        In("diff_dst", "The gradient of dst: src's shape."),
        In("mean", "The batch mean, one per channel."),
        In("variance", "The batch variance, one per channel."),
        In("gamma", "Scale, one per channel (1 when absent).", optional=True),
    ),
    outputs=(
        Out("diff_src", "src's shape and dtype."),
        Out("diff_gamma", "[C]: sum of diff_dst * normalized src; with diff_beta or not at all.", optional=True),
        Out("diff_beta", "[C]: sum of diff_dst; with diff_gamma or not at all.", optional=True),
    ),
    data=("src", "diff_dst", "diff_src"),
    attrs=(EPSILON_REQUIRED, DATA_FORMAT),
    rules=[
        *_bn_rules(BNB),
        _rule(BNB, "diff_dst.shape", "diff_dst has src's shape.", "Inputs"),
        _rule(BNB, "gamma.ignored", "Without diff_gamma and diff_beta, gamma is ignored.", "note on outputs",
              "warning"),
        _rule(BNB, "onednn.no_gamma", "oneDNN 3.13 aborts compiling diff_gamma and diff_beta without gamma.",
              "oneDNN 3.13 (the oracle: SIGABRT at compile)", "warning"),
        _rule(BNB, "onednn.rank", "oneDNN 3.13 infers shapes only for src and diff_dst of rank >= 4.",
              "oneDNN 3.13 shape inference (infer_bn_bwd_output_shape)", "warning"),
    ],
    notes=BN_NOTES,
    shape=_bn_backward_shape,
    kernel=_bn_backward,
)  # fmt: skip


# --- LayerNorm ----------------------------------------------------------------------------------------

LN = "LayerNorm"
LNB = "LayerNormBackward"


def _affine_inputs(kind: str, d: Any, ctx: Context, first: int, names: str) -> bool:
    """With use_affine, inputs `first` and `first + 1` (gamma, beta) are given; without, they are ignored."""
    have = len(d.inputs) - first
    if attr(d, "use_affine"):
        if have < 2:
            ctx.error(
                f"{kind}.use_affine.inputs",
                "inputs",
                f"use_affine is true, so {kind} needs {names} (inputs {first} and {first + 1}); "
                f"{len(d.inputs)} inputs are given",
            )
            return False
    elif have > 0:
        ctx.warn(
            f"{kind}.use_affine.ignored",
            f"inputs[{first}]",
            f"use_affine is false, so {kind} ignores {names}",
        )
    return True


def _affine_rules(kind: str, names: str) -> list[Rule]:
    return [
        _rule(kind, "use_affine.inputs", f"With use_affine true (the default), {names} are given.",
              "note on gamma and beta"),
        _rule(kind, "use_affine.ignored", f"With use_affine false, {names} are not used.",
              "attribute use_affine", "warning"),
    ]  # fmt: skip


def _layer_shapes(kind: str, d: Any, ctx: Context) -> tuple[bool, Shape | None, int | None, Any]:
    """(ok, src shape, begin axis, normalized element count) with begin_norm_axis checked."""
    shape = d.inputs[0].shape
    if shape is None:
        return True, None, None, None
    begin = _norm_begin(kind, d, ctx, len(shape))
    if begin is None:
        return False, shape, None, None
    return True, shape, begin, _product(shape[begin:])


def _layer_norm_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    ok = _epsilon(LN, d, ctx) & _pair(LN, d, ctx, 1, "gamma and beta", "")
    ok &= _affine_inputs(LN, d, ctx, 1, "gamma and beta")
    good, shape, begin, count = _layer_shapes(LN, d, ctx)
    ok &= good
    if begin is not None:
        for index in (1, 2):
            ok &= _vector(LN, f"{LN}.gamma.shape", d, ctx, index, count, "the normalized dims' element count")
    if not ok:
        return None
    if not attr(d, "keep_stats"):
        return [shape]
    stats = None if begin is None else tuple(shape[:begin])  # type: ignore[index]
    return [shape, stats, stats]


def _layer_norm(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x = _f32(arrays[0])
    begin = _wrapped_begin(d, x.ndim)
    axes = list(range(begin, x.ndim))
    with np.errstate(all="ignore"):
        rows_, kept = _rows(x, axes)
        mean, var = _moments(rows_)
        normed = (rows_ - mean[:, None]) * _inv_std(var, attr(d, "epsilon"))[:, None]
        if attr(d, "use_affine") and len(arrays) > 2:
            normed = normed * _f32(arrays[1]).reshape(1, -1) + _f32(arrays[2]).reshape(1, -1)
    dst = normed.reshape(x.shape)
    if not attr(d, "keep_stats"):
        return [dst]
    return [dst, mean.reshape(kept), var.reshape(kept)]


def _wrapped_begin(d: Any, rank: int) -> int:
    axis = attr(d, "begin_norm_axis")
    return axis + rank if axis < 0 else axis


LN_ATTRS = (KEEP_STATS, BEGIN_NORM_AXIS, USE_AFFINE, EPSILON)

LAYER_NORM = build(
    LN,
    summary="dst = gamma * (src - mean) / sqrt(variance + epsilon) + beta, mean and variance over the dims "
    "from begin_norm_axis to the last.",
    inputs=(
        In("src", "The data."),
        In("gamma", "Scale: 1-D, one per normalized element (use_affine).", optional=True),
        In("beta", "Shift: 1-D, one per normalized element (use_affine).", optional=True),
    ),
    outputs=(
        Out("dst", "src's shape and dtype."),
        Out("mean", "src's dims before begin_norm_axis (keep_stats).", optional=True),
        Out("variance", "src's dims before begin_norm_axis (keep_stats).", optional=True),
    ),
    data=("src", "dst"),
    attrs=LN_ATTRS,
    rules=[
        _rule(LN, "epsilon.range", "epsilon is positive.", "attribute epsilon"),
        *_begin_rules(LN),
        _rule(LN, "gamma.shape", "gamma and beta are 1-D with as many elements as the normalized dims hold.",
              "note on gamma and beta"),
        *_affine_rules(LN, "gamma and beta"),
    ],
    shape=_layer_norm_shape,
    kernel=_layer_norm,
)  # fmt: skip


def _layer_norm_backward_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    ok = _epsilon(LNB, d, ctx) & _affine_inputs(LNB, d, ctx, 4, "gamma and beta")
    good, shape, begin, count = _layer_shapes(LNB, d, ctx)
    ok &= good
    if begin is not None:
        ok &= _same_shape(LNB, f"{LNB}.diff_dst.shape", d, ctx, 1, shape, "src's shape")
        stats = tuple(shape[:begin])  # type: ignore[index]
        for index in (2, 3):
            ok &= _same_shape(
                LNB, f"{LNB}.stats.shape", d, ctx, index, stats, "src's dims before begin_norm_axis"
            )
        for index in (4, 5):
            ok &= _vector(
                LNB, f"{LNB}.gamma.shape", d, ctx, index, count, "the normalized dims' element count"
            )
    if not ok:
        return None
    if not attr(d, "use_affine"):
        return [shape]
    vector = None if begin is None else (count,)
    return [shape, vector, vector]


def _layer_norm_backward(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x = _f32(arrays[0])
    begin = _wrapped_begin(d, x.ndim)
    axes = list(range(begin, x.ndim))
    affine = attr(d, "use_affine")
    with np.errstate(all="ignore"):
        x_rows, _ = _rows(x, axes)
        dy_rows, _ = _rows(_f32(arrays[1]), axes)
        mean = _f32(arrays[2]).reshape(-1, 1)
        inv = _inv_std(_f32(arrays[3]).reshape(-1, 1), attr(d, "epsilon"))
        xhat = (x_rows - mean) * inv
        gamma = _f32(arrays[4]).reshape(1, -1) if affine and len(arrays) > 4 else F32(1)
        g = dy_rows * gamma
        n = F32(x_rows.shape[1])
        sum_g = np.add.reduce(g, axis=1, dtype=F32)[:, None]
        sum_gx = np.add.reduce(g * xhat, axis=1, dtype=F32)[:, None]
        diff_src = inv * (g - sum_g / n - xhat * sum_gx / n)
        results = [diff_src.reshape(x.shape)]
        if affine:
            # sums over the rows: the same pairwise order, along each column of the transposed rows
            results.append(np.add.reduce(np.ascontiguousarray((dy_rows * xhat).T), axis=1, dtype=F32))
            results.append(np.add.reduce(np.ascontiguousarray(dy_rows.T), axis=1, dtype=F32))
    return results


LAYER_NORM_BACKWARD = build(
    LNB,
    summary="Gradients of LayerNorm: diff_src, and diff_gamma, diff_beta with use_affine.",
    inputs=(
        In("src", "The forward op's src."),
        In("diff_dst", "The gradient of dst: src's shape."),
        In("mean", "LayerNorm's mean: src's dims before begin_norm_axis."),
        In("variance", "LayerNorm's variance: src's dims before begin_norm_axis."),
        In("gamma", "Scale (use_affine).", optional=True),
        In("beta", "Shift (use_affine); not used in the gradients.", optional=True),
    ),
    outputs=(
        Out("diff_src", "src's shape and dtype."),
        Out("diff_gamma", "gamma's shape (use_affine).", optional=True),
        Out("diff_beta", "beta's shape (use_affine).", optional=True),
    ),
    data=("src", "diff_dst", "diff_src"),
    attrs=(BEGIN_NORM_AXIS, USE_AFFINE, EPSILON),
    rules=[
        _rule(LNB, "epsilon.range", "epsilon is positive.", "attribute epsilon"),
        *_begin_rules(LNB),
        _rule(LNB, "diff_dst.shape", "diff_dst has src's shape.", "Inputs"),
        _rule(LNB, "stats.shape", "mean and variance have src's dims before begin_norm_axis.", "Inputs"),
        _rule(LNB, "gamma.shape", "gamma and beta are 1-D with as many elements as the normalized dims hold.",
              "note on gamma and beta"),
        *_affine_rules(LNB, "gamma and beta"),
    ],
    shape=_layer_norm_backward_shape,
    kernel=_layer_norm_backward,
)  # fmt: skip


# --- GroupNorm ----------------------------------------------------------------------------------------

GN = "GroupNorm"


def _group_norm_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    ok = _epsilon(GN, d, ctx) & _pair(GN, d, ctx, 1, "gamma and beta", "")
    ok &= _affine_inputs(GN, d, ctx, 1, "gamma and beta")
    groups = d.attrs.groups
    if groups is None:
        return None  # reported by the common rule
    shape, channels, usable = _bn_src(GN, d, ctx)
    if groups < 1:
        ctx.error(f"{GN}.groups.range", "attrs.groups", f"groups is {groups}; {GN} needs groups >= 1")
        ok = False
    elif isinstance(channels, int):
        if groups > channels:
            ctx.error(
                f"{GN}.groups.range",
                "attrs.groups",
                f"groups is {groups}; {GN} needs groups in [1, {channels}], src's channel count",
            )
            ok = False
        elif channels % groups:
            ctx.error(
                f"{GN}.groups.divides",
                "attrs.groups",
                f"groups {groups} does not divide src's {channels} channels; each group needs an equal share",
            )
            ok = False
    elif groups > 1 and usable:
        ctx.warn(
            f"{GN}.groups.unchecked",
            "attrs.groups",
            f"src's channel count is {'unknown' if channels is None else channels}: whether {groups} groups divide "
            "it cannot be checked here",
        )
    if usable:
        for index in (1, 2):
            ok &= _vector(GN, f"{GN}.channels", d, ctx, index, channels, "src's channel count")
    if not (ok and usable):
        return None
    if not attr(d, "keep_stats"):
        return [shape]
    stats = None if shape is None else (shape[0], groups)
    return [shape, stats, stats]


def _group_norm(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x = _f32(arrays[0])
    rank = x.ndim
    c = channel_of(d, rank)
    groups = d.attrs.groups
    # NCX order with the channels split into (groups, C / groups); each (n, g) a row
    ncx = np.moveaxis(x, c, 1)
    per_group = ncx.shape[1] // groups * math.prod(ncx.shape[2:])  # explicit: N or C may be 0
    split = ncx.reshape((x.shape[0], groups, per_group))
    with np.errstate(all="ignore"):
        mean, var = _moments(split.reshape(x.shape[0] * groups, per_group))
        normed = (split - mean.reshape(x.shape[0], groups, 1)) * _inv_std(var, attr(d, "epsilon")).reshape(
            x.shape[0], groups, 1
        )
        normed = normed.reshape(ncx.shape)
        if attr(d, "use_affine") and len(arrays) > 2:
            normed = normed * _channel_view(arrays[1], rank, 1) + _channel_view(arrays[2], rank, 1)
    dst = np.moveaxis(normed, 1, c)
    if not attr(d, "keep_stats"):
        return [dst]
    return [dst, mean.reshape(x.shape[0], groups), var.reshape(x.shape[0], groups)]


GROUP_NORM = build(
    GN,
    summary="dst = gamma * (src - mean) / sqrt(variance + epsilon) + beta, mean and variance per batch "
    "element and group of channels.",
    inputs=(
        In("src", "The data; the channel dim is per data_format."),
        In("gamma", "Scale, one per channel (use_affine).", optional=True),
        In("beta", "Shift, one per channel (use_affine).", optional=True),
    ),
    outputs=(
        Out("dst", "src's shape and dtype."),
        Out("mean", "[N, groups] (keep_stats).", optional=True),
        Out("variance", "[N, groups] (keep_stats).", optional=True),
    ),
    data=("src", "dst"),
    attrs=(
        Attr("groups", "s64", "The number of groups G the channels are divided into: in [1, C], dividing C.",
             required=True),
        KEEP_STATS, USE_AFFINE, EPSILON, DATA_FORMAT,
    ),
    rules=[
        _rule(GN, "epsilon.range", "epsilon is positive.", "attribute epsilon"),
        _rule(GN, "src.rank", "src has rank >= 2: a batch dim and a channel dim (data_format).", "General"),
        _rule(GN, "groups.range", "groups is in [1, C], C = src's channel count.", "attribute groups"),
        _rule(GN, "groups.divides", "groups divides src's channel count.", "attribute groups"),
        _rule(GN, "groups.unchecked", "With src's channel count unknown (or a symbol) groups cannot be checked "
              "against it.", "attribute groups", "warning"),
        _rule(GN, "channels", "gamma and beta are 1-D with src's channel count.", "note on gamma and beta"),
        *_affine_rules(GN, "gamma and beta"),
    ],
    shape=_group_norm_shape,
    kernel=_group_norm,
)  # fmt: skip


# --- RMSNorm ------------------------------------------------------------------------------------------

RMS = "RMSNorm"


def _rms_norm_shape(d: Any, ctx: Context) -> list[Shape | None] | None:
    ok = _epsilon(RMS, d, ctx)
    shape = d.inputs[0].shape
    if shape is not None:
        ok &= _norm_begin(RMS, d, ctx, len(shape)) is not None
        if len(d.inputs) > 1 and d.inputs[1].shape is not None:
            gamma = d.inputs[1].shape
            joined = broadcast_shapes([shape, gamma])
            if (
                joined.problems
                or (joined.shape is not None and len(gamma) > len(shape))
                or (
                    joined.shape is not None
                    and any(dims_conflict(a, b) for a, b in zip(joined.shape, shape, strict=True))
                )
            ):
                ctx.error(
                    f"{RMS}.gamma.shape",
                    "inputs[1].shape",
                    f"gamma has shape {format_shape(gamma)}, which does not broadcast to src's shape "
                    f"{format_shape(shape)}",
                )
                ok = False
    return [shape] if ok else None


def _rms_norm(d: Any, arrays: Sequence[np.ndarray], out: Sequence[Any]) -> list[np.ndarray]:
    x = _f32(arrays[0])
    begin = _wrapped_begin(d, x.ndim)
    axes = list(range(begin, x.ndim))
    with np.errstate(all="ignore"):
        rows_, _ = _rows(x, axes)
        mean_square = np.add.reduce(rows_ * rows_, axis=1, dtype=F32) / F32(rows_.shape[1])
        dst = (rows_ * _inv_std(mean_square, attr(d, "epsilon"))[:, None]).reshape(x.shape)
        if len(arrays) > 1:
            dst = dst * _f32(arrays[1])
    return [dst]


RMS_NORM = build(
    RMS,
    summary="dst = gamma * src / sqrt(mean(src^2) + epsilon), the mean over the dims from begin_norm_axis "
    "to the last.",
    inputs=(
        In("src", "The data."),
        In("gamma", "Scale, broadcastable to src's shape.", optional=True),
    ),
    outputs=(Out("dst", "src's shape and dtype."),),
    data=("src", "dst"),
    pairs=(*PAIRS, ("f16", "f16")),
    t2="f32 bf16 f16",
    attrs=(EPSILON, BEGIN_NORM_AXIS),
    rules=[
        _rule(RMS, "epsilon.range", "epsilon is positive.", "attribute epsilon"),
        *_begin_rules(RMS),
        _rule(RMS, "gamma.shape", "gamma broadcasts to src's shape (numpy rules, src's shape unchanged).",
              "note on gamma"),
    ],
    notes=(
        "The page writes y = gamma * x / sqrt(RMS(x) + epsilon) with RMS(x) = sqrt(mean(x^2)), a square root "
        "taken twice; oneDNN 3.13 computes x / sqrt(mean(x^2) + epsilon), the usual RMSNorm, and so does "
        "this kernel.",
    ),
    shape=_rms_norm_shape,
    kernel=_rms_norm,
)  # fmt: skip


OPS = (BN_INFERENCE, BN_FORWARD, BN_BACKWARD, LAYER_NORM, LAYER_NORM_BACKWARD, GROUP_NORM, RMS_NORM)
