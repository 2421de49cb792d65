"""A shape or an int64 list of plain items skips the per-item validators (WireDim's union, Int64), which
hand such items back unchanged: the value is what the item-by-item path gives, and any other item still
takes that path, with its own errors and paths."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from app.core.numbers import INT64_MAX, INT64_MIN
from app.core.tensors import Tensor
from app.ops.reduce_max import ReduceMaxAttrs

plain_dims = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.none(),
    st.sampled_from(["?", "N", "batch_1", "", "3", "a-b", "N" * 65]),
)


def _outcome(validate):
    try:
        return "ok", validate()
    except ValidationError as exc:
        return "error", exc.errors(include_url=False)


@given(st.lists(plain_dims, max_size=6))
def test_a_shape_of_plain_dims_is_what_one_more_item_by_item_gives(dims) -> None:
    """The same dims beside a float 2.0 (which WireDim turns into 2) take the item-by-item path; the
    answer for the plain part must be the one the fast path gave."""
    fast = _outcome(lambda: Tensor(dtype="f32", shape=dims).shape)
    slow = _outcome(lambda: Tensor(dtype="f32", shape=[*dims, 2.0]).shape)
    if fast[0] == "ok":
        assert slow == ("ok", (*fast[1], 2))
    else:
        assert slow[0] == "error" and slow[1][0]["msg"] == fast[1][0]["msg"]


def test_a_dim_that_is_not_an_int_str_or_null_is_reported_by_the_union() -> None:
    with pytest.raises(ValidationError) as caught:
        Tensor(dtype="f32", shape=[2, True])
    assert [e["loc"] for e in caught.value.errors()] == [
        ("shape", 1, "function-before[integral(), int]"),
        ("shape", 1, "str"),
    ]


@given(st.lists(st.integers(min_value=-(2**70), max_value=2**70), max_size=5))
def test_int64_lists_of_plain_ints(values) -> None:
    """Plain ints: kept when all are in int64, else the first one outside is the one error; 1.0 and 1
    (the item-by-item path) give the same list."""
    fast = _outcome(lambda: ReduceMaxAttrs(axes=values).axes)
    slow = _outcome(
        lambda: ReduceMaxAttrs(axes=[float(v) if abs(v) < 2**53 else v for v in values] + [0.0]).axes
    )
    if all(INT64_MIN <= v <= INT64_MAX for v in values):
        assert fast == ("ok", values) and slow == ("ok", [*values, 0])
        assert all(type(v) is int for v in fast[1])
    else:
        assert fast[0] == slow[0] == "error" and len(fast[1]) == 1
        assert fast[1][0]["msg"] == slow[1][0]["msg"] and fast[1][0]["loc"] == slow[1][0]["loc"]


def test_an_int64_list_is_a_list_of_its_own() -> None:
    given_axes = [0, 1]
    attrs = ReduceMaxAttrs(axes=given_axes)
    assert attrs.axes == given_axes and attrs.axes is not given_axes
    strides = [3, 1]
    assert Tensor(dtype="f32", shape=[2, 3], strides=strides).strides is not strides
