"""Sliding windows along one spatial dim, written once: how many positions a (dilated) kernel takes,
the padding `auto_pad` implies, and the size a transposed convolution gives back.

Convolution, ConvTranspose, their backward ops and the pooling ops all use these, one dim at a
time. A size may be a symbol or unknown (app/core/shapes.Dim): a symbol flows through only where the
answer is the size itself (a 1-wide window moved by 1 with no padding); otherwise the answer is
unknown (None), never a guess. The window's parameters (kernel, stride, dilation, pads) are ints,
except `kernel` which comes from a weights shape and may be a symbol or unknown too.

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

from app.core.shapes import Dim

AUTO_PAD_MODES = ("none", "same_upper", "same_lower", "valid")
# How oneDNN 3.13's op schemas spell them (any other spelling, the pages' lowercase ones included, is
# refused at add_op: "attribute auto_pad has invalid value"; measured with the oracle).
ONEDNN_AUTO_PAD = {"none": "None", "same_upper": "SAME_UPPER", "same_lower": "SAME_LOWER", "valid": "VALID"}


def auto_pad_mode(spelling: str) -> str | None:
    """The mode a spelling names (`None`, `none`, `SAME_UPPER`, `same_upper`, ...), or None if none."""
    mode = spelling.lower()
    return mode if mode in AUTO_PAD_MODES else None


def effective_kernel(kernel: int, dilation: int = 1) -> int:
    """The span of a kernel of `kernel` taps `dilation` apart: (K - 1) * D + 1."""
    return (kernel - 1) * dilation + 1


def window_fits(size: int, kernel: int, dilation: int = 1, pad_begin: int = 0, pad_end: int = 0) -> bool:
    """The dilated kernel fits in the padded size at least once."""
    return size + pad_begin + pad_end >= effective_kernel(kernel, dilation)


def window_output(
    size: Dim,
    kernel: Dim,
    stride: int,
    dilation: int = 1,
    pad_begin: int = 0,
    pad_end: int = 0,
    ceil: bool = False,
) -> Dim:
    """The number of window positions along one dim (`ceil`: a last window may overhang the padded end
    by up to stride - 1, as pooling's rounding_type=ceil counts it)."""
    if not isinstance(size, int) or not isinstance(kernel, int):
        if size is not None and kernel == 1 and stride == 1 and pad_begin == 0 and pad_end == 0:
            return size  # every element is one position: the size itself, symbol and all
        return None
    room = size + pad_begin + pad_end - effective_kernel(kernel, dilation)
    if room < 0:
        return 0
    return (-(-room // stride) if ceil else room // stride) + 1


def auto_pads(
    size: Dim, kernel: Dim, stride: int, dilation: int, mode: str, transposed: bool = False
) -> tuple[int, int] | None:
    """(pad_begin, pad_end) for an auto_pad mode other than "none" (lowercase, see `auto_pad_mode`);
    None when they depend on a size not known (same_* with stride > 1 on an unknown size, or an
    unknown kernel)."""
    if mode == "valid":
        return 0, 0
    if not isinstance(kernel, int):
        return None
    span = effective_kernel(kernel, dilation)
    if transposed or stride == 1:
        total = span - stride
    elif isinstance(size, int):
        total = span - (size % stride or stride)
    else:
        return None
    total = max(total, 0)
    begin = (total + 1) // 2 if mode == "same_lower" else total // 2
    return begin, total - begin


def transposed_output(
    size: Dim,
    kernel: Dim,
    stride: int,
    dilation: int = 1,
    pad_begin: int = 0,
    pad_end: int = 0,
    output_padding: int = 0,
) -> Dim:
    """The size a transposed convolution gives along one dim: S * (I - 1) + DK - PL - PR + output_padding
    (may come out <= 0 on absurd pads: the op names that)."""
    if not isinstance(size, int) or not isinstance(kernel, int):
        if size is not None and kernel == 1 and stride == 1 and pad_begin == pad_end == output_padding == 0:
            return size
        return None
    return stride * (size - 1) + effective_kernel(kernel, dilation) - pad_begin - pad_end + output_padding
