"""The kernels' fast paths against a plain oracle, bit for bit: every 16-bit float pattern, NaNs of
either sign, -0 beside +0, rows that are all negative."""

from __future__ import annotations

import itertools
import math
from unittest import mock

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import app.core.kernels as kernels
from app.core.kernels import maximum, reduce_max, segment_max

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast")  # bf16 NaNs to f64

NARROW = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]


def oracle_max(arrays: list[np.ndarray]) -> np.ndarray:
    """Elementwise in f64: NaN absorbs, +0 over -0 (np.maximum picks by operand order on a tie)."""
    wide = [a.astype(np.float64) for a in arrays]
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
    g, w = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    bits = np.dtype(f"u{got.itemsize}")
    return bool(np.all(both_nan | (got.view(bits) == want.view(bits))))


def every_pattern(dtype: np.dtype) -> np.ndarray:
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype)


@pytest.mark.parametrize("dtype", NARROW, ids=str)
def test_max_bits16_on_every_pattern(dtype) -> None:
    rng = np.random.default_rng(1)
    values = every_pattern(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1, -1], dtype=dtype)
    others = [rng.permutation(values), np.resize(specials, values.shape)]
    for pair in ([values, others[0]], [others[1], values], [values, others[0], others[1]]):
        assert same_bits(maximum(pair), oracle_max(pair))


@pytest.mark.parametrize("dtype", NARROW, ids=str)
def test_max_bits16_broadcast_all_negative_and_negative_nan(dtype) -> None:
    rng = np.random.default_rng(2)
    column = -np.abs(rng.standard_normal((6, 1))).astype(dtype)
    row = np.array([-0.0, -1, -np.inf, -3, 0.0, -np.nan, np.nan], dtype=dtype)
    full = -np.abs(rng.standard_normal((6, 7))).astype(dtype)
    full[0, 0] = -0.0
    for arrays in ([column, row], [column, row, full], [full, column], [np.array(-0.0, dtype), full]):
        assert same_bits(maximum(arrays), oracle_max(arrays))


@pytest.mark.parametrize("dtype", NARROW, ids=str)
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("slab_bytes", [1 << 19, 64, 200])  # whole; slabs of one and of a few rows
def test_reduce_max_bits16_every_axes_pattern(dtype, keep_dims, slab_bytes, monkeypatch) -> None:
    import app.core.kernels as kernels

    monkeypatch.setattr(kernels, "_SLAB_BYTES", slab_bytes)
    rng = np.random.default_rng(3)
    x = rng.permutation(every_pattern(dtype))[: 4 * 6 * 8].reshape(4, 6, 8)
    negative = -np.abs(rng.standard_normal((4, 6, 8))).astype(dtype)
    negative[1, 2, :] = -0.0
    negative[2, :, 3] = np.array(-np.nan, dtype)
    least_nan = np.array(-np.inf, dtype).view(np.uint16) + np.uint16(1)  # the NaN nearest -inf's bits
    mixed = rng.standard_normal((4, 6, 8)).astype(dtype)
    mixed.view(np.uint16)[0, 1, 2] = least_nan
    mixed.view(np.uint16)[3, 4, :] = least_nan
    for array in (x, negative, negative[:, ::2, 1:], mixed):  # a strided view too
        for count in (1, 2, 3):
            for axes in itertools.combinations(range(3), count):
                got = reduce_max(array, axes, keep_dims)
                assert same_bits(got, oracle_reduce(array, axes, keep_dims)), (axes, array.dtype)


def test_max_same_shape_folds_once_and_keeps_positive_zero() -> None:
    a = np.array([[-0.0, 0.0, np.nan, -1]], np.float32).repeat(3, 0)
    b = np.array([[0.0, -0.0, 2, -0.0]], np.float32).repeat(3, 0)
    out = maximum([a, b])
    assert out is not a and out is not b
    assert same_bits(out, oracle_max([a, b]))


@pytest.mark.parametrize("longest", [5, 64, 65])  # folded by place in the run; and reduceat past 64
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_segment_max_rows_folded_by_place_in_run(longest, dtype) -> None:
    rng = np.random.default_rng(4)
    lengths = rng.integers(0, longest + 1, 40)
    lengths[3] = longest
    ids = np.repeat(np.arange(40), lengths).astype(np.int64)
    x = rng.standard_normal((ids.size, 3, 2)).astype(dtype)
    if dtype == np.float32:
        rows = np.flatnonzero(ids == 3)
        x[rows] = -0.0
        x[rows[-1], 0, 0] = 0.0  # +0 in the last row of a run of -0s: the maximum there is +0
        x[rows[0], 1, 0] = -1.0
        x[5, 1, 1] = np.nan
    count = 42  # two trailing empty segments too
    got = segment_max(x, ids, count, fill=-7)
    want = np.full((count, 3, 2), -7, dtype=dtype)
    for segment in range(count):
        rows = x[ids == segment]
        if len(rows):
            want[segment] = oracle_max(list(rows))
    assert same_bits(got, want)


def test_max_in_blocks_of_rows_matches_the_oracle(monkeypatch) -> None:
    import app.core.kernels as kernels

    monkeypatch.setattr(kernels, "_BLOCK", 4000)  # many blocks of 2 f32 rows (4 of f16) on a small array
    rng = np.random.default_rng(5)
    a = -np.abs(rng.standard_normal((30, 500))).astype(np.float32)
    a[rng.random(a.shape) < 0.3] = -0.0
    column = np.where(rng.random((30, 1)) < 0.5, 0.0, -0.0).astype(np.float32)
    row = np.where(rng.random(500) < 0.5, np.nan, -0.0).astype(np.float32)
    for arrays in ([a, column], [a, row], [a, column, row], [a, a.copy()], [a.reshape(-1), a.reshape(-1)]):
        for dtype in [np.float32, *NARROW]:
            narrowed = [x.astype(dtype) for x in arrays]
            assert same_bits(maximum(narrowed), oracle_max(narrowed))
    negative_nan = np.full(500, -np.nan, np.float16)  # the 16-bit floats' put-back, block by block
    assert same_bits(
        maximum([a.astype(np.float16), negative_nan]), oracle_max([a.astype(np.float16), negative_nan])
    )
    for dtype in NARROW:  # NaNs with the sign set in one block of one input only: looked for per block
        grid, other, side = a.astype(dtype), (-a[::-1]).astype(dtype), column.astype(dtype)
        grid[7, 3:9] = np.array(-np.nan, dtype)
        grid.view(np.uint16)[8, 0] = np.array(-np.inf, dtype).view(np.uint16) + np.uint16(1)
        for arrays in ([grid, other], [other, grid, side], [side, grid]):
            assert same_bits(maximum(arrays), oracle_max(arrays))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_zero_check_skipped_only_where_no_two_inputs_hold_zeros(dtype, monkeypatch) -> None:
    """A -0 result is looked at only when two inputs may hold zeros (small inputs are counted, large
    ones assumed to), and a block's -0 is found by its bits being the least integer: every case exact."""
    import app.core.kernels as kernels

    monkeypatch.setattr(kernels, "_BLOCK", 1024)  # blocks of 4 f32 rows, so some hold a -0 and some none
    checked, fill = [], kernels._fill_max
    monkeypatch.setattr(
        kernels, "_fill_max", lambda out, arrays: checked.append(out.shape) or fill(out, arrays)
    )
    rng = np.random.default_rng(6)
    big = -np.abs(rng.standard_normal((64, 64))).astype(dtype)
    big[rng.random(big.shape) < 0.05] = -0.0
    big[:8] = -np.abs(big[:8]) - 1  # two blocks without a zero at all
    big[40, 3] = 0.0
    big[41, 5] = np.nan
    big[42, 7] = -np.nan
    free = (rng.random(64) + 0.5).astype(dtype) * -1  # no zero: beside big, nothing to check
    plus = free.copy()
    plus[[3, 7, 9]] = 0.0
    minus = free.copy()
    minus[[3, 11]] = -0.0
    cases = [
        ([big, free], False),
        ([free, big, free[:, None]], False),
        ([big, plus], True),  # +0 in the row meets big's -0s
        ([big, minus], True),  # glanced at: it holds zeros, so it counts
        ([big, big[::-1].copy()], True),  # two large inputs: checked without looking
        ([big[:, ::2], free[::2]], False),  # a strided view
        ([big.T, plus[:, None]], True),
        ([np.array(0.0, dtype), big], True),
        ([big[:0], free], False),  # an empty result
        ([np.array(-0.0, dtype), np.array(0.0, dtype)], True),  # tiny: a single element, one block
        ([np.array([-0.0], dtype), np.array([-0.0], dtype)], True),
    ]
    for arrays, looked in cases:
        checked.clear()
        assert same_bits(maximum(arrays), oracle_max(arrays)), [a.shape for a in arrays]
        assert bool(checked) == looked, [a.shape for a in arrays]


def _rows_with_every_tie(dtype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Random values with, along the last axis, rows of -0s, -0s beside one +0, all negatives, and
    NaNs of either sign among positives and among negatives."""
    x = rng.standard_normal(shape).astype(dtype)
    rows = x.reshape(-1, shape[-1])
    rows[0] = -0.0
    rows[1] = -0.0
    rows[1, -1] = 0.0
    rows[2] = -np.abs(rows[2])
    rows[3, 5] = np.array(-np.nan, dtype)
    rows[4] = -np.abs(rows[4])
    rows[4, 0] = np.array(-np.nan, dtype)
    rows[5, 1] = np.nan
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, *NARROW], ids=str)
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("forced", [True, False])  # reduceat for every trailing case, 16-bit slabs; defaults
def test_reduce_max_trailing_axes_as_rows(dtype, keep_dims, forced, monkeypatch) -> None:
    """Trailing axes of a C-contiguous array are reduced as rows of the flat array (reduceat), any axes
    before them after that; the rest, and arrays that are not C-contiguous, as before; 16-bit floats
    in slabs along the first kept axis: all exact."""
    import app.core.kernels as kernels

    if forced:
        monkeypatch.setattr(kernels, "_SHORTEST_ROW", 1)
        monkeypatch.setattr(kernels, "_SLAB_BYTES", 100)
    rng = np.random.default_rng(7)
    x = _rows_with_every_tie(dtype, (3, 4, 40), rng)
    arrays = [
        x,
        x[:, ::2, 1:],  # strided: reduced as before
        x.transpose(2, 0, 1),  # not C-contiguous
        np.ascontiguousarray(x.transpose(0, 2, 1)),  # the tie rows now along the middle axis
        _rows_with_every_tie(dtype, (6, 17), rng),
        np.full((1, 16), -0.0, dtype),
        np.array([np.nan, -np.inf], dtype),
        np.zeros((0, 3, 20), dtype),  # a kept dim of 0
    ]
    for array in arrays:
        for count in range(1, array.ndim + 1):
            for axes in itertools.permutations(range(array.ndim), count):  # unsorted axes too
                got = reduce_max(array, axes, keep_dims)
                want = oracle_reduce(array, tuple(sorted(axes)), keep_dims)
                assert same_bits(got, want), (array.shape, array.strides, axes)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, *NARROW], ids=str)
def test_max_beside_a_broadcast_row_over_longer_rows(dtype, monkeypatch) -> None:
    """k rows of the result taken as one (row inputs tiled, full ones reshaped): exact, also where
    it does not apply (a column, a strided tensor, rows that k does not divide)."""
    import app.core.kernels as kernels

    taken, longer_rows = [], kernels._longer_rows
    monkeypatch.setattr(
        kernels, "_longer_rows", lambda shape, arrays: taken.append(longer_rows(shape, arrays)) or taken[-1]
    )
    rng = np.random.default_rng(8)
    integer = np.issubdtype(dtype, np.integer)

    def values(shape):
        if integer:
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
        x = rng.standard_normal(shape).astype(dtype)
        x[rng.random(shape) < 0.2] = -0.0
        x[rng.random(shape) < 0.1] = 0.0
        x[rng.random(shape) < 0.05] = np.array(-np.nan, dtype)
        x[rng.random(shape) < 0.05] = np.nan
        return x

    grid, row, cube = values((64, 32)), values(32), values((8, 16, 32))
    cases = [
        ([grid, row], True),
        ([row, grid, values((1, 32)), values(())], True),
        ([cube, values((1, 1, 32)), values((16, 32))], False),  # [16,32] is neither a row nor whole
        ([cube, row], True),
        ([grid, values((64, 1))], False),  # a column
        ([values((64, 64))[:, ::2], row], False),  # strided
        ([values((63, 32)), row], False),  # 63 rows: no power of two divides them
        ([values((12, 32)), row], False),  # 12 rows: an eighth is 1
    ]
    for arrays, applies in cases:
        taken.clear()
        got = maximum(arrays)
        want = np.maximum.reduce(np.broadcast_arrays(*arrays)) if integer else oracle_max(arrays)
        assert same_bits(got, want), [a.shape for a in arrays]
        assert (taken[-1] is not None) == applies, [a.shape for a in arrays]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64, np.uint64])
def test_max_of_one_shape_in_one_block_matches_the_oracle(dtype, monkeypatch) -> None:
    """Inputs of the result's shape within one block take _one_block: element by element and bit for
    bit the maximum the blocked path gives, -0 beside +0 and NaNs of either sign included."""
    import app.core.kernels as kernels

    taken, one_block = [], kernels._one_block
    monkeypatch.setattr(kernels, "_one_block", lambda *args: taken.append(1) or one_block(*args))
    rng = np.random.default_rng(8)
    integer = np.dtype(dtype).kind in "iu"

    def values(shape: tuple[int, ...]) -> np.ndarray:
        if integer:
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
        x = rng.standard_normal(shape).astype(dtype)
        for fraction, value in ((0.3, -0.0), (0.2, 0.0), (0.05, np.nan), (0.05, -np.nan)):
            x[rng.random(shape) < fraction] = value
        return x

    for shape, count in [((1000,), 2), ((8, 16), 3), ((), 2), ((0, 4), 2), ((5,), 1), ((30, 40), 8)]:
        arrays = [values(shape) for _ in range(count)]
        taken.clear()
        got = maximum(arrays)
        want = np.maximum.reduce(arrays) if integer else oracle_max(arrays)
        assert taken and got.shape == shape and got.dtype == np.dtype(dtype)
        assert same_bits(got, want), (shape, count)
        assert all(got is not a for a in arrays)
    taken.clear()
    maximum([values((2, 3)), values((3,))])  # another shape: the general path
    big = values((_BLOCK_VALUES // np.dtype(dtype).itemsize + 1,))
    maximum([big, big])  # past one block: the general path
    assert not taken


_BLOCK_VALUES = 1 << 18  # kernels._BLOCK, in bytes


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
def test_negative_zero_test_finds_every_minus_zero(dtype) -> None:
    """_has_negative_zero (argmin over the bits) on N-d, transposed, strided, 0-d and empty arrays."""
    from app.core.kernels import _has_negative_zero

    x = np.array([[1.0, 0.0, -2.0], [np.nan, -np.inf, 3.0]], dtype)
    assert (
        not _has_negative_zero(x) and not _has_negative_zero(x[:0]) and not _has_negative_zero(x[0, 1, None])
    )
    x[1, 2] = -0.0
    assert _has_negative_zero(x) and _has_negative_zero(x.T) and _has_negative_zero(x[1, 2, None])
    assert not _has_negative_zero(x[:, 1::2]) and _has_negative_zero(x[:, ::2])
    assert (
        _has_negative_zero(np.array(-0.0, dtype))
        and not _has_negative_zero(np.array(-np.nan, dtype))
        and not _has_negative_zero(np.array(-np.inf, dtype))
    )


# Bit patterns a 16-bit float's maximum turns on: zeros, infinities, the NaNs nearest them of either
# sign (f16 and bf16 differ in where their infinities lie), the largest and least finite values.
BITS16_SPECIAL = (0x0000, 0x8000, 0x7C00, 0xFC00, 0x7C01, 0xFC01, 0x7E00, 0xFE00, 0x7F80, 0xFF80, 0x7F81,
                  0xFF81, 0x7FC0, 0xFFC0, 0x7FFF, 0xFFFF, 0x7BFF, 0xFBFF, 0x0001, 0x8001)  # fmt: skip


@st.composite
def same_shape_pair16(draw):
    """Two 16-bit float arrays of one shape from bit patterns, and a block size (in bytes) that
    cuts them into several blocks."""
    dtype = draw(st.sampled_from(NARROW))
    shape = tuple(draw(st.lists(st.integers(0, 7), max_size=3)))
    count = math.prod(shape)
    bits = st.one_of(st.integers(0, 0xFFFF), st.sampled_from(BITS16_SPECIAL))
    pair = [
        np.array(draw(st.lists(bits, min_size=count, max_size=count)), np.uint16).view(dtype).reshape(shape)
        for _ in range(2)
    ]
    return pair, draw(st.sampled_from([4, 6, 32, 1 << 18]))


@settings(max_examples=300, deadline=None)
@given(same_shape_pair16())
def test_max_of_two_bits16_matches_the_general_path(case) -> None:
    """The two-input 16-bit path against the general one it shortcuts (_max_bits16_in_blocks), bit for
    bit, NaN payloads included, and against the oracle (any NaN for a NaN)."""
    (a, b), block = case
    with mock.patch.object(kernels, "_BLOCK", block):
        fast = kernels._max_of_two_bits16(a, b)
        general = kernels._max_bits16_in_blocks(a.shape, [a, b])
        chosen = maximum([a, b])
    assert fast.dtype == general.dtype == a.dtype and fast.shape == general.shape == a.shape
    assert np.array_equal(fast.view(np.uint16), general.view(np.uint16))
    assert np.array_equal(chosen.view(np.uint16), fast.view(np.uint16))
    assert same_bits(fast, oracle_max([a, b]))


@st.composite
def same_shape_floats(draw):
    """2 to 4 float arrays of one shape (C-contiguous) rich in -0, +0 and NaNs of either sign."""
    dtype = draw(st.sampled_from([np.dtype(np.float32), np.dtype(np.float64), *NARROW]))
    shape = tuple(draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    count = math.prod(shape)
    values = st.sampled_from([0.0, -0.0, np.nan, -np.nan, 1.5, -1.5, np.inf, -np.inf])
    arrays = [
        np.array(draw(st.lists(values, min_size=count, max_size=count)), np.float64)
        .astype(dtype)
        .reshape(shape)
        for _ in range(draw(st.integers(2, 4)))
    ]
    return arrays, draw(st.sampled_from([16, 24, 64]))


@settings(max_examples=200, deadline=None)
@given(same_shape_floats())
def test_max_in_flat_blocks_matches_blocks_of_rows(case) -> None:
    """Inputs of the result's shape, C-contiguous, are cut into blocks of the flat arrays; the same
    inputs as strided views (not contiguous) take the blocks of rows they took before: equal bits."""
    arrays, block = case
    strided = [np.repeat(a, 2, axis=-1)[..., ::2] for a in arrays]  # the same values, not contiguous
    with mock.patch.object(kernels, "_BLOCK", block):
        flat = maximum(arrays)
        rows = maximum(strided)
    assert not strided[0].flags.c_contiguous or strided[0].size <= 1
    # A NaN's sign may differ between the two: where zeros are dense in a block, the +0 fix clears the
    # sign bit wherever some input's is clear, a NaN's too; which blocks are dense depends on the cut.
    assert same_bits(flat, rows)
    assert same_bits(flat, oracle_max(arrays))
