"""`from app import validate, evaluate`: the HTTP answers in-process, NumPy arrays in and out."""

from __future__ import annotations

import re
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

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


# --- an op's quick_evaluate (the lane of its plain descriptors) against the full way it shortcuts:
# each op's test holds its own with this (tests/ops/test_reduce_max.py, tests/ops/test_max.py)


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


def assert_lane_is_the_full_way(quick_evaluate, descriptor: dict, limits: Settings | None) -> None:
    """An op's quick_evaluate (the library's lane for its plain descriptors), where it answers, gives the
    full way's answer (_evaluate_checked), and app.evaluate answers or raises as the full way does."""
    from app import library

    settings = limits or library.get_settings()
    outputs = quick_evaluate(descriptor, settings)
    full = _outcome(lambda: library._evaluate_checked(descriptor, settings))
    if outputs is not None:
        assert full == _outcome(lambda: library.answer(descriptor["kind"], outputs, []))
    assert _outcome(lambda: app.evaluate(descriptor, limits)) == full
