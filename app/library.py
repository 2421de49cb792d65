"""The service's two answers in-process, for tools that would rather import than run a server.

    from app import validate, evaluate, check_graph

Each takes a descriptor as a dict in the wire format, where any `data` may also be a NumPy array of
the tensor's dtype (bf16 from ml_dtypes; MLI's sa8 / fx16 / sa32 as their raw int8 / int16 / int32).
Nothing is encoded or decoded on the way: arrays go to the kernels as they are and come back as arrays.
The limits of app.core.config apply as they do over HTTP.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import numpy as np

from app.core import engine
from app.core.config import Settings, get_settings
from app.core.dtypes import DTYPES, NUMERIC
from app.core.payload import buffer_nbytes
from app.core.shapes import wrap_axes
from app.ops import BY_NAME, DescriptorErrors, parse
from app.ops.max import maximum
from app.ops.reduction import reduce_max
from app.parsing import describe_errors

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
    # Each lane is held to _evaluate_checked by tests/test_library.py (test_plain_*_answers_as_the_full_path)
    answer = _plain_reduce_max(descriptor, settings) or _plain_max(descriptor, settings)
    return answer if answer is not None else _evaluate_checked(descriptor, settings)


# The keys a plain ReduceMax has, and its source dtypes by their canonical names (the only spelling
# taken here: an alias goes the full way, which answers with the canonical name).
_PLAIN_KEYS = ({"kind", "inputs"}, {"kind", "attrs", "inputs"})
_PLAIN_ATTRS = ({"axes"}, {"axes", "keep_dims"})
_TENSOR_KEYS = {"dtype", "shape", "data"}
_PLAIN_SOURCES = {name: DTYPES[name] for name in ("f32", "f16", "bf16")}


def _plain_reduce_max(descriptor: Any, settings: Settings) -> dict[str, Any] | None:
    """The answer for the commonest evaluation, a plain ReduceMax of one array, or None for anything
    else, which goes the full way (pydantic's pass, the check, the limits).

    For a 1 MB reduction the full way's Python was ~30 us of a ~130 us answer with warm caches, and
    ~200 us with cold ones (onnxruntime's whole run: ~80 / ~350 us). Taken here only when the full way
    would find nothing to report: the canonical dtype and keys, plain ints, axes non-empty, in range
    and unique, no dim of 0, the array of that dtype and shape, and every limit met."""
    if (
        type(descriptor) is not dict
        or descriptor.get("kind") != "ReduceMax"
        or descriptor.keys() not in _PLAIN_KEYS
    ):
        return None
    attrs, inputs = descriptor.get("attrs"), descriptor["inputs"]
    if (
        type(attrs) is not dict
        or attrs.keys() not in _PLAIN_ATTRS
        or type(inputs) is not list
        or len(inputs) != 1
    ):
        return None
    axes, keep_dims, tensor = attrs["axes"], attrs.get("keep_dims", False), inputs[0]
    if type(axes) is not list or not axes or type(keep_dims) is not bool or type(tensor) is not dict:
        return None
    dtype, shape, data = tensor.get("dtype"), tensor.get("shape"), tensor.get("data")
    if tensor.keys() != _TENSOR_KEYS or type(data) is not np.ndarray or type(shape) is not list:
        return None
    dt = _PLAIN_SOURCES.get(dtype) if type(dtype) is str else None
    rank = len(shape)
    if dt is None or data.dtype != dt.numpy or not 0 < rank <= settings.max_rank:
        return None
    if any(type(dim) is not int for dim in shape) or data.shape != tuple(shape) or 0 in data.shape:
        return None
    if any(type(axis) is not int or not -rank <= axis < rank for axis in axes):
        return None
    reduced = wrap_axes(axes, rank)
    if len(reduced) < len(axes) or data.size > settings.max_elements:
        return None
    out_count = data.size // math.prod(data.shape[axis] for axis in reduced)
    if buffer_nbytes(data) + out_count * data.itemsize > settings.max_total_bytes:
        return None
    view = data.view()
    view.flags.writeable = False  # as the full way gives the kernel the caller's array
    result = reduce_max(view, reduced, keep_dims)
    return {
        "kind": "ReduceMax",
        "outputs": [{"dtype": dtype, "shape": list(result.shape), "data": result}],
        "diagnostics": [],
    }


# Max's dtypes (T) by their canonical names: an alias goes the full way, which answers with the canonical name.
_MAX_TYPES = {name: DTYPES[name] for name in NUMERIC}


def _plain_max(descriptor: Any, settings: Settings) -> dict[str, Any] | None:
    """The answer for a plain Max of arrays, or None for anything else, which goes the full way.

    A 4M-element maximum with a broadcast row is ~0.6 ms of NumPy; the full way's Python beside it was
    ~0.07 ms with warm caches and, with cold ones, most of the 1.23x onnxruntime's time it took
    (bench_kernels_apart). Taken only where the full way would report nothing: the canonical dtype of
    T for every input, plain int dims and no 0 dim, arrays of that dtype and shape, the strict broadcast
    rule met, no attributes or declared outputs, and every limit met."""
    if (
        type(descriptor) is not dict
        or descriptor.get("kind") != "Max"
        or descriptor.keys() not in _PLAIN_KEYS
    ):
        return None
    attrs, inputs = descriptor.get("attrs", {}), descriptor["inputs"]
    if type(attrs) is not dict or attrs or type(inputs) is not list or not inputs:
        return None
    first = inputs[0]
    dtype = first.get("dtype") if type(first) is dict else None
    dt = _MAX_TYPES.get(dtype) if type(dtype) is str else None
    if dt is None:
        return None
    arrays, shapes, total = [], [], 0
    for tensor in inputs:
        if type(tensor) is not dict or tensor.keys() != _TENSOR_KEYS or tensor["dtype"] != dtype:
            return None
        shape, data = tensor["shape"], tensor["data"]
        if type(data) is not np.ndarray or data.dtype != dt.numpy or type(shape) is not list:
            return None
        if len(shape) > settings.max_rank or any(type(dim) is not int for dim in shape):
            return None
        if data.shape != tuple(shape) or 0 in data.shape or data.size > settings.max_elements:
            return None
        arrays.append(data)
        shapes.append(data.shape)
        total += buffer_nbytes(data)
    out_shape = _strict_broadcast(shapes)
    if out_shape is None:
        return None
    count = math.prod(out_shape)
    if count > settings.max_elements or total + count * dt.itemsize > settings.max_total_bytes:
        return None
    views = []
    for data in arrays:
        view = data.view()
        view.flags.writeable = False  # as the full way gives the kernel the caller's arrays
        views.append(view)
    result = maximum(views)
    return {
        "kind": "Max",
        "outputs": [{"dtype": dtype, "shape": list(result.shape), "data": result}],
        "diagnostics": [],
    }


def _strict_broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    """The shapes broadcast under Max's strict rule (ranks aligned on the right, each output dim the
    largest size there and every input's size that or 1), or None where the rule is broken."""
    rank = max(len(shape) for shape in shapes)
    out = [1] * rank
    for shape in shapes:
        for axis, size in enumerate(shape, rank - len(shape)):
            out[axis] = max(out[axis], size)
    for shape in shapes:
        for axis, size in enumerate(shape, rank - len(shape)):
            if size != 1 and size != out[axis]:
                return None
    return tuple(out)


def _evaluate_checked(descriptor: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """evaluate by the full way: pydantic's pass, the check, the limits, the op's kernel."""
    parsed = _parse(descriptor)
    verdict, results = engine.run(BY_NAME[parsed.kind], parsed, settings)
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
