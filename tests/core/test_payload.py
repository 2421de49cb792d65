"""Payloads in and out: exact values, bf16/f16 rounding against an exact oracle, and refusals."""

from __future__ import annotations

import base64
import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.dtypes import DTYPES
from app.core.payload import LimitExceeded, PayloadError, decode, encode
from app.core.tensors import Tensor

SETTINGS = Settings()


def tensor(dtype: str, shape, data=None, **extra) -> Tensor:
    return Tensor(dtype=dtype, shape=shape, data=data, **extra)


def bits(array: np.ndarray) -> list[int]:
    return array.view(f"u{array.itemsize}").reshape(-1).tolist()


# All finite bf16 values, ascending, as exact doubles: the oracle rounds against this table.
_BF16_BITS = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
_FINITE_BF16 = np.unique(
    _BF16_BITS[(_BF16_BITS & 0x7F80) != 0x7F80].view(ml_dtypes.bfloat16).astype(np.float64)
)  # exponent all ones is inf/NaN: left out by bits, since ml_dtypes warns on NaN compares


def oracle_bf16(x: float) -> float:
    """Round a double to bf16, to nearest, ties to even, by exact rational comparison."""
    if math.isnan(x) or math.isinf(x):
        return x
    i = int(np.searchsorted(_FINITE_BF16, x))
    below = _FINITE_BF16[max(i - 1, 0)]
    above = _FINITE_BF16[min(i, len(_FINITE_BF16) - 1)]
    if below == x or above == x:
        return x
    d_below, d_above = Fraction(x) - Fraction(below), Fraction(above) - Fraction(x)
    if d_below != d_above:
        return float(below if d_below < d_above else above)
    mantissa_even = int(np.array(below, dtype=ml_dtypes.bfloat16).view(np.uint16)) % 2 == 0
    return float(below if mantissa_even else above)


@pytest.mark.parametrize("dtype", ["f8_e5m2", "f8_e4m3", "bf16", "f16", "s4", "u4"])
def test_a_strided_buffer_of_every_narrow_dtype_decodes(dtype: str) -> None:
    """as_strided cannot name ml_dtypes' types (f8_e5m2 raised a TypeError, a 500): the view is made of
    integers of the same width, and its elements are the buffer's, bit for bit."""
    buffer = [1, 2, 3, 0, 5, 6] if dtype in ("s4", "u4") else [1.0, 2.0, 3.0, -0.0, 5.0, 6.0]
    tensor = Tensor(dtype=dtype, shape=[2, 2], strides=[1, 3], data=buffer)
    array = decode(tensor, "inputs[0]", Settings())
    dense = np.array(buffer, dtype=DTYPES[dtype].numpy)
    assert array.dtype == DTYPES[dtype].numpy and array.shape == (2, 2)
    width = f"u{dense.itemsize}"
    assert array.view(width).tolist() == [[dense.view(width)[i + 3 * j] for j in range(2)] for i in range(2)]


@settings(max_examples=300)
@given(st.floats(min_value=-3.3e38, max_value=3.3e38, allow_nan=False, allow_subnormal=True))
def test_bf16_rounds_once_to_nearest_even(x: float) -> None:
    got = decode(tensor("bf16", [1], [x]), "inputs[0]", SETTINGS)
    assert float(got[0]) == oracle_bf16(x)


def test_bf16_double_rounding_case() -> None:
    # 1 + 2^-8 + 2^-30 lies just above a bf16 halfway point: through f32 it would tie and round down.
    got = decode(tensor("bf16", [1], [1 + 2**-8 + 2**-30]), "inputs[0]", SETTINGS)
    assert float(got[0]) == 1 + 2**-7


def test_f16_rounds_once() -> None:
    got = decode(tensor("f16", [2], [1 + 2**-11 + 2**-40, 1 + 2**-11]), "inputs[0]", SETTINGS)
    assert got.tolist() == [1 + 2**-10, 1.0]


def test_nonfinite_strings_and_signed_zero() -> None:
    got = decode(tensor("f32", [2, 2], [["nan", "inf"], ["-inf", -0.0]]), "inputs[0]", SETTINGS)
    assert np.isnan(got[0, 0]) and got[0, 1] == np.inf and got[1, 0] == -np.inf
    assert math.copysign(1, got[1, 1]) == -1
    assert encode(got, "f32", as_base64=False) == [["nan", "inf"], ["-inf", -0.0]]


@pytest.mark.parametrize(
    ("dtype", "values"),
    [
        ("s64", [-(2**63), 2**63 - 1, 0]),
        ("u64", [0, 2**64 - 1, 2**53 + 1]),
        ("s8", [-128, 127]),
        ("u32", [2**32 - 1, 0]),
    ],
)
def test_integers_are_exact_both_ways(dtype: str, values: list[int]) -> None:
    array = decode(tensor(dtype, [len(values)], values), "inputs[0]", SETTINGS)
    assert array.dtype == DTYPES[dtype].numpy
    assert array.tolist() == values
    assert encode(array, dtype, as_base64=False) == values


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "f64", "s16", "u64", "boolean"])
def test_base64_round_trip(dtype: str) -> None:
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, size=6 * DTYPES[dtype].itemsize, dtype=np.uint8).tobytes()
    if dtype == "boolean":
        raw = bytes(b & 1 for b in raw)
    wire = {"encoding": "base64", "bytes": base64.b64encode(raw).decode()}
    array = decode(tensor(dtype, [2, 3], wire), "inputs[0]", SETTINGS)
    assert array.shape == (2, 3)
    assert encode(array, dtype, as_base64=True) == wire


def test_rank_zero_is_a_bare_number() -> None:
    array = decode(tensor("f32", [], 2.5), "inputs[0]", SETTINGS)
    assert array.shape == ()
    assert encode(array, "f32", as_base64=False) == 2.5


def test_strided_view_reads_the_memory_buffer() -> None:
    memory = [1, 2, 99, 3, 4, 99]  # rows of 2 padded to 3
    array = decode(tensor("s8", [2, 2], memory, strides=[3, 1]), "inputs[0]", SETTINGS)
    assert array.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("dtype", sorted(name for name, dt in DTYPES.items() if dt.is_float))
def test_a_strided_view_of_every_float_type_is_its_memory_gathered(dtype) -> None:
    """ml_dtypes' types too: as_strided could not spell f8_e5m2 (a TypeError, a 500 on /v1/validate)."""
    memory = [1.0, -0.0, 99.0, 2.0, 0.5, 99.0]  # rows of 2 padded to 3, exact in every float type
    array = decode(tensor(dtype, [2, 2], memory, strides=[3, 1]), "inputs[0]", SETTINGS)
    dense = decode(tensor(dtype, [2, 2], [[1.0, -0.0], [2.0, 0.5]]), "inputs[0]", SETTINGS)
    assert array.dtype == dense.dtype and bits(array) == bits(dense)
    empty = decode(tensor(dtype, [0, 0, 0], [], strides=[0, 0, 1]), "inputs[0]", SETTINGS)
    assert (empty.dtype, empty.shape) == (dense.dtype, (0, 0, 0))


@pytest.mark.parametrize(
    ("dtype", "shape", "data", "path", "words"),
    [
        ("f32", [2], [1.0], "inputs[0].data", "data has shape [1], but the tensor's shape is [2]"),
        ("f32", [2, 2], [[1.0, 2.0], [3.0]], "inputs[0].data", "ragged"),
        ("f32", [2], [1.0, "one"], "inputs[0].data[1]", "'one' is not a value"),
        ("f32", [1], [True], "inputs[0].data[0]", "True is not a number"),
        ("f32", [1], [1e39], "inputs[0].data[0]", "outside the finite range of f32"),
        ("f16", [1], [70000], "inputs[0].data[0]", "outside the finite range of f16"),
        ("s8", [2], [1, 128], "inputs[0].data[1]", "value 128 is outside the range of s8 [-128, 127]"),
        ("u64", [1], [-1], "inputs[0].data[0]", "outside the range of u64"),
        ("s32", [1, 2], [[1, 2.5]], "inputs[0].data[0][1]", "2.5 is not an integer"),
        ("s32", [2], None, "inputs[0].data", "no data"),
        ("s32", ["N"], [1], "inputs[0].shape", "every dim a known integer"),
        ("s32", [1], {"encoding": "base64", "bytes": "!!"}, "inputs[0].data", "not valid base64"),
        ("s32", [1], {"encoding": "base64", "bytes": "AAA="}, "inputs[0].data", "not a whole number"),
        ("s32", [1], {"encoding": "hex", "bytes": "00"}, "inputs[0].data", "encoded data must be"),
        ("s8", [2, 2], [1, 2, 3], "inputs[0].data", "reaches element 3"),
    ],
)
def test_bad_payloads_name_the_place(dtype, shape, data, path, words) -> None:
    extra = {"strides": [2, 1]} if words == "reaches element 3" else {}
    with pytest.raises(PayloadError) as caught:
        decode(tensor(dtype, shape, data, **extra), "inputs[0]", SETTINGS)
    assert caught.value.path == path
    assert words in caught.value.message


def test_element_limit_is_checked_before_decoding() -> None:
    small = Settings(max_elements=10)
    huge = tensor("f32", [1 << 40], {"encoding": "base64", "bytes": ""})
    with pytest.raises(LimitExceeded) as caught:
        decode(huge, "inputs[0]", small)
    assert caught.value.limit == "max_elements"
    assert "1,099,511,627,776" in caught.value.message


@pytest.mark.parametrize(
    ("shape", "strides", "data"),
    [
        ([1], [2**63 - 1], [1.5]),
        ([1, 2], [2**62, 1], [1.5, 2.5]),
        ([0, 2], [2**63 - 1, 1], []),
        ([2, 0], [1, 2**62], []),
    ],
)
def test_a_stride_that_is_never_stepped_may_be_any_size(shape, strides, data) -> None:
    """A size-1 dim's stride, or any stride of an empty tensor, is never used: it is not a 500 (NumPy's byte
    strides are int64, and 2**62 * 4 overflows them)."""
    array = decode(tensor("f32", shape, data, strides=strides), "inputs[0]", SETTINGS)
    assert array.shape == tuple(shape)
    assert array.reshape(-1).tolist() == data


@pytest.mark.parametrize(
    ("shape", "extra"),
    [
        ([0, 2**24, 2**24, 2**24], {"data": []}),  # no elements, but NumPy cannot lay it out
        ([2**13, 2**12], {"data": [1.0], "strides": [0, 0]}),  # one value in memory, 2**25 elements to read
    ],
)
def test_a_shape_is_refused_when_its_dims_multiply_past_the_limit(shape, extra) -> None:
    with pytest.raises(LimitExceeded) as caught:
        decode(tensor("f32", shape, **extra), "inputs[0]", SETTINGS)
    assert caught.value.limit == "max_elements"
    assert caught.value.path == "inputs[0].shape"


@pytest.mark.parametrize("dtype", ["f32", "bf16", "s64", "u16"])
def test_base64_is_the_same_with_or_without_the_byte_order_swap(dtype, monkeypatch) -> None:
    """A little-endian machine reads and writes base64 in the native dtype; the swapping path, which a
    big-endian machine takes, gives the same arrays and the same text."""
    import app.core.payload as payload

    raw = bytes(range(1, 17))
    data = {"encoding": "base64", "bytes": base64.b64encode(raw).decode()}
    shape = [16 // DTYPES[dtype].itemsize]
    native = decode(tensor(dtype, shape, data), "inputs[0]", SETTINGS)
    monkeypatch.setattr(payload, "_LITTLE_ENDIAN", False)
    swapped = decode(tensor(dtype, shape, data), "inputs[0]", SETTINGS)
    assert native.dtype == swapped.dtype == DTYPES[dtype].numpy
    assert native.tobytes() == swapped.tobytes() == raw
    assert encode(swapped, dtype, as_base64=True) == data
    monkeypatch.setattr(payload, "_LITTLE_ENDIAN", True)
    assert encode(native, dtype, as_base64=True) == data


def test_every_dtype_knows_its_itemsize() -> None:
    for dt in DTYPES.values():
        assert dt.itemsize == dt.numpy.itemsize


@pytest.mark.parametrize("shape", [[5], [1, 5], []])
def test_a_decoded_payload_has_the_tensor_shape_and_stays_read_only(shape) -> None:
    """A 1-D payload is returned as decoded (no reshape to the shape it already has); any layout is
    the tensor's own shape, bit for bit, and never writable when it is the caller's bytes or array."""
    values = np.array([-0.0, 0.0, np.nan, -np.inf, 1.5], np.float32)[: math.prod(shape)].reshape(shape)
    encoded = {"encoding": "base64", "bytes": base64.b64encode(values.tobytes()).decode()}
    for data in (encoded, values):
        got = decode(tensor("f32", shape, data), "inputs[0]", SETTINGS)
        assert got.shape == tuple(shape) and got.dtype == np.float32 and bits(got) == bits(values)
        assert not got.flags.writeable
    assert values.flags.writeable  # the caller's array itself is left as it was
