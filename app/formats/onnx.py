"""ONNX models, read with the `onnx` package's own protobuf classes.

Initializers and Constant nodes give values; graph inputs, value_info and graph outputs give declared
types; a `dim_param` stays a symbol. Max is opspec's Max. ONNX's ReduceMax is not oneDNN's (absent or
empty axes reduce every axis unless noop_with_empty_axes; keepdims defaults to 1; before opset 18 the
axes are an attribute), so each node is translated into the ReduceMax descriptor that computes the
same thing, and an info diagnostic says how; where none does, the node is not checked and the answer
says why. ArgMax is not MLI's Argmax (it gives indices along one axis, not top-k per slice), so it is
not checked. External data is refused: a model's bytes are all that is read. Paths name the node:
`node[reduce_1].attribute.axes[0]`, `node[max_2].input[1].shape[0]`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import numpy_helper

from app.core.config import Settings
from app.core.dtypes import DTYPES, canonical_dtype
from app.core.payload import LimitExceeded
from app.core.shapes import SYMBOL, Shape
from app.formats.errors import Malformed, shown
from app.formats.graph import (
    SMALL_CONSTANT,
    Graph,
    Node,
    Translate,
    Translation,
    Value,
    diagnostic,
    rank_fits,
    wire_tensor,
    with_declared_outputs,
)
from app.ops import REGISTRY

FORMAT = "onnx"
DEFAULT_DOMAINS = ("", "ai.onnx")
REDUCE_MAX_DTYPES = REGISTRY["ReduceMax"].inputs[0].dtypes
MAX_SIGNATURE = ("Max",)


def parse(data: bytes, settings: Settings) -> Graph:
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except (DecodeError, RecursionError, ValueError) as exc:
        raise Malformed(f"not an ONNX model: the protobuf does not parse ({exc})") from None
    if model.ir_version <= 0 or not model.HasField("graph"):
        raise Malformed("not an ONNX model: no ir_version or no graph")
    graph = model.graph
    if len(graph.node) > settings.max_graph_nodes:
        raise LimitExceeded(
            "graph.node",
            "max_graph_nodes",
            f"the graph has {len(graph.node):,} nodes, above the limit of {settings.max_graph_nodes:,} (max_graph_nodes)",
        )
    opset = next((o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS), 0)
    return _Reader(graph, opset, settings).graph()


def _text(value: str | bytes) -> str:
    """A protobuf string as valid text: ONNX's proto2 strings are not checked for UTF-8, and a name with
    a stray byte must not break the answer."""
    if isinstance(value, str) and value.isascii():
        return value
    if isinstance(value, bytes):  # how protobuf hands over a proto2 string that is not UTF-8
        return value.decode("utf-8", "replace")
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _refuse_external(tensor: onnx.TensorProto, where: str) -> None:
    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        location = _text(next((e.value for e in tensor.external_data if e.key == "location"), "?"))
        raise Malformed(
            f"{where} keeps its data in the external file {shown(location, 200)}; external data is refused (never read "
            "from disk): save the model with its tensors inside",
            where,
        )


def _dtype(elem_type: int) -> str | None:
    if elem_type == 0:
        return None
    try:
        name = onnx.TensorProto.DataType.Name(elem_type)
    except ValueError:
        return f"elem_type {elem_type}"
    try:
        return canonical_dtype(name)
    except ValueError:
        return name.lower()


class _Reader:
    def __init__(self, graph: onnx.GraphProto, opset: int, settings: Settings):
        self.g = graph
        self.opset = opset
        self.settings = settings
        self.problems: list = []
        self.reduce_max: dict[Any, Translate] = {}  # by signature: opset and attributes

    def value(self, info: onnx.ValueInfoProto, where: str) -> Value:
        kind = info.type.WhichOneof("value")
        if kind != "tensor_type":
            return Value(None, None)
        tensor = info.type.tensor_type
        if not tensor.HasField("shape"):
            return Value(_dtype(tensor.elem_type), None)
        dims = tensor.shape.dim
        if not rank_fits(len(dims), where, self.settings, self.problems):
            return Value(_dtype(tensor.elem_type), None)
        shape: list[int | str | None] = []
        for axis, dim in enumerate(dims):
            which = dim.WhichOneof("value")
            if which == "dim_value":
                if dim.dim_value < 0:
                    self.problems.append(
                        diagnostic("graph.dim", f"{where}.shape[{axis}]", f"dim {dim.dim_value} is negative")
                    )
                    shape.append(None)
                else:
                    shape.append(dim.dim_value)
            elif which == "dim_param" and SYMBOL.match(symbol := _text(dim.dim_param)):
                shape.append(symbol)
            else:
                shape.append(None)  # unnamed, or a name such as "batch size" that is not a symbol
        return Value(_dtype(tensor.elem_type), tuple(shape))

    def tensor(self, tensor: onnx.TensorProto, where: str) -> Value:
        _refuse_external(tensor, where)
        dims: Shape = tuple(int(d) for d in tensor.dims)
        value = Value(_dtype(tensor.data_type), dims)
        count = math.prod(dims)  # exact: np.prod would wrap past int64
        if value.dtype in DTYPES and count <= SMALL_CONSTANT:
            try:
                value.data = numpy_helper.to_array(tensor).astype(DTYPES[value.dtype].numpy)
            except (ValueError, TypeError) as exc:
                self.problems.append(
                    diagnostic("graph.constant", where, f"{where}'s values do not read: {exc}")
                )
        return value

    def graph(self) -> Graph:
        g = self.g
        declared: dict[str, Value] = {}
        seen: dict[bytes, Value] = {}  # a model declares the same few types thousands of times over
        for group, where in (
            (g.input, "graph.input"),
            (g.value_info, "graph.value_info"),
            (g.output, "graph.output"),
        ):
            for index, info in enumerate(group):
                key = info.type.SerializeToString()
                value = seen.get(key)
                if value is None:
                    before = len(self.problems)
                    value = self.value(info, f"{where}[{index}]")
                    if len(self.problems) == before:  # a type with a finding is read again, so each is named
                        seen[key] = value
                declared[_text(info.name)] = value
        inputs = {_text(info.name): declared[_text(info.name)] for info in g.input}
        for index, init in enumerate(g.initializer):
            inputs[_text(init.name)] = self.tensor(init, f"graph.initializer[{index}]")
        nodes = [self.node(index, node, declared) for index, node in enumerate(g.node)]
        return Graph(FORMAT, "onnxruntime", nodes, inputs, self.problems)

    def node(self, index: int, proto: onnx.NodeProto, declared: dict[str, Value]) -> Node:
        name, op_type, domain = proto.name, proto.op_type, proto.domain
        in_names, out_names = proto.input[:], proto.output[:]  # lists, made in C
        try:  # one test for every name of the node, in the usual all-ASCII case
            plain = "".join([name, op_type, *in_names, *out_names]).isascii()
        except TypeError:  # a bytes among them: a proto2 string that is not UTF-8
            plain = False
        if not plain:
            name, op_type = _text(name), _text(op_type)
            in_names, out_names = [_text(n) for n in in_names], [_text(n) for n in out_names]
        path = f"node[{name or f'#{index}'}]"
        standard = domain in DEFAULT_DOMAINS
        outputs = (
            out_names if all(out_names) else [n or f"{path}.output[{k}]" for k, n in enumerate(out_names)]
        )
        node = Node(
            str(index),
            name,
            op_type if standard else f"{_text(domain)}.{op_type}",
            path,
            in_names if all(in_names) else [n or None for n in in_names],
            outputs,
            [],  # declared_inputs: in ONNX, only what flows
            list(map(declared.get, out_names)),  # declared_outputs
            input_paths="{path}.input[{index}]",
        )
        if not standard:
            return node
        if op_type == "Max":
            node.translate = _max
            node.signature = MAX_SIGNATURE
        elif op_type == "ReduceMax":
            # A model repeats a few attribute sets: one translation function for each, read once.
            node.signature = (
                "ReduceMax",
                self.opset,
                tuple([a.SerializeToString() for a in proto.attribute]),
            )
            node.translate = self.reduce_max.get(node.signature)
            if node.translate is None:
                attrs = {a.name: a for a in proto.attribute}
                node.translate = self.reduce_max[node.signature] = _reduce_max(self.opset, attrs)
        elif op_type == "Constant":
            node.structural = True
            node.constant = self.constant({a.name: a for a in proto.attribute}, path)
        return node

    def constant(self, attrs: dict[str, onnx.AttributeProto], path: str) -> Value:
        for a in proto_tensors(attrs.values()):
            _refuse_external(a, f"{path}.attribute.value")
        if "value" in attrs:
            return self.tensor(attrs["value"].t, f"{path}.attribute.value")
        for name, dtype in (
            ("value_int", "s64"),
            ("value_float", "f32"),
            ("value_ints", "s64"),
            ("value_floats", "f32"),
        ):
            if name in attrs:
                array = np.asarray(onnx.helper.get_attribute_value(attrs[name]), DTYPES[dtype].numpy)
                if array.size > SMALL_CONSTANT:
                    return Value(dtype, array.shape)
                return Value(dtype, array.shape, array)
        return Value(None, None)


def proto_tensors(attrs: Any) -> list[onnx.TensorProto]:
    return [a.t for a in attrs if a.type == onnx.AttributeProto.TENSOR]


def _paths(node: Node, count: int) -> dict[str, str]:
    paths = {
        "attrs": f"{node.path}.attribute",
        "inputs": f"{node.path}.input",
        "outputs": f"{node.path}.output",
    }
    paths |= {f"inputs[{k}]": f"{node.path}.input[{k}]" for k in range(count)}
    paths |= {f"outputs[{k}]": f"{node.path}.output[{k}]" for k in range(len(node.outputs))}
    return paths


def _max(node: Node, inputs: list[Value | None]) -> Translation:
    values = [v or Value(None, None) for v in inputs]
    descriptor = {"kind": "Max", "inputs": [wire_tensor(v) for v in values]}
    return Translation(with_declared_outputs(node, descriptor), lambda: _paths(node, len(values)))


def _ints(attr: onnx.AttributeProto | None, default: int) -> int:
    return default if attr is None else int(attr.i)


def _reduce_max(opset: int, attrs: dict[str, onnx.AttributeProto]):
    keepdims = _ints(attrs.get("keepdims"), 1)
    noop = _ints(attrs.get("noop_with_empty_axes"), 0)

    def translate(node: Node, inputs: list[Value | None]) -> Translation:
        src = inputs[0] if inputs else None
        extra = {"attrs.keep_dims": f"{node.path}.attribute.keepdims"}

        def paths() -> dict[str, str]:
            return _paths(node, len(inputs)) | extra

        head = f"ONNX ReduceMax (opset {opset}, keepdims={keepdims}"
        head += f", noop_with_empty_axes={noop})" if opset >= 18 else ")"
        if src is not None and src.dtype in DTYPES and src.dtype not in REDUCE_MAX_DTYPES:
            return Translation(
                None,
                why=f"{head} on {src.dtype}: opspec's ReduceMax is oneDNN Graph's, defined for "
                f"{', '.join(sorted(REDUCE_MAX_DTYPES))} only, so no descriptor computes the same thing",
            )
        axes: list[int] | None = None
        axes_input: Value | None = None
        if "axes" in attrs:  # before opset 18; accepted after too, as onnx.reference does
            axes = [int(a) for a in attrs["axes"].ints]
            extra["attrs.axes"] = f"{node.path}.attribute.axes"
            source = "the axes attribute"
        elif len(inputs) > 1 and inputs[1] is not None:
            if inputs[1].data is not None:
                axes = [int(a) for a in inputs[1].data.reshape(-1)]
                extra["attrs.axes"] = f"{node.path}.input[1]"
                source = "the constant axes input" if axes else "an empty constant axes input"
            else:
                axes_input = inputs[1]
                source = "the axes input"
        else:
            axes, source = [], "no axes"
        keep = bool(keepdims)
        rank = None if src is None or src.shape is None else len(src.shape)
        values = [wire_tensor(v or Value(None, None)) for v in inputs[:1]]
        if axes_input is not None:
            shape = (1,) if axes_input.shape == () else axes_input.shape
            values.append(wire_tensor(Value(axes_input.dtype, shape), "s32"))
            note = (
                f"{head} with {source} (values unknown) is checked as ReduceMax with opspec's 1-D s32 axes input, "
                f"keep_dims={keep}; not exact: should the axes be empty at run time, ONNX "
                + ("returns the input" if noop else "reduces every axis")
            )
            descriptor = {"kind": "ReduceMax", "attrs": {"keep_dims": keep}, "inputs": values}
            return Translation(with_declared_outputs(node, descriptor), paths, [note])
        assert axes is not None
        if not axes and not noop:
            if rank is None:
                return Translation(
                    None,
                    why=f"{head} with {source} reduces every axis, but the input's rank is unknown, so no "
                    "ReduceMax descriptor with a fixed axes list computes the same thing",
                )
            axes = list(range(rank))
            what = f"{source}: every axis, axes={axes}"
        elif not axes:
            what = f"{source} and noop_with_empty_axes=1: the identity, axes=[]"
        else:
            what = f"{source} {axes}"
        note = f"{head} with {what} is checked as ReduceMax with axes={axes}, keep_dims={keep}"
        descriptor = {"kind": "ReduceMax", "attrs": {"axes": axes, "keep_dims": keep}, "inputs": values}
        return Translation(with_declared_outputs(node, descriptor), paths, [note])

    return translate
