"""POST /v1/graphs/validate: a native graph file in, every known node checked along the graph out.

The body is the file itself (oneDNN Graph JSON, OpenVINO IR XML, ONNX protobuf), or for an IR with
its weights multipart/form-data with the parts `model` and `weights`. This route takes XML, protobuf
and multipart bodies, so it is exempt from the JSON-only content-type rule of the other POST routes.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from fastapi import APIRouter, Query, Request, Response
from starlette.exceptions import HTTPException

from app.api.deps import SettingsDep
from app.api.models import Problem
from app.api.offload import off_loop
from app.api.problems import problem
from app.formats import answer, graphs, readers
from app.formats.answer import GraphFormat, GraphVerdict
from app.formats.errors import Malformed

router = APIRouter(prefix="/graphs", tags=["graphs"])


ONEDNN_EXAMPLE = {
    "version": "3.0.0",
    "engine_kind": "cpu",
    "fpmath_mode": "strict",
    "graph": [
        {
            "id": 0,
            "name": "REDUCTION_0",
            "kind": "ReduceMax",
            "attrs": {"axes": {"type": "s64[]", "value": [1]}, "keep_dims": {"type": "bool", "value": 1}},
            "inputs": [
                {
                    "id": 0,
                    "dtype": "f32",
                    "shape": [1, 128, 150, 150],
                    "stride": [2880000, 22500, 150, 1],
                    "layout_type": "strided",
                    "property_type": "undef",
                }
            ],
            "outputs": [
                {
                    "id": 1,
                    "dtype": "f32",
                    "shape": [1, 1, 150, 150],
                    "stride": [22500, 22500, 150, 1],
                    "layout_type": "strided",
                    "property_type": "undef",
                }
            ],
        }
    ],
}
IR_EXAMPLE = """<?xml version="1.0"?>
<net name="g" version="11">
	<layers>
		<layer id="0" name="x" type="Parameter" version="opset1">
			<data shape="?,4" element_type="f32" />
			<output><port id="0" precision="FP32" names="x"><dim>-1</dim><dim>4</dim></port></output>
		</layer>
		<layer id="1" name="r" type="ReduceMax" version="opset1">
			<data keep_dims="false" />
			<input><port id="0" precision="FP32"><dim>-1</dim><dim>4</dim></port>
			<port id="1" precision="I64"><dim>1</dim></port></input>
			<output><port id="2" precision="FP32"><dim>-1</dim></port></output>
		</layer>
	</layers>
	<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0" /></edges>
</net>
"""

# What each media type of the reader table holds, with an example: the route's own words. A type no
# entry here describes (a format added to the table) is documented by its row's title.
MEDIA = {
    "application/json": {
        "schema": {
            "type": "object",
            "description": "oneDNN Graph JSON (benchdnn --graph, ONEDNN_GRAPH_DUMP)",
        },
        "examples": {"onednn": {"summary": "benchdnn's reducemax.json", "value": ONEDNN_EXAMPLE}},
    },
    "application/xml": {
        "schema": {"type": "string", "description": "OpenVINO IR v10/v11 XML, without weights"},
        "examples": {
            "openvino": {
                "summary": "IR with a ReduceMax-1 (axes input without weights)",
                "value": IR_EXAMPLE,
            }
        },
    },
    "text/xml": {"schema": {"type": "string", "description": "OpenVINO IR XML, as application/xml"}},
    "application/octet-stream": {
        "schema": {"type": "string", "format": "binary", "description": "An ONNX model (.onnx)"},
        "examples": {
            "onnx": {
                "summary": "An ONNX model: send the .onnx file's bytes",
                "value": "(binary: curl --data-binary @model.onnx)",
            }
        },
    },
}
# The format a multipart body (the model and its weights) is read as: the one that takes weights.
WEIGHTED = next((reader for reader in readers.graph_readers() if reader.weights), None)
MULTIPART = {
    "schema": {
        "type": "object",
        "required": ["model"],
        "properties": {
            "model": {"type": "string", "format": "binary", "description": "The IR XML (net.xml)"},
            "weights": {"type": "string", "format": "binary", "description": "Its weights (net.bin)"},
        },
    },
    "examples": {
        "openvino-with-weights": {
            "summary": "curl -F model=@net.xml -F weights=@net.bin",
            "value": {"model": "(net.xml)", "weights": "(net.bin)"},
        }
    },
}


def _content() -> dict[str, Any]:
    """The body's media types, from the reader table (the media gate reads them from here)."""
    content: dict[str, Any] = {}
    for reader in readers.graph_readers():
        for media_type in reader.media_types:
            content[media_type] = MEDIA.get(media_type) or {
                "schema": {"type": "string", "format": "binary", "description": reader.title}
            }
    if WEIGHTED is not None:
        content["multipart/form-data"] = MULTIPART
    return content


BODY = {
    "requestBody": {
        "required": True,
        "description": "The graph file itself. The format is `?format=`, else detected from the content.",
        "content": _content(),
    }
}


async def _file(request: Request) -> tuple[bytes, bytes | None, str | None]:
    """The model's bytes, the weights' if sent, and the format the content type implies."""
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        try:
            form = await request.form(max_files=2, max_fields=0)
        except HTTPException as exc:  # Starlette's answer to a broken multipart body
            raise Malformed(f"the multipart body does not parse: {exc.detail}", "body") from None
        try:
            model, weights = form.get("model"), form.get("weights")
            if model is None or isinstance(model, str):
                raise Malformed(
                    "a multipart body needs a file part `model` (the IR XML); `weights` is optional", "model"
                )
            data = await model.read()
            blob = await weights.read() if weights is not None and not isinstance(weights, str) else None
            return data, blob, WEIGHTED.format if WEIGHTED is not None else None
        finally:
            await form.close()  # the parts are spooled to temporary files
    return await request.body(), None, None


def unreadable(request: Request, exc: Malformed) -> Response:
    """422: the file is not a readable graph; where it broke, with line and column for JSON and XML."""
    entry: dict[str, Any] = {"path": exc.path, "message": exc.message}
    if exc.line is not None:
        entry |= {"line": exc.line, "column": exc.column}
    return problem(request, "malformed", str(exc), [entry])


@router.post(
    "/validate",
    response_model=GraphVerdict,
    responses={
        413: {
            "model": Problem,
            "description": "The file is over a size, node-count or nesting limit; it is named.",
        },
        422: {
            "model": Problem,
            "description": "Not a readable graph: where it broke (line and column for JSON, XML).",
        },
    },
    summary="Check every known node of a oneDNN Graph JSON, OpenVINO IR or ONNX file along the graph",
    openapi_extra=BODY,
)
async def validate_graph(
    request: Request,
    settings: SettingsDep,
    format: GraphFormat | None = Query(
        None, description="The file's format; detected from the content when absent."
    ),
    layout: bool = Query(False, description="Add a layered drawing of the graph (`layout`), for the page."),
    descriptors: bool = Query(False, description="Add each checked node's opspec descriptor."),
) -> Response:
    """200 for every readable graph, valid or not: each node with its checked kind, what flows in and
    out, and its diagnostics with paths in the file's own terms."""
    try:
        data, weights, implied = await _file(request)
        result = await off_loop(request, graphs.check, data, settings, format or implied, weights)
    except Malformed as exc:
        return unreadable(request, exc)
    body = await off_loop(
        request, partial(answer.to_json, with_layout=layout, descriptors=descriptors), result
    )
    return Response(body, media_type="application/json")
