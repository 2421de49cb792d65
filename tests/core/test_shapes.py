from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.shapes import format_shape, normalize_axes, parse_dim, reduce_shape, wire_shape


@pytest.mark.parametrize(("wire", "dim"), [(3, 3), (0, 0), (-1, None), (None, None), ("?", None), ("N", "N")])
def test_parse_dim(wire, dim) -> None:
    assert parse_dim(wire) == dim


@pytest.mark.parametrize("wire", [-2, True, "3", "N-1", 1.5, [1]])
def test_parse_dim_refuses(wire) -> None:
    with pytest.raises(ValueError, match="dim"):
        parse_dim(wire)


def test_wire_and_format() -> None:
    assert wire_shape((2, None, "N")) == [2, -1, "N"]
    assert wire_shape(None) is None
    assert format_shape((2, None)) == "[2, ?]"


def test_normalize_axes_messages() -> None:
    result = normalize_axes([4, -1, 2, -3], 3)
    assert result.axes == (2, 0)
    assert [(p.position, p.kind) for p in result.problems] == [(0, "range"), (2, "duplicate")]
    assert result.problems[0].message == "axis 4 is out of range [-3, 2] for src of rank 3"
    assert "repeats axis -1 at position 1" in result.problems[1].message


def test_rank_zero_has_no_axes() -> None:
    result = normalize_axes([0], 0)
    assert result.problems[0].message == "axis 0 is out of range empty: it has no axes for src of rank 0"


@given(st.integers(0, 6).flatmap(lambda r: st.tuples(st.just(r), st.lists(st.integers(-8, 8), max_size=8))))
def test_normalize_axes_agrees_with_a_plain_rule(case) -> None:
    rank, axes = case
    result = normalize_axes(axes, rank)
    expected, seen = [], set()
    for axis in axes:
        if -rank <= axis < rank and axis % rank not in seen:
            seen.add(axis % rank)
            expected.append(axis % rank)
    assert list(result.axes) == expected
    assert len(result.problems) == len(axes) - len(expected)


def test_reduce_shape() -> None:
    assert reduce_shape((2, "N", 4), (1,), keep_dims=True) == (2, 1, 4)
    assert reduce_shape((2, "N", 4), (0, 2), keep_dims=False) == ("N",)
    assert reduce_shape((2, 3), (), keep_dims=False) == (2, 3)
