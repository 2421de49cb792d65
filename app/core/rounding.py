"""A float64 result rounded once to a narrower float dtype (round to nearest, ties to even).

NumPy rounds float64 to float32 and float16 directly, but ml_dtypes rounds float64 to bfloat16 and the
8-bit floats through float32: two roundings, so a value just above a halfway point that float32 rounds
onto it then goes to even instead of up (1 + 2^-8 + 2^-30 gives bf16 1.0, not 1.0078125). Payloads
read from JSON and kernels that compute in float64 both round through `round_once`.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
# The types ml_dtypes reaches from float64 by way of float32.
THROUGH_F32 = frozenset(
    np.dtype(t) for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2)
)


def round_once(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float64 `values` as `dtype`, rounded once. For the types reached through float32, the float32 step
    rounds to odd (truncate, then set the last bit when anything was cut): with the extra bits float32
    keeps, the second rounding then gives what a single rounding would."""
    values = np.asarray(values)
    dtype = np.dtype(dtype)
    if values.dtype != np.float64 or dtype == values.dtype:
        return values.astype(dtype, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype not in THROUGH_F32:
            return values.astype(dtype)
        singles = values.astype(np.float32)
        inexact = np.isfinite(values) & (singles.astype(np.float64) != values)
        if inexact.any():
            away = inexact & (np.abs(singles.astype(np.float64)) > np.abs(values))
            singles = np.where(away, np.nextafter(singles, np.float32(0)), singles)
            singles = (singles.view(np.uint32) | inexact.astype(np.uint32)).view(np.float32)
        return singles.astype(dtype)
