"""The quantization family: Quantize, Dequantize, DynamicQuantize, DynamicDequantize, TypeCast, Reorder.

Kernels against oneDNN's own outputs (tests/ops/oracle/quantization.json, bit for bit), against plain
Python loops of the page's formulas, and the rules with their ids, paths and messages."""

from __future__ import annotations

import json
import math
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.engine import NotEvaluable
from app.core.payload import encode
from app.library import evaluate, validate
from tests.conftest import same_values

ORACLE = Path(__file__).parent / "oracle"


def fixtures(family: str) -> list:
    cases = json.loads((ORACLE / f"{family}.json").read_text())["cases"]
    return [pytest.param(case, id=f"{i}-{case['kind']}") for i, case in enumerate(cases)]


def against_onednn(case: dict) -> None:
    """Our evaluation of a recorded one-op graph equals oneDNN's outputs bit for bit (-0.0 is not 0.0)."""
    descriptor = {
        "kind": case["kind"],
        "attrs": case["attrs"],
        "inputs": case["inputs"],
        "outputs": [{"dtype": o["dtype"], "shape": o["shape"]} for o in case["outputs"]],
    }
    answer = evaluate(descriptor)
    for got, want in zip(answer["outputs"], case["outputs"], strict=True):
        assert (got["dtype"], list(got["data"].shape)) == (want["dtype"], want["shape"])
        flat = encode(got["data"].reshape(-1), got["dtype"], as_base64=False)
        assert same_values(flat, want["data"]), (flat, want["data"])


@pytest.mark.parametrize("case", fixtures("quantization"))
def test_evaluation_equals_onednn_bit_for_bit(case) -> None:
    against_onednn(case)


def run(kind: str, attrs: dict, inputs: list, out: str | None = None, shape=None) -> np.ndarray:
    descriptor = {"kind": kind, "attrs": attrs, "inputs": inputs}
    if out is not None:
        descriptor["outputs"] = [{"dtype": out, "shape": shape or inputs[0]["shape"]}]
    return evaluate(descriptor)["outputs"][0]["data"]


def rules(kind: str, attrs: dict, inputs: list, outputs=None) -> list[tuple[str, str, str, str]]:
    descriptor = {"kind": kind, "attrs": attrs, "inputs": inputs}
    if outputs is not None:
        descriptor["outputs"] = outputs
    return [(d["severity"], d["rule"], d["path"], d["message"]) for d in validate(descriptor)["diagnostics"]]


def f32(shape, data=None) -> dict:
    return {"dtype": "f32", "shape": shape, **({"data": data} if data is not None else {})}


# --- the page's arithmetic, exactly -----------------------------------------------------------------


def test_quantize_rounds_half_to_even_and_saturates() -> None:
    data = [0.5, 1.5, 2.5, -0.5, -2.5, 1000.0, -1000.0, "nan", "inf", "-inf"]
    got = run("Quantize", {"scales": [1.0]}, [f32([10], data)], "s8")
    assert got.dtype == np.int8 and got.tolist() == [0, 2, 2, 0, -2, 127, -128, 0, 127, -128]
    got = run("Quantize", {"scales": [0.5], "zps": [10]}, [f32([5], [-6.0, -5.25, 0.25, 200.0, 0.75])], "u8")
    assert got.dtype == np.uint8 and got.tolist() == [0, 0, 10, 255, 12]  # -2 saturates; 10.5 -> 10


def test_quantize_to_f8_rounds_once_and_overflows_as_the_type_does() -> None:
    data = [448.0, 464.0, 465.0, -500.0, 1.0625, 1.1875, -0.0, 0.0009765625]
    got = run("Quantize", {"scales": [1.0]}, [f32([8], data)], "f8_e4m3")
    assert got.dtype == ml_dtypes.float8_e4m3fn
    assert encode(got, "f8_e4m3", as_base64=False) == [448.0, 448.0, "nan", "nan", 1.0, 1.25, -0.0, 0.0]
    got = run("Quantize", {"scales": [2.0]}, [f32([4], [1e6, 114688.0, -3.0, 5.0])], "f8_e5m2")
    assert encode(got, "f8_e5m2", as_base64=False) == ["inf", 57344.0, -1.5, 2.5]


def test_per_channel_scales_follow_the_axis() -> None:
    attrs = {"qtype": "per_channel", "axis": 0, "scales": [0.5, 2.0], "zps": [0, 0]}
    got = run("Dequantize", attrs, [{"dtype": "u8", "shape": [2, 2], "data": [[1, 2], [3, 4]]}])
    assert got.tolist() == [[0.5, 1.0], [6.0, 8.0]]
    got = run(
        "Quantize",
        {"qtype": "per_channel", "axis": 1, "scales": [1.0, 0.25]},
        [f32([2, 2], [[3, 3], [-1, 1]])],
        "s8",
    )
    assert got.tolist() == [[3, 12], [-1, 4]]


def test_dequantize_keeps_the_sign_of_zero() -> None:
    got = run(
        "Dequantize", {"scales": [-0.5], "zps": [2]}, [{"dtype": "s8", "shape": [3], "data": [2, 3, 1]}]
    )
    assert same_values(encode(got, "f32", as_base64=False), [-0.0, -0.5, 0.5])


def test_dynamic_dequantize_groups_and_the_sign_of_zero() -> None:
    src = {"dtype": "s8", "shape": [2, 4], "data": [[1, 2, 3, 4], [5, 6, 7, 8]]}
    scales = {"dtype": "f32", "shape": [2, 2], "data": [[1, -2], [0.5, 4]]}
    zps = {"dtype": "s8", "shape": [2, 2], "data": [[1, 3], [0, 8]]}
    attrs = {"qtype": "per_group", "group_shape": [1, 2]}
    got = run("DynamicDequantize", attrs, [src, scales, zps], "f32", [2, 4])
    # 8-bit src: oneDNN's grouped kernel gives +0 for zero results (1 - 1, 8 - 8)
    assert same_values(encode(got, "f32", as_base64=False), [[0.0, 1.0, 0.0, -2.0], [2.5, 3.0, -4.0, 0.0]])
    src4 = {**src, "dtype": "s4", "data": [[1, 2, 3, 4], [5, 6, 7, -8]]}
    got = run(
        "DynamicDequantize",
        attrs,
        [src4, scales, {**zps, "dtype": "s4", "data": [[1, 3], [0, -8]]}],
        "f32",
        [2, 4],
    )
    assert same_values(encode(got, "f32", as_base64=False), [[0.0, 1.0, -0.0, -2.0], [2.5, 3.0, 60.0, 0.0]])


def test_dynamic_dequantize_to_bf16_rounds_once() -> None:
    src = {"dtype": "u8", "shape": [2], "data": [3, 255]}
    scales = {"dtype": "bf16", "shape": [1], "data": [1.0078125]}  # 1 + 2**-7
    got = run("DynamicDequantize", {}, [src, scales], "bf16")
    # 3 * (1 + 2**-7) = 3.0234375, halfway between bf16 3.015625 and 3.03125: the even mantissa wins;
    # 255 * (1 + 2**-7) = 256.9921875 lies between 256 and 258
    assert got.dtype == ml_dtypes.bfloat16 and got.astype(np.float64).tolist() == [3.03125, 256.0]


def test_typecast_rounds_to_nearest_even_and_keeps_specials() -> None:
    data = [1.00390625, 1.01171875, -0.0, "inf", "nan", 3.4e38, 65520.0, 1e-8]
    got = run("TypeCast", {}, [f32([8], data)], "bf16")
    assert encode(got, "bf16", as_base64=False)[:5] == [1.0, 1.015625, -0.0, "inf", "nan"]
    got = run("TypeCast", {}, [f32([8], data)], "f16")
    assert encode(got, "f16", as_base64=False) == [
        1.00390625,
        1.01171875,
        -0.0,
        "inf",
        "nan",
        "inf",
        "inf",
        0.0,
    ]


def test_reorder_copies_a_strided_view_dense() -> None:
    src = {"dtype": "f32", "shape": [2, 2], "strides": [1, 2], "data": [1.0, 2.0, 3.0, 4.0]}
    assert run("Reorder", {}, [src]).tolist() == [[1.0, 3.0], [2.0, 4.0]]


# --- an independent oracle: the page's formula as a Python loop --------------------------------------


def quantize_loop(values: list[float], scale: float, zp: int, low: int, high: int) -> list[int]:
    out = []
    for value in values:
        with np.errstate(all="ignore"):
            q = float(np.float32(np.float32(value) / np.float32(scale)) + np.float32(zp))
        if math.isnan(q):
            out.append(0)
        elif math.isinf(q):
            out.append(high if q > 0 else low)
        else:
            out.append(min(high, max(low, round(q))))  # Python's round: half to even
    return out


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.floats(-300, 300, width=32) | st.sampled_from([0.5, 2.5, -1.5]), min_size=1, max_size=20
    ),
    scale=st.sampled_from([1.0, 0.5, 0.1, 0.25, 3.0, -2.0]),
    zp=st.integers(-20, 20),
    dst=st.sampled_from(["s8", "u8"]),
)
def test_quantize_matches_the_loop(values, scale, zp, dst) -> None:
    low, high = (-128, 127) if dst == "s8" else (0, 255)
    got = run("Quantize", {"scales": [scale], "zps": [zp]}, [f32([len(values)], values)], dst)
    assert got.tolist() == quantize_loop(values, scale, zp, low, high)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-128, 127), min_size=1, max_size=20),
    scale=st.floats(-8, 8, width=32),
    zp=st.integers(-128, 127),
)
def test_dequantize_matches_the_loop(values, scale, zp) -> None:
    got = run(
        "Dequantize",
        {"scales": [scale], "zps": [zp]},
        [{"dtype": "s8", "shape": [len(values)], "data": values}],
    )
    want = [float(np.float32(np.float32(v) - np.float32(zp)) * np.float32(scale)) for v in values]
    assert same_values(got.astype(np.float64).tolist(), want)


# --- rules ----------------------------------------------------------------------------------------


def test_static_counts_zero_points_and_axis() -> None:
    src = f32([4, 3])
    found = rules(
        "Quantize",
        {"qtype": "per_channel", "axis": 2, "scales": [1.0]},
        [src],
        [{"dtype": "s8", "shape": [4, 3]}],
    )
    assert found == [
        (
            "error",
            "Quantize.axis.range",
            "attrs.axis",
            "Quantize: axis 2 is out of range [-2, 1] for src of rank 2",
        )
    ]
    found = rules(
        "Quantize",
        {"qtype": "per_channel", "scales": [1.0, 2.0], "zps": [1]},
        [src],
        [{"dtype": "f8_e4m3", "shape": [4, 3]}],
    )
    assert [f[:3] for f in found] == [
        ("error", "Quantize.scales.count", "attrs.scales"),
        ("error", "Quantize.zps.f8", "attrs.zps"),
        ("error", "Quantize.zps.count", "attrs.zps"),
        ("warning", "Quantize.onednn.per_channel_zps", "attrs.zps"),
    ]
    assert found[0][3] == "Quantize has 2 scales; per_channel takes one per channel: src has 3 along axis"
    found = rules("Dequantize", {"scales": [1.0, 2.0]}, [{"dtype": "u8", "shape": [4]}])
    assert found == [
        (
            "error",
            "Dequantize.scales.count",
            "attrs.scales",
            "Dequantize has 2 scales; per_tensor takes exactly one",
        )
    ]


def test_per_tensor_ignores_axis_and_extra_scales_warn() -> None:
    assert rules("Quantize", {"axis": 1, "scales": [1.0]}, [f32([8])], [{"dtype": "s8", "shape": [8]}]) == []
    found = rules(
        "Dequantize",
        {"qtype": "per_channel", "axis": 1, "scales": [1.0] * 16},
        [{"dtype": "s8", "shape": [16, 1, 3, 3]}],
    )
    assert [f[:3] for f in found] == [("warning", "Dequantize.scales.extra", "attrs.scales")]


def test_negative_per_channel_axis_warns_of_onednn() -> None:
    found = rules(
        "Dequantize",
        {"qtype": "per_channel", "axis": -1, "scales": [1.0, 2.0]},
        [{"dtype": "s8", "shape": [3, 2]}],
    )
    assert found[0][:3] == ("warning", "Dequantize.onednn.negative_axis", "attrs.axis")
    assert "applies scales[0] to every element" in found[0][3] and "write it as 1" in found[0][3]


def test_attributes_and_dtypes() -> None:
    found = rules("Quantize", {"qtype": "per_group"}, [f32([2])], [{"dtype": "s8", "shape": [2]}])
    assert [f[1] for f in found] == ["Quantize.attrs.value", "Quantize.attrs.required"]
    found = rules("Quantize", {"scales": [1.0]}, [f32([2])], [{"dtype": "s32", "shape": [2]}])
    assert [f[:3] for f in found] == [("error", "Quantize.outputs.dtype", "outputs[0].dtype")]
    found = rules("TypeCast", {}, [{"dtype": "bf16", "shape": [2]}], [{"dtype": "f16", "shape": [2]}])
    assert [f[:3] for f in found] == [("error", "TypeCast.outputs.dtype", "outputs[0].dtype")]
    found = rules("Reorder", {}, [f32([2])], [{"dtype": "bf16", "shape": [2]}])
    assert found == [
        ("error", "Reorder.outputs.dtype", "outputs[0].dtype", "dst is f32, but bf16 is declared")
    ]


def test_dynamic_shapes_and_onednn_dtypes() -> None:
    src = f32([2, 3])
    found = rules(
        "DynamicQuantize", {"qtype": "per_channel"}, [src, f32([2]), {"dtype": "u8", "shape": [3, 1]}]
    )
    assert [f[:3] for f in found] == [
        ("error", "DynamicQuantize.scales.count", "inputs[1].shape[0]"),
        ("error", "DynamicQuantize.scales.rank", "inputs[2].shape"),
        ("warning", "DynamicQuantize.onednn.per_channel_zps", "inputs[2]"),
    ]
    int4 = [
        {"dtype": "u4", "shape": [4, 8]},
        {"dtype": "f16", "shape": [4, 2]},
        {"dtype": "u8", "shape": [4, 2]},
    ]
    found = rules(
        "DynamicDequantize",
        {"qtype": "per_group", "group_shape": [1, 4]},
        int4,
        [{"dtype": "f16", "shape": [4, 8]}],
    )
    assert [f[:3] for f in found] == [("warning", "DynamicDequantize.onednn.dtypes", "inputs")]


def test_groups() -> None:
    inputs = [{"dtype": "s8", "shape": [4, 6]}, f32([4, 2]), {"dtype": "s8", "shape": [4, 3]}]
    assert [f[:3] for f in rules("DynamicDequantize", {"qtype": "per_group"}, inputs)] == [
        ("error", "DynamicDequantize.group_shape.required", "attrs")
    ]
    found = rules("DynamicDequantize", {"qtype": "per_group", "group_shape": [1, 4]}, inputs)
    assert found[0][:3] == ("error", "DynamicDequantize.group_shape.value", "attrs.group_shape[1]")
    found = rules("DynamicDequantize", {"qtype": "per_group", "group_shape": [1, 3]}, inputs)
    assert [f[:3] for f in found] == [("error", "DynamicDequantize.zps.count", "inputs[2].shape[1]")]
    assert "per_group takes [4, 2] (src's dim / group size)" in found[0][3]
    found = rules(
        "DynamicDequantize",
        {"qtype": "per_group", "group_shape": [3]},
        [{"dtype": "s8", "shape": [6]}, f32([2])],
    )
    assert found[0][1] == "DynamicDequantize.group_shape.value"


def test_end_of_evaluation_limits_on_unknown_dtype() -> None:
    with pytest.raises(NotEvaluable):  # which of s8, u8, f8 is not said
        evaluate({"kind": "Quantize", "attrs": {"scales": [1.0]}, "inputs": [f32([1], [1.0])]})
