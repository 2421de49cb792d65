"""Numeric building blocks the reference kernels share, on the bits of IEEE floats.

The maximum every op of ours takes is IEEE's `maximum` with two refinements: NaN absorbs, and -0 < +0,
so the maximum of {-0, +0} is +0 whatever the order (NumPy answers by operand order). The kernels that
take it live beside their ops: ReduceMax's in app/ops/reduction.py (ReduceMin takes it too),
SegmentMax's in app/ops/segment_max.py, Max's in app/ops/max.py."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

NARROW_FLOATS = frozenset((np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)))  # a set: asked per call


def widen(x: np.ndarray) -> np.ndarray:
    """f16 and bf16 as f32: exact, and NumPy's own loops are faster than ml_dtypes' for bf16.

    A maximum picks one of its operands, so narrowing the result back is exact too."""
    return x.astype(np.float32) if x.dtype in NARROW_FLOATS else x


# The bits of +inf in the 16-bit floats: a NaN with the sign set is above 0x8000 | these, as unsigned.
INF_BITS = {np.dtype(np.float16): 0x7C00, np.dtype(ml_dtypes.bfloat16): 0x7F80}


def select_where_all_negative(high: np.ndarray, differ: Callable[[], np.ndarray]) -> None:
    """Where the signed maximum `high` is negative, put the signed minimum there, in place, on the bits.

    differ() is the signed minimum XOR `high`, a new array: high ^ differ() is the minimum, and of two
    inputs that is their own XOR, with no minimum to fold. It is called only when some `high` is
    negative, which one minimum over `high` (no temporary) says; the choice is by mask, not np.where,
    whose branch on random signs costs ten times as much."""
    if not high.size or np.minimum.reduce(high, axis=None) >= 0:
        return
    chosen = differ()
    chosen &= high >> 15  # all ones where high < 0, zeros elsewhere
    high ^= chosen


# -0 as a signed integer of each float width, by itemsize: the least of them.
_NEGATIVE_ZERO_BITS = {size: (np.dtype(f"i{size}"), np.iinfo(f"i{size}").min) for size in (2, 4, 8)}


def has_negative_zero(floats: np.ndarray) -> bool:
    """Does the array hold a -0? Its bits are the least signed integer of its width, so one SIMD
    minimum over the bits answers, with no temporary. The minimum is taken where argmin finds it:
    as fast as ufunc.reduce on large arrays, and with a fifth of its cost per call (0.13 against
    0.65 us), which a small request pays once per maximum."""
    if not floats.size:
        return False
    dtype, negative_zero = _NEGATIVE_ZERO_BITS[floats.itemsize]
    bits = floats.view(dtype)
    return bits.item(bits.argmin()) == negative_zero  # argmin's index is into the flat array, as item's
