"""OpenVINO IR v10 / v11: the XML (`net.xml`) and, when given, its weights (`net.bin`).

    <net name="g" version="11"><layers>
      <layer id="2" name="SegmentMax_4" type="SegmentMax" version="opset16">
        <data fill_mode="zero"/>
        <input><port id="0" precision="FP32"><dim>-1</dim><dim>4</dim></port>...</input>
        <output><port id="2" precision="FP32"><dim>3</dim><dim>4</dim></port></output>
      </layer>...</layers>
    <edges><edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>...</edges></net>

Read with expat, DTDs and entities refused outright (as defusedxml's forbid_dtd does), so neither an
entity bomb nor an external entity can be expressed. Const layers take their values from the weights
at `offset`/`size`. Paths name the layer by id: `layer[2].data.fill_mode`, `layer[2].input.port[1]`,
`layer[2].output.port[2].dim[0]`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

import numpy as np

from app.core.config import Settings
from app.core.diagnostics import Related
from app.core.dtypes import DTYPES
from app.core.numbers import clip
from app.core.payload import LimitExceeded
from app.formats import translations
from app.formats.errors import Malformed, shown
from app.formats.graph import (
    SMALL_CONSTANT,
    Graph,
    Node,
    Translation,
    Value,
    diagnostic,
    file_dtype,
    rank_fits,
    wire_tensor,
    with_declared_outputs,
)
from app.ops import BY_NAME

FORMAT = "openvino"
STRUCTURAL = frozenset({"Parameter", "Result", "Const"})
# OpenVINO layer types opspec checks: (type, versions) -> the opspec kind.
KINDS = {"SegmentMax": ("SegmentMax", {"opset16"}), "ReduceMax": ("ReduceMax", {"opset1"})}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    line: int
    column: int
    children: list[Element] = field(default_factory=list)
    text: str = ""

    def child(self, tag: str) -> Element | None:
        return next((c for c in self.children if c.tag == tag), None)

    def all(self, tag: str) -> list[Element]:
        return [c for c in self.children if c.tag == tag]


def _refuse(what: str):
    def handler(*_: Any) -> None:
        raise ValueError(f"{what} are refused: an IR file has none, and they can expand without bound")

    return handler


def parse_xml(data: bytes, settings: Settings) -> Element:
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse("DTDs (<!DOCTYPE>)")
    parser.EntityDeclHandler = _refuse("entity declarations")
    parser.UnparsedEntityDeclHandler = _refuse("entity declarations")
    parser.ExternalEntityRefHandler = _refuse("external entities")
    stack: list[Element] = []
    root: list[Element] = []
    count = [0]

    def start(tag: str, attrs: dict[str, str]) -> None:
        if len(stack) >= settings.max_graph_depth:
            raise LimitExceeded(
                "file",
                "max_graph_depth",
                f"the XML nests deeper than {settings.max_graph_depth} levels (max_graph_depth)",
            )
        if tag == "layer":
            count[0] += 1
            if count[0] > settings.max_graph_nodes:
                raise LimitExceeded(
                    "layers", "max_graph_nodes",
                    f"the IR has more than {settings.max_graph_nodes:,} layers (max_graph_nodes)",
                )  # fmt: skip
        element = Element(tag, attrs, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        (stack[-1].children if stack else root).append(element)
        stack.append(element)

    def end(tag: str) -> None:
        stack.pop()

    def text(chars: str) -> None:
        if stack and stack[-1].tag == "dim":
            stack[-1].text += chars

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise Malformed(f"not XML: {expat.ErrorString(exc.code)}", "", exc.lineno, exc.offset + 1) from None
    except ValueError as exc:
        raise Malformed(str(exc), "", parser.CurrentLineNumber, parser.CurrentColumnNumber + 1) from None
    return root[0]


def parse(data: bytes, settings: Settings, weights: bytes | None = None) -> Graph:
    graph = _Reader(parse_xml(data, settings), weights, settings).graph()
    if weights is not None or not any(node.kind == "Const" for node in graph.nodes):
        _engine(graph, data, weights or b"")
    return graph


def _engine(graph: Graph, data: bytes, weights: bytes) -> None:
    """With OpenVINO installed, the IR read by OpenVINO itself: every layer's outputs as its own
    validate_and_infer_types gives them (engine_outputs), and a declared output dim that disagrees is
    an error at that dim. Without OpenVINO, the declared dims flow as the file writes them."""
    try:
        import openvino as ov
    except ImportError:
        return
    try:
        model = ov.Core().read_model(model=data, weights=ov.Tensor(np.frombuffer(weights or b"\0", np.uint8)))
    except Exception as exc:  # OpenVINO refuses the IR: said on the graph, the declared types still flow
        if any(d.severity == "error" and d.rule.startswith(_STRUCTURE) for d in graph.diagnostics):
            return  # a broken edge or a Const outside its weights: said where it is, OpenVINO's refusal echoes it
        graph.diagnostics.append(
            diagnostic(
                "openvino.inference",
                "net",
                f"OpenVINO does not read this IR: {clip(str(exc), 400)}",
                "warning",
            )
        )
        return
    graph.engine = "openvino"
    by_name: dict[str, list[Node]] = {}
    for node in graph.nodes:
        by_name.setdefault(node.name, []).append(node)
    for op in model.get_ordered_ops():
        found = by_name.get(op.get_friendly_name())
        if not found or len(found) != 1:
            continue  # a name the IR writes twice: which layer it is cannot be told
        node = found[0]
        if node.structural:
            continue
        outputs = [_ov_value(output) for output in op.outputs()]
        node.engine_outputs = outputs
        node.engine_checked = True  # read_model ran the op's validate_and_infer_types
        findings = []
        for index, (declared, theirs) in enumerate(zip(node.declared_outputs, outputs, strict=False)):
            if declared is None or declared.shape is None or theirs.shape is None:
                continue
            port = node.outputs[index].split(":")[1] if ":" in node.outputs[index] else str(index)
            if len(declared.shape) != len(theirs.shape):
                findings.append(
                    diagnostic("openvino.inference", f"{node.path}.output.port[{port}]",
                               f"output port {port} declares rank {len(declared.shape)}, but OpenVINO infers "
                               f"{_dims(theirs.shape)}")
                )  # fmt: skip
                continue
            for axis, (mine, other) in enumerate(zip(declared.shape, theirs.shape, strict=True)):
                if isinstance(mine, int) and isinstance(other, int) and mine != other:
                    findings.append(
                        diagnostic("openvino.inference", f"{node.path}.output.port[{port}].dim[{axis}]",
                                   f"output port {port} declares {mine} in dim {axis}, but OpenVINO infers "
                                   f"{other} ({_dims(theirs.shape)})")
                    )  # fmt: skip
        if findings:
            # a declared port that OpenVINO infers otherwise: where opspec checks the layer, its own
            # `<Op>.outputs.*` rule names the same fault, and this is not repeated (graph._engine)
            node.engine_echoes = findings


# Faults of the IR's structure that OpenVINO refuses to read it for, said at their place by the reader
_STRUCTURE = ("graph.edge", "graph.constant")


def _ov_value(output: Any) -> Value:
    dtype = _dtype(output.get_element_type().get_type_name())
    shape = output.get_partial_shape()
    if shape.rank.is_dynamic:
        return Value(dtype, None)
    return Value(dtype, tuple(d.get_length() if d.is_static else None for d in shape))


def _dtype(name: str | None) -> str | None:
    """An element type as the IR writes it, by opspec's name where it has one; else in one case, as a port's
    precision (F8E4M3) and a layer's element_type (f8e4m3) spell the same type two ways."""
    dtype = file_dtype(name)
    return dtype.lower() if dtype is not None and dtype not in DTYPES else dtype


def _dims(shape: tuple) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def _malformed(message: str, element: Element, path: str = "") -> Malformed:
    return Malformed(message, path, element.line, element.column)


class _Reader:
    def __init__(self, root: Element, weights: bytes | None, settings: Settings):
        self.root = root
        self.weights = weights
        self.settings = settings
        self.problems: list = []
        self.positions: dict[str, tuple[int, int]] = {}

    def mark(self, path: str, element: Element) -> str:
        self.positions[path] = (element.line, element.column)
        return path

    def graph(self) -> Graph:
        root = self.root
        if root.tag != "net":
            raise _malformed(f"an IR file's root element is <net>, not <{root.tag}>", root)
        version = root.attrs.get("version")
        if version not in ("10", "11"):
            raise _malformed(
                f"IR version {shown(version)} is not one this reader knows (10, 11)", root, "net.version"
            )
        layers = root.child("layers")
        if layers is None:
            raise _malformed("<net> has no <layers>", root)
        nodes: list[Node] = []
        by_id: dict[str, Node] = {}
        ports: dict[str, dict[str, int]] = {}  # layer id -> input port id -> input index
        for layer in layers.all("layer"):
            node, inputs = self.layer(layer)
            if node.id in by_id:
                raise _malformed(f"layer id {node.id} is used twice", layer, node.path)
            by_id[node.id] = node
            ports[node.id] = inputs
            nodes.append(node)
        edges = root.child("edges")
        fed: dict[tuple[str, str], int] = {}  # (layer id, input port id) -> the edge that feeds it
        broken: set[tuple[str, str | None]] = set()  # input ports (None: any of the layer's) a bad edge meant
        for index, edge in enumerate(edges.all("edge") if edges is not None else []):
            self.edge(index, edge, by_id, ports, fed, broken)
        inputs = self.unconnected(nodes, broken)
        self.mark("net", root)
        consts = [node for node in nodes if node.kind == "Const"]
        if self.weights is None and consts:
            self.problems.insert(
                0,
                diagnostic(
                    "graph.weights",
                    "net",
                    f"no weights (.bin) came with this IR: the values of its {len(consts):,} Const layers are "
                    "unknown, so shapes that need them (axes, a Reshape's shape) are unknown; give the .bin "
                    "beside the .xml, or send it as the multipart part `weights`",
                ),
            )
        return Graph(FORMAT, "openvino", nodes, inputs, self.problems, self.positions)

    def edge(
        self,
        index: int,
        edge: Element,
        by_id: dict[str, Node],
        ports: dict[str, dict[str, int]],
        fed: dict[tuple[str, str], int],
        broken: set[tuple[str, str | None]],
    ) -> None:
        """An <edge> joins an output port of one layer to an input port of another, and each input port has
        one edge. A bad edge is one finding here; the input port it leaves without an edge is not said
        again."""
        path = self.mark(f"edges[{index}]", edge)
        keys = ("from-layer", "from-port", "to-layer", "to-port")
        if any(key not in edge.attrs for key in keys):
            raise _malformed(f"an <edge> needs {', '.join(keys)}", edge, path)
        source, port, target, slot = (edge.attrs[key] for key in keys)
        if target not in by_id or slot not in ports[target]:
            broken.add((target, None))
            what = (
                f"layer {target} has no input port {slot}"
                if target in by_id
                else f"there is no layer {target}"
            )
            self.problems.append(
                diagnostic("graph.edge", path, f"edge {index} goes to layer {target} port {slot}, but {what}")
            )
            return
        if source not in by_id or f"{source}:{port}" not in by_id[source].outputs:
            broken.add((target, slot))
            what = (
                f"layer {source} has no output port {port}"
                if source in by_id
                else f"there is no layer {source}"
            )
            self.problems.append(
                diagnostic(
                    "graph.edge", path, f"edge {index} comes from layer {source} port {port}, but {what}"
                )
            )
            return
        first = fed.setdefault((target, slot), index)
        if first != index:
            finding = diagnostic(
                "graph.edge",
                path,
                f"edge {index} goes to layer {target} port {slot}, which edge {first} feeds already; an input port "
                "has one edge",
            )
            finding.related = [Related(path=f"edges[{first}]", message=f"edge {first} feeds it")]
            self.problems.append(finding)
            return
        by_id[target].inputs[ports[target][slot]] = f"{source}:{port}"

    def unconnected(self, nodes: list[Node], broken: set[tuple[str, str | None]]) -> dict[str, Value]:
        """Input ports no edge feeds: a finding at each, unless a bad edge meant to feed it (said there).
        Each reads what its port declares, as a graph input would, so its layer is still checked."""
        inputs: dict[str, Value] = {}
        for node in nodes:
            for index, name in enumerate(node.inputs):
                if name is None or not name.endswith(":unconnected"):
                    continue
                port = name.split(":")[1]
                declared = node.declared_inputs[index] if index < len(node.declared_inputs) else None
                inputs[name] = declared or Value(None, None)
                if (node.id, port) in broken or (node.id, None) in broken:
                    continue
                self.problems.append(
                    diagnostic("graph.edge", _input_path(node, index),
                               f"input port {port} of layer {node.id} ({node.name}) has no <edge>; an input port has "
                               "one edge")
                )  # fmt: skip
        return inputs

    def layer(self, layer: Element) -> tuple[Node, dict[str, int]]:
        lid, kind = layer.attrs.get("id"), layer.attrs.get("type")
        if lid is None or kind is None:
            raise _malformed("a <layer> needs id and type", layer)
        path = self.mark(f"layer[{lid}]", layer)
        data = layer.child("data")
        attrs = dict(data.attrs) if data is not None else {}
        if data is not None:
            self.mark(f"{path}.data", data)
            for key in attrs:
                self.positions[f"{path}.data.{key}"] = (data.line, data.column)
        inputs, outputs = layer.child("input"), layer.child("output")
        in_ports = inputs.all("port") if inputs is not None else []
        out_ports = outputs.all("port") if outputs is not None else []
        declared_inputs = [self.port(p, f"{path}.input") for p in in_ports]
        declared_outputs = [self.port(p, f"{path}.output") for p in out_ports]
        version = layer.attrs.get("version", "")
        if kind in ("Parameter", "Const") and declared_outputs and declared_outputs[0] is not None:
            declared_outputs[0] = self.own_type(
                attrs, declared_outputs[0], path, out_ports[0].attrs.get("id")
            )
        node = Node(
            id=lid,
            name=layer.attrs.get("name", ""),
            kind=kind,
            path=path,
            inputs=[f"{lid}:{p.attrs.get('id')}:unconnected" for p in in_ports],
            outputs=[f"{lid}:{p.attrs.get('id')}" for p in out_ports],
            declared_inputs=declared_inputs,
            declared_outputs=declared_outputs,
            structural=kind in STRUCTURAL,
            input_paths=[f"{path}.input.port[{p.attrs.get('id')}]" for p in in_ports],
            output_paths=[f"{path}.output.port[{p.attrs.get('id')}]" for p in out_ports],
        )
        if kind == "Const":
            node.constant = self.constant(layer, attrs, declared_outputs, path)
        elif kind == "Parameter" and declared_outputs and declared_outputs[0] is not None:
            declared_outputs[0].note = _intervals(attrs.get("shape", ""), node.name)
        elif kind in KINDS:
            opspec_kind, versions = KINDS[kind]
            node.translate = _translate(opspec_kind, attrs, in_ports, out_ports, version in versions, version)
            ports = tuple(p.attrs.get("id") for p in in_ports), tuple(p.attrs.get("id") for p in out_ports)
            node.signature = (kind, version, tuple(sorted(attrs.items())), ports)
        elif (row := translations.lookup(FORMAT, kind, version=version)) is not None:
            node.translate = translations.translator(
                row, attrs, 0, f"OpenVINO ({version})", _input_path, _attr_path
            )
            ports = tuple(p.attrs.get("id") for p in in_ports), tuple(p.attrs.get("id") for p in out_ports)
            node.signature = (kind, version, tuple(sorted(attrs.items())), ports)
        return node, {p.attrs.get("id", ""): k for k, p in enumerate(in_ports)}

    def own_type(self, attrs: dict[str, str], port: Value, path: str, pid: str | None) -> Value:
        """A Parameter's or Const's type is its element_type and shape attributes: OpenVINO reads those
        and not the output port, which only repeats them. A port that says otherwise is one finding there,
        and the value is what the attributes say (so its readers are held to that, once)."""
        dtype = _dtype(attrs["element_type"]) if "element_type" in attrs else port.dtype
        shape = port.shape
        if "shape" in attrs:
            before = len(self.problems)
            given = self.shape_attr(attrs["shape"], f"{path}.data.shape")
            if len(self.problems) == before:
                shape = given
        where = f"{path}.output.port[{pid}]"
        if port.dtype is not None and dtype is not None and port.dtype != dtype:
            finding = diagnostic(
                "graph.edge.dtype",
                f"{where}.precision",
                f"output port {pid} declares {port.dtype}, but the layer's element_type is {dtype}",
            )
            finding.related = [Related(path=f"{path}.data.element_type", message=f"element_type {dtype}")]
            self.problems.append(finding)
        elif (
            port.shape is not None
            and shape is not None
            and port.shape != shape
            and (
                len(port.shape) != len(shape)
                or any(
                    a is not None and b is not None and a != b for a, b in zip(port.shape, shape, strict=True)
                )
            )
        ):
            finding = diagnostic(
                "graph.edge.shape",
                where,
                f"output port {pid} declares {_dims(port.shape)}, but the layer's shape is {_dims(shape)}",
            )
            finding.related = [Related(path=f"{path}.data.shape", message=f"shape {_dims(shape)}")]
            self.problems.append(finding)
        if (dtype, shape) == (port.dtype, port.shape):
            return port
        return Value(dtype, shape, note=port.note)

    def port(self, port: Element, side: str) -> Value:
        pid = port.attrs.get("id")
        if pid is None:
            raise _malformed("a <port> needs an id", port)
        path = self.mark(f"{side}.port[{pid}]", port)
        dims: list[int | None] = []
        for axis, dim in enumerate(port.all("dim")):
            self.mark(f"{path}.dim[{axis}]", dim)
            dims.append(self.dim(dim.text.strip(), f"{path}.dim[{axis}]"))
        if not dims or not rank_fits(len(dims), path, self.settings, self.problems):
            # A port with no <dim> is how OpenVINO writes both a scalar and a tensor of unknown rank; only
            # a Parameter's or Const's `shape` attribute tells them apart (layer() reads it)
            return Value(_dtype(port.attrs.get("precision")), None)
        return Value(_dtype(port.attrs.get("precision")), tuple(dims))

    def shape_attr(self, text: str, path: str) -> tuple[int | None, ...] | None:
        """A Parameter's or Const's `shape` attribute: "" a scalar, "..." unknown rank, else its dims."""
        if text.strip() == "...":
            return None
        dims = [part.strip() for part in text.split(",")] if text.strip() else []
        return tuple(self.dim(dim, f"{path}[{axis}]") for axis, dim in enumerate(dims))

    def dim(self, text: str, path: str) -> int | None:
        if text in ("-1", "?") or ".." in text:
            return None
        try:
            value = int(text)
        except ValueError:
            value = -2
        if value < 0:
            self.problems.append(
                diagnostic("graph.dim", path, f"dim {text[:40]!r} is not a dim; IR dims are integers >= 0, -1 or ? for "
                           "unknown, or an interval such as 1..10")
            )  # fmt: skip
            return None
        return value

    def constant(
        self, layer: Element, attrs: dict[str, str], declared: list[Value | None], path: str
    ) -> Value:
        """A Const's value (its type as own_type read it), and with the weights, where its bytes lie: inside
        the .bin, at least as many as its elements need (OpenVINO reads the first that many of a larger
        size, and its serializer writes one byte for a Const of no elements)."""
        out = (
            declared[0]
            if declared and declared[0] is not None
            else Value(_dtype(attrs.get("element_type")), None)
        )
        dtype, shape = out.dtype, out.shape
        value = Value(dtype, shape)
        if self.weights is None:
            return value
        try:
            offset, size = int(attrs["offset"]), int(attrs["size"])
        except (KeyError, ValueError):
            self.problems.append(
                diagnostic("graph.constant", f"{path}.data", "a Const needs integer offset and size")
            )
            return value
        if offset < 0 or size < 0 or offset + size > len(self.weights):
            self.problems.append(
                diagnostic("graph.constant", f"{path}.data.offset",
                           f"the Const's {size:,} bytes at offset {offset:,} lie outside the {len(self.weights):,}-byte "
                           "weights")
            )  # fmt: skip
            return value
        if dtype not in DTYPES or shape is None or None in shape:
            return value
        count = math.prod(shape)  # type: ignore[arg-type]  # exact: np.prod would wrap past int64
        need = -(-count * _BITS.get(dtype, DTYPES[dtype].itemsize * 8) // 8)
        if size < need:
            self.problems.append(
                diagnostic("graph.constant", f"{path}.data.size",
                           f"the Const's {size:,} bytes cannot hold {count:,} {dtype} values of shape "
                           f"{_dims(shape)}: they need {need:,}")
            )  # fmt: skip
            return value
        if count > SMALL_CONSTANT or dtype in _BITS:
            return value  # weights: their types flow, their values are never needed
        raw = np.frombuffer(self.weights, DTYPES[dtype].numpy.newbyteorder("<"), count, offset)
        value.data = raw.astype(DTYPES[dtype].numpy).reshape(shape)
        return value


# Element types packed below a byte in the weights (OpenVINO's u4, i4).
_BITS = {"s4": 4, "u4": 4}


def _input_path(node: Node, index: int) -> str:
    paths = node.input_paths
    return paths[index] if isinstance(paths, list) and index < len(paths) else node.path


def _attr_path(node: Node, name: str) -> str:
    return f"{node.path}.data.{name}"


def _intervals(shape: str, name: str) -> str:
    """What a Parameter's data shape says about its unknown dims: `1..10,4` -> dim 0 is 1..10."""
    parts = [p.strip() for p in shape.split(",")] if shape else []
    ranges = [f"dim {axis} is {p}" for axis, p in enumerate(parts) if ".." in p]
    if not ranges:
        return ""
    return f"Parameter {name}: {', '.join(ranges)} in the file; opspec takes such a dim as unknown"


def _bool(text: str) -> Any:
    lowered = text.lower()
    return {"true": True, "false": False}.get(lowered, text)


def _translate(
    kind: str,
    attrs: dict[str, str],
    in_ports: list[Element],
    out_ports: list[Element],
    known: bool,
    version: str,
):
    in_ids = [p.attrs.get("id") for p in in_ports]
    out_ids = [p.attrs.get("id") for p in out_ports]

    def translate(node: Node, inputs: list[Value | None]) -> Translation:
        if not known:
            return Translation(None, why=f"{node.kind} version {shown(version)} is not the one opspec checks")
        paths = {
            "attrs": f"{node.path}.data",
            "inputs": f"{node.path}.input",
            "outputs": f"{node.path}.output",
        }
        paths |= {f"attrs.{key}": f"{node.path}.data.{key}" for key in attrs}
        for side, ids in (("inputs", in_ids), ("outputs", out_ids)):
            for k, pid in enumerate(ids):
                port = f"{node.path}.{side[:-1]}.port[{pid}]"
                paths[f"{side}[{k}]"] = port
                paths[f"{side}[{k}].shape"] = f"{port}.dim"
                paths[f"{side}[{k}].dtype"] = f"{port}.precision"
        values = [v or Value(None, None) for v in inputs]
        why = translations.dtypes_differ(BY_NAME[kind], values[:1])
        if why:  # OpenVINO's ReduceMax-1 takes any numeric type, oneDNN's (opspec's) floats only
            return Translation(None, why=f"OpenVINO {node.kind} ({version}) on {why}")
        notes: list[str] = []
        descriptor_attrs: dict[str, Any] = dict(attrs)
        tensors = [wire_tensor(v) for v in values]
        if kind == "ReduceMax":
            descriptor_attrs = {k: _bool(v) if k == "keep_dims" else v for k, v in attrs.items()}
            if len(values) == 2:
                axes = values[1]
                if axes.data is not None:
                    descriptor_attrs["axes"] = [int(a) for a in axes.data.reshape(-1)]
                    paths["attrs.axes"] = f"{paths['inputs[1]']}.data"
                    tensors = tensors[:1]
                    notes.append(
                        f"ReduceMax-1's constant axes input (port {in_ids[1]}) {descriptor_attrs['axes']} is "
                        "checked as the axes attribute"
                    )
                else:
                    shape = (1,) if axes.shape == () else axes.shape
                    tensors[1] = wire_tensor(
                        Value(axes.dtype, shape),
                        "s32" if axes.dtype in DTYPES and DTYPES[axes.dtype].is_integer else None,
                    )
                    notes.append(
                        f"ReduceMax-1's axes input (port {in_ids[1]}, {axes.dtype}, values unknown) is checked as "
                        "opspec's 1-D s32 axes input"
                    )
        descriptor = {"kind": kind, "attrs": descriptor_attrs, "inputs": tensors}
        return Translation(with_declared_outputs(node, descriptor), paths, notes)

    return translate
