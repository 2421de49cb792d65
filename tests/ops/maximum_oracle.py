"""The plain oracle the maximum kernels (app/ops/max.py, reduction.py, segment_max.py) are held to, bit
for bit: elementwise in f64, NaN absorbs, +0 over -0."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

NARROW = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]


def widen(a: np.ndarray) -> np.ndarray:
    """As f64, exactly; a bf16 NaN's cast warns (ml_dtypes) where NaN is a value like any other here."""
    with np.errstate(invalid="ignore"):
        return a.astype(np.float64)


def oracle_max(arrays: list[np.ndarray]) -> np.ndarray:
    """Elementwise in f64: NaN absorbs, +0 over -0 (np.maximum picks by operand order on a tie)."""
    wide = [widen(a) for a in arrays]
    result = np.broadcast_to(wide[0], np.broadcast_shapes(*(a.shape for a in wide))).copy()
    for a in wide[1:]:
        tie = (result == 0) & (a == 0)
        result = np.where(tie, np.where(np.signbit(result) & np.signbit(a), -0.0, 0.0), np.maximum(result, a))
    return result.astype(arrays[0].dtype)


def oracle_reduce(x: np.ndarray, axes: tuple[int, ...], keep_dims: bool) -> np.ndarray:
    moved = np.moveaxis(x, axes, range(x.ndim - len(axes), x.ndim))
    rows = moved.reshape(*moved.shape[: x.ndim - len(axes)], math.prod(x.shape[a] for a in axes))
    out = np.empty(rows.shape[:-1], dtype=x.dtype)
    for index in np.ndindex(out.shape):
        out[index] = oracle_max(list(rows[index].reshape(-1, 1)))[0] if rows.shape[-1] else -np.inf
    if keep_dims:
        out = np.expand_dims(out, axes)
    return out


def same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal shapes and dtypes; equal bits, except that any NaN matches any NaN."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    g, w = widen(got), widen(want)
    both_nan = np.isnan(g) & np.isnan(w)
    bits = np.dtype(f"u{got.itemsize}")
    return bool(np.all(both_nan | (got.view(bits) == want.view(bits))))


def every_pattern(dtype: np.dtype) -> np.ndarray:
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype)
