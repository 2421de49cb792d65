"""A float64 result rounded once to a narrower float dtype (round to nearest, ties to even).

NumPy rounds float64 to float32 and float16 directly, but ml_dtypes rounds float64 to bfloat16 through
float32: two roundings, so a value just above a bf16 halfway point that float32 rounds onto it then
goes to even instead of up (1 + 2^-8 + 2^-30 gives 1.0, not 1.0078125). Kernels that compute in
float64 to round once use `round_once`.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def round_once(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float64 `values` as `dtype`, rounded once. For bf16 the float32 step rounds to odd (truncate,
    then set the last bit when anything was cut): with the 16 extra bits float32 keeps, the second
    rounding to bf16 then gives what a single rounding would."""
    values = np.asarray(values)
    if np.dtype(dtype) != BFLOAT16 or values.dtype != np.float64:
        return values.astype(dtype, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = values.astype(np.float32)
        cut = np.abs(nearest.astype(np.float64)) > np.abs(values)  # rounded away from zero: step back
        toward_zero = np.where(cut, np.nextafter(nearest, np.float32(0)), nearest)
        inexact = np.isfinite(values) & (toward_zero.astype(np.float64) != values)
    bits = toward_zero.view(np.uint32) | inexact.astype(np.uint32)
    return bits.view(np.float32).astype(BFLOAT16)
