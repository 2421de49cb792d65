"""`from app import validate, evaluate`: the HTTP answers in-process, NumPy arrays in and out."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import app
from app.core.config import Settings

MAX = {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2, 3]}, {"dtype": "f32", "shape": [3]}]}


def _max(dtype: str, *arrays: np.ndarray) -> dict:
    return {
        "kind": "Max",
        "inputs": [{"dtype": dtype, "shape": list(a.shape), "data": a} for a in arrays],
    }


def test_validate_answers_as_the_route_does(client) -> None:
    for body in (MAX, {**MAX, "inputs": [MAX["inputs"][0], {"dtype": "f32", "shape": [4]}]}):
        assert app.validate(body) == client.post("/v1/validate", json=body).json()


def test_validate_reads_array_data() -> None:
    body = {
        "kind": "ReduceMax",
        "attrs": {},
        "inputs": [{"dtype": "f32", "shape": [2, 3]}, {"dtype": "s32", "shape": [1], "data": np.int32([1])}],
    }
    assert app.validate(body)["outputs"] == [{"dtype": "f32", "shape": [2]}]


def test_evaluate_returns_arrays_exactly() -> None:
    a = np.array([[1, -0.0, np.nan], [-0.0, -2, 3]], np.float32)
    b = np.array([0.0, -0.0, 1], np.float32)
    answer = app.evaluate(_max("f32", a, b))
    assert answer["kind"] == "Max" and answer["diagnostics"] == []
    (out,) = answer["outputs"]
    assert out["dtype"] == "f32" and out["shape"] == [2, 3] and out["data"].dtype == np.float32
    want = np.array([[1, -0.0, np.nan], [0.0, -0.0, 3]], np.float32)
    assert out["data"].tobytes() == want.tobytes()  # +0 over -0, NaN, bit for bit


def test_evaluate_leaves_the_callers_arrays_alone() -> None:
    a = np.array([-0.0, 1], np.float32)
    before = a.tobytes()
    app.evaluate(_max("f32", a, np.array([0.0, 2], np.float32)))
    assert a.tobytes() == before and a.flags.writeable


def test_bf16_and_mli_raw_arrays() -> None:
    x = np.array([[1.5, -3], [7, 2]], ml_dtypes.bfloat16)
    out = app.evaluate(
        {
            "kind": "ReduceMax",
            "attrs": {"axes": [1]},
            "inputs": [{"dtype": "bf16", "shape": [2, 2], "data": x}],
        }
    )
    assert out["outputs"][0]["data"].dtype == ml_dtypes.bfloat16
    assert out["outputs"][0]["data"].tolist() == [1.5, 7]
    raw = np.array([[3, 9, 9, 1]], np.int8)
    top = app.evaluate(
        {
            "kind": "mli_krn_argmax_sa8",
            "attrs": {"axis": -1, "top_k": 2},
            "inputs": [{"dtype": "sa8", "shape": [1, 4], "data": raw, "quant": {"scale": 1}}],
        }
    )
    assert top["outputs"][0]["data"].dtype == np.int32
    assert top["outputs"][0]["data"].reshape(-1).tolist() == [1, 2]  # MLI's tie order: first index first


def test_strided_array_is_the_flat_buffer() -> None:
    buffer = np.array([5, 0, 7, 0, 1, 0], np.int8)
    out = app.evaluate(
        {
            "kind": "mli_krn_argmax_sa8",
            "attrs": {"axis": -1, "top_k": 1},
            "inputs": [
                {"dtype": "sa8", "shape": [3, 1], "strides": [2, 1], "data": buffer, "quant": {"scale": 1}}
            ],
        }
    )
    assert out["outputs"][0]["data"].reshape(-1).tolist() == [2]  # the offset of 7 in the buffer


def test_invalid_raises_with_the_diagnostics() -> None:
    body = _max("f32", np.zeros(3, np.float32), np.zeros(4, np.float32))
    with pytest.raises(app.Invalid) as caught:
        app.evaluate(body)
    assert [d.rule for d in caught.value.diagnostics] == ["Max.RI"]


def test_wrong_array_dtype_or_shape_is_a_diagnostic() -> None:
    body = _max("f32", np.zeros(3, np.float64), np.zeros(3, np.float32))
    answer = app.validate(body)
    assert not answer["valid"]
    assert answer["diagnostics"][0]["path"] == "inputs[0].data"
    assert "float64" in answer["diagnostics"][0]["message"]
    body = {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [3], "data": np.zeros(4, np.float32)}]}
    assert "shape [4]" in app.validate(body)["diagnostics"][0]["message"]


def test_malformed_and_not_evaluable_and_limits() -> None:
    with pytest.raises(app.Malformed) as caught:
        app.validate({"kind": "Nope", "inputs": []})
    assert caught.value.errors[0]["path"] == "kind"
    with pytest.raises(app.NotEvaluable) as not_evaluable:
        app.evaluate(MAX)
    assert not_evaluable.value.path == "inputs[0].data"
    small = Settings(max_elements=4)
    with pytest.raises(app.LimitExceeded) as limit:
        app.evaluate(_max("f32", np.zeros(8, np.float32)), small)
    assert limit.value.limit == "max_elements" and limit.value.path == "inputs[0]"


def test_importing_the_core_stays_light() -> None:
    code = "import sys, app.core.shapes; print('app.library' in sys.modules, 'app.ops' in sys.modules)"
    assert subprocess.check_output([sys.executable, "-c", code], text=True).split() == ["False", "False"]


@pytest.mark.parametrize("page", ["README.md", "docs/python.md"])
def test_the_docs_python_examples_run(page: str) -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / page).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, page, "exec"), {})


# --- the plain ReduceMax lane against the full way it shortcuts ----------------------------------


def _outcome(call) -> tuple:
    """What an evaluation gives: its answer with the arrays as (dtype, shape, bits), or the error."""
    try:
        answer = call()
    except Exception as exc:  # the error itself is the outcome compared
        return ("raised", type(exc).__name__, str(exc))
    for out in answer["outputs"]:
        data = out["data"]
        out["data"] = (data.dtype, data.shape, data.view(f"u{data.itemsize}").tobytes())
    return ("answered", answer)


@st.composite
def near_plain_reduce_max(draw):
    """ReduceMax descriptors as dicts with array data: plain ones, and ones a step off plain (an alias,
    an empty or repeated or out-of-range axis, a dim of 0, an array of another dtype or shape, an
    extra key, a bool or None where an int or bool goes), with -0, +0 and NaNs of either sign."""
    from app.core.dtypes import DTYPES

    def off() -> bool:  # one step off plain, now and then
        return draw(st.integers(0, 11)) == 0

    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    if off():
        shape[draw(st.integers(0, len(shape) - 1))] = 0
    dtype = draw(st.sampled_from(["f32", "f16", "bf16"]))
    if off():
        dtype = draw(st.sampled_from(["float32", "s32", "f64"]))
    numpy_type = DTYPES["f32" if dtype == "float32" else dtype].numpy
    values = st.sampled_from([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, -np.nan])
    count = math.prod(shape)
    data = np.array(draw(st.lists(values, min_size=count, max_size=count)), np.float64)
    data = data.astype(np.float32).astype(numpy_type).reshape(shape)
    if off():
        data = draw(st.sampled_from([data.astype(np.float64), data.reshape(-1), np.asfortranarray(data)]))
    tensor: dict = {"dtype": dtype, "shape": list(shape), "data": data}
    if off():
        tensor["shape"] = [True, *shape[1:]] if shape[0] == 1 else [*shape[:-1], shape[-1] + 1]
    if off():
        tensor["strides"] = None
    rank = len(shape)
    chosen = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    axes = [axis - rank if draw(st.booleans()) else axis for axis in chosen]
    if off():
        axes = draw(st.sampled_from([[], [*axes, axes[0]], [*axes, rank], [-rank - 1], [True], [0.0]]))
    attrs: dict = {"axes": axes}
    if draw(st.booleans()):
        attrs["keep_dims"] = draw(st.booleans())
    if off():
        attrs["keep_dims"] = draw(st.sampled_from([None, 1, "yes"]))
    descriptor: dict = {"kind": "ReduceMax", "inputs": [tensor]}
    if not off():
        descriptor["attrs"] = attrs
    if off():
        descriptor["outputs"] = [{"dtype": dtype, "shape": [1]}]
    return descriptor


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")
@settings(max_examples=400, deadline=None)
@given(
    near_plain_reduce_max(), st.sampled_from([None, Settings(max_elements=12), Settings(max_total_bytes=40)])
)
def test_plain_reduce_max_answers_as_the_full_path(descriptor, limits) -> None:
    """The lane (app.library._plain_reduce_max) answers exactly as the full way it shortcuts
    (_evaluate_checked): the same answer, dtypes, shapes and bits (-0 is not +0; NaN's bits too), or it
    declines and the full way answers or raises as before."""
    from app import library

    assert_lane_is_the_full_way(library._plain_reduce_max, descriptor, limits)


def assert_lane_is_the_full_way(lane_of, descriptor: dict, limits: Settings | None) -> None:
    """lane_of's answer, where it gives one, is the full way's (_evaluate_checked), and app.evaluate
    answers or raises as the full way does."""
    from app import library

    settings = limits or library.get_settings()
    lane = lane_of(descriptor, settings)
    full = _outcome(lambda: library._evaluate_checked(descriptor, settings))
    if lane is not None:
        assert full == _outcome(lambda: lane)
    assert _outcome(lambda: app.evaluate(descriptor, limits)) == full


@st.composite
def near_plain_max(draw):
    """Max descriptors as dicts with array data: plain ones (1 to 4 inputs of one dtype, broadcast by
    the strict rule) and ones a step off plain (an alias, inputs of two dtypes, a size neither the
    largest nor 1, a dim of 0, an array of another dtype or shape, an attribute, a declared output, a
    bool where an int goes), with -0, +0 and NaNs of either sign where the dtype has them."""
    from app.core.dtypes import DTYPES

    def off() -> bool:
        return draw(st.integers(0, 13)) == 0

    out = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    dtype = draw(st.sampled_from(["f32", "f16", "bf16", "f64", "s8", "u16", "s64"]))
    numpy_type = DTYPES[dtype].numpy
    floats = st.sampled_from([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, -np.nan])
    ints = st.integers(-3, 3) if dtype[0] == "s" else st.integers(0, 5)
    inputs = []
    for _ in range(draw(st.integers(1, 4))):
        rank = draw(st.integers(0, len(out)))
        shape = [size if draw(st.booleans()) else 1 for size in out[len(out) - rank :]]
        if off() and shape:
            shape[-1] = draw(st.sampled_from([0, shape[-1] + 1]))
        count = math.prod(shape)
        if DTYPES[dtype].is_float:
            values = np.array(draw(st.lists(floats, min_size=count, max_size=count)), np.float64)
            data = values.astype(np.float32).astype(numpy_type).reshape(shape)
        else:
            data = np.array(draw(st.lists(ints, min_size=count, max_size=count)), numpy_type).reshape(shape)
        tensor: dict = {"dtype": dtype, "shape": list(shape), "data": data}
        if off():
            tensor["dtype"] = draw(st.sampled_from(["float32", "s32", "f32"]))
        if off():
            tensor["data"] = draw(st.sampled_from([data.astype(np.float64), data.reshape(-1)]))
        if off() and shape:
            tensor["shape"] = [True, *shape[1:]]
        inputs.append(tensor)
    descriptor: dict = {"kind": "Max", "inputs": inputs}
    if off():
        descriptor["kind"] = "max"
    if draw(st.booleans()):
        descriptor["attrs"] = {"axis": 1} if off() else {}
    if off():
        descriptor["outputs"] = [{"dtype": dtype, "shape": out}]
    return descriptor


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")
@settings(max_examples=400, deadline=None)
@given(near_plain_max(), st.sampled_from([None, Settings(max_elements=6), Settings(max_total_bytes=40)]))
def test_plain_max_answers_as_the_full_path(descriptor, limits) -> None:
    """The lane (app.library._plain_max) answers exactly as the full way it shortcuts (_evaluate_checked):
    the same answer, dtypes, shapes and bits (-0 is not +0; NaN's bits too), or it declines and the full
    way answers or raises as before."""
    from app import library

    assert_lane_is_the_full_way(library._plain_max, descriptor, limits)


def test_the_max_lane_takes_the_plain_cases() -> None:
    """Held to the full way above; here it is shown to answer (not decline) where it should."""
    from app import library

    settings = library.get_settings()
    rows = np.arange(6, dtype=np.float32).reshape(2, 3)
    for inputs in ([rows], [rows, np.float32([-0.0, 0.0, 9.0])], [np.array(2.0, np.float32), rows]):
        tensors = [{"dtype": "f32", "shape": list(a.shape), "data": a} for a in inputs]
        assert library._plain_max({"kind": "Max", "inputs": tensors}, settings) is not None
