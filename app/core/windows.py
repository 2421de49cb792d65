"""Sliding windows along one spatial dim, written once: how many positions a (dilated) kernel takes,
the padding `auto_pad` implies, and the size a transposed convolution gives back.

Convolution, ConvTranspose, their backward ops and the pooling ops all use these, one dim at a
time. A size may be an expression over symbols or unknown (app/core/dims.py): the answer is then the
same formula as an expression, exact for every value of the symbols (a max or min where the static
rule clamps), or unknown (None) when a size it needs is unknown, never a guess. Strides, dilations
and output_padding are ints; `kernel` comes from a weights shape and pads from auto_pad, so they may
be expressions too.

The formulas are oneDNN's (src/graph/interface/shape_infer.cpp), with the page's notation:

    effective kernel   DK = (K - 1) * D + 1
    padded size        P  = I + PL + PR
    floor (conv, pool) O  = floor((P - DK) / S) + 1
    ceil  (pool)       O  = ceil((P - DK) / S) + 1
    transposed         O  = S * (I - 1) + DK - PL - PR + output_padding
    same_upper/lower   total = max(0, DK - (I % S or S)), DK - S for a transposed op;
                       upper puts the odd one at the end, lower at the beginning

`window_output` answers the positions a window really takes: 0 when the dilated kernel is longer
than the padded size (oneDNN's C division, truncating toward 0, would say 1 there); `window_fits`
tells that case apart so an op can name it. With ceil, a last window may start past the padded end
when the kernel is shorter than the stride: that is oneDNN's div_up formula, kept as it is.
"""

from __future__ import annotations

from app.core import dims
from app.core.dims import Dim

AUTO_PAD_MODES = ("none", "same_upper", "same_lower", "valid")
# How oneDNN 3.13's op schemas spell them (any other spelling, the pages' lowercase ones included, is
# refused at add_op: "attribute auto_pad has invalid value"; measured with the oracle).
ONEDNN_AUTO_PAD = {"none": "None", "same_upper": "SAME_UPPER", "same_lower": "SAME_LOWER", "valid": "VALID"}


def auto_pad_mode(spelling: str) -> str | None:
    """The mode a spelling names (`None`, `none`, `SAME_UPPER`, `same_upper`, ...), or None if none."""
    mode = spelling.lower()
    return mode if mode in AUTO_PAD_MODES else None


def effective_kernel(kernel: Dim, dilation: int = 1) -> Dim:
    """The span of a kernel of `kernel` taps `dilation` apart: (K - 1) * D + 1."""
    if type(kernel) is int:
        return (kernel - 1) * dilation + 1
    return dims.add(dims.mul(dims.sub(kernel, 1), dilation), 1)


def window_fits(size: int, kernel: int, dilation: int = 1, pad_begin: int = 0, pad_end: int = 0) -> bool:
    """The dilated kernel fits in the padded size at least once."""
    return size + pad_begin + pad_end >= effective_kernel(kernel, dilation)  # type: ignore[operator]


def window_output(
    size: Dim,
    kernel: Dim,
    stride: int,
    dilation: int = 1,
    pad_begin: Dim = 0,
    pad_end: Dim = 0,
    ceil: bool = False,
) -> Dim:
    """The number of window positions along one dim (`ceil`: a last window may overhang the padded end
    by up to stride - 1, as pooling's rounding_type=ceil counts it)."""
    if type(size) is int and type(kernel) is int and type(pad_begin) is int and type(pad_end) is int:
        room = size + pad_begin + pad_end - effective_kernel(kernel, dilation)  # type: ignore[operator]
        if room < 0:
            return 0
        return (-(-room // stride) if ceil else room // stride) + 1
    room = dims.sub(dims.add(dims.add(size, pad_begin), pad_end), effective_kernel(kernel, dilation))
    if not ceil:  # room // S + 1 is 0 for room in [-S, -1] already; below that, the max says 0
        return dims.maximum(dims.add(dims.floordiv(room, stride), 1), 0)
    positions = dims.add(dims.floordiv(dims.add(room, stride - 1), stride), 1)
    if dims.bounds(room)[0] >= 0:
        return positions
    # 0 where room < 0, as the static rule has it. ceil(room / S) + 1 is 1 for room in [1 - S, -1]; there
    # room + 1 <= 0, and for room >= 0 it is no less than ceil(room / S) + 1, so the min picks the count.
    return dims.maximum(dims.minimum(positions, dims.add(room, 1)), 0)


def auto_pads(
    size: Dim, kernel: Dim, stride: int, dilation: int, mode: str, transposed: bool = False
) -> tuple[Dim, Dim] | None:
    """(pad_begin, pad_end) for an auto_pad mode other than "none" (lowercase, see `auto_pad_mode`);
    None when they depend on a size not known (same_* with stride > 1 on an unknown size, or an
    unknown kernel). On a symbolic size they are expressions: I % S or S is (I - 1) % S + 1."""
    if mode == "valid":
        return 0, 0
    if kernel is None:
        return None
    span = effective_kernel(kernel, dilation)
    if transposed or stride == 1:
        total = dims.sub(span, stride)
    elif type(size) is int:
        total = dims.sub(span, size % stride or stride)
    elif size is None:
        return None
    else:
        total = dims.sub(span, dims.add(dims.mod(dims.sub(size, 1), stride), 1))
    total = dims.maximum(total, 0)
    begin = dims.floordiv(dims.add(total, 1) if mode == "same_lower" else total, 2)
    if total is None or begin is None:
        return None
    return begin, dims.sub(total, begin)


def transposed_output(
    size: Dim,
    kernel: Dim,
    stride: int,
    dilation: int = 1,
    pad_begin: Dim = 0,
    pad_end: Dim = 0,
    output_padding: int = 0,
) -> Dim:
    """The size a transposed convolution gives along one dim: S * (I - 1) + DK - PL - PR + output_padding
    (may come out <= 0 on absurd pads: the op names that)."""
    if type(size) is int and type(kernel) is int and type(pad_begin) is int and type(pad_end) is int:
        return stride * (size - 1) + effective_kernel(kernel, dilation) - pad_begin - pad_end + output_padding  # type: ignore[operator]
    grown = dims.add(dims.mul(stride, dims.sub(size, 1)), effective_kernel(kernel, dilation))
    return dims.add(dims.sub(dims.sub(grown, pad_begin), pad_end), output_padding)
