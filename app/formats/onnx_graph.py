"""The graph-level rules ONNX's checker applies (onnx/checker.cc check_graph, check_value_info,
check_tensor), each fault a located finding and every one of them said, where the checker stops at the
first: names unique and in single static assignment, every name a node reads defined before it (nodes in
topological order), every graph output a value of its graph, each initializer's data what its dims and
data type say, the main graph's inputs and outputs typed, every graph named. Subgraphs (If, Loop, Scan
bodies, any graph attribute) are held to the same, with the outer graphs' names in scope as the checker
has them.

A name read that nothing defines at all is the walker's finding (graph.edge), and two nodes writing one
name too: this module says what the walker cannot see (a name defined, but later; a node writing a graph
input's name; the file's own declarations).
"""

from __future__ import annotations

import math

import onnx

from app.core.diagnostics import Diagnostic, Related
from app.formats.errors import shown
from app.formats.graph import diagnostic

T = onnx.TensorProto
# Elements per entry where a type packs several into one byte of raw_data or one int32_data entry
PACKED = {T.INT4: 2, T.UINT4: 2, T.FLOAT4E2M1: 2, T.INT2: 4, T.UINT2: 4}
COMPLEX = {T.COMPLEX64: 2, T.COMPLEX128: 2}  # values per element, in float_data / double_data
FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "raw_data", "double_data", "uint64_data")


def check(model: onnx.ModelProto, text, problems: list[Diagnostic]) -> set[str]:
    """The model's faults into `problems`; the paths of the tensors whose data is at fault (not to be read).
    `text` turns a protobuf string into the reader's text (names may be any bytes)."""
    checker = _Checker(model.ir_version, text, problems)
    checker.graph(model.graph, "", set(), main=True)
    return checker.unreadable


class _Checker:
    def __init__(self, ir_version: int, text, problems: list[Diagnostic]):
        self.ir_version = ir_version
        self.text = text
        self.problems = problems
        self.unreadable: set[str] = set()

    def say(
        self, rule: str, path: str, message: str, related: tuple[str, str] | None = None, severity=None
    ) -> None:
        finding = diagnostic(rule, path, message, severity)
        if related is not None:
            finding.related = [Related(path=related[0], message=related[1])]
        self.problems.append(finding)

    def graph(self, g: onnx.GraphProto, where: str, outer: set[str], main: bool) -> None:
        text = self.text
        if not g.name:
            self.say("graph.name", f"{where}graph", "the graph has no name; ONNX's checker requires one")
        names: dict[str, str] = {}  # name -> the path that defines it, in this graph
        for side in ("input", "output"):
            for k, info in enumerate(getattr(g, side)):
                self.value_info(info, f"{where}graph.{side}[{k}]", main)
        for k, info in enumerate(g.input):
            name, path = text(info.name), f"{where}graph.input[{k}]"
            if name in names:
                self.say("graph.input", path, f"graph input {shown(name)} is named twice; names are unique (SSA)",
                         (names[name], "named here first"))  # fmt: skip
            names.setdefault(name, path)
        initializers: dict[str, str] = {}
        for k, init in enumerate(g.initializer):
            name, path = text(init.name), f"{where}graph.initializer[{k}]"
            if not name:
                self.say("graph.input", path, "an initializer has no name")
                continue
            if name in initializers:
                self.say("graph.input", path, f"initializer {shown(name)} is named twice; names are unique",
                         (initializers[name], "named here first"))  # fmt: skip
                continue
            initializers[name] = path
            self.tensor(init, f"initializer {shown(name)}", path)
            if self.ir_version <= 3 and name not in names:
                self.say(
                    "graph.input",
                    path,
                    f"initializer {shown(name)} is no graph input: up to IR version 3 every initializer is one",
                )
            names.setdefault(name, path)
        for k, sparse in enumerate(g.sparse_initializer):
            name, path = text(sparse.values.name), f"{where}graph.sparse_initializer[{k}]"
            if name in initializers:
                self.say("graph.input", path, f"initializer {shown(name)} is named twice; names are unique",
                         (initializers[name], "named here first"))  # fmt: skip
            initializers.setdefault(name, path)
            names.setdefault(name, path)
        later = {
            text(out): (index, k)
            for index, node in enumerate(g.node)
            for k, out in enumerate(node.output)
            if out
        }
        for index, node in enumerate(g.node):
            path = f"{where}node[{text(node.name) or f'#{index}'}]"
            for k, raw in enumerate(node.input):
                name = text(raw)
                place = (
                    later.get(name, (-1, 0))[0] if name and name not in names and name not in outer else -1
                )
                if place > index and not _feeds(g, index, place, later, text):
                    self.say("graph.order", f"{path}.input[{k}]",
                             f"{path} reads {shown(name)}, which node {place} (later in the graph) makes; ONNX "
                             "requires the nodes in topological order, each name made before it is read",
                             (f"{where}node[{text(g.node[place].name) or f'#{place}'}]", "made here"))  # fmt: skip
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.TENSOR:
                    self.tensor(attr.t, f"{path}'s {text(attr.name)}", f"{path}.attribute.{text(attr.name)}")
                bodies = [(text(attr.name), attr.g)] if attr.type == onnx.AttributeProto.GRAPH else []
                if attr.type == onnx.AttributeProto.GRAPHS:
                    bodies = [(f"{text(attr.name)}[{j}]", body) for j, body in enumerate(attr.graphs)]
                for label, body in bodies:
                    self.graph(body, f"{path}.attribute.{label}.", outer | names.keys(), main=False)
            for k, raw in enumerate(node.output):
                name = text(raw)
                if not name:
                    continue
                first = names.get(name)
                if first is not None and not first.startswith(f"{where}node["):
                    self.say("graph.edge", f"{path}.output[{k}]",
                             f"{path} writes {shown(name)}, the name of {first}; a name is defined once (SSA)",
                             (first, "defined here"))  # fmt: skip
                elif first is None and name in outer:
                    self.say("graph.edge", f"{path}.output[{k}]",
                             f"{path} writes {shown(name)}, a name of an enclosing graph; a subgraph may not "
                             "define a name again (SSA)")  # fmt: skip
                names.setdefault(name, f"{path}.output[{k}]")
        for k, info in enumerate(g.output):
            name = text(info.name)
            if name and name not in names:
                self.say("graph.output", f"{where}graph.output[{k}]",
                         f"graph output {shown(name)} is no value of the graph: no node makes it, and it is no "
                         "input or initializer")  # fmt: skip

    def value_info(self, info: onnx.ValueInfoProto, path: str, main: bool) -> None:
        if not info.name:
            self.say("graph.value_info", path, "a graph input or output has no name")
            return
        if not main:
            return  # (ONNX's checker asks subgraphs' inputs and outputs for names only)
        kind = info.type.WhichOneof("value")
        needs = {
            None: ("type",),
            "tensor_type": ("elem_type", "shape"),
            "sparse_tensor_type": ("elem_type", "shape"),
            "sequence_type": ("elem_type",),
            "optional_type": ("elem_type",),
            "map_type": ("key_type", "value_type"),
        }.get(kind, ())
        inner = getattr(info.type, kind) if kind else None
        missing = [field for field in needs if inner is None or not inner.HasField(field)]
        if missing == ["shape"]:  # onnxruntime reads such a model; only ONNX's checker refuses it
            self.say("graph.value_info", path,
                     f"{shown(self.text(info.name))} has no shape (not even one of unknown dims), which ONNX's checker "
                     "requires of the main graph's inputs and outputs", severity="warning")  # fmt: skip
        elif missing:
            self.say("graph.value_info", path,
                     f"{shown(self.text(info.name))} has no {' and no '.join(missing)}; the main graph's inputs and "
                     "outputs are typed")  # fmt: skip

    def tensor(self, tensor: onnx.TensorProto, name: str, path: str) -> None:  # name: as a message says it
        """An initializer's (or a tensor attribute's) data against its data type and dims, as check_tensor
        holds it (and each runtime reads it: exactly as many values as the dims make)."""
        before = len(self.problems)
        self._tensor(tensor, name, path)
        if len(self.problems) > before:
            self.unreadable.add(path)

    def _tensor(self, tensor: onnx.TensorProto, name: str, path: str) -> None:
        dtype = tensor.data_type
        if dtype == T.UNDEFINED:
            self.say("graph.constant", path, f"{name} has data_type UNDEFINED")
            return
        if tensor.data_location == T.EXTERNAL:
            return  # (the reader refuses external data)
        count = math.prod(tensor.dims)
        given = [field for field in FIELDS if len(getattr(tensor, field))]
        try:
            type_name = T.DataType.Name(dtype)
            expected = onnx.helper.tensor_dtype_to_field(dtype)
        except (KeyError, ValueError):
            self.say("graph.constant", path, f"{name} has data_type {dtype}, which ONNX does not have")
            return
        if count == 0:
            if given:
                self.say("graph.constant", path,
                         f"{name} has no elements (dims {list(tensor.dims)}) but holds data in "
                         f"{given[0]}")  # fmt: skip
            return
        if len(given) != 1:
            self.say("graph.constant", path,
                     f"{name} of dims {list(tensor.dims)} holds its data in "
                     + (f"{' and '.join(given)}: one field" if given else "no field")
                     + f" (raw_data or {expected}) holds it")  # fmt: skip
            return
        [field] = given
        if field == "raw_data":
            if dtype == T.STRING:
                self.say("graph.constant", path, f"{name} is STRING, whose data is never raw_data")
                return
            size = onnx.helper.tensor_dtype_to_np_dtype(dtype).itemsize
            need = -(-count // PACKED[dtype]) if dtype in PACKED else count * size
            got, unit = len(tensor.raw_data), "bytes"
        elif field != expected:
            self.say("graph.constant", path, f"{name} is {type_name}, whose data is {expected}, not {field}")
            return
        else:
            need = -(-count // PACKED[dtype]) if dtype in PACKED else count * COMPLEX.get(dtype, 1)
            got, unit = len(getattr(tensor, field)), f"{field} values"
        if got != need:
            self.say("graph.constant", path,
                     f"{name} holds {got:,} {unit}, but {count:,} {type_name} elements of dims "
                     f"{list(tensor.dims)} are {need:,}")  # fmt: skip


def _feeds(g: onnx.GraphProto, source: int, target: int, made: dict[str, tuple[int, int]], text) -> bool:
    """Whether node `target` reads, through any chain, what node `source` makes: then reading its output
    is a cycle (the walker's graph.cycle), not a question of order."""
    seen, todo = set(), [target]
    while todo:
        place = todo.pop()
        if place == source:
            return True
        if place in seen:
            continue
        seen.add(place)
        todo.extend(made[text(n)][0] for n in g.node[place].input if n and text(n) in made)
    return False
