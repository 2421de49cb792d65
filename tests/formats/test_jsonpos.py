"""JSON positions: every value's start, by path; faults with their line and column; no recursion."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.formats.jsonpos import JSONPosError, find, join, locate, positions

TEXT = """{
  "ops": [
    {"kind": "ReduceMax",
     "attrs": {"axes": [0, 3]}}
  ],
  "k\\u00e9y": "é"
}"""


def test_each_value_starts_where_it_is_written() -> None:
    found = positions(TEXT)
    assert found[""] == (1, 1)
    assert found["ops"] == (2, 10)
    assert found["ops[0]"] == (3, 5)
    assert found["ops[0].kind"] == (3, 14)
    assert found["ops[0].attrs.axes[1]"] == (4, 28)
    assert found["kéy"] == (6, 15)  # keys are decoded; columns count characters


def test_a_missing_key_points_at_its_nearest_parent() -> None:
    found = positions(TEXT)
    assert locate(found, "ops[0].attrs.keep_dims") == (4, 15)
    assert locate(found, "ops[0].inputs[1].shape[2]") == (3, 5)
    assert locate(found, "ops[7]") == (2, 10)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("", (1, 1)),
        ('{"a": 1,}', (1, 9)),
        ('{"a" 1}', (1, 6)),
        ("[1 2]", (1, 4)),
        ("[1]\n x", (2, 2)),
        ('["a\nb"]', (1, 4)),
        ("[tru]", (1, 2)),
    ],
)
def test_a_fault_has_its_line_and_column(text: str, where: tuple[int, int]) -> None:
    with pytest.raises(JSONPosError) as caught:
        positions(text)
    assert (caught.value.line, caught.value.column) == where


def test_deep_nesting_is_a_fault_not_a_recursion_error() -> None:
    assert len(positions("[" * 5000 + "]" * 5000)) == 5000
    with pytest.raises(JSONPosError, match="nesting deeper than 100"):
        positions("[" * 200 + "]" * 200, max_depth=100)


def test_join() -> None:
    assert join("ops[2]", "attrs.axes[0]") == "ops[2].attrs.axes[0]"
    assert join("[2]", "inputs[1].shape[2]") == "[2].inputs[1].shape[2]"
    assert join("", "attrs") == "attrs" and join("[0]", "") == "[0]" and join("x", "[1]") == "x[1]"


def _values(value, path=""):
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _values(item, join(path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _values(item, f"{path}[{index}]")


documents = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text("abé", min_size=1, max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(documents, st.sampled_from([None, 1, 2]))
def test_every_value_is_found_and_its_text_starts_there(document, indent) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    found = positions(text)
    lines = text.split("\n")
    for path, value in _values(document):
        line, column = found[path]
        rest = "\n".join(lines[line - 1 :])[column - 1 :]
        assert json.JSONDecoder().raw_decode(rest)[0] == value


@given(documents, st.sampled_from([None, 1, 2]))
def test_find_agrees_with_the_full_map(document, indent) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    found = positions(text)
    wanted = [path for path, _ in _values(document)]
    wanted += [join(path, "missing") for path in wanted] + [f"{path}[9]" for path in wanted]
    assert find(text, wanted) == {path: locate(found, path) for path in wanted}


def test_find_takes_the_last_of_duplicate_keys_as_json_does() -> None:
    assert find('{"a": 1, "a": [2]}', ["a", "a[0]"]) == {"a": (1, 15), "a[0]": (1, 16)}
