"""POST /v1/verify over HTTP: the answer's shape, refusals as problems, and the classes GET /v1/ops lists."""

from __future__ import annotations

import base64

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.main import create_app
from app.core.config import Settings
from tests.verify.cases import with_answer

MAX = {
    "kind": "Max",
    "inputs": [
        {"dtype": "f32", "shape": [2, 2], "data": [[1, "nan"], [-0.0, 4]]},
        {"dtype": "f32", "shape": [2], "data": [0.0, 2]},
    ],
}


def test_answer(client) -> None:
    response = client.post("/v1/verify", json=with_answer(MAX, "f32", [2, 2], [[1, 2], [-0.0, 4]]))
    assert response.status_code == 200, response.text
    assert response.json() == {
        "kind": "Max",
        "conformant": False,
        "outputs": [
            {
                "index": 0,
                "conformant": False,
                "dtype": "f32",
                "shape": [2, 2],
                "elements": 4,
                "mismatches": 2,
                "classes": {"nan_dropped": 1, "signed_zero": 1},
                "first": [
                    {"at": [0, 1], "expected": "nan", "got": 2.0, "class": "nan_dropped", "detail": None},
                    {"at": [1, 0], "expected": 0.0, "got": -0.0, "class": "signed_zero", "detail": None},
                ],
                "like": [],
            }
        ],
        "diagnostics": [],
    }


def test_base64_answers_and_first_twenty_in_row_major_order(client) -> None:
    x = np.arange(60, dtype=np.float32).reshape(3, 20)
    given = x.copy()
    given[:, ::2] += 0.5  # 30 wrong values, 10 per row
    encode = lambda a: {"encoding": "base64", "bytes": base64.b64encode(a.astype("<f4").tobytes()).decode()}  # noqa: E731
    document = {
        "kind": "ReduceMax",
        "inputs": [{"dtype": "f32", "shape": [3, 20], "data": encode(x)}],
        "outputs": [{"dtype": "f32", "shape": [3, 20], "data": encode(given)}],
    }
    output = client.post("/v1/verify", json=document).json()["outputs"][0]
    assert output["mismatches"] == 30 and output["classes"] == {"value": 30}
    assert [m["at"] for m in output["first"]] == [[r, c] for r in range(2) for c in range(0, 20, 2)]


@pytest.mark.parametrize(
    ("dtype", "shape", "data", "rule", "path"),
    [
        ("f16", [2, 2], [[0, 0], [0, 0]], "Max.outputs.dtype", "outputs[0].dtype"),
        ("f32", [4], [0, 0, 0, 0], "Max.outputs.rank", "outputs[0].shape"),
        ("f32", [2, 3], [[0, 0, 0], [0, 0, 0]], "Max.outputs.dim", "outputs[0].shape[1]"),
    ],
)
def test_wrong_dtype_rank_or_dim_is_a_diagnostic_and_nothing_is_compared(
    client, dtype, shape, data, rule, path
) -> None:
    response = client.post("/v1/verify", json=with_answer(MAX, dtype, shape, data))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["conformant"] is False and body["outputs"] == []
    assert [(d["severity"], d["rule"], d["path"]) for d in body["diagnostics"]] == [("error", rule, path)]


def test_invalid_descriptor_is_a_422_with_its_diagnostics(client) -> None:
    document = with_answer(
        {**MAX, "inputs": [MAX["inputs"][0], {"dtype": "f32", "shape": [3], "data": [1, 2, 3]}]},
        "f32",
        [2, 2],
        [[0, 0], [0, 0]],
    )
    response = client.post("/v1/verify", json=document)
    assert response.status_code == 422
    assert [d["rule"] for d in response.json()["diagnostics"]] == ["Max.RJ"]


@pytest.mark.parametrize(
    ("document", "path"),
    [
        (MAX, "outputs"),
        ({**MAX, "outputs": [{"dtype": "f32", "shape": [2, 2]}]}, "outputs[0].data"),
        (
            with_answer(
                {**MAX, "inputs": [MAX["inputs"][0], {"dtype": "f32", "shape": [2]}]},
                "f32",
                [2, 2],
                [[0, 0], [0, 0]],
            ),
            "inputs[1].data",
        ),
        (with_answer(MAX, "f32", [2, 2], [[0, 0], [0]]), "outputs[0].data"),
        (with_answer(MAX, "f32", [2, 2], [[0, 0], [0, "x"]]), "outputs[0].data[1][1]"),
        (
            {**MAX, "outputs": [{"dtype": "f32", "shape": None, "strides": [2, 1, 1], "data": [0, 0, 0, 0]}]},
            "outputs[0].strides",
        ),
    ],
)
def test_unreadable_answers_are_422_naming_the_place(client, document, path) -> None:
    response = client.post("/v1/verify", json=document)
    assert response.status_code == 422, response.text
    assert [e["path"] for e in response.json()["errors"]] == [path]


def test_limits_are_checked_before_the_answer_is_decoded() -> None:
    from fastapi.testclient import TestClient

    settings = Settings(max_total_bytes=64)
    with TestClient(create_app(settings)) as small:
        response = small.post("/v1/verify", json=with_answer(MAX, "f32", [2, 2], [[0, 0], [0, 0]]))
    assert response.status_code == 413
    [error] = response.json()["errors"]
    assert error["limit"] == "max_total_bytes"
    assert "3 answers per output" in error["message"]


def test_ops_list_mismatch_classes_and_implementations(client) -> None:
    detail = client.get("/v1/ops/SegmentMax").json()
    assert [c["id"] for c in detail["mismatch_classes"]] == [
        "nan_dropped", "nan_invented", "signed_zero", "empty_fill", "segment_boundary", "value"
    ]  # fmt: skip
    assert all(c["description"].endswith(".") for c in detail["mismatch_classes"])
    assert [i["name"] for i in detail["implementations"]] == ["OpenVINO 2026.4 CPU"]
    argmax = client.get("/v1/ops/Argmax").json()
    assert [c["id"] for c in argmax["mismatch_classes"]] == [
        "tie_order",
        "padding_read",
        "not_top_k",
        "value",
    ]
    assert len(argmax["implementations"]) == 3


JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["nan", "-inf", "x"]),
    lambda inner: st.lists(inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    kind=st.sampled_from(["Max", "SegmentMax", "Argmax", "ReduceMax"]),
    dtype=st.sampled_from(["f32", "bf16", "s64", "u8", "sa32", "boolean"]),
    shape=st.none() | st.lists(st.integers(0, 3) | st.just("N"), max_size=3),
    strides=st.none() | st.lists(st.integers(-1, 4), max_size=3),
    data=JSONISH
    | st.fixed_dictionaries(
        {"encoding": st.just("base64"), "bytes": st.sampled_from(["", "AAAA", "AA=", "!"])}
    ),
    count=st.integers(0, 2),
)
def test_hostile_answers_never_500(client, kind, dtype, shape, strides, data, count) -> None:
    descriptor = {
        "Max": MAX,
        "SegmentMax": {
            "kind": "SegmentMax",
            "attrs": {"fill_mode": "ZERO"},
            "inputs": [
                {"dtype": "f32", "shape": [3, 1], "data": [[1], ["nan"], [2]]},
                {"dtype": "s32", "shape": [3], "data": [0, 0, 2]},
            ],
        },
        "Argmax": {
            "kind": "Argmax",
            "attrs": {"axis": 0, "top_k": 1},
            "inputs": [{"dtype": "sa8", "shape": [2, 2], "strides": [3, 1], "data": [1, 2, 9, 3, 4]}],
        },
        "ReduceMax": {
            "kind": "ReduceMax",
            "attrs": {"axes": [0]},
            "inputs": [{"dtype": "f32", "shape": [2], "data": [1, -0.0]}],
        },
    }[kind]
    output = {"dtype": dtype, "shape": shape, "data": data}
    if strides is not None:
        output["strides"] = strides
    response = client.post("/v1/verify", json={**descriptor, "outputs": [output] * count})
    assert response.status_code in (200, 413, 422), response.text
