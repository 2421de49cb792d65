"""The graph walker: native nodes in topological order, each node of a kind opspec knows checked by the
registry with the same rules as a descriptor, shapes propagated along the edges.

A reader (onednn.py, openvino.py, onnx.py) turns its file into a `Graph`: nodes with the names of the
values they read and write, the types the file declares, and for each node a `translate` function that
turns the node and the values flowing into it into a descriptor. The walker knows neither formats nor
specs: it orders the nodes, asks each reader's translation for a descriptor, hands that to the engine,
maps the diagnostics' paths back into the file's own terms and sends the inferred outputs downstream.

Where a format's own engine has typed the graph (ONNX's shape inference; OpenVINO when installed), a
node opspec does not check flows the engine's outputs and counts as checked by that engine; each node
says who checked it (`checked_by`) and who typed it (`typed_by`), and `coverage` counts the op nodes
checked by opspec, by an engine, and not at all, by kind: a node nobody checked is never valid.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any

import numpy as np

from app.core import engine, plain
from app.core.config import Settings
from app.core.diagnostics import Diagnostic, Related, Rule, Severity
from app.core.dtypes import DTYPES, canonical_dtype
from app.core.engine import IN_GRAPH
from app.core.payload import LimitExceeded, encode
from app.core.shapes import Shape, wire_shape
from app.core.symbols import GraphSymbols
from app.core.tensors import TensorType
from app.formats.errors import shown
from app.formats.jsonpos import parent
from app.ops import BY_NAME, DescriptorErrors, parse
from app.ops.parsing import describe_errors

READER = "opspec graph reader"
# oneDNN Graph JSON as oneDNN writes and reads it: the library's logical tensor and graph serialization,
# benchdnn's reader (tests/benchdnn/graph/deserialize.cpp)
ONNX_CHECKER = "ONNX IR (onnx/checker.cc: check_graph, check_value_info, check_tensor)"
ONEDNN_JSON = "oneDNN Graph JSON (logical tensor, graph serialize; benchdnn deserialize.cpp)"
RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule("graph.cycle", "The graph is a DAG: no node depends on its own output.", READER),
        Rule("graph.edge", "Every value a node reads is produced once: by one node or as a graph input.", READER),
        Rule("graph.edge.dtype", "Every declaration of a value gives it the same dtype: the producer's and each "
             "consumer's.", READER),
        Rule("graph.edge.shape", "Every declaration of a value gives it the same rank and dims (in oneDNN Graph "
             "JSON an unknown dim only where the others leave it unknown too).", READER),
        Rule("graph.edge.layout", "Every declaration of a value gives it the same layout_type and strides.", READER),
        Rule("graph.edge.property", "Every declaration of a value gives it the same property_type.", READER),
        Rule("graph.layout.type", "A logical tensor's layout_type is one of the format's: undef, any, strided, "
             "opaque.", ONEDNN_JSON),
        Rule("graph.layout.strides", "A logical tensor's strides fit its shape: one per dim, none negative, each dim's "
             "stride past the span of the dims inside it, as oneDNN's memory check orders them (a zero stride "
             "only where a graph input is read by broadcast).",
             ONEDNN_JSON),
        Rule("graph.layout.input", "A graph input is laid out by known strides: not layout_type any or opaque, "
             "not unknown strides.", ONEDNN_JSON),
        Rule("graph.property", "A logical tensor's property_type is one of the format's (undef, variable, "
             "constant, host_scalar); a host_scalar has shape [] and dtype s32, f32 or s64.", ONEDNN_JSON),
        Rule("graph.field", "The graph's own fields hold values of the format: engine_kind cpu, gpu or any; "
             "fpmath_mode strict, bf16, f16, tf32 or any; fpmath_mode_apply_to_int true or false (or 1, 0); version a "
             "release number; input_ports and output_ports lists of tensor ids.", ONEDNN_JSON),
        Rule("graph.ports", "input_ports name graph inputs and output_ports values an op produces.", ONEDNN_JSON,
             "warning"),
        Rule("graph.op.id", "Every op has an id of its own.", ONEDNN_JSON),
        Rule("graph.version", "The file uses only the ops, attributes, dtypes and property types that the oneDNN "
             "release its version names had.", ONEDNN_JSON, "warning"),
        Rule("graph.order", "Every name a node reads is made before it: the nodes are in topological order "
             "(ONNX).", ONNX_CHECKER),
        Rule("graph.input", "Graph inputs and initializers are named, each name once (ONNX's single static "
             "assignment); up to IR version 3 every initializer is a graph input.", ONNX_CHECKER),
        Rule("graph.output", "Every graph output is a value of its graph: a node's output, an input or an "
             "initializer (ONNX).", ONNX_CHECKER),
        Rule("graph.value_info", "The main graph's inputs and outputs are named and typed: a tensor's elem_type "
             "and shape (ONNX; a shape missing is a warning, as onnxruntime reads the model).", ONNX_CHECKER),
        Rule("graph.name", "Every graph (and subgraph) has a name (ONNX's checker; runtimes load one without).",
             ONNX_CHECKER, "warning"),
        Rule("graph.dim", "Every dim the file writes is a size >= 0 or one of the format's unknown-dim marks.",
             READER),
        Rule("graph.constant", "A constant's bytes lie inside the weights and hold its type and shape.", READER),
        Rule("graph.descriptor", "A node of a known kind gives what its descriptor needs (attribute types, "
             "tensor types).", READER),
        Rule("graph.translated", "A native node was checked as the opspec descriptor that computes the same "
             "thing; the diagnostic says how it was translated.", READER, "info"),
        Rule("graph.echo", "Where a value is declared otherwise than opspec infers it, the engine's findings at "
             "the nodes that read it follow from that one fault and are said once, where it is.", READER, "info"),
        Rule("graph.untranslatable", "A native node of a known kind has no exact opspec descriptor here, so "
             "it is not checked; the diagnostic says why.", READER, "info"),
        Rule("graph.unknown_dim", "A dim the file writes as a range or an unknown size is taken as unknown.",
             READER, "info"),
        Rule("graph.engine_dim", "Where another engine's inference names a dim with a symbol it made up "
             "(ONNX's unk__N) and opspec infers it (an expression, a size, a name), opspec's flows on and the "
             "engine's name reads as it across the graph.", READER, "info"),
        Rule("graph.weights", "An IR's weights (.bin) come with it, so values read from them (axes, shapes) "
             "are known.", READER, "warning"),
        Rule("onnx.shape_inference", "ONNX's own shape inference (onnx.shape_inference.infer_shapes, strict, "
             "with data propagation) accepts the node, and where opspec checks it too, both infer the same "
             "outputs.", "ONNX shape inference"),
        Rule("openvino.inference", "OpenVINO's own type inference (validate_and_infer_types) accepts the layer, "
             "and its declared output ports agree with it; where opspec checks it too, both infer the same "
             "outputs.", "OpenVINO type inference"),
    )
}  # fmt: skip

# Rules whose id names an implementation (`ReduceMax.onednn.empty_axes`) warn about running the op on
# that implementation; in a file made for another one they are noise, so a graph of one format keeps
# only its own implementation's.
IMPLEMENTATIONS = frozenset({"onednn", "openvino", "onnxruntime", "mli"})

# Constants at most this many elements travel with their values (axes, segment ids, counts); larger
# ones (weights) travel as types only, so a model's weights are never decoded or re-encoded.
SMALL_CONSTANT = 4096


@dataclass(slots=True)
class Value:
    """What flows along an edge: a dtype (None unknown), a shape (None unknown rank), maybe values."""

    dtype: str | None
    shape: Shape | None
    data: np.ndarray | None = None
    note: str = ""  # how the file wrote an unknown dim, when that is worth saying (an interval)
    # How a declaration lays the value out and what it says of it (oneDNN's layout_type, stride and
    # property_type); None where the format has no such thing. Compared between declarations, not checked
    # by the ops.
    layout: str | None = None
    strides: tuple[int, ...] | None = None
    property: str | None = None
    wired: dict[str, Any] | None = field(default=None, repr=False, compare=False)  # wire_tensor's answer
    _key: Any = field(default=None, repr=False, compare=False)

    def key(self) -> Any:
        """What a check can see of this value, hashable: equal keys, equal descriptors."""
        if self._key is None:
            small = self.data is not None and self.data.size <= SMALL_CONSTANT
            self._key = (
                self.dtype,
                self.shape,
                (self.data.dtype.str, self.data.tobytes()) if small else None,
            )  # type: ignore[union-attr]
        return self._key


@dataclass(slots=True)
class Translation:
    """A native node as an opspec descriptor (wire form), with where each descriptor path lives in the
    file and what was translated. `descriptor` None: the node has no exact translation (`why`)."""

    descriptor: dict[str, Any] | None
    # descriptor path prefix -> native path; or a function that builds them, called only when needed
    paths: dict[str, str] | Callable[[], dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # said as graph.translated infos
    why: str = ""  # said as graph.untranslatable when descriptor is None
    # The native input each descriptor input is, by place (None: input k is native input k): what a face
    # that feeds the node's data to the kernel (a test against a format's own reference) needs.
    native_inputs: list[int] | None = None

    def path_map(self) -> dict[str, str]:
        if callable(self.paths):
            self.paths = self.paths()
        return self.paths


Translate = Callable[["Node", list[Value | None]], Translation]


@dataclass(slots=True)
class Node:
    id: str
    name: str
    kind: str  # as the file writes it (with the version where the format has one: SegmentMax-16)
    path: str  # the node in the file's terms: graph[3], layer[5], node[reduce_1]
    inputs: list[str | None]  # names of the values read, in port order; None: an absent optional input
    outputs: list[str]
    declared_inputs: list[Value | None] = field(default_factory=list)
    declared_outputs: list[Value | None] = field(default_factory=list)
    translate: Translate | None = None  # None: a kind opspec does not check
    # What `translate` reads of the node besides its values (kind, attributes, ports), hashable; nodes with
    # one signature and equal values get one translation and one check. None: translate every time.
    signature: Any = None
    constant: Value | None = None  # a node whose one output is a constant value (Const, Constant)
    structural: bool = False  # a graph input, output or constant: no computation, never "not checked"
    # native path of each input and output, for edge errors: a list, or a pattern such as
    # "{path}.input[{index}]"
    input_paths: list[str] | str = ""
    output_paths: list[str] | str = ""
    line: int | None = None
    column: int | None = None
    # What another engine's own inference (ONNX, OpenVINO) gives for the outputs, and what it found at
    # this node (an inference error): it types the node when opspec does not check it.
    engine_outputs: list[Value | None] | None = None
    engine_findings: list[Diagnostic] | None = None
    # Its findings that a declared output differs from what it infers: the fault opspec's own
    # `<Op>.outputs.*` rules name where opspec checks the node, so said only where they do not.
    engine_echoes: list[Diagnostic] | None = None
    # Whether the engine's inference ran on this node: it has the op's schema (a custom-domain op has
    # none) and knew its inputs' types. Only then may the engine's outputs count it checked.
    engine_checked: bool = False


@dataclass(slots=True)
class Graph:
    format: str
    implementation: str  # which IMPLEMENTATIONS entry the file is made for
    nodes: list[Node]
    graph_inputs: dict[str, Value] = field(default_factory=dict)  # values no node produces
    diagnostics: list[Diagnostic] = field(default_factory=list)  # found while reading (bad dims...)
    positions: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # native path -> (line, column)
    engine: str = ""  # the engine whose inference typed the nodes (engine_outputs): onnx, openvino
    # How a value's declarations must agree: "exact" (oneDNN's finalize: every field the same, an unknown
    # dim only with an unknown dim), "known" (an unknown dim or rank agrees with anything: OpenVINO's IR,
    # where a port with no <dim> may be a scalar or of unknown rank).
    declarations: str = "known"
    # Some declared or engine-typed dim is a name an engine made up (ONNX's unk__N): where opspec infers
    # such a dim, its answer flows on (walk's _engine_names; skipped, as most graphs need, when False).
    engine_names: bool = False


@dataclass(slots=True)
class NodeResult:
    id: str
    name: str
    kind: str
    checked_as: str | None
    valid: bool
    inputs: list[TensorType]
    outputs: list[TensorType]
    diagnostics: list[Diagnostic]
    path: str
    line: int | None = None
    column: int | None = None
    # Who checked the node: "opspec" (its rules, as checked_as), an engine ("onnx", "openvino": its own
    # inference accepted the node), None: nobody (never counted valid or invalid), or a structural node.
    checked_by: str | None = None
    # Who typed its outputs: opspec, declared (the file), onnx, openvino; None: nobody, they are unknown.
    typed_by: str | None = None
    structural: bool = False  # a graph input, output or constant: not an op, not counted
    # The opspec descriptor the node was checked as (wire form), for a link to the calculator page.
    descriptor: dict[str, Any] | None = None
    native_inputs: list[int] | None = None  # the native input each descriptor input is (Translation's)
    # Who typed each output, where they differ (opspec the op's outputs, the engine the rest); None: all
    # by typed_by.
    outputs_typed_by: list[str | None] | None = None
    # Names the check took to be other dims (engine.Verdict.bindings): the walk reads them so downstream.
    bindings: dict[str, Any] | None = None


@dataclass(slots=True)
class Coverage:
    """How a graph's op nodes (structure aside) were checked: by opspec's rules, by an engine's own
    inference, or not at all (by kind)."""

    nodes: int = 0
    checked: int = 0  # by opspec's rules
    by_engine: dict[str, int] = field(default_factory=dict)
    not_checked: dict[str, int] = field(default_factory=dict)

    @property
    def unchecked(self) -> int:
        return sum(self.not_checked.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "checked": self.checked,
            "by_engine": self.by_engine,
            "not_checked": self.unchecked,
            "not_checked_kinds": self.not_checked,
        }


@dataclass(slots=True)
class GraphResult:
    format: str
    nodes: list[NodeResult]
    not_checked: dict[str, int]
    diagnostics: list[Diagnostic]
    positions: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    coverage: Coverage = field(default_factory=Coverage)
    graph: Graph | None = field(default=None, repr=False)  # what was walked, for values()
    flowing: dict[str, Value] = field(default_factory=dict, repr=False)  # value name -> what flowed
    typed: dict[str, str | None] = field(default_factory=dict, repr=False)  # value name -> who typed it
    edges: dict[str, list[Diagnostic]] = field(default_factory=dict, repr=False)  # value name -> its findings

    @property
    def valid(self) -> bool:
        return all(node.valid for node in self.nodes) and not any(
            d.severity == "error" for d in self.diagnostics
        )

    def values(self) -> list[dict[str, Any]]:
        """Every value (edge) of the graph: its producer (a node id; None for a graph input or
        initializer), its consumers, dtype, shape (symbols kept, -1 unknown) and who typed it, so a page
        can draw the graph with a type on every edge."""
        if self.graph is None:
            return []
        producer: dict[str, str] = {}
        consumers: dict[str, list[str]] = {}
        order: list[str] = list(self.graph.graph_inputs)
        for node in self.graph.nodes:
            for name in node.inputs:
                if name is not None:
                    found = consumers.get(name)
                    if found is None:
                        consumers[name] = [node.id]
                    else:
                        found.append(node.id)
            for name in node.outputs:
                if name not in producer:
                    producer[name] = node.id
                    order.append(name)
        out = []
        seen: set[str] = set()
        for name in order:
            if name in seen:
                continue
            seen.add(name)
            value = self.flowing.get(name)
            out.append(
                {
                    "name": name,
                    "producer": producer.get(name),
                    "consumers": consumers.get(name, []),
                    "dtype": (value.dtype if value is not None else None) or "?",
                    "shape": wire_shape(value.shape) if value is not None else None,
                    "typed_by": self.typed.get(name, "declared" if name not in producer else None),
                    "diagnostics": self.edges.get(name, []),
                }
            )
        return out

    def position(self, path: str) -> tuple[int, int] | None:
        """The line and column of a native path, or of the nearest enclosing path the file has one for."""
        while path:  # the root, "", has no position of its own here
            if path in self.positions:
                return self.positions[path]
            path = parent(path)  # type: ignore[assignment]  # never None below the root
        return None


def diagnostic(rule_id: str, path: str, message: str, severity: Severity | None = None) -> Diagnostic:
    """A finding of the graph's own rules, made as Diagnostic.model_construct makes it (every field is
    ours and typed: validating again is waste) in a third of the time: a graph says at every node how it
    was translated."""
    rule = RULES[rule_id]
    made = _new(Diagnostic)
    _set(made, "__dict__", {"severity": severity or rule.severity, "rule": rule_id, "path": path,
                            "message": message, "spec": rule.spec, "status": None, "related": None})  # fmt: skip
    _set(made, "__pydantic_fields_set__", set(_CONSTRUCTED))
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


# the fields model_construct counts as set (all it is given: `related` is left to its default)
_CONSTRUCTED = frozenset({"severity", "rule", "path", "message", "spec", "status"})


def file_dtype(name: str | None) -> str | None:
    """A dtype the file writes: canonical when opspec knows it; else the file's own name, which a checked
    node reports."""
    if name is None:
        return None
    try:
        return canonical_dtype(name)
    except ValueError:
        return name


def rank_fits(rank: int, path: str, settings: Settings, problems: list[Diagnostic]) -> bool:
    """Whether a shape the file writes is within max_rank; if not, a graph.dim finding says so and the
    reader takes the shape as of unknown rank."""
    if rank <= settings.max_rank:
        return True
    problems.append(
        diagnostic("graph.dim", path, f"rank {rank} is above the limit of {settings.max_rank} (max_rank)")
    )
    return False


def native_path(path: str, paths: Mapping[str, str], node_path: str) -> str:
    """A descriptor path (`inputs[0].shape[2]`) in the file's terms, by its longest mapped prefix."""
    probe: str | None = path
    while probe is not None:
        if probe in paths:
            return paths[probe] + path[len(probe) :]
        probe = parent(probe) or None  # the root is looked up only as the path itself
    return f"{node_path}.{path}" if path else node_path


def wire_tensor(value: Value, dtype: str | None = None) -> dict[str, Any]:
    """A flowing value as a descriptor tensor; small constants carry their values (base64, exact)."""
    if dtype is None or dtype == value.dtype:
        if value.wired is None:  # a value read by many nodes is put in wire form once
            value.wired = _wire(value, value.dtype)
        return value.wired
    return _wire(value, dtype)


def _wire(value: Value, dtype: str | None) -> dict[str, Any]:
    tensor: dict[str, Any] = plain.WireTensor(dtype=dtype, shape=wire_shape(value.shape))
    if value.data is not None and value.data.size <= SMALL_CONSTANT and dtype is not None:
        tensor["data"] = encode(value.data, dtype, as_base64=True)
    return tensor


def with_declared_outputs(node: Node, descriptor: dict[str, Any], count: int | None = None) -> dict[str, Any]:
    """The descriptor with the node's declared outputs (the first `count`: those the op gives), when the
    file types every one of them."""
    declared = node.declared_outputs if count is None else node.declared_outputs[:count]
    if declared and all(v is not None and v.dtype in DTYPES for v in declared):
        descriptor["outputs"] = [wire_tensor(v) for v in declared if v is not None]
    elif node.engine_outputs and len(node.engine_outputs) >= len(declared):
        # Where the file leaves an output's type open, the engine's inferred dtype (ONNX's T) picks among
        # the dtypes the op's table allows, as a declared one would; its shape stays opspec's to infer.
        tensors = []
        for mine, theirs in zip(declared, node.engine_outputs, strict=False):
            if mine is not None and mine.dtype in DTYPES:
                tensors.append(wire_tensor(mine))
            elif theirs is not None and theirs.dtype in DTYPES:
                tensors.append({"dtype": theirs.dtype, "shape": None})
            else:
                return descriptor
        descriptor["outputs"] = tensors
    return descriptor


def _type(value: Value | None) -> TensorType:
    if value is None:
        return TensorType.model_construct(dtype="?", shape=None)
    return TensorType.model_construct(dtype=value.dtype or "?", shape=wire_shape(value.shape))


# --- ordering ------------------------------------------------------------------------------------


def _order(graph: Graph) -> tuple[list[int], list[Diagnostic]]:
    """Kahn's order, as places in the file; nodes on or behind a cycle come last in file order, and each
    cycle is named once."""
    nodes = graph.nodes
    producer: dict[str, int] = {}  # value name -> the place in the file of the node writing it
    problems: list[Diagnostic] = []
    for place, node in enumerate(nodes):
        for index, name in enumerate(node.outputs):
            if name in producer:
                problems.append(
                    diagnostic(
                        "graph.edge",
                        node.path,
                        f"{_who(node)} writes value {shown(name)} (output {index}), which "
                        f"{_who(nodes[producer[name]])} writes too; each value has one producer",
                    )
                )
            else:
                producer[name] = place
    if _in_file_order(nodes, producer):  # as ONNX requires and exporters write: no sorting to do
        return list(range(len(nodes))), problems
    # Nodes by their place in the file: lists indexed by place cost less than dicts keyed by id().
    waiting = [0] * len(nodes)
    readers: list[list[int] | None] = [None] * len(nodes)
    for place, node in enumerate(nodes):
        sources = {producer[name] for name in node.inputs if name in producer}
        waiting[place] = len(sources)
        for source in sources:
            found = readers[source]
            if found is None:
                readers[source] = [place]
            else:
                found.append(place)
    ready = [place for place, count in enumerate(waiting) if count == 0]
    ordered: list[int] = []
    while ready:
        place = ready.pop()
        ordered.append(place)
        for reader in readers[place] or ():
            waiting[reader] -= 1
            if waiting[reader] == 0:
                ready.append(reader)
    if len(ordered) < len(nodes):
        placed = set(ordered)
        stuck = [place for place in range(len(nodes)) if place not in placed]
        done = {id(nodes[place]) for place in ordered}
        cycle = _find_cycle(
            [nodes[place] for place in stuck], {n: nodes[p] for n, p in producer.items()}, done
        )
        names = " -> ".join(_who(node) for node in [*cycle, cycle[0]])
        problems.append(
            diagnostic(
                "graph.cycle", cycle[0].path, f"the graph has a cycle: {names}; a graph must be acyclic"
            )
        )
        ordered.extend(stuck)
    return ordered, problems


def _in_file_order(nodes: list[Node], producer: dict[str, int]) -> bool:
    """Whether every node comes after the nodes whose values it reads (a value no node makes is -1)."""
    get = producer.get
    for place, node in enumerate(nodes):
        for name in node.inputs:
            if get(name, -1) >= place:
                return False
    return True


def _find_cycle(stuck: list[Node], producer: dict[str, Node], done: set[int]) -> list[Node]:
    """One cycle among the nodes Kahn's order could not place: walk producers until a node repeats."""
    node = stuck[0]
    seen: dict[int, int] = {}
    path: list[Node] = []
    while id(node) not in seen:
        seen[id(node)] = len(path)
        path.append(node)
        node = next(
            producer[name]
            for name in node.inputs
            if name is not None and name in producer and id(producer[name]) not in done
        )
    return path[seen[id(node)] :]


def _who(node: Node) -> str:
    return f"{node.path} ({node.name})" if node.name and node.name not in node.path else node.path


# --- walking -------------------------------------------------------------------------------------


def walk(graph: Graph, settings: Settings) -> GraphResult:
    token = IN_GRAPH.set(True)  # an unknown size meeting others is a note here (engine.IN_GRAPH)
    try:
        return _walk(graph, settings)
    finally:
        IN_GRAPH.reset(token)


def _walk(graph: Graph, settings: Settings) -> GraphResult:
    limit = settings.max_graph_nodes
    if len(graph.nodes) > limit:
        raise LimitExceeded(
            "graph",
            "max_graph_nodes",
            f"the graph has {len(graph.nodes):,} nodes, above the limit of {limit:,} (max_graph_nodes)",
        )
    ordered, problems = _order(graph)
    edges = _edges(graph)
    bar = _progress(len(graph.nodes))
    symbols = GraphSymbols(value.shape for value in graph.graph_inputs.values())
    values: dict[str, Value] = {
        name: _named(value, symbols, True) for name, value in graph.graph_inputs.items()
    }
    typed: dict[str, str | None] = {}
    results: list[NodeResult | None] = [None] * len(graph.nodes)  # by place: answered in file order
    not_checked: Counter[str] = Counter()
    by_engine: Counter[str] = Counter()
    checked = ops = 0
    foreign = IMPLEMENTATIONS - {graph.implementation}
    memo = Memo()
    engine = memo.engine = graph.engine
    memo.plain = settings.graph_path == "plain"
    engine_names = graph.engine_names
    renaming = False  # some name is bound: every value stored from here on reads it as its dim
    clashes: dict[tuple[Any, ...], bool] = {}
    kept: list[Any] = []  # the values compared, so their ids stay theirs
    diverged: set[str] = set()  # values opspec infers otherwise than the engine took them to be
    for step, place in enumerate(ordered):
        if bar is not None and not step % PROGRESS_STEP:
            bar(step)
        node = graph.nodes[place]
        inputs = list(map(values.get, node.inputs)) if not node.declared_inputs else _inputs(node, values)
        if node.constant is not None:
            flow = [node.constant]
            result = _plain(node, inputs, flow, [], memo)
            result.structural, result.typed_by = True, "declared"
        elif node.translate is None:
            flow = _declared(node)
            result = _plain(node, inputs, flow, [], memo)
            result.structural = node.structural
            result.typed_by = "declared" if any(v.dtype is not None for v in flow) else None
        else:
            # The same values (the same objects) into a node of the same signature as one already
            # answered: that answer at this node's path. The memo holds those values, so their ids
            # stay theirs for the whole walk.
            ids = (node.signature, tuple(map(id, inputs)), tuple(map(id, node.declared_outputs)))
            # (no value at all may mean an absent optional input or an untyped one: _check tells them apart)
            same = memo.same.get(ids) if node.signature is not None and NO_VALUE not in ids[1] else None
            if same is not None:
                result, flow = same.at(node), same.flow
            else:
                result, flow = _check(node, inputs, settings, foreign, memo)
                if memo.last is not None and NO_VALUE not in ids[1]:
                    memo.same[ids] = memo.last
            if result.checked_as is not None:
                result.checked_by = "opspec"
                result.typed_by = "opspec" if flow and flow[0].dtype is not None else None
            else:
                result.typed_by = "declared" if any(v.dtype is not None for v in flow) else None
        if not result.structural:
            ops += 1
            theirs = node.engine_outputs
            # The engine's inference of a node that reads a value opspec infers otherwise than the file
            # declares it (and so than the engine took it to be) repeats that upstream fault here.
            echo = bool(diverged) and not diverged.isdisjoint(node.inputs)
            if node.engine_findings or node.engine_echoes or echo:
                result, flow = _engine(node, result, flow, engine, echo)
            elif result.checked_by != "opspec":
                if node.engine_checked:
                    result, flow = _engine(node, result, flow, engine, echo)
            elif theirs is not None:
                # opspec's outputs against the engine's: both are shared objects, so compared once
                pair = (tuple(map(id, flow)), tuple(map(id, theirs)))
                clash = clashes.get(pair)
                if clash is None:
                    clash = clashes[pair] = any(map(_disagree, flow, theirs))
                    kept.append((flow, theirs))
                if clash:
                    result, flow = _engine(node, result, flow, engine, echo)
            if engine and (theirs is not None or echo):
                _diverge(node, flow, result, echo, diverged, clashes, kept)
            if result.checked_by == "opspec":
                checked += 1
            elif result.checked_by is not None:
                by_engine[result.checked_by] += 1
            else:
                not_checked[node.kind] += 1
        if result.bindings is not None and symbols.bind(result.bindings):
            _rename(values, symbols)
            renaming = True
        if engine_names and result.checked_by == "opspec":
            result = _engine_names(node, result, flow, symbols, engine)
            renaming = renaming or bool(symbols.bound)
        if flow and (renaming or result.typed_by != "opspec"):
            named = [_named(v, symbols, result.typed_by != "opspec") for v in flow]
            if named != flow:  # a new answer: the memo may share this one with other nodes
                flow, result = named, replace(result, outputs=[memo.types(v) for v in named])
        if len(node.outputs) == 1 and flow:  # the usual one output, without a zip
            name = node.outputs[0]
            if name not in values:
                values[name] = flow[0]
                typed[name] = result.typed_by
        else:
            by = result.outputs_typed_by or [result.typed_by] * len(flow)
            for name, value, who in zip(node.outputs, flow, by, strict=False):
                if name not in values:
                    values[name] = value
                    typed[name] = who
        results[place] = result
    if bar is not None:
        bar(len(ordered))
    missing = _unproduced(graph, values)
    nodes: list[NodeResult] = results  # type: ignore[assignment]  # every place is answered
    if type(graph.positions) is not dict or graph.positions:  # {}: a binary format (ONNX) has none
        where = graph.positions.get
        for result in nodes:
            result.line, result.column = where(result.path) or (None, None)
    kinds = dict(sorted(not_checked.items()))
    coverage = Coverage(ops, checked, dict(sorted(by_engine.items())), kinds)
    return GraphResult(
        graph.format, nodes, kinds, [*graph.diagnostics, *problems, *chain.from_iterable(edges.values()), *missing],
        graph.positions, coverage, graph, values, typed, edges,
    )  # fmt: skip


ENGINE_NAMES = {"onnx": "ONNX's shape inference", "openvino": "OpenVINO's type inference"}


def _named(value: Value, symbols: GraphSymbols, fresh: bool) -> Value:
    """`value` with its dims as the graph reads them: bound names replaced, and (`fresh`: a type nobody
    inferred) each unknown dim a new name. The same object when nothing changes."""
    shape = symbols.apply(value.shape)
    if fresh:
        symbols.see(shape)
        shape = symbols.fresh(shape)
    if shape is value.shape:
        return value
    return Value(value.dtype, shape, value.data, value.note, value.layout, value.strides, value.property)


def _rename(values: dict[str, Value], symbols: GraphSymbols) -> None:
    """Every value so far with its bound names read as their dims (a binding holds from where it is
    made, for every node after)."""
    for name, value in values.items():
        named = _named(value, symbols, False)
        if named is not value:
            values[name] = named


def _engine_names(
    node: Node, result: NodeResult, flow: list[Value], symbols: GraphSymbols, engine: str
) -> NodeResult:
    """Where the file or another engine names an output dim with a symbol an engine made up (ONNX's
    unk__N) and opspec inferred the dim: that name reads as opspec's dim across the graph, and the node
    says so once. A new answer where it says so: the memo may share `result` with other nodes."""
    said: list[Diagnostic] = []
    for theirs in (node.engine_outputs, node.declared_outputs):
        if not theirs:
            continue
        for index, (ours, other) in enumerate(zip(flow, theirs, strict=False)):
            if ours is None or other is None:
                continue
            for axis, name, dim in symbols.named_by_engine(ours.shape, other.shape):
                if symbols.bind({name: dim}):
                    who = (
                        ENGINE_NAMES.get(engine, "the engine's inference")
                        if theirs is node.engine_outputs
                        else "the file"
                    )
                    message = (
                        f"output {index}: {who} names dim {axis} {name}; opspec infers {dim}, which flows on "
                        f"({name} reads as {dim} across the graph)"
                    )
                    said.append(diagnostic("graph.engine_dim", f"{node.path}.output[{index}]", message))
    return replace(result, diagnostics=[*result.diagnostics, *said]) if said else result


def _engine(
    node: Node, result: NodeResult, flow: list[Value], engine: str, echo: bool
) -> tuple[NodeResult, list[Value]]:
    """What another engine's inference adds at a node: its errors; for a node opspec did not check, its
    outputs (the node is then checked and typed by that engine, if the engine could check it at all);
    for one opspec checked, the outputs opspec's op does not give, and a warning where the two disagree.
    One fault, one finding: where opspec's rules name a wrong declared output, the engine's word on the
    same declaration is not repeated; at a node that reads a value the file declares otherwise than
    opspec infers it upstream, the engine's findings are that fault's echo."""
    found = list(node.engine_findings or ())
    echoes = list(node.engine_echoes or ())
    notes: list[Diagnostic] = []
    if echo and (found or echoes):
        notes.append(
            diagnostic(
                "graph.echo",
                node.path,
                f"{engine}'s inference of this node read an input as the file declares it, which opspec infers "
                f"otherwise upstream; its {len(found) + len(echoes)} finding(s) here follow from that fault, "
                "said where it is, and are not repeated",
            )
        )
        found, echoes = [], []
    ours = result.checked_by == "opspec"
    faulted = ours and any(_declared_output_fault(d) for d in result.diagnostics)
    if faulted:
        echoes = []
    if ours and any(d.severity == "error" for d in result.diagnostics):
        # opspec's rules already name what is wrong here, precisely: the engine's refusal of the same node
        # is kept as a note, so one fault stays one error (a constant axis out of range is both)
        found = [
            diagnostic(
                d.rule,
                d.path,
                f"{ENGINE_NAMES.get(engine, 'the engine')} refuses this node too: "
                + d.message.removeprefix("ONNX shape inference: "),
                "info",
            )
            if d.severity == "error"
            else d
            for d in found
        ]
    found += echoes
    typed_by, checked_by, by = result.typed_by, result.checked_by, result.outputs_typed_by
    theirs = _engine_view(node)
    count = len(node.outputs)
    complete = (
        theirs is not None
        and len(theirs) >= count
        and all(
            v is not None and v.dtype is not None
            for k, v in enumerate(theirs[:count])
            if not absent_output(node, k)
        )
    )
    if ours:
        # (an engine's error here has said how they differ; a wrong declaration, which the engine keeps
        # as its answer, opspec's own rule has named)
        if theirs is not None and not found and not faulted:
            for index, (mine, other) in enumerate(zip(flow, theirs, strict=False)):
                clash = _disagree(mine, other) if not echo else ""
                if clash:
                    found.append(
                        diagnostic(
                            f"{engine}.{'shape_inference' if engine == 'onnx' else 'inference'}",
                            f"{node.path}.output[{index}]",
                            f"output {index}: {clash}",
                            "warning",
                        )
                    )
    elif node.engine_checked or any(d.severity == "error" for d in found):
        if complete:  # (an optional output the node leaves out has no type)
            flow = [v if v is not None else Value(None, None) for v in theirs[:count]]  # type: ignore[index]
            typed_by = engine
        checked_by = engine
    if not found and not notes and checked_by == result.checked_by and typed_by == result.typed_by:
        return result, flow
    diagnostics = [*result.diagnostics, *notes, *found]
    valid = not any(d.severity == "error" for d in diagnostics)
    outputs = result.outputs if flow is None else [_type(v) for v in flow]
    return (
        replace(result, diagnostics=diagnostics, valid=valid, outputs=outputs, checked_by=checked_by,
                typed_by=typed_by, outputs_typed_by=by if typed_by == result.typed_by else None),
        flow,
    )  # fmt: skip


def absent_output(node: Node, index: int) -> bool:
    """An optional output the node leaves out (ONNX writes an empty name; its reader names it by place)."""
    return node.outputs[index].startswith(f"{node.path}.output[")


def _engine_view(node: Node) -> list[Value | None] | None:
    """What the engine took each output to be: its inference, or the file's declaration where the engine
    does not repeat it (ONNX keeps a declared type it agrees with)."""
    theirs = node.engine_outputs
    if theirs is not None and None in theirs:
        declared = node.declared_outputs
        theirs = [
            v if v is not None else (declared[k] if k < len(declared) else None) for k, v in enumerate(theirs)
        ]
    return theirs


def _declared_output_fault(d: Diagnostic) -> bool:
    """An error of opspec's rules on a declared output (its count, dtype, rank or dims)."""
    return d.severity == "error" and ".outputs." in d.rule


def _diverge(
    node: Node,
    flow: list[Value],
    result: NodeResult,
    echo: bool,
    diverged: set[str],
    seen: dict[tuple[Any, ...], bool],
    kept: list[Any],
) -> None:
    """Mark the node's outputs that flow otherwise than the engine took them to be downstream: opspec's
    inference against a wrong declaration, or (at a node opspec did not check) an engine's answer that
    read such a value."""
    if result.checked_by != "opspec":
        if echo:
            diverged.update(node.outputs)
        return
    view = _engine_view(node)
    if view is None:
        return
    for name, mine, other in zip(node.outputs, flow, view, strict=False):
        key = (id(mine), id(other))
        differs = seen.get(key)
        if differs is None:
            differs = seen[key] = bool(_disagree(mine, other))
            kept.append((mine, other))
        if differs:
            diverged.add(name)


def _disagree(ours: Value | None, theirs: Value | None) -> str:
    """How opspec's inferred output and another engine's differ (dtype, rank, a dim both know), or ''."""
    if ours is None or theirs is None:
        return ""
    if ours.dtype and theirs.dtype and ours.dtype != theirs.dtype:
        return f"opspec infers {ours.dtype}, the engine {theirs.dtype}"
    if ours.shape is None or theirs.shape is None:
        return ""
    if len(ours.shape) != len(theirs.shape):
        return (
            f"opspec infers rank {len(ours.shape)} {_shown(ours.shape)}, the engine rank {len(theirs.shape)} "
            f"{_shown(theirs.shape)}"
        )
    for axis, (a, b) in enumerate(zip(ours.shape, theirs.shape, strict=True)):
        if isinstance(a, int) and isinstance(b, int) and a != b:
            return f"opspec infers {a} in dim {axis} ({_shown(ours.shape)}), the engine {b} ({_shown(theirs.shape)})"
    return ""


def _shown(shape: Shape) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


NO_VALUE = id(None)

# A face that shows progress (`opspec check` at a terminal) sets this to a function that takes a graph's
# node count and returns a function of the nodes done so far (or None: no bar for this graph).
PROGRESS: ContextVar[Callable[[int], Callable[[int], None] | None] | None] = ContextVar(
    "progress", default=None
)
PROGRESS_STEP = 1000  # nodes between two updates


def _progress(total: int) -> Callable[[int], None] | None:
    factory = PROGRESS.get()
    return factory(total) if factory is not None else None


def _inputs(node: Node, values: Mapping[str, Value]) -> list[Value | None]:
    """What flows into each input: the producer's value, else what the node itself declares there.
    For a node that declares none (ONNX: only what flows), walk() takes the values as they are."""
    out: list[Value | None] = []
    for index, name in enumerate(node.inputs):
        declared = node.declared_inputs[index] if index < len(node.declared_inputs) else None
        flowing = values.get(name) if name is not None else None
        if flowing is None:
            out.append(declared)
        elif declared is not None and (flowing.shape is None or flowing.dtype is None):
            out.append(
                Value(
                    flowing.dtype or declared.dtype,
                    declared.shape if flowing.shape is None else flowing.shape,
                    flowing.data,
                    flowing.note,
                )
            )
        else:
            out.append(flowing)
    return out


def _declared(node: Node) -> list[Value]:
    declared = node.declared_outputs
    if len(declared) == len(node.outputs) and all(declared):  # a Value is always true
        return declared  # type: ignore[return-value]
    return [
        (declared[index] if index < len(declared) else None) or Value(None, None)
        for index in range(len(node.outputs))
    ]


def _plain(
    node: Node,
    inputs: list[Value | None],
    flow: list[Value],
    diagnostics: list[Diagnostic],
    memo: Memo,
) -> NodeResult:
    types = memo.types
    return NodeResult(
        node.id, node.name, node.kind, None, not any(d.severity == "error" for d in diagnostics),
        [types(v) for v in inputs], [types(v) for v in flow], diagnostics, node.path,
    )  # fmt: skip


def _check(
    node: Node, inputs: list[Value | None], settings: Settings, foreign: frozenset[str], memo: Memo
) -> tuple[NodeResult, list[Value]]:
    assert node.translate is not None
    memo.last = None
    declared = _declared(node)
    key = _key(node, inputs, declared)
    seen = memo.nodes.get(key) if key is not None else None
    if seen is not None and seen.same is not None:
        # A node like one already checked whose findings (if any) all sit on the node itself: its answer
        # is that node's with this node's path, built without translating or checking again.
        memo.last = _Same(seen.same.result, seen.same.flow, inputs)
        return seen.same.at(node), seen.same.flow
    untyped = [
        f"input {k} ({shown(node.inputs[k])})"
        for k, value in enumerate(inputs)
        if node.inputs[k] is not None and (value is None or value.dtype is None)
    ]
    if untyped:
        why = (
            f"{', '.join(untyped)} has no known type: the file declares none and an unchecked node makes it; "
            "declare it (for ONNX, onnx.shape_inference.infer_shapes writes value_info) to have this node checked"
        )
        note = diagnostic("graph.untranslatable", node.path, why)
        return _plain(node, inputs, declared, [note], memo), declared
    translation = None
    if seen is None:
        translation = node.translate(node, inputs)
        if translation.descriptor is None:
            seen = _Seen(translation.notes, translation.why, None, None, [], None)
        else:
            verdict = _verdict(translation.descriptor, settings, foreign, memo, key is not None)
            seen = _Seen(translation.notes, "", *verdict)
            seen.descriptor = translation.descriptor
            seen.native_inputs = translation.native_inputs
        if key is not None:
            memo.nodes[key] = seen
    if seen.why:
        note = diagnostic("graph.untranslatable", node.path, seen.why)
        result = _plain(node, inputs, declared, [note], memo)
        if key is not None:
            seen.same = memo.last = _Same(result, declared, inputs)
        return result, declared
    out: list[Diagnostic] = [diagnostic("graph.translated", node.path, n) for n in seen.notes]
    if seen.found or any(value is not None and value.note for value in inputs):
        translation = translation or node.translate(node, inputs)  # its paths, for this node's findings
        for index, value in enumerate(inputs):
            if value is not None and value.note:
                where = translation.path_map().get(f"inputs[{index}]", node.path)
                out.append(diagnostic("graph.unknown_dim", where, value.note))
        for _, path, diag in seen.found:
            out.append(diag.model_copy(update={"path": native_path(path, translation.path_map(), node.path)}))
    flow = declared
    by: list[str | None] | None = None
    if seen.outputs is not None:
        flow = [*seen.outputs, *declared[len(seen.outputs) :]]
        if len(seen.outputs) < len(flow):
            # outputs the op does not give (LayerNormalization's Mean): the engine's, else as declared
            view = _engine_view(node) or []
            by = ["opspec"] * len(seen.outputs)
            for k in range(len(seen.outputs), len(flow)):
                theirs = view[k] if k < len(view) else None
                if theirs is not None and theirs.dtype is not None:
                    flow[k] = theirs
                    by.append("declared" if theirs is declared[k] else memo.engine)
                else:
                    by.append("declared" if flow[k].dtype is not None else None)
    valid = not any(d.severity == "error" for d in out)
    types = memo.types
    result = NodeResult(
        node.id, node.name, node.kind, seen.checked_as, valid, [types(v) for v in inputs],
        [types(v) for v in flow], out, node.path, descriptor=seen.descriptor, native_inputs=seen.native_inputs,
        outputs_typed_by=by, bindings=seen.bindings,
    )  # fmt: skip
    if key is not None and not seen.found:
        seen.same = memo.last = _Same(result, flow, inputs)
    return result, flow


def _key(node: Node, inputs: list[Value | None], declared: list[Value]) -> Any:
    """What decides a node's answer besides its place, hashable; None when it cannot be shared: a node
    without a signature, an input whose type is unknown (named in the answer) or whose dims carry a note."""
    if node.signature is None:
        return None
    keys: list[Any] = []
    for name, value in zip(node.inputs, inputs, strict=False):
        if value is None:
            if name is not None:
                return None
            keys.append(None)  # an absent optional input
        elif value.dtype is None or value.note:
            return None
        else:
            keys.append(value.key())
    # A declared output's note goes downstream with it (a shared answer flows the first node's values).
    return (node.signature, len(inputs), tuple(keys), tuple([(v.key(), v.note) for v in declared]))


def _moved(template: Diagnostic, path: str) -> Diagnostic:
    """`template` at another path, as `template.model_copy(update={"path": path})` makes it but in a
    third of the time: a graph of 10,000 ReduceMax nodes says 10,000 times how each was translated."""
    moved = _new(Diagnostic)
    _set(moved, "__dict__", {**template.__dict__, "path": path})
    _set(moved, "__pydantic_fields_set__", set(template.__pydantic_fields_set__))
    _set(moved, "__pydantic_extra__", None)
    _set(moved, "__pydantic_private__", None)
    return moved


_new = object.__new__
_set = object.__setattr__


@dataclass(slots=True)
class _Same:
    """A node's answer as any node with its key gets it: its diagnostics all sit on the node's own path."""

    result: NodeResult
    flow: list[Value]
    inputs: list[Value | None]  # held, so that the ids of these values are not reused while the walk runs

    def at(self, node: Node) -> NodeResult:
        r = self.result
        path = node.path
        return NodeResult(
            node.id, node.name, node.kind, r.checked_as, r.valid, r.inputs, r.outputs,
            [_moved(d, path) for d in r.diagnostics] if r.diagnostics else [], path,
            # (not its bindings: made once, they hold for every node after)
            descriptor=r.descriptor, native_inputs=r.native_inputs, outputs_typed_by=r.outputs_typed_by,
        )  # fmt: skip


Found = list[tuple[str, str, Diagnostic]]  # (rule, descriptor path, diagnostic)


@dataclass(slots=True)
class _Seen:
    """What translating and checking a node gave, for every node with the same key."""

    notes: list[str]
    why: str
    checked_as: str | None
    outputs: list[Value] | None
    found: Found
    bindings: dict[str, Any] | None  # names the check took to be other dims
    same: _Same | None = None
    descriptor: dict[str, Any] | None = None  # what was checked
    native_inputs: list[int] | None = None


class Memo:
    """Checks already made in this walk, by descriptor: a check is a pure function of the descriptor,
    and a model repeats the same node (a block of layers, a chain) many times over."""

    def __init__(self) -> None:
        self.checks: dict[Any, tuple[str, list[Value] | None, Found, Any]] = {}
        self.nodes: dict[Any, _Seen] = {}
        # by (signature, ids of the input values, ids of the declared outputs): see walk()
        self.same: dict[tuple[Any, tuple[int, ...], tuple[int, ...]], _Same] = {}
        self.last: _Same | None = None  # what _check just answered, when another node may share it
        self.engine = ""  # the engine that typed the graph, if any (Graph.engine)
        # Check descriptors as plain objects (Settings.graph_path), with pydantic only to explain one;
        # attribute sets read as such so far (plain.descriptor).
        self.plain = False
        self.attrs: dict[tuple[int, str], tuple[Any, Any]] = {}
        self._types: dict[tuple[str | None, Shape | None], TensorType] = {}

    def types(self, value: Value | None) -> TensorType:
        key = (None, None) if value is None else (value.dtype, value.shape)
        found = self._types.get(key)
        if found is None:
            found = self._types[key] = _type(value)
        return found


def _verdict(
    raw: dict[str, Any], settings: Settings, foreign: frozenset[str], memo: Memo, keyed: bool = False
) -> tuple[str, list[Value] | None, Found, Any]:
    """The opspec kind checked, the inferred outputs, the findings (paths in descriptor terms) and the
    names the check took to be other dims."""
    # (a node the walk keys by its signature and values is checked once by that key: the plain path
    # makes no second key of the descriptor's text)
    key = json.dumps(raw) if not (memo.plain and keyed) else None  # the C encoder: a key in microseconds
    cached = memo.checks.get(key) if key is not None else None
    if cached is not None:
        return cached
    found: Found = []
    spec = BY_NAME.get(raw["kind"])
    descriptor = plain.descriptor(spec, raw, memo.attrs) if memo.plain and spec is not None else None
    try:
        if descriptor is None:  # the reference path, or a descriptor pydantic must read (and explain)
            descriptor = parse(raw)
    except DescriptorErrors as exc:
        for error in describe_errors(exc.errors()):
            rule = error.get("rule", "graph.descriptor")
            spec = BY_NAME[raw["kind"]].rule_book.get(rule) if rule != "graph.descriptor" else None
            d = Diagnostic(severity="error", rule=rule, path=error["path"], message=error["message"],
                           spec=spec.spec if spec else READER)  # fmt: skip
            found.append((rule, error["path"], d))
        answer: tuple[str, list[Value] | None, Found, Any] = (BY_NAME[raw["kind"]].kind, None, found, None)
    else:
        spec = BY_NAME[descriptor.kind]
        verdict, _ = engine.check(spec, descriptor, settings)
        for d in verdict.diagnostics:
            parts = d.rule.split(".")
            if len(parts) > 2 and parts[1] in foreign:
                continue
            found.append((d.rule, d.path, d))
        outputs = None if verdict.outputs is None else [Value(o.dtype, o.shape) for o in verdict.outputs]
        answer = (spec.kind, outputs, found, verdict.bindings)
    if key is not None:
        memo.checks[key] = answer
    return answer


def _unproduced(graph: Graph, values: Mapping[str, Value]) -> list[Diagnostic]:
    """Inputs naming a value that no node produces and the file does not declare as a graph input."""
    read = set(chain.from_iterable(node.inputs for node in graph.nodes))  # at C speed, for the usual none
    read.discard(None)  # type: ignore[arg-type]
    if read <= values.keys():
        return []
    out = []
    for node in graph.nodes:
        for index, name in enumerate(node.inputs):
            if name is not None and name not in values:
                where = _input_path(node, index)
                out.append(
                    diagnostic(
                        "graph.edge",
                        where,
                        f"{_who(node)} reads value {shown(name)} as input {index}, but no node produces it and "
                        "the file does not declare it as a graph input",
                    )
                )
    return out


def _input_path(node: Node, index: int) -> str:
    return _port_path(node, node.input_paths, index)


def _output_path(node: Node, index: int) -> str:
    return _port_path(node, node.output_paths, index)


def _port_path(node: Node, paths: list[str] | str, index: int) -> str:
    if isinstance(paths, str):
        return paths.format(path=node.path, index=index) if paths else node.path
    return paths[index] if index < len(paths) else node.path


# --- declarations ----------------------------------------------------------------------------------


def _edges(graph: Graph) -> dict[str, list[Diagnostic]]:
    """Every value's declarations against each other, once: each consumer's against the producer's (a
    graph input's against the first consumer's). A disagreement is one finding at the consumer's
    declaration, naming the value and both declarations, with the other place as its related location;
    the node that reads the value is then checked against what flows, so nothing is blamed twice."""
    # value name -> its reference declaration: the value, its node, its place, whether an output
    first: dict[str, tuple[Value, Node, int, bool]] = {}
    for node in graph.nodes:
        declared = node.declared_outputs
        for index, name in enumerate(node.outputs):
            mine = declared[index] if index < len(declared) else None
            if mine is not None and name not in first:
                first[name] = (mine, node, index, True)
    found: dict[str, list[Diagnostic]] = {}
    exact = graph.declarations == "exact"
    for node in graph.nodes:
        declared = node.declared_inputs
        if not declared:
            continue  # (ONNX: a node declares nothing of what it reads)
        for index, name in enumerate(node.inputs):
            mine = declared[index] if index < len(declared) else None
            if name is None or mine is None:
                continue
            reference = first.get(name)
            if reference is None:
                first[name] = (mine, node, index, False)
                continue
            theirs, owner, place, written = reference
            if mine is theirs:  # the reader shares equal declarations: nothing to compare
                continue
            rule, what = _declarations_differ(theirs, mine, exact)
            if rule:
                where = _output_path(owner, place) if written else _input_path(owner, place)
                here = _input_path(node, index)
                side = "produces" if name in owner.outputs else "reads"
                message = (
                    f"value {shown(name)} is declared {what(mine)} by {_who(node)} (input {index}), but "
                    f"{what(theirs)} by {_who(owner)}, which {side} it; every declaration of a value must agree"
                )
                related = [Related(path=where, message=f"{_who(owner)} declares {what(theirs)}")]
                finding = diagnostic(f"graph.edge.{rule}", here, message)
                finding.related = related
                found.setdefault(name, []).append(finding)
    return found


def _declarations_differ(a: Value, b: Value, exact: bool) -> tuple[str, Callable[[Value], str]]:
    """The first way two declarations of a value differ (dtype, shape, layout, property) and how to
    say each, or ('', ...)."""
    if a.dtype != b.dtype and a.dtype is not None and b.dtype is not None:
        return "dtype", lambda v: str(v.dtype)
    if _shapes_differ(a.shape, b.shape, exact):
        return "shape", lambda v: f"{v.dtype} {_shown(v.shape) if v.shape is not None else '(rank unknown)'}"
    if exact and (a.layout != b.layout or a.strides != b.strides):
        return "layout", _layout_text
    if exact and a.property != b.property:
        return "property", lambda v: f"property_type {v.property}"
    return "", str


def _shapes_differ(a: Shape | None, b: Shape | None, exact: bool) -> bool:
    if a is None or b is None:
        return exact and a != b
    if len(a) != len(b):
        return True
    if exact:
        return a != b
    return any(x is not None and y is not None and x != y for x, y in zip(a, b, strict=True))


def _layout_text(value: Value) -> str:
    if value.layout == "strided" or (value.layout is None and value.strides is not None):
        return f"strided with strides {list(value.strides or ())}"
    return f"layout_type {value.layout}"
