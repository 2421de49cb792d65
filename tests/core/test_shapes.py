from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core import shapes as shapes_module
from app.core.shapes import (
    axis_problems,
    broadcast_shapes,
    format_shape,
    parse_dim,
    reduce_shape,
    wire_shape,
    wrap_axes,
)


@pytest.mark.parametrize(
    ("wire", "dim"),
    [
        (3, 3),
        (0, 0),
        (-1, None),
        (None, None),
        ("?", None),
        ("N", "N"),
        ("3", 3),
        ("N-1", "N - 1"),
        ("N ", "N"),
    ],
)
def test_parse_dim(wire, dim) -> None:
    """A string that reads as an expression is one (app/core/dims.py), in its canonical form."""
    assert parse_dim(wire) == dim


@pytest.mark.parametrize("wire", [-2, True, 1.5, [1], "N\n", "\nN", "N\t", "1 - 2", "N +"])
def test_parse_dim_refuses(wire) -> None:
    with pytest.raises(ValueError, match="dim"):
        parse_dim(wire)


def test_wire_and_format() -> None:
    assert wire_shape((2, None, "N")) == [2, -1, "N"]
    assert wire_shape(None) is None
    assert format_shape((2, None)) == "[2, ?]"


def test_axis_problems_messages() -> None:
    axes = [4, -1, 2, -3]
    assert wrap_axes(axes, 3) == (2, 0)
    problems = list(axis_problems(axes, 3))
    assert [(p.position, p.kind) for p in problems] == [(0, "range"), (2, "duplicate")]
    assert problems[0].message == "axis 4 is out of range [-3, 2] for src of rank 3"
    assert "repeats axis -1 at position 1" in problems[1].message


def test_rank_zero_has_no_axes() -> None:
    [problem] = axis_problems([0], 0)
    assert problem.message == "axis 0 names no dim: src has rank 0, so it has no axes"


@given(st.integers(0, 6).flatmap(lambda r: st.tuples(st.just(r), st.lists(st.integers(-8, 8), max_size=8))))
def test_wrap_axes_and_axis_problems_agree_with_a_plain_rule(case) -> None:
    rank, axes = case
    expected, seen = [], set()
    for axis in axes:
        if -rank <= axis < rank and axis % rank not in seen:
            seen.add(axis % rank)
            expected.append(axis % rank)
    assert list(wrap_axes(axes, rank)) == expected
    assert len(list(axis_problems(axes, rank))) == len(axes) - len(expected)


def test_reduce_shape() -> None:
    assert reduce_shape((2, "N", 4), (1,), keep_dims=True) == (2, 1, 4)
    assert reduce_shape((2, "N", 4), (0, 2), keep_dims=False) == ("N",)
    assert reduce_shape((2, 3), (), keep_dims=False) == (2, 3)


# --- broadcasting -----------------------------------------------------------------------------


static_shapes = st.lists(st.lists(st.integers(0, 3), max_size=3).map(tuple), min_size=1, max_size=4)


def _numpy_broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def _zero_beside_one(shapes: list[tuple[int, ...]]) -> bool:
    """Some dim holds a 0 and a 1 (a missing leading dim counts as 1): NumPy's rule and the strict one part."""
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    return any(0 in column and 1 in column for column in zip(*padded, strict=True))


@given(static_shapes)
def test_static_broadcasting_is_numpys_except_zero_beside_one(shapes) -> None:
    result = broadcast_shapes(shapes)
    expected = _numpy_broadcast(shapes)
    if expected is None or _zero_beside_one(shapes):
        assert result.problems
    else:
        assert result.problems == [] and result.shape == expected
    assert result.assumptions == []


def test_every_clash_is_reported_with_the_inputs_own_axis() -> None:
    result = broadcast_shapes([(2, 1, 4), (3, 6, 5), (6, 4)])
    assert [(p.input, p.axis, p.dim, p.size, p.largest) for p in result.problems] == [
        (0, 0, 0, 2, 3),
        (0, 2, 2, 4, 5),
        (2, 1, 2, 4, 5),
    ]
    assert result.problems[0].message == (
        "input 0 has size 2 in dim 0, where the largest size is 3; each input must have 3 or 1 there"
    )


def test_zero_beside_one_explains_numpy() -> None:
    for shapes in ([(0,), (1,)], [(0,), ()], [(2, 0), (1,)]):
        [problem] = broadcast_shapes(shapes).problems
        assert problem.size == 0 and problem.largest == 1
        assert "NumPy would give 0" in problem.message
    assert broadcast_shapes([(2, 0), (0,)]).shape == (2, 0)


@pytest.mark.parametrize(
    ("shapes", "out", "said"),
    [
        ([("N",), (1,)], ("N",), []),
        ([("N",), ("N",), ()], ("N",), []),
        ([("N",), (3,)], (3,), ["N (input 0) in dim 0 is taken to be 3 or 1"]),
        ([("N", 2), ("N", 1), (3, 2)], (3, 2), ["N (inputs 0, 1) in dim 0 is taken to be 3 or 1"]),
        ([("N",), ("M",)], ("N",), ["N (input 0) and M (input 1) in dim 0 are taken to be equal (or one of"]),
        (
            [("N", "N"), ("M", "M")],
            ("N", "N"),
            ["N (input 0) and M (input 1) in dim 0 are taken to be equal"],
        ),
        ([("S + 1",), ("S",)], ("S + 1",), ["S (input 1) in dim 0 is taken to be 1: it is never S + 1"]),
        ([(None,), ("M",)], (None,), ["in dim 0, the unknown size of input 0 and M (input 1) must be"]),
        ([(None,), (3,), (None,)], (3,), ["the unknown size of input 0", "the unknown size of input 2"]),
        ([(None,), (None,)], (None,), []),
        ([("N",), (0,)], (0,), ["N (input 0) in dim 0 is taken to be 0"]),
        ([(2, "N"), None], None, []),
        ([], (), []),
    ],
)
def test_symbolic_broadcasting(shapes, out, said) -> None:
    result = broadcast_shapes(shapes)
    assert result.shape == out and result.problems == []
    assert len(result.assumptions) == len(said)
    for assumption, start in zip(result.assumptions, said, strict=True):
        assert assumption.message.startswith(start)


def test_unknown_rank_counts_dims_from_the_right() -> None:
    result = broadcast_shapes([(2, 3), None, (4, 3)])
    assert result.shape is None
    [problem] = result.problems
    assert (problem.input, problem.axis, problem.dim) == (0, 0, -2)
    assert "dim -2 (counted from the right" in problem.message


@given(static_shapes)
def test_the_static_fast_path_is_the_full_rule(shapes) -> None:
    fast = shapes_module._broadcast_static(shapes)
    reference = _full_rule(shapes)
    assert fast is None or (reference.problems == [] and reference.shape == fast)
    assert fast is not None or reference.problems


symbolic_shapes = st.lists(
    st.one_of(st.none(), st.lists(st.sampled_from([0, 1, 1, 3, "N", "N", "M", None]), max_size=3).map(tuple)),
    min_size=1,
    max_size=4,
)


@given(symbolic_shapes)
def test_the_fast_path_with_symbols_is_the_full_rule(shapes) -> None:
    """Symbols beside 1s only take the fast path: the same shape, and no problem or assumption."""
    fast = shapes_module._broadcast_static(shapes)
    reference = _full_rule(shapes)
    if fast is not None:
        assert reference == shapes_module.Broadcast(shape=fast)
    known = all(shape is not None and None not in shape for shape in shapes)
    if known and reference.shape is not None and not reference.problems and not reference.assumptions:
        assert fast == reference.shape  # the fast path takes every case that needs no words


def _full_rule(shapes):
    """broadcast_shapes with the fast path turned off."""
    original = shapes_module._broadcast_static
    shapes_module._broadcast_static = lambda _: None
    try:
        return broadcast_shapes(shapes)
    finally:
        shapes_module._broadcast_static = original


@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (1, 0, 5)])
def test_inputs_of_one_static_shape_broadcast_to_it(shape) -> None:
    """The shortcut for inputs all of one static shape answers as the full rule does."""
    for count in (1, 2, 5):
        assert broadcast_shapes([shape] * count) == shapes_module.Broadcast(shape=shape)
        assert shapes_module._broadcast_static([shape] * count) == shape
    assert shapes_module._broadcast_static([(2, "N"), (2, "N")]) == (2, "N")  # a symbol beside itself
    assert (
        shapes_module._broadcast_static([(2, "N"), (2, 3)]) is None
    )  # a symbol against a size: an assumption
