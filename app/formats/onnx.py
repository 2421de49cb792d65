"""ONNX models, read with the `onnx` package's own protobuf classes.

Initializers and Constant nodes give values; graph inputs, value_info and graph outputs give declared
types; a `dim_param` stays a symbol. ONNX's own shape inference (strict, with data propagation) types
every value first, so a node is checked whatever precedes it, and its errors are said at their node.
Subgraphs (If, Loop, Scan bodies) are read in their own scope, just before the node that holds them.
Ops that are exactly a oneDNN op are checked as it (app/formats/translations.py, docs/translations.md).
Max is opspec's Max. ONNX's ReduceMax is not oneDNN's (absent or
empty axes reduce every axis unless noop_with_empty_axes; keepdims defaults to 1; before opset 18 the
axes are an attribute), so each node is translated into the ReduceMax descriptor that computes the
same thing, and an info diagnostic says how; where none does, the node is not checked and the answer
says why. ArgMax is not MLI's Argmax (it gives indices along one axis, not top-k per slice), so it is
not checked. External data is refused: a model's bytes are all that is read. Paths name the node:
`node[reduce_1].attribute.axes[0]`, `node[max_2].input[1].shape[0]`.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import numpy_helper

from app.core import dims
from app.core.config import Settings
from app.core.dims import ENGINE_MADE
from app.core.dtypes import DTYPES, canonical_dtype
from app.core.numbers import clip
from app.core.payload import LimitExceeded
from app.core.shapes import SYMBOL, Shape
from app.formats import onnx_graph, translations
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
from app.formats.translations import ONNX_REDUCTIONS
from app.ops import REGISTRY

FORMAT = "onnx"
DEFAULT_DOMAINS = ("", "ai.onnx")
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
    count = _count(graph, settings, 0)
    if count > settings.max_graph_nodes:
        raise LimitExceeded(
            "graph.node",
            "max_graph_nodes",
            f"the graph has {count:,} nodes (subgraphs included), above the limit of "
            f"{settings.max_graph_nodes:,} (max_graph_nodes)",
        )
    opset = next((o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS), 0)
    # Each node's input and output names, sliced once for the guard before ONNX's inference and the reader
    names = [(node.input[:], node.output[:]) for node in graph.node]
    inferred, errors, failed = infer(model, names)
    reader = _Reader(graph, opset, settings, inferred, errors)
    reader.names = names
    reader.opsets = {_text(o.domain): o.version for o in model.opset_import}
    reader.functions = {(_text(f.domain), _text(f.name)) for f in model.functions}
    found: list = []
    reader.rules = onnx_graph.Rules(model.ir_version, _text, found)
    result = reader.graph()
    result.diagnostics.extend(found)
    if failed and not any(d.severity == "error" for d in found):  # (else inference failed on what they say)
        result.diagnostics.append(diagnostic("onnx.shape_inference", "graph", failed, "warning"))
    return result


def _subgraphs(node: onnx.NodeProto) -> list[tuple[str, onnx.GraphProto]]:
    """The bodies a node holds (If's then_branch and else_branch, Loop's and Scan's body), by attribute."""
    found = []
    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            found.append((_text(attr.name), attr.g))
        elif attr.type == onnx.AttributeProto.GRAPHS:
            found.extend((f"{_text(attr.name)}[{k}]", g) for k, g in enumerate(attr.graphs))
    return found


def _count(graph: onnx.GraphProto, settings: Settings, depth: int) -> int:
    """Nodes in the graph and every subgraph in it, within max_graph_depth levels of nesting."""
    if depth > settings.max_graph_depth:
        raise LimitExceeded(
            "graph.node", "max_graph_depth",
            f"subgraphs nest deeper than {settings.max_graph_depth} levels (max_graph_depth)",
        )  # fmt: skip
    count = len(graph.node)
    for node in graph.node:
        if node.op_type in SUBGRAPH_OPS:
            for _, body in _subgraphs(node):
                count += _count(body, settings, depth + 1)
    return count


SUBGRAPH_OPS = frozenset({"If", "Loop", "Scan"})  # the ops of the default domain that hold graphs
# Initializers above this many elements go to ONNX's inference as typed graph inputs, not as data: no
# shape rule needs a weight's values, and the model is not copied with its weights.
INFER_DATA_ELEMENTS = 1 << 16
TEMPORARY_NAME = "opspec\x1f"  # the names inference is given for the nodes, so its errors name them


def infer(
    model: onnx.ModelProto, names: list[tuple[list[str], list[str]]] | None = None
) -> tuple[dict[str, onnx.ValueInfoProto], dict[str, list[str]], str]:
    """ONNX's own shape inference (strict, with data propagation) on a copy of the model without its
    large weights: the value types it infers (by the reader's scoped value names), its errors by node id,
    and why it could not run at all ('' when it ran)."""
    probe = onnx.ModelProto()
    probe.ir_version = model.ir_version
    probe.opset_import.extend(model.opset_import)
    probe.functions.extend(model.functions)
    graph = probe.graph
    source = model.graph
    graph.node.extend(source.node)
    graph.input.extend(source.input)
    graph.output.extend(source.output)
    graph.value_info.extend(source.value_info)
    inputs = {info.name for info in source.input}
    for init in source.initializer:
        if math.prod(init.dims) <= INFER_DATA_ELEMENTS and init.data_location != onnx.TensorProto.EXTERNAL:
            graph.initializer.append(init)
        elif init.name not in inputs:
            graph.input.append(onnx.helper.make_tensor_value_info(init.name, init.data_type, list(init.dims)))
    errors: dict[str, list[str]] = {}
    opsets = {o.domain: o.version for o in model.opset_import}
    unsafe = _unsafe(
        source, opsets, {info.name for info in source.input} | {i.name for i in source.initializer}, names
    )
    if unsafe is not None:  # (a name nothing makes is graph.edge's or graph.order's to say: '')
        return {}, errors, unsafe and f"ONNX shape inference was not run: {unsafe}"
    try:
        out = onnx.shape_inference.infer_shapes(probe, check_type=True, strict_mode=True, data_prop=True)
    except onnx.shape_inference.InferenceError:
        # Again with each node named by its id, so that each error names the node it is about.
        _name_nodes(graph, "")
        try:
            onnx.shape_inference.infer_shapes(probe, check_type=True, strict_mode=True, data_prop=True)
            text = ""
        except onnx.shape_inference.InferenceError as exc:
            text = str(exc)
        for line in text.splitlines():
            matches = list(_ERROR.finditer(line))
            if not matches:
                continue
            found = matches[-1]  # an error inside a subgraph names the outer node, then the inner one
            # The cause runs to the end of the line: an error inside an op's own function body names the
            # body's node without a node name, and that part is the cause.
            name, message = found.group(2), line[found.start(3) :].strip()
            if "expected to have type but instead is null" in message:
                continue  # the echo of an error upstream (or of an input nothing typed)
            errors.setdefault(name.removeprefix(TEMPORARY_NAME), []).append(message)
        try:
            out = onnx.shape_inference.infer_shapes(
                probe, check_type=False, strict_mode=False, data_prop=True
            )
        except Exception as again:
            return {}, errors, f"ONNX shape inference could not run: {clip(str(again), 300)}"
    except Exception as exc:
        return {}, errors, f"ONNX shape inference could not run: {clip(str(exc), 300)}"
    found_types: dict[str, onnx.ValueInfoProto] = {}
    _collect(out.graph, "", found_types, {})
    return found_types, errors, ""


def _unsafe(
    graph: onnx.GraphProto,
    opsets: dict[str, int],
    known: set[str],
    names: list[tuple[list[str], list[str]]] | None = None,
) -> str | None:
    """Why ONNX's inference must not run on the graph, or None: a node reads a name nothing made before
    it ('': the reader's own rules, graph.edge and graph.order, name that fault), or leaves out an input
    its op requires (said). onnx 1.23's inference of some such nodes crashes the process (EyeLike,
    ai.onnx.ml's LabelEncoder: a segfault), where its checker refuses them all. (`names`: each node's
    input and output names, where the caller sliced them; set operations per node, at C speed.)"""
    known = {"", *known}  # (an input left out is "": its op's schema says whether it may be)
    if names is None:
        names = [(node.input[:], node.output[:]) for node in graph.node]
    for node, (inputs, outputs) in zip(graph.node, names, strict=True):
        if not known.issuperset(inputs):
            return ""
        if "" in inputs:
            for index, name in enumerate(inputs):
                if not name and _required(node, index, opsets):
                    who = shown(_text(node.name or node.op_type))
                    return f"node {who} leaves out input {index}, which its op requires"
        if node.op_type in _GRAPH_OPS or node.domain not in DEFAULT_DOMAINS:
            for attr in node.attribute:
                bodies = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
                for body in bodies:
                    inner = known | {i.name for i in body.input} | {i.name for i in body.initializer}
                    why = _unsafe(body, opsets, inner)
                    if why is not None:
                        return why
        known.update(outputs)
    return None


# The ops of the default domain whose attributes hold graphs (If, Loop, Scan: SUBGRAPH_OPS; SequenceMap)
_GRAPH_OPS = SUBGRAPH_OPS | {"SequenceMap"}


def _required(node: onnx.NodeProto, index: int, opsets: dict[str, int]) -> bool:
    """Whether input `index` of the node's op is a single, required one (its schema, where ONNX has it)."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opsets.get(node.domain, 1), node.domain)
    except onnx.defs.SchemaError:
        return False
    formal = schema.inputs
    return index < len(formal) and formal[index].option == onnx.defs.OpSchema.FormalParameterOption.Single


def _value_prefix(ids: str) -> str:
    """The prefix of a subgraph's own value names, from its node-id prefix: `3.then_branch.` -> `3.then_branch/`."""
    return ids[:-1] + "/" if ids else ""


_ERROR = re.compile(r"\(op_type:([^,)]*), node name: ([^)]*)\): ((?:(?!\(op_type:).)*)")
# ONNX's words when a type the file declares differs from the one it infers (mergeShapesAndTypes)
_ECHO = re.compile(r"[Ii]nferred (shape|elem type) (and existing shape )?differ|existing (elem type|shape)")
# An error inside the op's own function body (a node of ONNX's definition, not of the file): the file is
# not at fault, so it is a warning, and the node is not typed by the engine.
_IN_FUNCTION = re.compile(r"\(op_type:[^,)]*\):")


def _name_nodes(graph: onnx.GraphProto, prefix: str) -> None:
    """Each node named by its id (its index, and inside a subgraph the outer node's id and attribute)."""
    for index, node in enumerate(graph.node):
        node.name = f"{TEMPORARY_NAME}{prefix}{index}"
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                _name_nodes(attr.g, f"{prefix}{index}.{attr.name}.")
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for k, g in enumerate(attr.graphs):
                    _name_nodes(g, f"{prefix}{index}.{attr.name}[{k}].")


def _collect(
    graph: onnx.GraphProto, ids: str, out: dict[str, onnx.ValueInfoProto], outer: dict[str, str]
) -> None:
    """The value types of a graph and its subgraphs, keyed by the scoped names the reader gives values."""
    scope = _scope(graph, _value_prefix(ids), outer)
    for group in (graph.input, graph.value_info, graph.output):
        for info in group:
            out.setdefault(scope.get(info.name, info.name), info)
    for index, node in enumerate(graph.node):
        if node.op_type in SUBGRAPH_OPS:
            for attr, body in _subgraphs(node):
                _collect(body, f"{ids}{index}.{attr}.", out, scope)


def _scope(graph: onnx.GraphProto, prefix: str, outer: dict[str, str]) -> dict[str, str]:
    """Value name -> scoped name, as seen inside `graph`: its own values (inputs, initializers, node
    outputs) under `prefix`, the outer graphs' values as they are named there. The top graph's names
    stay as they are."""
    if not prefix:
        return {}
    scope = dict(outer)
    for info in graph.input:
        scope[info.name] = prefix + info.name
    for init in graph.initializer:
        scope[init.name] = prefix + init.name
    for node in graph.node:
        for name in node.output:
            if name:
                scope[name] = prefix + name
    return scope


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


def _expression(text: str) -> int | str | None:
    """A dim_param that reads as a dim expression, in canonical form; else (a name such as "batch size")
    an unknown dim."""
    try:
        return dims.parse(text)
    except ValueError:
        return None


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


def _type_text(proto: onnx.TypeProto) -> str | None:
    """A type that is not a tensor (a sequence, an optional, a map), as the answer names it: `seq(f32)`;
    None where the file leaves it unset."""
    kind = proto.WhichOneof("value")
    if kind == "tensor_type":
        return _dtype(proto.tensor_type.elem_type) or "?"
    if kind == "sparse_tensor_type":
        return f"sparse({_dtype(proto.sparse_tensor_type.elem_type) or '?'})"
    if kind == "sequence_type":
        return f"seq({_type_text(proto.sequence_type.elem_type) or '?'})"
    if kind == "optional_type":
        return f"optional({_type_text(proto.optional_type.elem_type) or '?'})"
    if kind == "map_type":
        key = _dtype(proto.map_type.key_type) or "?"
        return f"map({key}, {_type_text(proto.map_type.value_type) or '?'})"
    return None


class _Reader:
    def __init__(
        self,
        graph: onnx.GraphProto,
        opset: int,
        settings: Settings,
        inferred: dict[str, onnx.ValueInfoProto] | None = None,
        errors: dict[str, list[str]] | None = None,
    ):
        self.g = graph
        self.opset = opset
        self.settings = settings
        self.problems: list = []
        self.reduce_max: dict[Any, Translate] = {}  # by signature: opset and attributes
        self.rows: dict[str, translations.Row | None] = {}  # each op type's translation row, found once
        self.inferred = inferred or {}
        self.errors = errors or {}
        self.engine_types: dict[bytes, Value] = {}
        self.engine_values: dict[str, Value | None] = {}  # value name -> engine(name)
        self.names: list[tuple[list[str], list[str]]] | None = None  # the main graph's nodes' (parse)
        self.nodes: list[Node] = []
        self.inputs: dict[str, Value] = {}
        self.declared: dict[str, Value] = {}
        self.opsets: dict[str, int] = {}  # the model's opset_import, by domain
        self.functions: set[tuple[str, str]] = set()  # (domain, name) of the model's own functions
        self.schemas: dict[tuple[str, str], bool] = {}
        self.engine_names = False  # some dim is a name an engine made up (Graph.engine_names)
        # ONNX's graph-level rules, read along (onnx_graph.py), and the scope of the graph being read
        self.rules = onnx_graph.Rules(0, _text, self.problems)
        self.scope_rules: onnx_graph.Scope | None = None

    def value(self, info: onnx.ValueInfoProto, where: str) -> Value:
        kind = info.type.WhichOneof("value")
        if kind != "tensor_type":
            return Value(_type_text(info.type), None)
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
                if dim.dim_value < 0:  # onnx.checker accepts it and onnxruntime reads it as unknown
                    self.problems.append(
                        diagnostic(
                            "graph.unknown_dim",
                            f"{where}.shape[{axis}]",
                            f"dim_value {dim.dim_value} is negative: taken as an unknown dim, as onnxruntime "
                            "reads it (write it as a dim_param, or leave it unset)",
                        )
                    )
                    shape.append(None)
                else:
                    shape.append(dim.dim_value)
            elif which == "dim_param" and SYMBOL.match(symbol := _text(dim.dim_param)):
                shape.append(symbol)
                if ENGINE_MADE.match(symbol):
                    self.engine_names = True
            elif which == "dim_param":  # an expression, as exporters write "past_sequence_length + 1"
                shape.append(_expression(symbol))
            else:
                shape.append(None)  # unnamed
        return Value(_dtype(tensor.elem_type), tuple(shape))

    def tensor(self, tensor: onnx.TensorProto, where: str) -> Value:
        _refuse_external(tensor, where)
        dims: Shape = tuple(int(d) for d in tensor.dims)
        value = Value(_dtype(tensor.data_type), dims)
        count = math.prod(dims)  # exact: np.prod would wrap past int64
        if value.dtype in DTYPES and count <= SMALL_CONSTANT and where not in self.rules.unreadable:
            try:
                value.data = numpy_helper.to_array(tensor).astype(DTYPES[value.dtype].numpy)
            except (ValueError, TypeError) as exc:
                self.problems.append(
                    diagnostic("graph.constant", where, f"{where}'s values do not read: {exc}")
                )
        return value

    def graph(self) -> Graph:
        self.read(self.g, "", "", {})
        for name in list(self.errors):  # an error inference named no node of ours for: said on the graph
            for message in self.errors.pop(name):
                self.problems.append(
                    diagnostic("onnx.shape_inference", "graph", f"node {shown(name)}: {message}")
                )
        return Graph(
            FORMAT, "onnxruntime", self.nodes, self.inputs, self.problems, engine="onnx",
            engine_names=self.engine_names,
        )  # fmt: skip

    def read(self, g: onnx.GraphProto, ids: str, where: str, outer: dict[str, str]) -> None:
        """A graph's declared types, initializers and nodes; a node's subgraphs come just before it (they
        read values made before it), their values named in their own scope (`3.then_branch/x`)."""
        scope = _scope(g, _value_prefix(ids), outer)
        parent = self.scope_rules
        rules = self.scope_rules = self.rules.enter(g, where, parent)
        declared = self.declared
        seen: dict[bytes, Value] = {}  # a model declares the same few types thousands of times over
        for group, place in (
            (g.input, f"{where}graph.input"),
            (g.value_info, f"{where}graph.value_info"),
            (g.output, f"{where}graph.output"),
        ):
            for index, info in enumerate(group):
                key = info.type.SerializeToString()
                value = seen.get(key)
                if value is None:
                    before = len(self.problems)
                    value = self.value(info, f"{place}[{index}]")
                    if len(self.problems) == before:  # a type with a finding is read again, so each is named
                        seen[key] = value
                name = _text(info.name)
                declared[scope.get(name, name)] = value
        for info in g.input:
            name = _text(info.name)
            self.inputs[scope.get(name, name)] = declared[scope.get(name, name)]
        for index, init in enumerate(g.initializer):
            name = _text(init.name)
            self.inputs[scope.get(name, name)] = self.tensor(init, f"{where}graph.initializer[{index}]")
        nodes = self.nodes
        node = self.node
        sliced = self.names if g is self.g else None  # (the main graph's names, sliced before inference)
        for index, proto in enumerate(g.node):
            path = ""  # node() names it, but for a node that holds subgraphs, named here for theirs
            if proto.op_type in SUBGRAPH_OPS:
                path = f"{where}node[{_text(proto.name) or f'#{index}'}]"
                for attr, body in _subgraphs(proto):
                    self.read(body, f"{ids}{index}.{attr}.", f"{path}.attribute.{attr}.", scope)
                self.scope_rules = rules
            elif where:
                path = f"{where}node[{_text(proto.name) or f'#{index}'}]"
            nodes.append(node(index, proto, declared, ids, path, scope, sliced[index] if sliced else None))
        rules.leave(g)
        self.scope_rules = parent

    def schema(self, domain: str, op_type: str) -> bool:
        """Whether ONNX's inference knows the op: a schema of its domain at the model's opset, or a
        function the model defines (ONNX infers through its body)."""
        key = (domain, op_type)
        known = self.schemas.get(key)
        if known is None:
            version = self.opsets.get(domain, self.opset if domain in DEFAULT_DOMAINS else 0)
            try:
                onnx.defs.get_schema(op_type, max_inclusive_version=version, domain=domain)
                known = True
            except onnx.defs.SchemaError:
                known = key in self.functions
            self.schemas[key] = known
        return known

    def row(self, op_type: str) -> translations.Row | None:
        if op_type not in self.rows:
            self.rows[op_type] = translations.lookup(FORMAT, op_type, self.opset)
        return self.rows[op_type]

    def typed(self, name: str) -> bool:
        """Whether a value's type was known to ONNX's inference: inferred, or declared by the file."""
        value = self.engine(name) or self.declared.get(name) or self.inputs.get(name)
        return value is not None and value.dtype is not None

    def engine(self, name: str) -> Value | None:
        """The type ONNX's inference gives a value (each asked for by its producer and every consumer:
        looked up once)."""
        if name in self.engine_values:
            return self.engine_values[name]
        info = self.inferred.get(name)
        if info is None:
            value = None
        else:
            key = info.type.SerializeToString()
            value = self.engine_types.get(key)
            if value is None:
                sink, self.problems = self.problems, []  # its odd dims are said where the file writes them
                value = self.engine_types[key] = self.value(info, "")
                self.problems = sink
        self.engine_values[name] = value
        return value

    def node(
        self,
        index: int,
        proto: onnx.NodeProto,
        declared: dict[str, Value],
        ids: str = "",
        path: str = "",
        scope: dict[str, str] | None = None,
        names: tuple[list[str], list[str]] | None = None,
    ) -> Node:
        name, op_type, domain = proto.name, proto.op_type, proto.domain
        in_names, out_names = names or (proto.input[:], proto.output[:])  # lists, made in C
        try:  # one test for every name of the node, in the usual all-ASCII case
            plain = "".join([name, op_type, *in_names, *out_names]).isascii()
        except TypeError:  # a bytes among them: a proto2 string that is not UTF-8
            plain = False
        if not plain:
            name, op_type = _text(name), _text(op_type)
            in_names, out_names = [_text(n) for n in in_names], [_text(n) for n in out_names]
        path = path or f"node[{name or f'#{index}'}]"
        if self.scope_rules is not None:  # (the reader reads If, Loop and Scan bodies itself)
            self.scope_rules.node(
                index, proto, in_names, out_names, path, own_bodies=op_type not in SUBGRAPH_OPS
            )
        standard = domain in DEFAULT_DOMAINS
        outputs = (
            out_names if all(out_names) else [n or f"{path}.output[{k}]" for k, n in enumerate(out_names)]
        )
        if scope:  # inside a subgraph: its own values by their scoped names, the outer ones as named there
            in_names = [scope.get(n, n) if n else n for n in in_names]
            outputs = [scope.get(n, n) for n in outputs]
        node_id = f"{ids}{index}"
        node = Node(
            node_id,
            name,
            op_type if standard else f"{_text(domain)}.{op_type}",
            path,
            in_names if all(in_names) else [n or None for n in in_names],
            outputs,
            [],  # declared_inputs: in ONNX, only what flows
            list(map(declared.get, outputs)),  # declared_outputs
            input_paths="{path}.input[{index}]",
            output_paths="{path}.output[{index}]",
        )
        schema = self.schema(_text(domain), op_type)
        found = self.errors.pop(node_id, None) if self.errors else None
        inside = [m for m in found or () if _IN_FUNCTION.search(m)]
        if self.inferred and schema and not inside:
            # An output the file declares whole is ONNX's inferred type too (strict inference refuses a
            # declared type it infers otherwise), and opspec checks it against the declared one already.
            engine = self.engine
            node.engine_outputs = [
                None
                if v is not None and v.dtype is not None and v.shape is not None and None not in v.shape
                else engine(n)
                for n, v in zip(outputs, node.declared_outputs, strict=True)
            ]
            # ONNX's inference ran on the node only with its schema and every input's type known
            node.engine_checked = all(not n or self.typed(n) for n in in_names)
        if found:
            echoes = [m for m in found if _ECHO.search(m) and m not in inside]
            node.engine_echoes = [
                diagnostic("onnx.shape_inference", path, f"ONNX shape inference: {m}") for m in echoes
            ] or None
            node.engine_findings = [
                diagnostic(
                    "onnx.shape_inference",
                    path,
                    f"ONNX's inference fails inside its own definition of {op_type} (a function body, not this "
                    f"file), so ONNX does not type this node: {m}",
                    "warning",
                )
                if m in inside
                else diagnostic("onnx.shape_inference", path, f"ONNX shape inference: {m}")
                for m in found
                if m not in echoes
            ] or None
        if not standard:
            return node
        if op_type == "Max":
            node.translate = _max
            node.signature = MAX_SIGNATURE
        elif op_type in ONNX_REDUCTIONS and op_type in REGISTRY:
            # A model repeats a few attribute sets: one translation function for each, read once.
            node.signature = (op_type, self.opset, tuple([a.SerializeToString() for a in proto.attribute]))
            node.translate = self.reduce_max.get(node.signature)
            if node.translate is None:
                attrs = {a.name: a for a in proto.attribute}
                node.translate = self.reduce_max[node.signature] = _reduce(op_type, self.opset, attrs)
        elif op_type == "Constant":
            node.structural = True
            node.constant = self.constant({a.name: a for a in proto.attribute}, path)
        elif (row := self.row(op_type)) is not None:
            node.signature = (op_type, self.opset, tuple([a.SerializeToString() for a in proto.attribute]))
            node.translate = self.reduce_max.get(node.signature)
            if node.translate is None:
                native = {a.name: onnx.helper.get_attribute_value(a) for a in proto.attribute}
                node.translate = self.reduce_max[node.signature] = translations.translator(
                    row, native, self.opset, f"ONNX (opset {self.opset})", _input_path, _attr_path
                )
        elif (FORMAT, op_type) in translations.NOT_THE_SAME:
            node.signature = (op_type,)
            node.translate = _not_the_same(translations.NOT_THE_SAME[FORMAT, op_type])
        return node

    def constant(self, attrs: dict[str, onnx.AttributeProto], path: str) -> Value:
        for a in proto_tensors(attrs.values()):
            _refuse_external(a, f"{path}.attribute.value")
        if "value" in attrs:
            return self.tensor(attrs["value"].t, f"{path}.attribute.value")
        kinds = onnx.AttributeProto
        for name, dtype, kind in (
            ("value_int", "s64", kinds.INT),
            ("value_float", "f32", kinds.FLOAT),
            ("value_ints", "s64", kinds.INTS),
            ("value_floats", "f32", kinds.FLOATS),
        ):
            if name in attrs:
                if attrs[name].type != kind:  # (ONNX's checker refuses it: the value is not known)
                    return Value(None, None)
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


def _input_path(node: Node, index: int) -> str:
    return f"{node.path}.input[{index}]"


def _attr_path(node: Node, name: str) -> str:
    return f"{node.path}.attribute.{name}"


def _not_the_same(why: str) -> Translate:
    def translate(node: Node, inputs: list[Value | None]) -> Translation:
        return Translation(None, why=why)

    return translate


def _max(node: Node, inputs: list[Value | None]) -> Translation:
    values = [v or Value(None, None) for v in inputs]
    descriptor = {"kind": "Max", "inputs": [wire_tensor(v) for v in values]}
    return Translation(with_declared_outputs(node, descriptor), lambda: _paths(node, len(values)))


def _ints(attr: onnx.AttributeProto | None, default: int) -> int:
    return default if attr is None else int(attr.i)


def _reduce(kind: str, opset: int, attrs: dict[str, onnx.AttributeProto]):
    """ONNX's ReduceMax (ReduceSum, ReduceMin...) as the oneDNN reduction that computes the same thing."""
    keepdims = _ints(attrs.get("keepdims"), 1)
    noop = _ints(attrs.get("noop_with_empty_axes"), 0)
    since = ONNX_REDUCTIONS[kind]  # the opset from which the axes are an input

    def translate(node: Node, inputs: list[Value | None]) -> Translation:
        src = inputs[0] if inputs else None
        extra = {"attrs.keep_dims": f"{node.path}.attribute.keepdims"}

        def paths() -> dict[str, str]:
            return _paths(node, len(inputs)) | extra

        head = f"ONNX {kind} (opset {opset}, keepdims={keepdims}"
        head += f", noop_with_empty_axes={noop})" if opset >= since else ")"
        why = translations.dtypes_differ(REGISTRY[kind], inputs[:1])
        if why:
            return Translation(None, why=f"{head} on {why}")
        axes: list[int] | None = None
        axes_input: Value | None = None
        if "axes" in attrs:  # before the axes became an input; accepted after too, as onnx.reference does
            axes = [int(a) for a in attrs["axes"].ints]
            extra["attrs.axes"] = f"{node.path}.attribute.axes"
            source = "the axes attribute"
        elif len(inputs) > 1 and inputs[1] is not None:
            given = inputs[1]
            length = None if given.shape is None or len(given.shape) != 1 else given.shape[0]
            if given.data is not None:
                axes = [int(a) for a in given.data.reshape(-1)]
                extra["attrs.axes"] = f"{node.path}.input[1]"
                source = "the constant axes input" if axes else "an empty constant axes input"
            elif length == 0:  # its values unknown, but there are none: the same as no axes
                axes, source = [], "an empty axes input (shape [0])"
            elif type(length) is int:
                axes_input = given
                source = f"the axes input ({length} axes, values unknown)"
            else:
                return Translation(
                    None,
                    why=f"{head} with an axes input of unknown length: ONNX "
                    + ("returns the input" if noop else "reduces every axis")
                    + " should it be empty at run time, which no oneDNN descriptor does",
                )
        else:
            axes, source = [], "no axes"
        keep = bool(keepdims)
        rank = None if src is None or src.shape is None else len(src.shape)
        values = [wire_tensor(v or Value(None, None)) for v in inputs[:1]]
        if axes_input is not None:
            shape = (1,) if axes_input.shape == () else axes_input.shape
            values.append(wire_tensor(Value(axes_input.dtype, shape), "s32"))
            note = f"{head} with {source} is checked as {kind} with opspec's 1-D s32 axes input, keep_dims={keep}"
            descriptor = {"kind": kind, "attrs": {"keep_dims": keep}, "inputs": values}
            return Translation(with_declared_outputs(node, descriptor), paths, [note])
        assert axes is not None
        if not axes and not noop:
            if rank is None:
                return Translation(
                    None,
                    why=f"{head} with {source} reduces every axis, but the input's rank is unknown, so no "
                    f"{kind} descriptor with a fixed axes list computes the same thing",
                )
            axes = list(range(rank))
            what = f"{source}: every axis, axes={axes}"
        elif not axes:
            what = f"{source} and noop_with_empty_axes=1: the identity, axes=[]"
        else:
            what = f"{source} {axes}"
        note = f"{head} with {what} is checked as {kind} with axes={axes}, keep_dims={keep}"
        descriptor = {"kind": kind, "attrs": {"axes": axes, "keep_dims": keep}, "inputs": values}
        return Translation(with_declared_outputs(node, descriptor), paths, [note])

    return translate
