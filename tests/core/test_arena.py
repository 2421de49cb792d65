"""The arena for large outputs: a block is handed out again only once nothing refers to it, and the
kernels that take their outputs from it answer as np.empty's outputs would, bit for bit."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core import arena
from app.ops import max as max_op
from app.ops.max import maximum


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Blocks from 64 bytes, at most 1 KiB of them kept, in a list of this test's own."""
    monkeypatch.setattr(arena, "_FROM_BYTES", 64)
    monkeypatch.setattr(arena, "_KEEP", 1024)
    monkeypatch.setattr(arena, "_blocks", [])


def test_small_outputs_are_plain_arrays() -> None:
    out = arena.new_array((7,), np.int64)
    assert out.base is None and out.flags.c_contiguous and not arena._blocks


def test_a_block_is_reused_only_once_let_go() -> None:
    first = arena.new_array((4, 4), np.int64)
    held = id(first.base)  # not the block itself: a reference here would hold it
    second = arena.new_array((4, 4), np.int64)
    assert id(second.base) != held  # the first is still held
    view = first[1:, ::2]
    del first
    third = arena.new_array((16,), np.float64)
    assert id(third.base) != held  # a view of the first still refers to its block
    del view, third
    gc.collect()
    fourth = arena.new_array((2, 8), np.uint64)
    assert id(fourth.base) == held and fourth.shape == (2, 8) and fourth.dtype == np.uint64


def test_buffers_and_memoryviews_hold_a_block() -> None:
    out = arena.new_array((8, 2), np.int32)
    block = id(out.base)
    exported = memoryview(out)
    del out
    assert id(arena.new_array((16,), np.int32).base) != block
    del exported
    assert id(arena.new_array((16,), np.int32).base) == block


def test_blocks_kept_stay_within_the_budget() -> None:
    held = [arena.new_array((32,), np.int64) for _ in range(4)]  # 4 x 256 bytes: the whole budget
    extra = arena.new_array((32,), np.int64)
    assert extra.base is None and sum(b.nbytes for b in arena._blocks) == 1024
    del held[:2]
    larger = arena.new_array((64,), np.int64)  # the two free blocks of another size make room
    assert larger.base is arena._blocks[-1] and sum(b.nbytes for b in arena._blocks) == 1024


@st.composite
def runs_of_max(draw):
    """Several Max evaluations of s64 or f32 pairs, each keeping or dropping its output."""
    dtype = draw(st.sampled_from([np.int64, np.float32]))
    size = draw(st.sampled_from([16, 24, 40]))  # 64 bytes and more
    runs = []
    for _ in range(draw(st.integers(1, 6))):
        values = st.lists(st.integers(-(2**40), 2**40), min_size=size, max_size=size)
        pair = [np.array(draw(values)).astype(dtype) for _ in range(2)]
        if dtype == np.float32:
            pair[0][::3] = -0.0
            pair[1][::4] = 0.0
        runs.append((pair, draw(st.booleans())))
    return runs


@settings(max_examples=100, deadline=None)
@given(runs_of_max())
def test_max_into_reused_blocks_matches_np_empty_outputs(runs) -> None:
    """Max with its output from the arena against the same Max into plain new arrays (the path it
    shortcuts), bit for bit; an output still held keeps its values while later outputs are written."""
    kept, from_blocks = [], 0
    for pair, keep in runs:
        saved_block, max_op._BLOCK = max_op._BLOCK, 32  # past _one_block, which takes np.empty
        try:
            got = maximum(pair)
        finally:
            max_op._BLOCK = saved_block
        from_blocks += got.base is not None
        arena_blocks, arena._blocks = arena._blocks, []
        saved_from, arena._FROM_BYTES = arena._FROM_BYTES, 1 << 62  # every output a plain np.empty
        try:
            want = maximum(pair)
        finally:
            arena._blocks, arena._FROM_BYTES = arena_blocks, saved_from
        assert got.dtype == want.dtype and np.array_equal(got.view(np.uint8), want.view(np.uint8))
        if keep:
            kept.append((got, want.copy()))
    for got, want in kept:
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    assert from_blocks  # the first output at least: nothing is kept before it
