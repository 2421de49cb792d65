"""The body's `data` lists read straight into arrays (app/core/jsonlists.py) give what the ordinary
parse gives, element by element and bit by bit, or leave the body to the ordinary parse (same errors)."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest
from fastapi.exceptions import RequestValidationError
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.routes.check import parse_descriptor
from app.core import jsonlists
from app.core.config import Settings
from app.core.diagnostics import PathError
from app.core.payload import decode

EVERY_BODY = Settings(inline_body_bytes=0)  # every body takes the fast path's turn


@pytest.fixture(autouse=True)
def every_list(monkeypatch) -> None:
    """Every list, however short, takes the fast path's turn (the tests below that measure the
    lifting itself set their own bound)."""
    monkeypatch.setattr(jsonlists, "MIN_LIFT_BYTES", 0, raising=False)


def outcome(body: bytes, settings: Settings | None):
    """Per input: (dtype, shape, bytes) of its decoded data, or the error; or the parse error."""
    try:
        descriptor = parse_descriptor(body, settings)
    except RequestValidationError as exc:
        return ("parse", exc.errors())
    answers = []
    for index, tensor in enumerate(descriptor.inputs):
        try:
            array = decode(tensor, f"inputs[{index}]", Settings())
        except PathError as exc:
            answers.append(("error", exc.path, str(exc)))
        else:
            answers.append((array.dtype.str, array.shape, np.ascontiguousarray(array).tobytes()))
    return answers


def body(dtype: str, shape, data: str, **extra) -> bytes:
    tensor = json.dumps({"dtype": dtype, "shape": shape, **extra})[:-1] + f', "data": {data}}}'
    second = '{"dtype": "f32", "shape": [1], "data": [1]}'
    return f'{{"kind": "Max", "inputs": [{tensor}, {second}]}}'.encode()


CASES = [
    ("f32", [2, 3], '[[0.1, -0.0, "nan"], ["inf", "-inf", 16777217]]'),
    ("f32", [2, 3], "[ [ 1 , 2 , 3 ] ,\n [4,5,6] ]"),
    ("f32", [2, 3], "[1, 2, 3, 4, 5, 6]"),  # flat, row-major
    ("f32", [], "[7.5]"),
    ("f16", [4], "[65504, 65520, 1e-8, -0.0]"),
    ("bf16", [3], "[1.00390625, 1.0039062500000002, 3.3895313892515355e38]"),
    ("f64", [2], "[2.2250738585072014e-308, 5e-324]"),
    ("s64", [3], "[9223372036854775807, -9223372036854775808, 0]"),
    ("s64", [1], "[9223372036854775808]"),
    ("u8", [2], "[255, 1.0]"),
    ("s32", [2, 2], "[[1, 2], [3, 4]]"),
    ("boolean", [2], "[true, false]"),
    ("f32", [2, 2], "[[1, 2], [3]]"),
    ("f32", [3, 1], "[[1], 2, 3]"),
    ("f32", [3, 1], "[[1], [2], 3]"),
    ("f32", [3, 1], "[2, [1], [3]]"),
    ("f32", [4, 1], "[[1], [2], [3], [4]]"),
    ("f32", [2], "[1, 2,]"),
    ("f32", [2, 1], "[[1], [2],]"),
    ("f32", [2], '[1, "NaN"]'),
    ("f32", [2], '["]", 1]'),
    ("f32", [2], "[NaN, 1]"),
    ("f32", [2], "[1e400, 1]"),
    ("f32", [3], "[1, 2]"),
    ("f32", [0], "[]"),
    ("f32", ["N"], "[1, 2]"),
    ("f32", [2, 2, 2], "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]"),
    ("f32", [2, 2, 2], "[[[1, 2], [3, 4]], [[5, 6], [7, [8]]]]"),
]


@pytest.mark.parametrize("slice_bytes", [1, 7, jsonlists.SLICE_BYTES])
@pytest.mark.parametrize(("dtype", "shape", "data"), CASES)
def test_same_answer_as_the_ordinary_parse(monkeypatch, slice_bytes, dtype, shape, data) -> None:
    monkeypatch.setattr(jsonlists, "SLICE_BYTES", slice_bytes)  # small slices: every split is taken
    request = body(dtype, shape, data)
    assert outcome(request, EVERY_BODY) == outcome(request, None)


def test_the_fast_path_is_taken_and_strides_are_left_alone() -> None:
    fast = parse_descriptor(body("f32", [2, 2], "[[1, 2], [3, 4]]"), EVERY_BODY)
    assert isinstance(fast.inputs[0].data, np.ndarray) and isinstance(fast.inputs[1].data, np.ndarray)
    strided = parse_descriptor(body("f32", [2], "[1, 0, 2]", strides=[2]), EVERY_BODY)
    assert strided.inputs[0].data == [1, 0, 2]  # the ordinary parse: the flat buffer as given
    escaped = b'{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [1], "data": [1], "k\\"data": [2]}]}'
    assert outcome(escaped, EVERY_BODY) == outcome(escaped, None)


def _parsed_with_peak(request: bytes):
    """The descriptor parse_descriptor makes of `request`, and the most memory traced above the start."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        descriptor = parse_descriptor(request, Settings())
        return descriptor, tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_peak_memory_stays_near_the_body(monkeypatch) -> None:
    monkeypatch.setattr(jsonlists, "SLICE_BYTES", 1 << 14)  # a slice's objects (~20x its text) stay small

    values = np.arange(200_000, dtype=np.float32).reshape(400, 500) % 10
    request = body("f32", [400, 500], json.dumps(values.tolist(), separators=(",", ":")))
    descriptor, peak = _parsed_with_peak(request)
    assert np.array_equal(descriptor.inputs[0].data, values)
    assert peak < 4 * len(request)  # the ordinary parse: ~14x


def test_peak_memory_at_the_modules_own_slice_size() -> None:
    """A list of 1,000,000 f32 digits (4.5 MB): the array and one slice's objects, not the body's worth
    of Python floats. The bench's 4,000,000 of them held ~4 MB of a slice of 256 KiB beside the
    array; 64 KiB holds ~1 MB at the same speed."""
    values = np.round(np.random.default_rng(3).standard_normal(1_000_000), 1).astype(np.float32)
    request = body("f32", [values.size], "[" + ",".join(np.char.mod("%.1f", values).tolist()) + "]")
    descriptor, peak = _parsed_with_peak(request)
    array = descriptor.inputs[0].data
    assert isinstance(array, np.ndarray) and array.tobytes() == values.tobytes()
    assert peak < array.nbytes + 32 * jsonlists.SLICE_BYTES  # a slice's objects: ~17x its text
    assert peak < 1.5 * len(request)


_EDGES = ['"nan"', '"inf"', '"-inf"', "-0.0", "-0", "0.0", "16777217", "1e-46", "-1e-46", "65520", "65519.99",
          "3.4028235677973366e38", "3.4028235677973362e38", "1.00390625", "5e-324"]  # fmt: skip
# Numbers as JSON may spell them: exponents either case and sign, ints past f32's and f64's exact range,
# signed zeros, values that round to a dtype's edge or past it, and the three non-finite strings.
_SPELLED = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.floats(allow_nan=False, allow_infinity=False, width=16).map(repr),
    st.integers(-(2**65), 2**65).map(str),
    st.tuples(
        st.sampled_from(["", "-"]),
        st.integers(0, 99_999_999),
        st.sampled_from(["", ".5", ".25", ".000001", ".99999999999"]),
        st.sampled_from(["e", "E"]),
        st.sampled_from(["", "+", "-"]),
        st.one_of(st.integers(0, 12), st.integers(0, 330)),  # most within f16's range, some past f64's
    ).map(lambda p: f"{p[0]}{p[1]}{p[2]}{p[3]}{p[4]}{p[5]}"),
    st.sampled_from(_EDGES),
)
_SEPARATORS = st.sampled_from([",", ", ", " ,\n ", ",\t"])


@settings(max_examples=150, deadline=None)
@given(
    dtype=st.sampled_from(["f32", "f16", "bf16", "f64", "s32", "s64"]),
    rows=st.integers(1, 5),
    columns=st.integers(1, 8),
    nested=st.booleans(),
    spelled=st.data(),
    slice_bytes=st.sampled_from([1, 5, 64, jsonlists.SLICE_BYTES]),
)
def test_any_spelling_is_read_bit_for_bit_as_the_ordinary_parse(
    dtype, rows, columns, nested, spelled, slice_bytes
) -> None:
    """The lifted list against pydantic's parse of the whole body: the same bits in each element (or
    the same error), whatever the dtype, the spelling, the nesting and the slice each cut falls in."""
    texts = spelled.draw(st.lists(_SPELLED, min_size=rows * columns, max_size=rows * columns))
    separator = spelled.draw(_SEPARATORS)
    if nested:
        lines = [texts[r * columns : (r + 1) * columns] for r in range(rows)]
        data = "[" + separator.join("[" + separator.join(line) + "]" for line in lines) + "]"
    else:
        data = "[" + separator.join(texts) + "]"
    request = body(dtype, [rows, columns], data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonlists, "SLICE_BYTES", slice_bytes)
        assert outcome(request, EVERY_BODY) == outcome(request, None)


def test_a_long_list_of_every_spelling_is_read_bit_for_bit() -> None:
    """Several slices of the module's own size, every spelling of _SPELLED's fixed ones and random f32
    digits among them."""
    rng = np.random.default_rng(5)
    fixed = ["-0.0", "-0", "16777217", "1e-46", "3.4028235677973362e38", "1.00390625", "5e-324", "1E+3"]
    digits = np.char.mod("%.7g", rng.standard_normal(39_997) * 10.0 ** rng.integers(-40, 37, 39_997))
    texts = [*digits.tolist(), *fixed * 500, '"nan"', '"inf"', '"-inf"']
    rng.shuffle(texts)
    request = body("f32", [100, 440], "[" + ",".join(texts) + "]")
    assert len(request) > 4 * jsonlists.SLICE_BYTES
    assert isinstance(parse_descriptor(request, EVERY_BODY).inputs[0].data, np.ndarray)  # lifted
    assert outcome(request, EVERY_BODY) == outcome(request, None)


class _CountingNumpy:
    """numpy, counting the bytes the bracket scan views (np.frombuffer is its only reader of the body)."""

    def __init__(self) -> None:
        self.viewed = 0

    def frombuffer(self, buffer, dtype=None, count=-1, offset=0):
        array = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset)
        self.viewed += array.size
        return array

    def __getattr__(self, name: str):
        return getattr(np, name)


@pytest.mark.parametrize("data", ["[1.0]", "[[1.0]]", "[[[1.0], [2.0]]]"])
def test_lifting_many_short_lists_is_linear_in_the_body(monkeypatch, data) -> None:
    """One Max of 100,000 one-value inputs (3.5 MB) took ~50 s of CPU: each list's close was looked for
    in a 64 KiB block of the body, so the scan was quadratic. Now the work is a small multiple of the
    body, whatever the lists' count and nesting."""
    monkeypatch.setattr(jsonlists, "MIN_LIFT_BYTES", 0)  # even a one-value list is lifted: the worst case
    counting = _CountingNumpy()
    monkeypatch.setattr(jsonlists, "np", counting)
    shape = [1] * data.count("[")
    shape = [2, 1] if data.startswith("[[[") else shape
    tensor = (
        f'{{"dtype": "f32", "shape": {json.dumps(shape[1:] if len(shape) > 1 else [1])}, "data": {data}}}'
    )
    request = ('{"kind": "Max", "inputs": [' + ", ".join([tensor] * 20_000) + "]}").encode()
    lifted = jsonlists.lift(request)
    assert lifted is not None and len(lifted.lists) == 20_000
    assert counting.viewed <= 16 * len(request)


def test_short_lists_stay_for_the_ordinary_parse() -> None:
    """Lifting a list costs a few parses of its own: only lists of MIN_LIFT_BYTES or more are lifted, so
    their count is bounded by the body's size."""
    jsonlists.MIN_LIFT_BYTES = 1 << 12  # the module's own value (the autouse fixture restores 0 after)
    short = '{"dtype": "f32", "shape": [1], "data": [1.0]}'
    long = json.dumps({"dtype": "f32", "shape": [2000], "data": [1.5] * 2000})
    request = ('{"kind": "Max", "inputs": [' + ", ".join([short] * 1000 + [long]) + "]}").encode()
    lifted = jsonlists.lift(request)
    assert lifted is not None and len(lifted.lists) == 1
    assert outcome(request, EVERY_BODY) == outcome(request, None)
