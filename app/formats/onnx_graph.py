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
from collections.abc import Callable

import onnx

from app.core.diagnostics import Diagnostic, Related
from app.formats.errors import shown
from app.formats.graph import diagnostic

T = onnx.TensorProto
# Elements per entry where a type packs several into one byte of raw_data or one int32_data entry
PACKED = {T.INT4: 2, T.UINT4: 2, T.FLOAT4E2M1: 2, T.INT2: 4, T.UINT2: 4}
COMPLEX = {T.COMPLEX64: 2, T.COMPLEX128: 2}  # values per element, in float_data / double_data
_HELD = frozenset({onnx.AttributeProto.TENSOR, onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS})
FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "raw_data", "double_data", "uint64_data")


class Rules:
    """The model's rules, read along with the reader's own walk (it hands each graph and each node's
    names over as it reads them: extracting a 10,000-node model's names twice cost a seventh of its
    check). `text` turns a protobuf string into the reader's text (names may be any bytes)."""

    def __init__(self, ir_version: int, text: Callable[[str | bytes], str], problems: list[Diagnostic]):
        self.ir_version = ir_version
        self.text = text
        self.problems = problems
        self.unreadable: set[str] = set()  # tensors whose data is at fault: the reader does not decode them

    def say(
        self, rule: str, path: str, message: str, related: tuple[str, str] | None = None, severity=None
    ) -> None:
        finding = diagnostic(rule, path, message, severity)
        if related is not None:
            finding.related = [Related(path=related[0], message=related[1])]
        self.problems.append(finding)

    def enter(self, g: onnx.GraphProto, where: str, parent: Scope | None) -> Scope:
        """A graph's name, inputs, outputs' types and initializers, before its nodes (the main graph's
        parent is None; a subgraph's, the graph around it, as it stands at the node that holds it)."""
        text = self.text
        main = parent is None
        scope = Scope(self, where, parent)
        if not g.name:
            self.say("graph.name", f"{where}graph", "the graph has no name; ONNX's checker requires one")
        for side in ("input", "output"):
            for k, info in enumerate(getattr(g, side)):
                self.value_info(info, f"{where}graph.{side}[{k}]", main)
        names = scope.defined
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
                # ONNX's checker refuses such a model; onnxruntime runs it (its own sample mul_1.onnx is
                # one): a portability trap, not a model that cannot run
                self.say("graph.input", path,
                         f"initializer {shown(name)} is no graph input: up to IR version 3 every initializer is "
                         "one (ONNX's checker refuses the model; onnxruntime runs it)", severity="warning")  # fmt: skip
            names.setdefault(name, path)
        for k, sparse in enumerate(g.sparse_initializer):
            name, path = text(sparse.values.name), f"{where}graph.sparse_initializer[{k}]"
            if name in initializers:
                self.say("graph.input", path, f"initializer {shown(name)} is named twice; names are unique",
                         (initializers[name], "named here first"))  # fmt: skip
            initializers.setdefault(name, path)
            names.setdefault(name, path)
        return scope

    def walk(self, g: onnx.GraphProto, where: str, parent: Scope | None) -> None:
        """A graph the reader does not read itself (a custom op's graph attribute), through the same rules."""
        scope = self.enter(g, where, parent)
        for index, node in enumerate(g.node):
            ins, outs = node.input[:], node.output[:]
            try:
                plain = "".join([*ins, *outs]).isascii()
            except TypeError:  # a bytes among them: a proto2 string that is not UTF-8
                plain = False
            if not plain:
                ins, outs = [self.text(n) for n in ins], [self.text(n) for n in outs]
            scope.node(
                index, node, ins, outs, f"{where}node[{self.text(node.name) or f'#{index}'}]", own_bodies=True
            )
        scope.leave(g)

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


class Scope:
    """One graph's names as its nodes are read, in order: its inputs' and initializers' (with where each
    is), the names its nodes made so far, and the graph around it (a subgraph sees the names made there
    before the node that holds it, as ONNX's checker does)."""

    def __init__(self, rules: Rules, where: str, parent: Scope | None):
        self.rules = rules
        self.where = where
        self.parent = parent
        self.defined: dict[str, str] = {}  # a graph input's or initializer's name -> its path
        self.made: dict[str, int] = {}  # a name a node made -> the node's place
        self.reads: list[list[str]] = []  # each node's input names, by place (for telling a cycle)
        self.paths: list[str] = []  # each node's path, by place
        self.waiting: dict[str, list[tuple[int, int]]] = {}  # a name read before it is made -> (place, input)

    def has(self, name: str) -> bool:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.defined or name in scope.made:
                return True
            scope = scope.parent
        return False

    def node(
        self, index: int, proto: onnx.NodeProto, ins: list[str], outs: list[str], path: str, own_bodies: bool
    ) -> None:
        """One node, in file order, with its input and output names. own_bodies: walk its graph attributes
        here (the reader reads If, Loop and Scan bodies itself, before the node)."""
        rules = self.rules
        self.reads.append(ins)
        self.paths.append(path)
        defined, made, parent = self.defined, self.made, self.parent
        for k, name in enumerate(ins):
            if name and name not in made and name not in defined and (parent is None or not parent.has(name)):
                self.waiting.setdefault(name, []).append((index, k))
        attrs = proto.attribute
        if attrs:
            for attr in attrs:
                kind = attr.type
                if kind not in _HELD:
                    continue
                if kind == onnx.AttributeProto.TENSOR:
                    name = rules.text(attr.name)
                    rules.tensor(attr.t, f"{path}'s {name}", f"{path}.attribute.{name}")
                elif own_bodies and kind == onnx.AttributeProto.GRAPH:
                    rules.walk(attr.g, f"{path}.attribute.{rules.text(attr.name)}.", self)
                elif own_bodies and kind == onnx.AttributeProto.GRAPHS:
                    for j, body in enumerate(attr.graphs):
                        rules.walk(body, f"{path}.attribute.{rules.text(attr.name)}[{j}].", self)
        for k, name in enumerate(outs):
            if not name or name in made:
                continue  # (two nodes writing one name: the walker's graph.edge)
            first = defined.get(name)
            if first is not None:
                rules.say("graph.edge", f"{path}.output[{k}]",
                          f"{path} writes {shown(name)}, the name of {first}; a name is defined once (SSA)",
                          (first, "defined here"))  # fmt: skip
            elif parent is not None and parent.has(name):
                rules.say("graph.edge", f"{path}.output[{k}]",
                          f"{path} writes {shown(name)}, a name of an enclosing graph; a subgraph may not define "
                          "a name again (SSA)")  # fmt: skip
            made[name] = index
            if name not in self.waiting:
                continue
            for place, slot in self.waiting.pop(name):
                if not self.feeds(place, index):
                    reader = self.paths[place]
                    rules.say("graph.order", f"{reader}.input[{slot}]",
                              f"{reader} reads {shown(name)}, which node {index} (later in the graph) makes; ONNX "
                              "requires the nodes in topological order, each name made before it is read",
                              (path, "made here"))  # fmt: skip

    def feeds(self, source: int, target: int) -> bool:
        """Whether node `target` reads, through any chain, what node `source` makes: then reading its
        output is a cycle (the walker's graph.cycle), not a question of order."""
        seen, todo = set(), [target]
        while todo:
            place = todo.pop()
            if place == source:
                return True
            if place in seen:
                continue
            seen.add(place)
            todo.extend(self.made[n] for n in self.reads[place] if n in self.made)
        return False

    def leave(self, g: onnx.GraphProto) -> None:
        """The graph's outputs, once its nodes are read: each a value of the graph."""
        for k, info in enumerate(g.output):
            name = self.rules.text(info.name)
            if name and name not in self.defined and name not in self.made:
                self.rules.say("graph.output", f"{self.where}graph.output[{k}]",
                               f"graph output {shown(name)} is no value of the graph: no node makes it, and it is no "
                               "input or initializer")  # fmt: skip
