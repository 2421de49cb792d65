"""app/core/windows.py against brute force: count the kernel positions one by one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core import dims
from app.core.windows import (
    auto_pad_mode,
    auto_pads,
    effective_kernel,
    transposed_output,
    window_fits,
    window_output,
)

small = st.integers(0, 12)
positive = st.integers(1, 5)


def positions(size: int, kernel: int, stride: int, dilation: int, pb: int, pe: int, ceil: bool) -> int:
    """Starts s = 0, S, 2S, ... whose last tap lies inside the padded input (or, with ceil, whose
    overhang past the padded end is less than a stride); none when the window never fits."""
    padded, span = size + pb + pe, (kernel - 1) * dilation + 1
    if span > padded:
        return 0
    allowed = padded + (stride - 1 if ceil else 0)
    count, start = 0, 0
    while start + span <= allowed:
        count += 1
        start += stride
    return count


@settings(max_examples=400, deadline=None)
@given(small, positive, positive, positive, small, small, st.booleans())
def test_window_output_counts_positions(size, kernel, stride, dilation, pb, pe, ceil):
    want = positions(size, kernel, stride, dilation, pb, pe, ceil)
    assert window_output(size, kernel, stride, dilation, pb, pe, ceil=ceil) == want
    assert window_fits(size, kernel, dilation, pb, pe) == (want > 0)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 20), positive, positive, positive, st.sampled_from(["same_upper", "same_lower"]))
def test_same_padding_keeps_ceil_of_size_over_stride(size, kernel, stride, dilation, mode):
    """SAME pads so that the output is ceil(I / S) whenever the kernel spans at least a stride."""
    pb, pe = auto_pads(size, kernel, stride, dilation, mode)
    assert pe - pb in ((0, 1) if mode == "same_upper" else (0, -1))
    if effective_kernel(kernel, dilation) >= stride:
        assert window_output(size, kernel, stride, dilation, pb, pe) == -(-size // stride)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10), positive, positive, positive, st.integers(0, 3), st.integers(0, 3))
def test_transposed_output_inverts_window_output(size, kernel, stride, dilation, pb, pe):
    """A transposed convolution's output, convolved back with the same window, gives its input size;
    output_padding up to stride - 1 adds the sizes the forward floor folds together."""
    for extra in range(stride):
        out = transposed_output(size, kernel, stride, dilation, pb, pe, extra)
        if out > 0 and window_fits(out, kernel, dilation, pb, pe):
            assert window_output(out, kernel, stride, dilation, pb, pe) == size


def test_symbolic_sizes_give_expressions():
    assert window_output("H", 1, 1) == "H"
    assert window_output("H", 3, 2, 1, 1, 1) == "(H - 1) // 2 + 1"  # the convolution
    assert window_output("H", 3, 1) == "max(H - 2, 0)"  # no window position where H < 3: 0, as for ints
    assert window_output(None, 1, 1) is None
    assert window_output(5, "K", 1) == "max(6 - K, 0)"
    assert transposed_output("W", 1, 1) == "W"
    assert transposed_output("W", 2, 2) == "2 * W"
    assert window_output("H", 3, 2, 1, *auto_pads("H", 3, 2, 1, "same_upper")) == "(H - 1) // 2 + 1"


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 60), st.integers(1, 7), st.integers(1, 4), st.integers(1, 3), st.integers(0, 4),
    st.integers(0, 4), st.booleans(), st.sampled_from(["none", "same_upper", "same_lower", "valid"]),
    st.booleans(), st.integers(0, 3),
)  # fmt: skip
def test_the_expression_is_the_static_rule_at_every_size(size, k, s, d, pb, pe, ceil, mode, transposed, op):
    """The int fast path against the expression path it shortcuts: an expression in H, evaluated at
    H = size, is what the static rule gives for size (pads by auto_pad too)."""
    env = {"H": size}
    if mode != "none":
        static_pads = auto_pads(size, k, s, d, mode, transposed)
        symbolic_pads = auto_pads("H", k, s, d, mode, transposed)
        assert static_pads is not None and symbolic_pads is not None
        assert [dims.evaluate(p, env) for p in symbolic_pads] == list(static_pads)
        pb, pe = static_pads
        spb, spe = symbolic_pads
    else:
        spb, spe = pb, pe
    assert dims.evaluate(window_output("H", k, s, d, spb, spe, ceil), env) == window_output(
        size, k, s, d, pb, pe, ceil
    )
    op = min(op, s - 1)
    assert dims.evaluate(transposed_output("H", k, s, d, spb, spe, op), env) == transposed_output(
        size, k, s, d, pb, pe, op
    )
    assert dims.evaluate(window_output(size, "K", s, d, pb, pe, ceil), {"K": k}) == window_output(
        size, k, s, d, pb, pe, ceil
    )


def test_auto_pads_unknown_size():
    assert auto_pads(None, 3, 1, 1, "same_upper") == (1, 1)  # stride 1: the size does not matter
    assert auto_pads(None, 3, 2, 1, "same_upper") is None
    assert auto_pads(None, 3, 2, 1, "same_lower", transposed=True) == (1, 0)
    assert auto_pads("H", "K", 2, 1, "valid") == (0, 0)
    assert auto_pads(7, 4, 2, 1, "same_upper") == (1, 2)  # oneDNN: total 4 - 7 % 2 = 3
    assert auto_pads(7, 4, 2, 1, "same_lower") == (2, 1)


def test_auto_pad_spellings():
    assert [auto_pad_mode(s) for s in ("None", "NONE", "same_upper", "SAME_LOWER", "Valid", "bogus")] == [
        "none",
        "none",
        "same_upper",
        "same_lower",
        "valid",
        None,
    ]
