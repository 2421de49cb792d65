"""Numeric building blocks the reference kernels share.

The maximum here is IEEE's `maximum` with two refinements every op of ours uses: NaN absorbs, and
-0 < +0, so the maximum of {-0, +0} is +0 whatever the order (NumPy answers by operand order)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np

from app.core.arena import new_array

_NARROW_FLOATS = frozenset((np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)))  # a set: asked per call


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
    if x.dtype in _NARROW_FLOATS:
        return _reduce_max_bits16(x, axes, keep_dims)
    result = _reduce(np.maximum, x, axes, keep_dims)
    if x.dtype.kind == "f" and _has_negative_zero(result):  # a +0 result is right: +0 is among its values
        zero = result == 0
        positive_zero = np.any((x == 0) & ~np.signbit(x), axis=axes, keepdims=keep_dims)
        result = np.where(zero, np.where(positive_zero, 0.0, -0.0).astype(x.dtype), result)
    return np.asarray(result)


def _reduce_max_bits16(x: np.ndarray, axes: tuple[int, ...], keep_dims: bool) -> np.ndarray:
    """reduce_max of f16 or bf16 on the bits as int16, by the order _exact_max_bits16 explains.

    Its passes (the signed maximum, the minimum where it is negative, the check for NaNs with the sign
    set) each read all of x, so a large x is reduced in slabs along its first kept axis, each of about
    _SLAB_BYTES: the passes after the first read the slab from cache (2.1 -> 1.3 ms on [4,1024,1024]
    axes [0]). Slabs of the first axis keep x's layout; slabs of a later one are used only where the
    last axis is kept and is not that one, as otherwise they would be narrow columns or lose the rows
    that _reduce takes by reduceat (slower on [4,1024,1024] axes [0,2])."""
    bits = x.view(np.int16)
    floor = 0x8000 | _INF_BITS[x.dtype]
    last = x.ndim - 1
    kept = next((axis for axis in range(x.ndim) if axis not in axes), last)  # none kept: not cut
    if x.nbytes <= _SLAB_BYTES or kept == last or (kept and last in axes):
        return _reduce_max_bits16_slab(bits, axes, keep_dims, floor).view(x.dtype)
    step = max(1, _SLAB_BYTES * x.shape[kept] // x.nbytes)
    before = (slice(None),) * kept
    slabs = [
        _reduce_max_bits16_slab(bits[(*before, slice(start, start + step))], axes, keep_dims, floor)
        for start in range(0, x.shape[kept], step)
    ]
    # every axis before the first kept one is reduced: without keep_dims the slabs meet along axis 0
    return np.concatenate(slabs, axis=kept if keep_dims else 0).view(x.dtype)


# Bytes of a 16-bit input reduced at a time (reduce_max): a slab and its results stay in L2.
_SLAB_BYTES = 1 << 19


def _reduce_max_bits16_slab(
    signed: np.ndarray, axes: tuple[int, ...], keep_dims: bool, floor: int
) -> np.ndarray:
    """The signed maximum, the signed minimum only where every value is negative, NaNs with the sign
    set (bits above `floor` as unsigned) put back only when there are any: the result's bits."""
    result = _reduce(np.maximum, signed, axes, keep_dims)
    _select_where_all_negative(result, lambda: _reduce(np.minimum, signed, axes, keep_dims) ^ result)
    unsigned = signed.view(np.uint16)
    if signed.size and unsigned.max() > floor:
        nans = _reduce(np.maximum, unsigned, axes, keep_dims)
        np.copyto(result.view(np.uint16), nans, where=nans > floor)
    return result


# Rows shorter than this are left to ufunc.reduce: reduceat's start indices (8 bytes a row) would take
# more than a quarter of a 16-bit input's own memory.
_SHORTEST_ROW = 16


def _reduce(ufunc: np.ufunc, x: np.ndarray, axes: tuple[int, ...], keep_dims: bool) -> np.ndarray:
    """ufunc reduced over `axes` (wrapped, unique, non-empty) as a new array, also when 0-d.

    NumPy's reduce along the last axis pays a cost per row that reduceat over the flat array does not
    (0.22 against 0.15 ms for the rows of [1024,1024] f32, 1.7x on rows of 64), so the trailing reduced
    axes of a C-contiguous x are reduced as rows that way, and any axes before them after it, on the
    smaller result. The same ufunc on the same values: the same maximum, NaN and all."""
    trailing = 0
    while trailing < len(axes) and x.ndim - 1 - trailing in axes:
        trailing += 1
    kept = x.shape[: x.ndim - trailing]
    row = x.size // math.prod(kept) if x.size else 0
    if not trailing or row < _SHORTEST_ROW or not x.flags.c_contiguous:  # (reshape would copy x)
        return np.asarray(ufunc.reduce(x, axis=axes, keepdims=keep_dims))
    starts = _row_starts(x.size, row) if x.size // row <= _CACHED_STARTS else np.arange(0, x.size, row)
    result = ufunc.reduceat(x.reshape(-1), starts).reshape(kept)
    earlier = tuple(axis for axis in axes if axis < len(kept))
    if earlier:
        result = np.asarray(ufunc.reduce(result, axis=earlier))
    if keep_dims:
        result = result.reshape([1 if axis in axes else size for axis, size in enumerate(x.shape)])
    return result


# Rows up to this many have their start indices kept (_row_starts): 32 shapes, 512 KiB each at most.
_CACHED_STARTS = 1 << 16


@functools.lru_cache(maxsize=32)
def _row_starts(size: int, row: int) -> np.ndarray:
    """np.arange(0, size, row), read-only, made once per shape: a repeated reduction (the common case)
    then skips an allocation and a fill, ~2 us of a ~100 us [1024,1024] reduction."""
    starts = np.arange(0, size, row)
    starts.flags.writeable = False
    return starts


def _run_max(wide: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """np.maximum over the runs wide[starts[i]:starts[i+1]] along axis 0, with +0 above -0.

    A run whose maximum is 0 holds nothing above 0 and no NaN, so any value in it without the sign bit
    is +0: the fix needs one pass over the sign bits, and only when some maximum is -0."""
    result = None
    if wide.ndim > 1 and wide.size > len(wide) and starts.size:  # rows of more than one element
        lengths = np.diff(starts, append=len(wide))
        longest = int(lengths.max())
        if longest <= _FOLD_LONGEST_RUN:
            result = _fold_runs(wide, starts, lengths, longest)
    if result is None:
        result = np.maximum.reduceat(wide, starts, axis=0)
    if wide.dtype.kind == "f" and _has_negative_zero(result):  # a +0 maximum is right: +0 is in its run
        zero = result == 0
        negative = np.logical_and.reduceat(np.signbit(wide), starts, axis=0)
        result[zero] = np.where(negative[zero], -0.0, 0.0)
    return result


# Up to this many rows in the longest run, folding rows by their place in the run beats reduceat.
_FOLD_LONGEST_RUN = 64


def _fold_runs(wide: np.ndarray, starts: np.ndarray, lengths: np.ndarray, longest: int) -> np.ndarray:
    """np.maximum over each run of rows, a whole row at a time: the k-th rows of every run at least
    k + 1 long are folded in one vectorised step, `longest` steps in all.

    reduceat along axis 0 walks each row's elements column by column (3x OpenVINO on [40,000 x 100]
    with runs of ~4 rows). Runs sorted longest first make the runs still going at step k a prefix, so
    each step is one gather and one in-place maximum on a contiguous block. An empty run (length 0,
    from the caller's binary search) gets a junk row, as reduceat gives it; the caller fills it."""
    order = np.argsort(-lengths, kind="stable")
    ordered = starts[order]
    acc = wide[np.minimum(ordered, len(wide) - 1)]
    still_going = len(lengths) - np.cumsum(np.bincount(lengths, minlength=longest + 1))
    for k in range(1, longest):
        m = int(still_going[k])
        np.maximum(acc[:m], wide[ordered[:m] + k], out=acc[:m])
    result = np.empty_like(acc)
    result[order] = acc
    return result


def run_starts(ids: np.ndarray) -> np.ndarray:
    """Where each run of equal values in a sorted 1-D array begins (empty for an empty array)."""
    if ids.size == 0:
        return np.zeros(0, dtype=np.intp)
    return np.concatenate(([0], np.flatnonzero(ids[1:] != ids[:-1]) + 1))


def count_below(ids: np.ndarray, count: int) -> int:
    """How many of the sorted `ids` are below `count` (a Python int, which may not fit ids' dtype)."""
    if ids.size == 0 or count > ids[-1]:
        return ids.size
    return int(np.searchsorted(ids, ids.dtype.type(count)))  # a Python int would cast all of ids first


def segment_max(x: np.ndarray, ids: np.ndarray, count: int, fill: int | float) -> np.ndarray:
    """Maximum of the rows of x (axis 0) that share a segment id, for segments 0 .. count-1.

    `ids` are sorted and >= 0, one per row; rows with an id >= count are dropped, and a segment no row
    belongs to gets `fill`. NaN absorbs and +0 beats -0, as in reduce_max."""
    kept = count_below(ids, count)
    out_shape = (count, *x.shape[1:])
    if kept == 0:
        return np.full(out_shape, fill, dtype=x.dtype)
    ids, wide = ids[:kept], widen(x[:kept])
    slots = int(ids[-1]) + 1  # segments up to the last kept id; those after it are all empty
    if slots * 4 <= kept:
        # Few segments for many rows: find each segment's first row by binary search (no pass over
        # the ids), reduce every segment, then overwrite the empty ones, whose reduceat rows are junk.
        segments = np.arange(slots, dtype=ids.dtype)  # ids' own type: other keys cast all of ids first
        starts = np.searchsorted(ids, segments)
        empty = ids[starts] != segments
        result = _run_max(wide, starts)
        if slots == count and result.dtype == x.dtype:
            result[empty] = fill
            return result
        out = np.empty(out_shape, dtype=x.dtype)
        out[:slots] = result
        out[:slots][empty] = fill
        out[slots:] = fill
        return out
    starts = run_starts(ids)
    out = np.full(out_shape, fill, dtype=x.dtype)
    out[ids[starts]] = _run_max(wide, starts)
    return out


def maximum(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """Elementwise maximum of one or more arrays of one dtype, broadcast together (NumPy's rule; the
    caller has already checked the strict one). A new array; NaN absorbs and +0 beats -0.

    Inputs of one shape are folded at their own size first, so the passes over the broadcast result
    number the distinct shapes, not the inputs: a thousand scalars beside a large tensor cost one pass
    over it, not a thousand. Inputs all of one shape are folded once, straight into the result."""
    first = arrays[0]
    if first.nbytes <= _BLOCK and first.dtype not in _NARROW_FLOATS:
        shape = first.shape
        for a in arrays:
            if a.shape != shape:
                break
        else:
            return _one_block(first, arrays)
    exact = _exact_max_bits16 if arrays[0].dtype in _NARROW_FLOATS else _exact_max
    by_shape: dict[tuple[int, ...], list[np.ndarray]] = {}
    for a in arrays:
        by_shape.setdefault(a.shape, []).append(a)
    if len(by_shape) == 1:  # np.broadcast_shapes costs more than the whole maximum of 1,000 elements
        return exact(arrays[0].shape, arrays)
    shape = np.broadcast_shapes(*by_shape)
    groups = [group[0] if len(group) == 1 else exact(shape, group) for shape, group in by_shape.items()]
    longer = _longer_rows(shape, groups)
    if longer:
        return exact(*longer).reshape(shape)
    return exact(shape, groups)


def _one_block(first: np.ndarray, arrays: Sequence[np.ndarray]) -> np.ndarray:
    """_exact_max where every input has the result's shape and the result fits one block (a small
    request's case): one fold and, for floats, the -0 test, as _exact_max would run them, without the
    grouping by shape, the count of zero holders (every input spans the result: they all count) and
    the blocks, whose Python steps cost more than the maximum of 1,000 elements."""
    out = np.empty(first.shape, first.dtype)
    if first.dtype.kind == "f" and len(arrays) > 1 and out.size:
        _fill_max(out, arrays)
    else:  # integers, one input or no element: nothing a fold leaves to fix
        _fold(np.maximum, out, arrays)
    return out


# Elements in a row of the result that NumPy's broadcast loop handles in one call (_longer_rows).
_LONG_ROW = 1 << 14


def _longer_rows(
    shape: tuple[int, ...], arrays: Sequence[np.ndarray]
) -> tuple[tuple[int, int], list[np.ndarray]] | None:
    """The same maximum over fewer, longer rows, or None where it would not be.

    NumPy's broadcast loop makes a call per row of the result: a [2048,2048] tensor beside a [2048] row
    takes 1.39 ms against 1.16 ms with rows four times longer. When every input spans the whole result
    (C-contiguous), is one row of it, or is one value, k rows of the result are taken as one: the row
    inputs tiled k times (k rows, a small copy), the others reshaped (no copy). k is a power of two
    that divides the rows, with k rows at most _LONG_ROW elements and an eighth of the result (tiled
    rows stay small beside it, as _zeros_may_meet counts them)."""
    row, rows = shape[-1] if shape else 0, math.prod(shape[:-1])
    most = min(_LONG_ROW // row, rows // _GLANCE) if len(shape) > 1 and row else 0
    if most < 2:
        return None
    k = math.gcd(rows, 1 << (most.bit_length() - 1))
    longer = (rows // k, k * row)
    reshaped, tiled = [], False
    for a in arrays:
        if a.size == 1:
            reshaped.append(a.reshape(()))
        elif a.size == row and a.shape[-1] == row:
            reshaped.append(np.tile(a.reshape(-1), k))
            tiled = True
        elif a.shape == shape and a.flags.c_contiguous:
            reshaped.append(a.reshape(longer))
        else:
            return None
    return (longer, reshaped) if tiled and k > 1 else None


# Bytes of the result per block when a maximum is computed block by block (a block of each input
# fits in L2): 64K f32, 128K of the 16-bit floats (1<<16 of these measured 3-7% slower).
_BLOCK = 1 << 18


def _in_blocks(shape: tuple[int, ...], arrays: Sequence[np.ndarray], fill: Callable) -> np.ndarray:
    """A new array of `shape` that fill(out, inputs) computes block by block of rows along the first
    axis (inputs sliced where they span it, whole where they broadcast along it).

    A maximum's fixes (the signed-zero check, the 16-bit floats' second fold and mask) then read each
    block of the result while it is still in cache, instead of passing over all of it from memory."""
    result = new_array(shape, arrays[0].dtype)
    if result.nbytes <= _BLOCK or not shape or not shape[0]:
        fill(result, arrays)
        return result
    if all(a.shape == shape and a.flags.c_contiguous for a in arrays):
        # Blocks of the flat arrays: rows of a [4,1024,1024] result are 2 MB apiece for 16-bit floats,
        # too large a block for the cache (4.3 -> 2.6 ms for two f16 inputs of that shape).
        flat = result.reshape(-1)
        parts = [a.reshape(-1) for a in arrays]
        step = _BLOCK // result.itemsize
        for start in range(0, flat.size, step):
            block = slice(start, start + step)
            fill(flat[block], [a[block] for a in parts])
        return result
    step = max(1, _BLOCK // (result.nbytes // shape[0]))
    for start in range(0, shape[0], step):
        rows = slice(start, start + step)
        fill(result[rows], [a[rows] if a.ndim == len(shape) and a.shape[0] != 1 else a for a in arrays])
    return result


def _exact_max(shape: tuple[int, ...], arrays: Sequence[np.ndarray]) -> np.ndarray:
    if arrays[0].dtype.kind != "f" or not _zeros_may_meet(math.prod(shape), arrays):
        # nothing to fix after the fold: blocks would only add calls
        return _fold(np.maximum, new_array(shape, arrays[0].dtype), arrays)
    return _in_blocks(shape, arrays, _fill_max)


def _fill_max(out: np.ndarray, arrays: Sequence[np.ndarray]) -> None:
    _fold(np.maximum, out, arrays)
    _prefer_positive_zero(out, arrays)


# An input at most 1/_GLANCE the size of the result is looked at for zeros before the fold.
_GLANCE = 8


def _zeros_may_meet(size: int, arrays: Sequence[np.ndarray]) -> bool:
    """Can zeros of two inputs meet at one place of the result (`size` elements)?

    np.maximum returns one of its operands, so a -0 result can hide a +0 only where two inputs hold
    zeros: when at most one input holds any, the fold is exact as it stands. An input small beside
    the result is counted for zeros (a large tensor beside a broadcast row then costs no check at all);
    a large one is taken to hold some unlooked, as a pass over it costs more than the result's own
    check in cache."""
    holders = 0
    for a in arrays:
        holders += a.size * _GLANCE > size or np.count_nonzero(a) < a.size
        if holders > 1:
            return True
    return False


# The bits of +inf in the 16-bit floats: a NaN with the sign set is above 0x8000 | these, as unsigned.
_INF_BITS = {np.dtype(np.float16): 0x7C00, np.dtype(ml_dtypes.bfloat16): 0x7F80}


def _exact_max_bits16(shape: tuple[int, ...], arrays: Sequence[np.ndarray]) -> np.ndarray:
    """The maximum of f16 or bf16 arrays on their bits as int16, exactly, without widening them.

    NumPy's f16 loops convert every element in software, and bf16 has only ml_dtypes' slow ones; int16
    compares are SIMD at half f32's bytes. As signed integers, floats with the sign clear (+0 and +NaN
    included) sort as the floats do, and floats with it set sort in reverse (-0 lowest). So where the
    signed maximum is >= 0 it is the answer (+0 over -0 for free); where it is < 0 every input is
    negative and the signed minimum is. A NaN with the sign set sorts among the negatives, so where one
    occurs it is put back in the end."""
    if len(arrays) == 2 and all(a.shape == shape and a.flags.c_contiguous for a in arrays):
        # the same steps with fewer calls; held to _max_bits16_in_blocks by tests/core/test_kernels.py,
        # test_max_of_two_bits16_matches_the_general_path
        return _max_of_two_bits16(*arrays)
    return _max_bits16_in_blocks(shape, arrays)


def _max_bits16_in_blocks(shape: tuple[int, ...], arrays: Sequence[np.ndarray]) -> np.ndarray:
    """_exact_max_bits16 for any inputs: broadcast, any count, block by block of the result."""
    floor = np.uint16(0x8000 | _INF_BITS[arrays[0].dtype])

    def fill(out: np.ndarray, parts: Sequence[np.ndarray]) -> None:
        # Looked for in each block's parts, in cache (a pass over every input from memory before cost
        # more); an input broadcast along the first axis is whole in every block, which adds at most
        # one more pass the size of the result's, in cache too.
        negative_nan = any(a.size and np.maximum.reduce(a.view(np.uint16), axis=None) > floor for a in parts)
        signed = [a.view(np.int16) for a in parts]
        high = _fold(np.maximum, out.view(np.int16), signed)

        def differ() -> np.ndarray:
            if len(signed) == 2:  # the minimum is whichever the maximum is not: high ^ low is a ^ b
                return np.bitwise_xor(*signed)
            low = _fold(np.minimum, np.empty(out.shape, np.int16), signed)
            low ^= high
            return low

        _select_where_all_negative(high, differ)
        if negative_nan:
            unsigned = _fold(np.maximum, np.empty(out.shape, np.uint16), [a.view(np.uint16) for a in parts])
            np.copyto(out.view(np.uint16), unsigned, where=unsigned > floor)

    return _in_blocks(shape, arrays, fill)


def _max_of_two_bits16(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """_exact_max_bits16 of two contiguous inputs of one shape, block by block of the flat arrays into
    scratch made once, from the unsigned maximum rather than the signed one.

    As unsigned integers, floats with the sign clear sort as the floats do and sort below every float
    with it set, so the unsigned maximum is the answer where its sign is clear (both inputs >= +0) and
    the other input, its XOR with a ^ b, where it is set (-0 gives way to +0, as it should). NaNs with
    the sign set are the largest unsigned values of all, so one reduction of that maximum, in cache,
    says whether a block holds one, where the general path reduces each input (0.5 of 2.5 ms for two
    f16 [4,1024,1024]); those are put back as there. With the general path's twenty calls a block,
    its Python steps were a fifth of the time: 2.8 ms against 2.1 ms here (onnxruntime 2.3 ms)."""
    shape, dtype = first.shape, first.dtype
    floor = np.uint16(0x8000 | _INF_BITS[dtype])
    x, y = first.reshape(-1).view(np.uint16), second.reshape(-1).view(np.uint16)
    result = new_array(shape, dtype)
    out = result.reshape(-1).view(np.uint16)
    step = max(1, min(_BLOCK // 2, out.size))  # 16-bit elements in a block
    differ, negative = np.empty(step, np.uint16), np.empty(step, np.int16)
    for start in range(0, out.size, step):
        block = slice(start, start + step)
        a, b, high = x[block], y[block], out[block]
        np.maximum(a, b, out=high)
        negative_nan = np.maximum.reduce(high) > floor
        d, n = differ[: high.size], negative[: high.size]
        np.bitwise_xor(a, b, out=d)  # the other input's bits XOR the maximum's
        np.right_shift(high.view(np.int16), 15, out=n)  # all ones where the sign is set
        d &= n.view(np.uint16)
        high ^= d
        if negative_nan:
            unsigned = np.maximum(a, b)
            np.copyto(high, unsigned, where=unsigned > floor)
    return result


def _select_where_all_negative(high: np.ndarray, differ: Callable[[], np.ndarray]) -> None:
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


def _fold(ufunc: np.ufunc, out: np.ndarray, arrays: Sequence[np.ndarray]) -> np.ndarray:
    """ufunc over all `arrays` in turn, broadcast into `out` without a temporary per step."""
    if len(arrays) == 1:
        np.copyto(out, arrays[0])
        return out
    ufunc(arrays[0], arrays[1], out=out)
    for a in arrays[2:]:
        ufunc(out, a, out=out)
    return out


# -0 as a signed integer of each float width, by itemsize: the least of them.
_NEGATIVE_ZERO_BITS = {size: (np.dtype(f"i{size}"), np.iinfo(f"i{size}").min) for size in (2, 4, 8)}


def _has_negative_zero(floats: np.ndarray) -> bool:
    """Does the array hold a -0? Its bits are the least signed integer of its width, so one SIMD
    minimum over the bits answers, with no temporary. The minimum is taken where argmin finds it:
    as fast as ufunc.reduce on large arrays, and with a fifth of its cost per call (0.13 against
    0.65 us), which a small request pays once per maximum."""
    if not floats.size:
        return False
    dtype, negative_zero = _NEGATIVE_ZERO_BITS[floats.itemsize]
    bits = floats.view(dtype)
    return bits.item(bits.argmin()) == negative_zero  # argmin's index is into the flat array, as item's


# Above this share of zero results, one more pass over every input beats gathering at each zero.
_DENSE_ZEROS = 1 / 32


def _prefer_positive_zero(result: np.ndarray, wide: Sequence[np.ndarray]) -> None:
    """Make each zero of `result` +0 where some input holds +0 there, in place.

    np.maximum returns one of its operands on a tie, so a +0 result is always right; only a -0 result
    can hide a +0 it was compared with. Random data has none, and then the zeros are not even counted."""
    if not _has_negative_zero(result):
        return
    zero = result == 0
    count = np.count_nonzero(zero)
    if count > _DENSE_ZEROS * result.size:
        _clear_sign_where_any_unsigned(result, wide)
    elif count:
        flat = result.reshape(-1)
        zeros = np.flatnonzero(zero)
        negative = zeros[np.signbit(flat[zeros])]
        coords = np.unravel_index(negative, result.shape)
        flat[negative[_positive_zero_at(coords, result.shape, wide)]] = 0.0


def _positive_zero_at(
    coords: tuple[np.ndarray, ...], shape: tuple[int, ...], wide: Sequence[np.ndarray]
) -> np.ndarray:
    """At the given positions of the broadcast shape: does any input hold +0?"""
    found = np.zeros(coords[0].shape, dtype=bool)
    for a in wide:
        values = np.broadcast_to(a, shape)[coords]
        found |= (values == 0) & ~np.signbit(values)
    return found


def _clear_sign_where_any_unsigned(result: np.ndarray, wide: Sequence[np.ndarray]) -> None:
    """Clear the sign bit of `result` wherever some input's sign bit is clear: one more pass, on the bits.

    Where some input is >= +0 (or a NaN without the sign), the maximum is >= +0 or NaN, so clearing its
    sign changes only a -0 into +0 (and the sign of a NaN, which no one reads). Where every input has the
    sign bit set, the result is kept."""
    bits = np.dtype(f"i{result.itemsize}")
    all_signed = _fold(np.bitwise_and, np.empty(result.shape, dtype=bits), [a.view(bits) for a in wide])
    all_signed |= np.iinfo(bits).max  # every bit but the sign: only the sign's verdict is applied
    result_bits = result.view(bits)
    result_bits &= all_signed
