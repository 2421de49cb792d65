"""The op-independent comparison: exact on bits, NaN payloads equal, -0 against +0 different, chunked."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from app.core.mismatch import equal_bits, float_classes, identical, mismatch_chunks


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, ml_dtypes.bfloat16])
def test_nan_payloads_are_equal_and_signed_zeros_are_not(dtype) -> None:
    bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
    quiet = np.array([np.nan], dtype=dtype)
    other = quiet.copy()
    other.view(bits)[0] ^= 1  # another payload, still a NaN
    assert np.isnan(other[0]) and quiet.view(bits)[0] != other.view(bits)[0]
    assert equal_bits(quiet, other, is_float=True).all()
    zeros = np.array([0.0, -0.0], dtype=dtype)
    assert equal_bits(zeros, zeros[::-1], is_float=True).tolist() == [False, False]


def test_integers_compare_by_value() -> None:
    a = np.array([1, -2, 3], dtype=np.int64)
    assert not identical(a, np.array([1, -2, 4], dtype=np.int64), is_float=False)
    assert identical(a, a.copy(), is_float=False)


def test_chunks_list_every_mismatch_once_in_row_major_order() -> None:
    want = np.arange(1000, dtype=np.float32).reshape(10, 100)
    got = want.copy()
    flips = [5, 99, 100, 517, 999]
    got.reshape(-1)[flips] = -1
    found = [(at.tolist(), w.tolist(), g.tolist()) for at, w, g in mismatch_chunks(want, got, True, chunk=64)]
    assert [p for at, _, _ in found for p in at] == flips
    assert [v for _, w, _ in found for v in w] == [5.0, 99.0, 100.0, 517.0, 999.0]
    assert len(found) == 4  # 99 and 100 share the chunk [64, 128)


def test_float_classes() -> None:
    want = np.array([np.nan, 1.0, 0.0, -0.0, 2.0], dtype=np.float32)
    got = np.array([1.0, np.nan, -0.0, 0.0, 3.0], dtype=np.float32)
    assert float_classes(want, got).tolist() == [
        "nan_dropped",
        "nan_invented",
        "signed_zero",
        "signed_zero",
        "",
    ]
