"""Properties: opspec's own evaluate answer always verifies as conformant; one element changed is
always caught, counted once and located."""

from __future__ import annotations

import copy

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core import engine
from app.core.config import Settings
from app.ops import BY_NAME, DESCRIPTOR
from tests.verify.cases import run

SETTINGS = Settings()
FLOATS = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, "nan", "inf", "-inf"])


@st.composite
def max_ops(draw) -> dict:
    dtype = draw(st.sampled_from(["f32", "f16", "bf16", "s8", "u16"]))
    values = FLOATS if dtype in ("f32", "f16", "bf16") else st.integers(0, 100)
    shape = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    shapes = [shape, *draw(st.lists(st.sampled_from([shape, shape[1:], [1] * len(shape)]), max_size=2))]
    inputs = [
        {
            "dtype": dtype,
            "shape": s,
            "data": np.array(
                draw(st.lists(values, min_size=int(np.prod(s)), max_size=int(np.prod(s)))), dtype=object
            )
            .reshape(s)
            .tolist(),
        }
        for s in shapes
    ]
    return {"kind": "Max", "inputs": inputs}


@st.composite
def reduce_max_ops(draw) -> dict:
    shape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    axes = draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
    data = draw(st.lists(FLOATS, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    return {
        "kind": "ReduceMax",
        "attrs": {"axes": axes, "keep_dims": draw(st.booleans())},
        "inputs": [
            {
                "dtype": draw(st.sampled_from(["f32", "f16", "bf16"])),
                "shape": shape,
                "data": nested(data, shape),
            }
        ],
    }


@st.composite
def segment_max_ops(draw) -> dict:
    rows = draw(st.integers(0, 6))
    ids = sorted(draw(st.lists(st.integers(0, 4), min_size=rows, max_size=rows)))
    inner = draw(st.lists(st.integers(1, 2), max_size=1))
    dtype = draw(st.sampled_from(["f32", "f16", "s16", "u32"]))
    values = FLOATS if dtype.startswith("f") else st.integers(0, 100)
    data = draw(st.lists(values, min_size=rows * int(np.prod(inner)), max_size=rows * int(np.prod(inner))))
    inputs = [
        {"dtype": dtype, "shape": [rows, *inner], "data": nested(data, [rows, *inner])},
        {"dtype": "s32", "shape": [rows], "data": ids},
    ]
    if draw(st.booleans()):
        inputs.append({"dtype": "s64", "shape": [], "data": draw(st.integers(0, 6))})
    return {
        "kind": "SegmentMax",
        "attrs": {"fill_mode": draw(st.sampled_from(["ZERO", "LOWEST"]))},
        "inputs": inputs,
    }


@st.composite
def argmax_ops(draw) -> dict:
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = draw(st.integers(-1, len(shape) - 1))
    size = int(np.prod(shape)) // (shape[axis] if axis >= 0 else 1)
    data = draw(st.lists(st.integers(-3, 3), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    return {
        "kind": "Argmax",
        "attrs": {"axis": axis, "top_k": draw(st.integers(1, size))},
        "inputs": [
            {"dtype": draw(st.sampled_from(["sa8", "fx16"])), "shape": shape, "data": nested(data, shape)}
        ],
    }


def nested(values: list, shape: list[int]) -> list:
    return np.array(values, dtype=object).reshape(shape).tolist()


def changed(value):
    """Another value with other bits, of the same type (NaN is never 'changed' into another NaN)."""
    if isinstance(value, str):
        return 0.0 if value == "nan" else "nan"
    if isinstance(value, float):
        return "nan" if value == 0 else -value if value != 0 else 1.0
    return value - 1 if value > 0 else value + 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(max_ops(), reduce_max_ops(), segment_max_ops(), argmax_ops()), st.data())
def test_own_answer_conforms_and_one_change_is_located(document, data) -> None:
    descriptor = DESCRIPTOR.validate_python(document)
    evaluation = engine.evaluate(BY_NAME[descriptor.kind], descriptor, SETTINGS)
    answer = copy.deepcopy(document)
    answer["outputs"] = evaluation.outputs
    result = run(answer)
    assert result.conformant, result.outputs
    [output] = evaluation.outputs
    flat = np.array(output["data"], dtype=object).reshape(-1)
    if flat.size == 0:
        return
    position = data.draw(st.integers(0, flat.size - 1))
    flat[position] = changed(flat[position])
    wrong = copy.deepcopy(answer)
    wrong["outputs"][0]["data"] = flat.reshape(output["shape"]).tolist()
    report = run(wrong).outputs[0]
    assert report["mismatches"] == 1 and not report["conformant"]
    assert report["first"][0]["at"] == [int(i) for i in np.unravel_index(position, output["shape"])]
