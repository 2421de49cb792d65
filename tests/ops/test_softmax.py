"""The softmax family: the axis rule, SoftMax's optional stats and mode, the dtype tables, each kernel
against a plain loop of the page's formula and against oneDNN's recorded answers."""

from __future__ import annotations

import itertools
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.engine import evaluate
from app.core.payload import encode
from app.ops import REGISTRY
from tests.conftest import same_values
from tests.ops.onednn_fixtures import cases, check_case

KINDS = ["SoftMax", "LogSoftmax", "SoftMaxBackward", "LogSoftmaxBackward"]
NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def post(client, body) -> dict:
    response = client.post("/v1/validate", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def found(verdict, severity="error") -> list[tuple[str, str]]:
    return [(d["rule"], d["path"]) for d in verdict["diagnostics"] if d["severity"] == severity]


def inputs(kind: str, dtype: str, shape) -> list[dict]:
    count = 2 if kind.endswith("Backward") else 1
    return [{"dtype": dtype, "shape": shape}] * count


# --- the axis -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_axis_out_of_range_is_named_with_the_range(client, kind) -> None:
    verdict = post(client, {"kind": kind, "attrs": {"axis": 3}, "inputs": inputs(kind, "f32", [2, 3, 4])})
    assert found(verdict) == [(f"{kind}.axis.range", "attrs.axis")]
    port = "diff_dst" if kind.endswith("Backward") else "src"
    assert (
        verdict["diagnostics"][0]["message"] == f"{kind}: axis 3 is out of range [-3, 2] for {port} of rank 3"
    )
    assert verdict["outputs"] is None
    below = post(client, {"kind": kind, "attrs": {"axis": -4}, "inputs": inputs(kind, "f32", [2, 3, 4])})
    assert found(below) == [(f"{kind}.axis.range", "attrs.axis")]


@pytest.mark.parametrize(("kind", "default"), [("SoftMax", 1), ("SoftMaxBackward", 1), ("LogSoftmax", -1),
                                               ("LogSoftmaxBackward", -1)])  # fmt: skip
def test_the_default_axis(client, kind, default) -> None:
    detail = client.get(f"/v1/ops/{kind}").json()
    assert detail["attributes"]["properties"]["axis"]["default"] == default
    verdict = post(client, {"kind": kind, "inputs": inputs(kind, "f32", [5])})
    if default == 1:  # SoftMax's default names no dim of a 1-D src: oneDNN aborts there
        assert found(verdict) == [(f"{kind}.axis.range", "attrs.axis")]
        assert verdict["diagnostics"][0]["message"].endswith("(the default)")
    else:
        assert verdict["valid"]


@pytest.mark.parametrize("kind", KINDS)
def test_shapes_symbols_and_unknown_rank(client, kind) -> None:
    verdict = post(client, {"kind": kind, "attrs": {"axis": -1}, "inputs": inputs(kind, "f16", ["N", 3])})
    # SoftMax's dst and SoftMaxBackward's diff_src may also be f32: undeclared, the dtype is open
    dtype = "f16" if kind.startswith("Log") else None
    assert verdict["valid"] and verdict["outputs"][0] == {"dtype": dtype, "shape": ["N", 3]}
    unknown = post(client, {"kind": kind, "attrs": {"axis": 7}, "inputs": inputs(kind, "f32", None)})
    assert unknown["valid"] and unknown["outputs"][0]["shape"] is None


@pytest.mark.parametrize("kind", ["SoftMaxBackward", "LogSoftmaxBackward"])
def test_backward_dst_has_diff_dsts_shape(client, kind) -> None:
    body = {"kind": kind, "inputs": [{"dtype": "f32", "shape": [2, 3]}, {"dtype": "f32", "shape": [2, 4]}]}
    assert found(post(client, body)) == [(f"{kind}.shapes", "inputs[1].shape")]
    body["inputs"][1]["shape"] = ["N", 3]
    assert post(client, body)["valid"]


# --- SoftMax's stats and mode ------------------------------------------------------------------------------


def test_stats_is_optional_f32_with_1_at_the_axis(client) -> None:
    body = {
        "kind": "SoftMax",
        "attrs": {"axis": -1},
        "inputs": [{"dtype": "bf16", "shape": [2, 8, 5]}],
        "outputs": [{"dtype": "bf16", "shape": [2, 8, 5]}, {"dtype": "f32", "shape": [2, 8, 1]}],
    }
    verdict = post(client, body)
    assert verdict["valid"], verdict
    assert verdict["outputs"] == [{"dtype": "bf16", "shape": [2, 8, 5]}, {"dtype": "f32", "shape": [2, 8, 1]}]
    body["outputs"][1] = {"dtype": "bf16", "shape": [2, 8, 5]}
    assert sorted(found(post(client, body))) == [
        ("SoftMax.outputs.dim", "outputs[1].shape[2]"),
        ("SoftMax.outputs.dtype", "outputs[1].dtype"),
    ]
    body["outputs"].append(body["outputs"][0])
    assert found(post(client, body)) == [("SoftMax.outputs.count", "outputs")]
    del body["outputs"]  # dst may be f32 or bf16: open until declared
    assert post(client, body)["outputs"] == [{"dtype": None, "shape": [2, 8, 5]}]


@pytest.mark.parametrize(("src", "dst", "valid"), [("f32", "bf16", True), ("f16", "f32", True), ("bf16", "f32", True),
                                                   ("bf16", "f16", False), ("f16", "bf16", False)])  # fmt: skip
def test_softmax_dtypes(client, src, dst, valid) -> None:
    body = {
        "kind": "SoftMax",
        "inputs": [{"dtype": src, "shape": [2, 3]}],
        "outputs": [{"dtype": dst, "shape": [2, 3]}],
    }
    verdict = post(client, body)
    assert verdict["valid"] is valid
    if not valid:
        assert found(verdict) == [("SoftMax.outputs.dtype", "outputs[0].dtype")]


@pytest.mark.parametrize(
    ("grad", "out", "valid"), [("bf16", "f32", True), ("f16", "f16", True), ("f32", "bf16", False)]
)
def test_softmax_backward_dtypes(client, grad, out, valid) -> None:
    body = {
        "kind": "SoftMaxBackward",
        "inputs": [{"dtype": grad, "shape": [2, 3]}] * 2,
        "outputs": [{"dtype": out, "shape": [2, 3]}],
    }
    assert post(client, body)["valid"] is valid
    body["inputs"] = [{"dtype": "f32", "shape": [2, 3]}, {"dtype": "f16", "shape": [2, 3]}]
    assert found(post(client, body)) == [("SoftMaxBackward.dtypes", "inputs")]


def test_mode_values(client) -> None:
    body = {"kind": "SoftMax", "attrs": {"mode": "zero"}, "inputs": [{"dtype": "f32", "shape": [2, 3]}]}
    verdict = post(client, body)
    assert found(verdict) == [("SoftMax.attrs.value", "attrs.mode")]
    assert verdict["diagnostics"][0]["message"] == "mode is 'zero'; SoftMax supports 'none', 'inf_as_zero'"


def run(kind: str, attrs: dict, arrays: list[np.ndarray], dtype: str = "f32", outputs=None) -> list[dict]:
    spec = REGISTRY[kind]
    body = {
        "kind": kind,
        "attrs": attrs,
        "inputs": [{"dtype": dtype, "shape": list(a.shape), "data": wire(a)} for a in arrays],
    }
    if outputs is not None:
        body["outputs"] = outputs
    return evaluate(spec, spec.descriptor.model_validate(body), Settings()).outputs


def test_a_slice_of_only_minus_inf() -> None:
    src = np.array([[-np.inf, -np.inf], [0.0, -np.inf]], np.float32)
    declared = [{"dtype": "f32", "shape": [2, 2]}, {"dtype": "f32", "shape": [2, 1]}]
    zero = run("SoftMax", {"axis": 1, "mode": "inf_as_zero"}, [src], outputs=declared)
    assert same_values(zero[0]["data"], [[0.0, 0.0], [1.0, 0.0]]) and same_values(
        zero[1]["data"], [[0.0], [0.0]]
    )
    plain = run("SoftMax", {"axis": 1}, [src], outputs=declared)
    assert same_values(plain[0]["data"], [["nan", "nan"], [1.0, 0.0]])
    assert same_values(plain[1]["data"], [["nan"], [0.0]])


def test_softmax_of_f32_needs_a_declared_dst_to_evaluate(client) -> None:
    body = {"kind": "SoftMax", "inputs": [{"dtype": "f32", "shape": [1, 2], "data": [[1, 2]]}]}
    response = client.post("/v1/evaluate", json=body)
    assert response.status_code == 422
    assert "declare it" in response.text


# --- kernels against a plain loop of the formulas ------------------------------------------------------------


def slices(shape, axis):
    """Each slice along `axis` as a list of indices."""
    others = [range(n) if a != axis else [None] for a, n in enumerate(shape)]
    for fixed in itertools.product(*others):
        yield [tuple(i if a == axis else f for a, f in enumerate(fixed)) for i in range(shape[axis])]


def loop(kind: str, arrays: list[np.ndarray], axis: int) -> np.ndarray:
    """One slice at a time, in Python floats (f64), from the pages' formulas."""
    x = [a.astype(np.float64) for a in arrays]
    out = np.empty(x[0].shape)
    for at in slices(x[0].shape, axis):
        if kind in ("SoftMax", "LogSoftmax"):
            values = [x[0][i] for i in at]
            top = max(values)
            total = sum(math.exp(v - top) for v in values)
            for i, v in zip(at, values, strict=True):
                out[i] = math.exp(v - top) / total if kind == "SoftMax" else v - top - math.log(total)
        elif kind == "SoftMaxBackward":
            dot = sum(x[0][i] * x[1][i] for i in at)
            for i in at:
                out[i] = x[1][i] * (x[0][i] - dot)
        else:
            total = sum(x[0][i] for i in at)
            for i in at:
                out[i] = x[0][i] - math.exp(x[1][i]) * total
    return out


@st.composite
def problems(draw):
    kind = draw(st.sampled_from(KINDS))
    dtype = draw(st.sampled_from(sorted(NUMPY)))
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    count = math.prod(shape)
    finite = st.floats(min_value=-8, max_value=8, width=16)
    arrays = [
        np.array(draw(st.lists(finite, min_size=count, max_size=count)), np.float64)
        .astype(NUMPY[dtype])
        .reshape(shape)
        for _ in range(2 if kind.endswith("Backward") else 1)
    ]
    return kind, dtype, arrays, axis


def wire(values: np.ndarray) -> list:
    return encode(values.astype(np.float64), "f64", as_base64=False)


@settings(max_examples=200, deadline=None)
@given(problems())
def test_kernels_equal_a_plain_loop_within_an_ulp(case) -> None:
    """Both in f64 and rounded once: they differ at most where f64's last bits straddle a rounding."""
    kind, dtype, arrays, axis = case
    outputs = [{"dtype": dtype, "shape": list(arrays[0].shape)}]
    got = run(kind, {"axis": axis}, arrays, dtype, outputs)[0]
    ours = np.array(got["data"], dtype=np.float64).astype(NUMPY[dtype]).astype(np.float64)
    want = loop(kind, arrays, axis % arrays[0].ndim)
    with np.errstate(all="ignore"):
        rounded = want.astype(NUMPY[dtype]).astype(np.float64)
        ulp = np.abs(
            np.nextafter(rounded.astype(NUMPY[dtype]), NUMPY[dtype](np.inf)).astype(np.float64) - rounded
        )
    assert np.all(np.abs(ours - rounded) <= np.maximum(ulp, 1e-30)), (ours, rounded)


# --- against oneDNN's recorded answers ---------------------------------------------------------------------


@pytest.mark.parametrize("case", cases("softmax"), ids=lambda c: c["name"])
def test_against_onednn(case) -> None:
    check_case(case)


def test_onednn_departs_only_where_the_docs_say() -> None:
    """A slice holding NaN or +inf: the formula gives NaN throughout; oneDNN 3.13 gives NaN at that
    element, 0 elsewhere and +inf stats (docs/ops/softmax.md)."""
    departing = {
        c["name"]: c["onednn"]["departs_at"] for c in cases("softmax") if "departs_at" in c["onednn"]
    }
    nan_and_inf_rows = [13, 14, 15, 17, 18, 19]
    assert departing == {
        "SoftMax -inf slices, inf_as_zero, with stats": [nan_and_inf_rows, [3, 4]],
        "SoftMax -inf slices, none, with stats": [nan_and_inf_rows, [3, 4]],
        "LogSoftmax special values": [nan_and_inf_rows],
    }
