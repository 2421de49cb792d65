"""POST /v1/graphs/validate: each format as a user sends it, the answer's shape, 422 and 413."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.core.config import Settings
from tests.formats import models

JSON = {"content-type": "application/json"}
BYTES = {"content-type": "application/octet-stream"}
FILES = Path(__file__).parent.parent / "formats" / "files"
REDUCEMAX = (FILES / "reducemax.json").read_bytes()
IR = b"""<?xml version="1.0"?>
<net name="g" version="11">
	<layers>
		<layer id="0" name="x" type="Parameter" version="opset1">
			<data shape="?,4" element_type="f32" />
			<output><port id="0" precision="FP32" names="x"><dim>-1</dim><dim>4</dim></port></output>
		</layer>
		<layer id="1" name="axes" type="Const" version="opset1">
			<data element_type="i64" shape="1" offset="0" size="8" />
			<output><port id="0" precision="I64"><dim>1</dim></port></output>
		</layer>
		<layer id="2" name="r" type="ReduceMax" version="opset1">
			<data keep_dims="false" />
			<input><port id="0" precision="FP32"><dim>-1</dim><dim>4</dim></port>
			<port id="1" precision="I64"><dim>1</dim></port></input>
			<output><port id="2" precision="FP32"><dim>-1</dim></port></output>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />
		<edge from-layer="1" from-port="0" to-layer="2" to-port="1" />
	</edges>
</net>
"""


def onnx_model() -> bytes:
    return onnx.shape_inference.infer_shapes(models.reduce_then_max()).SerializeToString()


def test_onednn_json(client) -> None:
    response = client.post(
        "/v1/graphs/validate", content=REDUCEMAX, headers={"content-type": "application/json"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["format"] == "onednn" and body["valid"] and body["not_checked"] == {}
    assert body["nodes"] == [
        {
            "id": "0", "name": "REDUCTION_0", "kind": "ReduceMax", "checked_as": "ReduceMax",
            "checked_by": "opspec", "typed_by": "opspec", "structural": False, "valid": True,
            "inputs": [{"dtype": "f32", "shape": [1, 128, 150, 150]}],
            "outputs": [{"dtype": "f32", "shape": [1, 1, 150, 150]}],
            "diagnostics": [], "path": "graph[0]", "line": 6, "column": 5,
        }
    ]  # fmt: skip
    assert body["coverage"] == {
        "nodes": 1, "checked": 1, "by_engine": {}, "not_checked": 0, "not_checked_kinds": {}
    }  # fmt: skip
    assert body["values"] == [
        {"name": "0", "producer": None, "consumers": ["0"], "dtype": "f32", "shape": [1, 128, 150, 150],
         "typed_by": "declared", "diagnostics": []},
        {"name": "1", "producer": "0", "consumers": [], "dtype": "f32", "shape": [1, 1, 150, 150],
         "typed_by": "opspec", "diagnostics": []},
    ]  # fmt: skip


def test_ir_with_weights_as_multipart(client) -> None:
    weights = np.array([1], dtype="<i8").tobytes()
    response = client.post(
        "/v1/graphs/validate", files={"model": ("net.xml", IR), "weights": ("net.bin", weights)}
    )
    body = response.json()
    assert response.status_code == 200 and body["format"] == "openvino" and body["valid"]
    reduce = body["nodes"][2]
    assert reduce["checked_as"] == "ReduceMax" and reduce["outputs"] == [
        {"dtype": "f32", "shape": ["dyn__0"]}
    ]
    bad = np.array([3], dtype="<i8").tobytes()
    body = client.post(
        "/v1/graphs/validate", files={"model": ("net.xml", IR), "weights": ("net.bin", bad)}
    ).json()
    (error,) = [d for d in body["nodes"][2]["diagnostics"] if d["severity"] == "error"]
    assert (error["rule"], error["path"]) == ("ReduceMax.axes.range", "layer[2].input.port[1].data[0]")
    assert not body["valid"]


def test_ir_alone_and_format_detected(client) -> None:
    body = client.post("/v1/graphs/validate", content=IR, headers={"content-type": "application/xml"}).json()
    assert body["format"] == "openvino" and body["nodes"][2]["outputs"] == [{"dtype": "f32", "shape": [-1]}]


def test_onnx_model(client) -> None:
    response = client.post(
        "/v1/graphs/validate?format=onnx",
        content=onnx_model(),
        headers={"content-type": "application/octet-stream"},
    )
    body = response.json()
    assert response.status_code == 200 and body["format"] == "onnx" and body["valid"]
    assert [(n["name"], n["checked_as"], n["outputs"]) for n in body["nodes"]] == [
        ("reduce", "ReduceMax", [{"dtype": "f32", "shape": ["N"]}]),
        ("max", "Max", [{"dtype": "f32", "shape": ["N"]}]),
    ]
    assert body["nodes"][0]["diagnostics"][0]["severity"] == "info"


def test_malformed_is_422_with_line_and_column(client) -> None:
    response = client.post("/v1/graphs/validate", content=b'{"graph": [\n  {"id": 0,,}]}', headers=JSON)
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["errors"] == [
        {"path": "file", "message": "not JSON: Expecting property name enclosed in double quotes", "line": 2,
         "column": 12}
    ]  # fmt: skip
    response = client.post("/v1/graphs/validate", content=b"hello", headers=BYTES)
    assert response.status_code == 422 and "not a graph file" in response.json()["detail"]
    response = client.post("/v1/graphs/validate", files={"weights": ("net.bin", b"")})
    assert response.status_code == 422 and response.json()["errors"][0]["path"] == "model"


def test_limits_are_413_naming_the_limit() -> None:
    with TestClient(create_app(Settings(max_graph_nodes=1)), raise_server_exceptions=False) as client:
        response = client.post("/v1/graphs/validate", content=onnx_model(), headers=BYTES)
    assert response.status_code == 413
    assert response.json()["errors"][0]["limit"] == "max_graph_nodes"


def test_the_graph_route_has_its_own_body_limit() -> None:
    """A graph file may be larger than a descriptor: max_graph_bytes bounds the graph route's body, and
    max_body_bytes every other."""
    model = onnx_model()
    settings = Settings(max_body_bytes=len(model) // 2, max_graph_bytes=len(model) * 2)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        assert client.post("/v1/graphs/validate", content=model, headers=BYTES).status_code == 200
        assert client.post("/v1/validate", content=model, headers=JSON).json()["errors"][0]["limit"] == (
            "max_body_bytes"
        )
    settings = Settings(max_graph_bytes=len(model) - 1)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        response = client.post("/v1/graphs/validate", content=model, headers=BYTES)
    assert response.status_code == 413 and response.json()["errors"][0]["limit"] == "max_graph_bytes"


def test_openapi_has_an_example_of_each_format(client) -> None:
    body = client.get("/openapi.json").json()["paths"]["/v1/graphs/validate"]["post"]["requestBody"][
        "content"
    ]
    assert {name for media in body.values() for name in media.get("examples", {})} == {
        "onednn", "openvino", "onnx", "openvino-with-weights",
    }  # fmt: skip
