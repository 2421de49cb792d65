"""Payloads of oneDNN's narrow types: f8_e4m3, f8_e5m2, s4, u4 (one element per byte), in JSON lists and
base64, both ways, exactly."""

from __future__ import annotations

import base64
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.payload import PayloadError, decode, encode
from app.core.tensors import Tensor
from tests.conftest import same_values

SETTINGS = Settings()


def load(dtype: str, data, shape=None) -> np.ndarray:
    shape = shape if shape is not None else [len(data) if isinstance(data, list) else 4]
    return decode(Tensor(dtype=dtype, shape=shape, data=data), "inputs[0]", SETTINGS)


def refused(dtype: str, data, shape=None) -> tuple[str, str]:
    with pytest.raises(PayloadError) as caught:
        load(dtype, data, shape)
    return caught.value.path, caught.value.message


def b64(raw: bytes) -> dict:
    return {"encoding": "base64", "bytes": base64.b64encode(raw).decode()}


@pytest.mark.parametrize(
    ("dtype", "numpy"),
    [("f8_e4m3", ml_dtypes.float8_e4m3fn), ("f8_e5m2", ml_dtypes.float8_e5m2), ("s4", ml_dtypes.int4),
     ("u4", ml_dtypes.uint4)],
)  # fmt: skip
def test_each_narrow_type_is_its_ml_dtypes_type_one_byte_each(dtype, numpy) -> None:
    array = load(dtype, [1, 2, 3, 4])
    assert array.dtype == np.dtype(numpy) and array.itemsize == 1
    assert array.astype(np.int64).tolist() == [1, 2, 3, 4]
    assert encode(array, dtype, as_base64=False) == (
        [1.0, 2.0, 3.0, 4.0] if dtype.startswith("f8") else [1, 2, 3, 4]
    )
    assert encode(array, dtype, as_base64=True) == b64(bytes([0x38, 0x40, 0x44, 0x48]) if dtype == "f8_e4m3" else
                                                         bytes([0x3C, 0x40, 0x42, 0x44]) if dtype == "f8_e5m2" else
                                                         bytes([1, 2, 3, 4]))  # fmt: skip


def test_f8_lists_keep_specials_and_the_sign_of_zero() -> None:
    e5 = load("f8_e5m2", ["inf", "-inf", "nan", -0.0, 57344.0, 1.52587890625e-05])
    assert same_values(
        encode(e5, "f8_e5m2", as_base64=False), ["inf", "-inf", "nan", -0.0, 57344.0, 1.52587890625e-05]
    )
    e4 = load("f8_e4m3", ["nan", -0.0, 448.0, -448.0, 0.001953125])
    assert same_values(encode(e4, "f8_e4m3", as_base64=False), ["nan", -0.0, 448.0, -448.0, 0.001953125])


def test_f8_e4m3_has_no_infinity_and_refuses_what_would_be_nan() -> None:
    assert refused("f8_e4m3", [1.0, "inf"]) == (
        "inputs[0].data[1]",
        "f8_e4m3 has no infinity; inf cannot be held (its values are finite or NaN)",
    )
    assert refused("f8_e4m3", [464.0, 465.0]) == (
        "inputs[0].data[1]",
        "value 465.0 is outside the finite range of f8_e4m3 [-448.0, 448.0]",
    )
    assert load("f8_e4m3", [464.0]).astype(np.float64).tolist() == [448.0]  # the tie rounds to even, in range
    assert (
        refused("f8_e5m2", [61440.0])[1]
        == "value 61440.0 is outside the finite range of f8_e5m2 [-57344.0, 57344.0]"
    )


def test_f8_rounds_once_from_the_decimal() -> None:
    # Just above a halfway point: rounding through f32 first would land on the tie and go to even.
    assert load("f8_e5m2", [1.125 + 2**-40]).astype(np.float64).tolist() == [1.25]
    assert load("f8_e4m3", [1.0625 + 2**-40]).astype(np.float64).tolist() == [1.125]
    assert load("f8_e4m3", [1.0625, 1.1875]).astype(np.float64).tolist() == [1.0, 1.25]  # ties to even


@given(st.floats(-448, 448, allow_subnormal=True))
def test_f8_e4m3_rounds_to_the_nearest_value(value) -> None:
    got = float(load("f8_e4m3", [value]).astype(np.float64)[0])
    grid = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    grid = grid[np.isfinite(grid)]
    best = np.min(np.abs(grid - value))
    assert abs(got - value) == best
    if math.copysign(1, got) != math.copysign(1, value):
        assert got == 0 and value == 0


def test_int4_lists_are_range_checked() -> None:
    assert load("s4", [-8, 7, 0, -1]).astype(np.int64).tolist() == [-8, 7, 0, -1]
    assert refused("s4", [0, 8]) == ("inputs[0].data[1]", "value 8 is outside the range of s4 [-8, 7]")
    assert refused("u4", [[0, 1], [-1, 15]], [2, 2]) == (
        "inputs[0].data[1][0]",
        "value -1 is outside the range of u4 [0, 15]",
    )


def test_int4_base64_is_one_element_per_byte() -> None:
    # s4: the low four bits with the high four clear (as ml_dtypes writes them), or sign-extended (an int8)
    assert load("s4", b64(bytes([0x08, 0x07, 0x0F, 0xF8]))).astype(np.int64).tolist() == [-8, 7, -1, -8]
    assert encode(load("s4", [-8, 7, -1, 0]), "s4", as_base64=True) == b64(bytes([0x08, 0x07, 0x0F, 0x00]))
    assert load("u4", b64(bytes([0, 15, 8, 1]))).astype(np.int64).tolist() == [0, 15, 8, 1]
    assert refused("s4", b64(bytes([0x10, 0, 0, 0]))) == (
        "inputs[0].data[0]",
        "byte 0x10 is not a s4 element; each byte holds one, as 0x00-0x0F, or 0xF8-0xFF for -8..-1",
    )
    assert refused("u4", b64(bytes([0, 0, 0xF8, 0])))[0] == "inputs[0].data[2]"
    assert refused("u4", b64(bytes([0, 1, 2])))[1] == "data holds 3 values, but shape [4] needs 4"


def test_f8_base64_round_trips_every_byte() -> None:
    every = bytes(range(256))
    for dtype, numpy in (("f8_e5m2", ml_dtypes.float8_e5m2), ("f8_e4m3", ml_dtypes.float8_e4m3fn)):
        array = load(dtype, b64(every), [256])
        assert array.view(np.uint8).tolist() == list(every)
        assert encode(array, dtype, as_base64=True) == b64(every)
        # and through lists: every value but NaN payloads comes back as the same byte
        back = load(dtype, encode(array, dtype, as_base64=False), [256])
        finite = ~np.isnan(array.astype(np.float32))
        assert (back.view(np.uint8)[finite] == array.view(np.uint8)[finite]).all()
        assert back.dtype == np.dtype(numpy)
