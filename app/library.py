"""The service's two answers in-process, for tools that would rather import than run a server.

    from app import validate, evaluate, check_graph

Each takes a descriptor as a dict in the wire format, where any `data` may also be a NumPy array of
the tensor's dtype (bf16 from ml_dtypes; MLI's sa8 / fx16 / sa32 as their raw int8 / int16 / int32).
Nothing is encoded or decoded on the way: arrays go to the kernels as they are and come back as arrays.
The limits of app.core.config apply as they do over HTTP.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from app.core import engine
from app.core.config import Settings, get_settings
from app.ops import BY_NAME, REGISTRY, DescriptorErrors, parse
from app.ops.parsing import describe_errors

__all__ = ["Malformed", "check_graph", "evaluate", "validate", "verify"]


class Malformed(ValueError):
    """Not a descriptor (types, unknown kind or attribute); `errors` as a 422 lists them: path, message."""

    def __init__(self, errors: list[dict[str, Any]]):
        super().__init__("; ".join(f"{e['path']}: {e['message']}" for e in errors))
        self.errors = errors


def _parse(descriptor: dict[str, Any]):
    try:
        return parse(descriptor)
    except DescriptorErrors as exc:
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
    settings = settings or get_settings()
    # A plain descriptor of an op with a quick_evaluate (ReduceMax, Max) is answered by it, held to
    # _evaluate_checked by the op's differential test
    kind = descriptor.get("kind") if type(descriptor) is dict else None
    spec = REGISTRY.get(kind) if type(kind) is str else None
    if spec is not None and spec.quick_evaluate is not None:
        outputs = spec.quick_evaluate(descriptor, settings)
        if outputs is not None:
            return answer(spec.kind, outputs, [])
    return _evaluate_checked(descriptor, settings)


def answer(
    kind: str, outputs: list[tuple[str, np.ndarray]], diagnostics: list[dict[str, Any]]
) -> dict[str, Any]:
    """evaluate's answer: the kind, each output's dtype, shape and array, the diagnostics."""
    return {
        "kind": kind,
        "outputs": [{"dtype": dtype, "shape": list(array.shape), "data": array} for dtype, array in outputs],
        "diagnostics": diagnostics,
    }


def _evaluate_checked(descriptor: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """evaluate by the full way: pydantic's pass, the check, the limits, the op's kernel."""
    parsed = _parse(descriptor)
    verdict, results = engine.run(BY_NAME[parsed.kind], parsed, settings)
    outputs = [
        (out.dtype, np.asarray(array)) for out, array in zip(verdict.outputs or [], results, strict=True)
    ]
    return answer(verdict.kind, outputs, [d.model_dump() for d in verdict.diagnostics])


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
    path_or_bytes: str | os.PathLike[str] | bytes,
    format: str | None = None,
    weights: bytes | None = None,
    settings: Settings | None = None,
) -> dict[str, Any]:
    """The answer of POST /v1/graphs/validate for a graph file, as a dict: format, valid, coverage,
    nodes (each with checked_by and typed_by), not_checked, diagnostics, values.

    A path is read as `opspec check` reads it (an IR's .bin beside it); bytes are the file's content
    (`weights` an IR's .bin). `format` is onednn, openvino or onnx, else detected. Without `settings`,
    a graph of the caller's own is bounded by the machine as `opspec check` bounds a file (no size or
    node limit unless OPSPEC_* sets one; app.core.config.for_local_files). Raises
    app.formats.errors.Malformed (`message`, `path`, `line`, `column`) for what is not a readable
    graph, and payload.LimitExceeded for a file over a limit, where the route answers 422 and 413."""
    from app.core.config import for_local_files
    from app.formats import answer, graphs

    settings = settings or for_local_files(get_settings())
    if isinstance(path_or_bytes, bytes | bytearray | memoryview):
        result = graphs.check(bytes(path_or_bytes), settings, format, weights)
    else:
        result = graphs.check_file(path_or_bytes, settings, format)
    return json.loads(answer.to_json(result))
