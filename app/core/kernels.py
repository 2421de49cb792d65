"""Numeric building blocks the reference kernels share.

The maximum here is IEEE's `maximum` with two refinements every op of ours uses: NaN absorbs, and
-0 < +0, so the maximum of {-0, +0} is +0 whatever the order (NumPy answers by operand order)."""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np

_NARROW_FLOATS = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def widen(x: np.ndarray) -> np.ndarray:
    """f16 and bf16 as f32: exact, and NumPy's own loops are faster than ml_dtypes' for bf16.

    A maximum picks one of its operands, so narrowing the result back is exact too."""
    return x.astype(np.float32) if x.dtype in _NARROW_FLOATS else x


def reduce_max(x: np.ndarray, axes: Sequence[int], keep_dims: bool) -> np.ndarray:
    """Maximum of x over `axes` (normalised, non-empty); an empty maximum is -inf (floats only)."""
    axes = tuple(axes)
    if any(x.shape[axis] == 0 for axis in axes):
        shape = tuple(1 if a in axes else d for a, d in enumerate(x.shape) if keep_dims or a not in axes)
        return np.full(shape, -np.inf, dtype=x.dtype)
    wide = widen(x)
    result = np.max(wide, axis=axes, keepdims=keep_dims)
    if wide.dtype.kind == "f":
        zero = result == 0
        if zero.any():
            positive_zero = np.any((wide == 0) & ~np.signbit(wide), axis=axes, keepdims=keep_dims)
            result = np.where(zero, np.where(positive_zero, 0.0, -0.0).astype(wide.dtype), result)
    return np.asarray(result).astype(x.dtype, copy=False)
