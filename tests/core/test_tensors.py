"""Tensor layouts: oneDNN's stride check (stride_overlap) against every address the strides give."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from app.core.tensors import stride_overlap


def _addresses(shape: list[int], strides: list[int]) -> list[int]:
    return [
        sum(i * s for i, s in zip(index, strides, strict=True))
        for index in itertools.product(*map(range, shape))
    ]


def test_dense_permuted_and_padded_strides_pass() -> None:
    assert stride_overlap([16, 13], [13, 1]) is None
    assert stride_overlap([16, 13], [1, 16]) is None  # dim 0 innermost
    assert stride_overlap([16, 13], [20, 1]) is None  # padded rows
    assert stride_overlap([1, 20, 1, 1], [1, 1, 1, 1]) is None  # dims of 1 are never stepped along
    assert stride_overlap([16, 13], [0, 1]) is None  # a broadcast
    assert stride_overlap([0, 13], [1, 1]) is None  # no elements


def test_overlapping_strides_name_the_dim_and_the_one_inside_it() -> None:
    assert stride_overlap([16, 13], [1, 1]) == (0, 1)  # 13 elements of dim 1 span 13: dim 0 steps 1
    # ordered by stride: dim 2 (3) spans 12, and dim 1 steps 4 inside it
    assert stride_overlap([2, 3, 4], [12, 4, 3]) == (1, 2)


@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=4).flatmap(
        lambda shape: st.tuples(
            st.just(shape), st.lists(st.integers(1, 40), min_size=len(shape), max_size=len(shape))
        )
    )
)
def test_strides_the_check_passes_never_put_two_elements_at_one_address(case) -> None:
    """The check is oneDNN's, stricter than plain distinctness (it refuses interleaved dims too), so what
    it passes is distinct; what it refuses either collides or interleaves."""
    shape, strides = case
    addresses = _addresses(shape, strides)
    if stride_overlap(shape, strides) is None:
        assert len(set(addresses)) == len(addresses)


def test_an_interleaved_layout_is_refused_though_its_addresses_differ() -> None:
    """[2, 2] with strides [3, 2]: addresses 0, 2, 3, 5, all distinct, but dim 0 steps inside dim 1's span
    of 4: oneDNN refuses it, and so does the check."""
    assert len(set(_addresses([2, 2], [3, 2]))) == 4
    assert stride_overlap([2, 2], [3, 2]) == (0, 1)
