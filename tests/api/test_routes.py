"""The HTTP faces: status codes, problem bodies, limits, and exact values through JSON."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.core.config import Settings

PROBLEM = "application/problem+json"
GOOD = {
    "kind": "ReduceMax",
    "attrs": {"axes": [1], "keep_dims": True},
    "inputs": [{"dtype": "f32", "shape": [2, "N", 4]}],
}


def test_health(client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}


def test_list_ops(client) -> None:
    ops = {op["kind"]: op for op in client.get("/v1/ops").json()}
    assert ops["ReduceMax"]["source"] == "oneDNN Graph ReduceMax"
    assert set(ops["ReduceMax"]) == {"kind", "aliases", "source", "family", "summary"}


def test_op_detail(client) -> None:
    detail = client.get("/v1/ops/ReduceMax").json()
    assert detail["attributes"]["additionalProperties"] is False
    assert set(detail["attributes"]["properties"]) == {"axes", "keep_dims"}
    assert [p["name"] for p in detail["inputs"]] == ["src", "axes"]
    assert detail["dtypes"][0] == {"src": "f32", "axes": "s32", "dst": "f32"}
    rules = {r["id"]: r for r in detail["rules"]}
    assert rules["ReduceMax.axes.range"]["spec"].startswith("oneDNN Graph ReduceMax")
    assert rules["ReduceMax.onednn.two_inputs"]["severity"] == "warning"
    assert detail["examples"] and detail["notes"]


def test_unknown_op_detail_is_a_404_problem(client) -> None:
    response = client.get("/v1/ops/ReduceMedian")  # not a oneDNN Graph op (ReduceMin is one now)
    assert response.status_code == 404
    assert response.headers["content-type"] == PROBLEM
    assert "ReduceMax" in response.json()["detail"]


def test_validate_answers_200_with_outputs(client) -> None:
    response = client.post("/v1/validate", json=GOOD)
    assert response.status_code == 200
    assert response.json() == {
        "valid": True,
        "kind": "ReduceMax",
        "outputs": [{"dtype": "f32", "shape": [2, 1, 4]}],
        "diagnostics": [],
    }


def test_batch_keeps_order(client) -> None:
    bad = {**GOOD, "attrs": {"axes": [7]}}
    response = client.post("/v1/validate/batch", json={"ops": [GOOD, bad, GOOD]})
    assert [r["valid"] for r in response.json()["results"]] == [True, False, True]


def test_batch_over_the_limit_is_413() -> None:
    with TestClient(create_app(Settings(max_batch=2))) as small:
        response = small.post("/v1/validate/batch", json={"ops": [GOOD] * 3})
    assert response.status_code == 413
    assert response.json()["errors"][0]["limit"] == "max_batch"


@pytest.mark.parametrize(
    ("body", "path", "words"),
    [
        (b'{"kind": "ReduceMax",', "body", "not valid JSON"),
        (b"[1, 2]", "body", ""),
        (b'{"kind": "ReduceMedian", "inputs": []}', "kind", "unknown kind 'ReduceMedian'"),
        (b'{"inputs": []}', "kind", "kind is missing"),
        (b'{"op": "Max", "cases": []}', "kind", "the object has the keys ['op', 'cases']"),
        (b"{}", "kind", "the object is empty"),
        (b'{"kind": "ReduceMax", "attrs": {"axes": "1"}, "inputs": []}', "attrs.axes", ""),
        (b'{"kind": "ReduceMax", "attrs": {"keep_dims": "yes"}, "inputs": []}', "attrs.keep_dims", ""),
        (b'{"kind": "ReduceMax", "inputs": [{"dtype": "f32"}]}', "inputs[0].shape", "required"),
        (
            b'{"kind": "ReduceMax", "inputs": [{"dtype": "f32", "shape": [-2]}]}',
            "inputs[0].shape",
            "negative",
        ),
        (
            b'{"kind": "ReduceMax", "inputs": [{"dtype": "f32", "shape": [2], "colour": 1}]}',
            "inputs[0].colour",
            "unknown field",
        ),
        (
            b'{"kind": "ReduceMax", "inputs": [{"dtype": "x9", "shape": [2]}]}',
            "inputs[0].dtype",
            "unknown dtype 'x9'",
        ),
    ],
)
def test_malformed_requests_are_422_problems(client, body, path, words) -> None:
    response = client.post("/v1/validate", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == PROBLEM
    problem = response.json()
    assert problem["status"] == 422 and problem["title"] and problem["detail"]
    assert path in [e["path"] for e in problem["errors"]], problem
    assert any(words in e["message"] for e in problem["errors"]), problem


def test_unknown_attribute_names_its_rule(client) -> None:
    response = client.post("/v1/validate", json={**GOOD, "attrs": {"keepdims": True}})
    error = response.json()["errors"][0]
    assert error == {
        "path": "attrs.keepdims",
        "type": "extra_forbidden",
        "rule": "ReduceMax.attrs.unknown",
        "message": "unknown attribute 'keepdims' for ReduceMax; did you mean 'keep_dims'? "
        "its attributes are: axes, keep_dims",
        "suggestions": ["keep_dims"],
    }


def test_batch_paths_point_into_the_list(client) -> None:
    response = client.post("/v1/validate/batch", json={"ops": [GOOD, {**GOOD, "attrs": {"axis": 1}}]})
    assert response.json()["errors"][0]["path"] == "ops[1].attrs.axis"


def test_body_over_the_limit_is_413_by_length_and_by_stream() -> None:
    with TestClient(create_app(Settings(max_body_bytes=1000))) as small:
        response = small.post(
            "/v1/validate", content=b" " * 2000, headers={"content-type": "application/json"}
        )
        assert response.status_code == 413
        assert response.headers["content-type"] == PROBLEM
        detail = "the body is 2,000 bytes or more, above the limit of 1,000 (max_body_bytes)"
        assert response.json()["detail"] == detail
        assert response.json()["errors"] == [{"path": "body", "message": detail, "limit": "max_body_bytes"}]

        def chunks():
            for _ in range(20):
                yield b" " * 100

        streamed = small.post("/v1/validate", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413
        assert streamed.json()["detail"] == detail  # TestClient hands the app the chunks as one message


def test_deep_nesting_is_not_a_500(client) -> None:
    body = (
        b'{"kind": "ReduceMax", "inputs": [{"dtype": "f32", "shape": [1], "data": '
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}]}"
    )
    response = client.post("/v1/validate", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.headers["content-type"] == PROBLEM


def test_evaluate_round_trips_nan_signed_zero_and_infinities(client) -> None:
    body = {
        "kind": "ReduceMax",
        "attrs": {"axes": [0]},
        "inputs": [
            {"dtype": "f32", "shape": [2, 4], "data": [["nan", -0.0, "-inf", 1e-45], [1, -0.0, "-inf", 0]]}
        ],
    }
    response = client.post("/v1/evaluate", json=body)
    assert response.status_code == 200, response.text
    text = response.text
    assert json.loads(text)["outputs"] == [
        {"dtype": "f32", "shape": [4], "data": ["nan", -0.0, "-inf", float(np.float32(1e-45))]}
    ]
    assert "-0.0" in text


def test_evaluate_keeps_base64(client) -> None:
    import base64

    import numpy as np

    values = np.array([[1.5, -2.0], [3.25, -0.0]], dtype=np.float32)
    body = {
        "kind": "ReduceMax",
        "attrs": {"axes": [1]},
        "inputs": [
            {
                "dtype": "f32",
                "shape": [2, 2],
                "data": {"encoding": "base64", "bytes": base64.b64encode(values.tobytes()).decode()},
            }
        ],
    }
    out = client.post("/v1/evaluate", json=body).json()["outputs"][0]
    assert out["data"]["encoding"] == "base64"
    assert np.frombuffer(base64.b64decode(out["data"]["bytes"]), "<f4").tolist() == [1.5, 3.25]


def test_evaluate_invalid_is_422_with_diagnostics(client) -> None:
    body = {**GOOD, "attrs": {"axes": [9]}, "inputs": [{"dtype": "f32", "shape": [2], "data": [1, 2]}]}
    response = client.post("/v1/evaluate", json=body)
    assert response.status_code == 422
    problem = response.json()
    assert problem["diagnostics"][0]["rule"] == "ReduceMax.axes.range"
    assert problem["errors"][0]["path"] == "attrs.axes[0]"


def test_evaluate_invalid_detail_counts_the_errors_it_leaves_out(client) -> None:
    # As a malformed body's detail does: three errors named, the rest counted, all in `errors`.
    rank2 = {"dtype": "f32", "shape": [2, 3], "data": [[1, 2, 3], [4, 5, 6]]}
    descriptor = {"kind": "ReduceMax", "attrs": {"axes": [5, 6, 7, 8]}, "inputs": [rank2]}
    response = client.post("/v1/evaluate", json=descriptor)
    assert response.status_code == 422
    named = "; ".join(
        f"attrs.axes[{i}]: axis {5 + i} is out of range [-2, 1] for src of rank 2" for i in range(3)
    )
    assert response.json()["detail"] == f"the ReduceMax descriptor is not valid: {named} (and 1 more)"
    assert len(response.json()["errors"]) == 4


def test_evaluate_needs_data(client) -> None:
    response = client.post("/v1/evaluate", json=GOOD)
    assert response.status_code == 422
    assert response.json()["errors"][0]["path"] == "inputs[0].data"


def test_evaluate_checks_sizes_before_allocating() -> None:
    with TestClient(create_app(Settings(max_elements=100))) as small:
        body = {
            "kind": "ReduceMax",
            "attrs": {"axes": [0]},
            "inputs": [{"dtype": "f32", "shape": [1000, 1000], "data": {"encoding": "base64", "bytes": ""}}],
        }
        response = small.post("/v1/evaluate", json=body)
    assert response.status_code == 413
    assert response.json()["errors"][0]["limit"] == "max_elements"


def test_total_bytes_limit() -> None:
    with TestClient(create_app(Settings(max_total_bytes=64))) as small:
        body = {
            "kind": "ReduceMax",
            "attrs": {"axes": []},
            "inputs": [{"dtype": "f32", "shape": [20], "data": [0] * 20}],
        }
        response = small.post("/v1/evaluate", json=body)
    assert response.status_code == 413
    assert "max_total_bytes" in response.json()["detail"]


def test_openapi_shows_the_descriptor_union(client) -> None:
    schema = client.get("/openapi.json").json()
    body = schema["paths"]["/v1/validate"]["post"]["requestBody"]["content"]["application/json"]
    assert body["examples"]
    assert "ReduceMaxAttrs" in schema["components"]["schemas"]


def test_openapi_refs_all_resolve(client) -> None:
    schema = client.get("/openapi.json").json()
    text = json.dumps(schema)
    import re

    refs = set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', text))
    assert refs <= set(schema["components"]["schemas"]), refs - set(schema["components"]["schemas"])
    evaluate = schema["paths"]["/v1/evaluate"]["post"]["requestBody"]["content"]["application/json"]
    assert evaluate["schema"]["discriminator"]["propertyName"] == "kind"


def _listed_examples() -> list:
    from app.ops import REGISTRY

    return [
        pytest.param(example, id=f"{kind} example {index}")
        for kind, spec in REGISTRY.items()
        for index, example in enumerate(spec.examples)
    ]


@pytest.mark.parametrize("example", _listed_examples())
def test_every_listed_example_is_valid_and_evaluates_when_it_has_data(client, example) -> None:
    """GET /v1/ops/{kind} and the OpenAPI page show these as worked examples: each must hold."""
    verdict = client.post("/v1/validate", json=example).json()
    assert verdict["valid"] is True, verdict["diagnostics"]
    if all("data" in tensor for tensor in example["inputs"]):
        evaluated = client.post("/v1/evaluate", json=example)
        assert evaluated.status_code == 200, evaluated.text
        assert [o["shape"] for o in evaluated.json()["outputs"]] == [o["shape"] for o in verdict["outputs"]]


def test_strides_of_the_wrong_length_are_a_rule_not_a_malformed_body(client) -> None:
    """The schema says strides is a list of integers; a length that does not match the rank is answered
    with a verdict citing <kind>.strides.rank, for an input and a declared output alike."""
    body = {
        "kind": "ReduceMax",
        "attrs": {"axes": [0]},
        "inputs": [{"dtype": "f32", "shape": [2], "strides": [1, 1], "data": [1, 2]}],
        "outputs": [{"dtype": "f32", "shape": [], "strides": [1]}],
    }
    verdict = client.post("/v1/validate", json=body).json()
    assert not verdict["valid"]
    assert [(d["rule"], d["path"]) for d in verdict["diagnostics"] if d["severity"] == "error"] == [
        ("ReduceMax.strides.rank", "outputs[0].strides"),
        ("ReduceMax.strides.rank", "inputs[0].strides"),
    ]


def test_batch_past_the_old_limit_of_1024(client) -> None:
    response = client.post("/v1/validate/batch", json={"ops": [GOOD] * 3000})
    assert response.status_code == 200
    assert len(response.json()["results"]) == 3000
    assert Settings().max_batch >= 100_000


def _base64(array: np.ndarray) -> dict:
    return {"encoding": "base64", "bytes": base64.b64encode(array.tobytes()).decode()}


@pytest.mark.parametrize(
    "body",
    [
        {  # lists with spelled non-finite values and -0.0, and a warning among the diagnostics
            "kind": "ReduceMax",
            "attrs": {"axes": []},
            "inputs": [{"dtype": "f32", "shape": [2, 2], "data": [["nan", -0.0], ["-inf", 1e-45]]}],
        },
        {"kind": "Max", "inputs": [{"dtype": "u64", "shape": [], "data": 18446744073709551615}]},
        {"kind": "Max", "inputs": [{"dtype": "i64", "shape": [2], "data": [-(2**63), 2**63 - 1]}] * 2},
        {
            "kind": "Max",
            "inputs": [{"dtype": "bf16", "shape": [1], "data": {"encoding": "base64", "bytes": "gD8="}}],
        },
        {  # base64 written as it is: every byte value, so every letter of the alphabet and both pads
            "kind": "Max",
            "inputs": [
                {"dtype": "u8", "shape": [256], "data": _base64(np.arange(256, dtype=np.uint8))},
                {"dtype": "u8", "shape": [256], "data": _base64(np.arange(256, dtype=np.uint8)[::-1])},
            ],
        },
        {"kind": "Max", "inputs": [{"dtype": "f64", "shape": [0, 3], "data": _base64(np.zeros((0, 3)))}]},
        {  # base64 beside a warning
            "kind": "ReduceMax",
            "attrs": {"axes": []},
            "inputs": [{"dtype": "f32", "shape": [2], "data": _base64(np.array([-0.0, np.nan], np.float32))}],
        },
    ],
)
def test_evaluate_answer_is_what_its_model_writes(body) -> None:
    """The route writes its answer without validating it into EvaluateResponse first: same bytes."""
    from app.api.models import EvaluateResponse
    from app.api.routes.check import evaluate_answer, parse_descriptor
    from app.core import engine
    from app.ops import BY_NAME

    settings = Settings()
    descriptor = parse_descriptor(json.dumps(body).encode(), settings)
    result = engine.evaluate(BY_NAME[descriptor.kind], descriptor, settings)
    model = EvaluateResponse(kind=result.kind, outputs=result.outputs, diagnostics=result.diagnostics)
    assert evaluate_answer(result) == model.model_dump_json().encode()
    if body["kind"] == "ReduceMax":
        assert result.diagnostics, "the case is meant to carry a diagnostic"
