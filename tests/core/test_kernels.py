"""The shared building blocks of the maximum kernels (app/core/kernels.py) on the bits of IEEE floats;
the kernels themselves are held to a plain oracle beside their ops' tests (tests/ops/test_max.py,
test_reduction.py, test_segment_max.py)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
def test_negative_zero_test_finds_every_minus_zero(dtype) -> None:
    """has_negative_zero (argmin over the bits) on N-d, transposed, strided, 0-d and empty arrays."""
    from app.core.kernels import has_negative_zero

    x = np.array([[1.0, 0.0, -2.0], [np.nan, -np.inf, 3.0]], dtype)
    assert not has_negative_zero(x) and not has_negative_zero(x[:0]) and not has_negative_zero(x[0, 1, None])
    x[1, 2] = -0.0
    assert has_negative_zero(x) and has_negative_zero(x.T) and has_negative_zero(x[1, 2, None])
    assert not has_negative_zero(x[:, 1::2]) and has_negative_zero(x[:, ::2])
    assert (
        has_negative_zero(np.array(-0.0, dtype))
        and not has_negative_zero(np.array(-np.nan, dtype))
        and not has_negative_zero(np.array(-np.inf, dtype))
    )
