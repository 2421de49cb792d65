"""The service's two answers in-process, for tools that would rather import than run a server.

    from app import validate, evaluate

Each takes a descriptor as a dict in the wire format, where any `data` may also be a NumPy array of
the tensor's dtype (bf16 from ml_dtypes; MLI's sa8 / fx16 / sa32 as their raw int8 / int16 / int32).
Nothing is encoded or decoded on the way: arrays go to the kernels as they are and come back as arrays.
The limits of app.core.config apply as they do over HTTP.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from app.core import engine
from app.core.config import Settings, get_settings
from app.ops import BY_NAME, DESCRIPTOR
from app.parsing import describe_errors

__all__ = ["Malformed", "check_graph", "evaluate", "validate", "verify"]


class Malformed(ValueError):
    """Not a descriptor (types, unknown kind or attribute); `errors` as a 422 lists them: path, message."""

    def __init__(self, errors: list[dict[str, Any]]):
        super().__init__("; ".join(f"{e['path']}: {e['message']}" for e in errors))
        self.errors = errors


def _parse(descriptor: dict[str, Any]):
    try:
        return DESCRIPTOR.validate_python(descriptor)
    except ValidationError as exc:
        raise Malformed(describe_errors(exc.errors())) from None


def validate(descriptor: dict[str, Any], settings: Settings | None = None) -> dict[str, Any]:
    """The answer of POST /v1/validate, as a dict: valid, kind, outputs (dtype, shape), diagnostics.

    Raises Malformed for what is not a descriptor; a descriptor that breaks a rule is an answer."""
    parsed = _parse(descriptor)
    verdict, _ = engine.check(BY_NAME[parsed.kind], parsed, settings or get_settings())
    return {
        "valid": verdict.valid,
        "kind": verdict.kind,
        "outputs": verdict.wire_outputs(),
        "diagnostics": [d.model_dump() for d in verdict.diagnostics],
    }


def evaluate(descriptor: dict[str, Any], settings: Settings | None = None) -> dict[str, Any]:
    """The reference kernel's outputs: {"kind", "outputs": [{"dtype", "shape", "data": ndarray}],
    "diagnostics"}.

    Raises Malformed; engine.Invalid (its `diagnostics`) for a descriptor that breaks a rule;
    engine.NotEvaluable (`path`, `message`) when data or sizes are missing; payload.LimitExceeded
    (`path`, `message`, `limit`) when a limit would be crossed."""
    parsed = _parse(descriptor)
    verdict, results = engine.run(BY_NAME[parsed.kind], parsed, settings or get_settings())
    outputs: list[dict[str, Any]] = [
        {"dtype": out.dtype, "shape": list(array.shape), "data": np.asarray(array)}
        for out, array in zip(verdict.outputs or [], results, strict=True)
    ]
    return {
        "kind": verdict.kind,
        "outputs": outputs,
        "diagnostics": [d.model_dump() for d in verdict.diagnostics],
    }


def verify(descriptor: dict[str, Any], settings: Settings | None = None) -> dict[str, Any]:
    """The answer of POST /v1/verify, as a dict: kind, conformant, each output's comparison
    (mismatches by class, the modelled implementations it is like), diagnostics. The descriptor's
    inputs carry data and its outputs the implementation's answer (lists, base64 or NumPy arrays).

    Raises what evaluate raises: Malformed, engine.Invalid, engine.NotEvaluable, payload.LimitExceeded."""
    from app.core import verify as core_verify

    parsed = _parse(descriptor)
    result = core_verify.verify(BY_NAME[parsed.kind], parsed, settings or get_settings())
    return {
        "kind": result.kind,
        "conformant": result.conformant,
        "outputs": result.outputs,
        "diagnostics": [d.model_dump() for d in result.diagnostics],
    }


def check_graph(
    graph: bytes | str | os.PathLike[str],
    format: str | None = None,
    weights: bytes | None = None,
    settings: Settings | None = None,
) -> dict[str, Any]:
    """The answer of POST /v1/graphs/validate, as a dict: format, valid, every node (checked kind,
    inputs and outputs, diagnostics, path, line, column), the kinds not checked, and the file's own
    diagnostics. `graph` is the file's bytes or its path (an OpenVINO IR's .bin beside it is read
    too); `format` one of onednn, openvino, onnx (detected when None).

    Raises app.formats.errors.Malformed (path, message, line, column) for a file that is not a graph."""
    from app.formats import graphs

    if not isinstance(graph, bytes):
        path = Path(graph)
        data = path.read_bytes()
        bin_file = path.with_suffix(".bin")
        if weights is None and path.suffix.lower() == ".xml" and bin_file.is_file():
            weights = bin_file.read_bytes()
    else:
        data = graph
    result = graphs.check(data, settings or get_settings(), format, weights)
    return {
        "format": result.format,
        "valid": result.valid,
        "nodes": [
            {
                "id": n.id,
                "name": n.name,
                "kind": n.kind,
                "checked_as": n.checked_as,
                "valid": n.valid,
                "inputs": [t.model_dump() for t in n.inputs],
                "outputs": [t.model_dump() for t in n.outputs],
                "diagnostics": [d.model_dump() for d in n.diagnostics],
                "path": n.path,
                "line": n.line,
                "column": n.column,
            }
            for n in result.nodes
        ],
        "not_checked": dict(result.not_checked),
        "diagnostics": [d.model_dump() for d in result.diagnostics],
    }
