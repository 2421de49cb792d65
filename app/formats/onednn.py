"""oneDNN Graph JSON: benchdnn's `--graph` files and what ONEDNN_GRAPH_DUMP writes.

    {"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict",
     "graph": [{"id": 0, "name": "REDUCTION_0", "kind": "ReduceMax",
                "attrs": {"axes": {"type": "s64[]", "value": [1]}, "keep_dims": {"type": "bool", "value": 1}},
                "inputs": [{"id": 0, "dtype": "f32", "shape": [1, 128, 150, 150], "stride": [...],
                            "layout_type": "strided", "property_type": "undef"}],
                "outputs": [{"id": 1, ...}]}]}

Edges are implicit: an op's input logical tensor has the id of some op's output. A dim of -1 or
INT64_MIN is unknown. Paths are the document's own: `graph[3].attrs.axes.value[0]`.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Iterator, Mapping
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any, Literal, NoReturn

import msgspec
import numpy as np
from msgspec import UNSET, UnsetType

from app.core.config import Settings
from app.core.dtypes import DTYPES
from app.core.family import ONEDNN
from app.core.numbers import INT64_MIN
from app.core.payload import LimitExceeded
from app.formats import jsonpos, onednn_fields
from app.formats.errors import Malformed, shown
from app.formats.graph import (
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
from app.formats.source import not_utf8
from app.ops import REGISTRY

FORMAT = "onednn"
UNKNOWN_DIMS = frozenset({-1, INT64_MIN})
# A logical tensor whose shape is left for the library to infer: benchdnn's graph inputs write its
# shape as the one unknown dim [INT64_MIN] (the library's DNNL_GRAPH_UNKNOWN_DIM), whatever its rank.
UNKNOWN_RANK = [INT64_MIN]
# oneDNN Graph op kinds opspec checks, by the kind oneDNN writes: the same names and attributes. Every
# op of the registry whose source is the oneDNN Graph operation set is one.
KINDS = {spec.kind: spec.kind for spec in REGISTRY.values() if spec.source.startswith(ONEDNN)}


_WORDS = (str, type(None))  # what a tensor's layout_type and property_type are when they are well formed
_WS = re.compile(r"[ \t\n\r]*")
_OP = re.compile(r"graph\[(\d+)\]")
_DECODER = json.JSONDecoder()


class _Positions(Mapping[str, tuple[int, int]]):
    """Where a path's value starts (or its nearest parent's), worked out when asked: where each op of
    `graph` starts comes from one pass over the ops (msgspec's, or the C decoder's over the text); a path
    inside an op is looked up in that op's text only, so a file with findings on many of its 10,000 ops
    stays linear. Made from the text, or from the bytes (decoded only when a path inside an op is asked
    for)."""

    def __init__(self, source: str | bytes):
        self._source = source
        self._text: str | None = source if isinstance(source, str) else None
        # Each op's start and end offsets, then its line and column, two numbers an op (arrays: a list of
        # pairs is 120 bytes an op, a 50,000-op file's every op asked for)
        self._spans: array | None = None
        self._starts: array | None = None
        self._found: dict[str, tuple[int, int]] = {}

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._source.decode("utf-8").removeprefix("\ufeff")  # type: ignore[union-attr]
        return self._text

    def _ops(self) -> int:
        """How many ops the file's `graph` has, their places found on first use."""
        if self._spans is None:
            source = self._source
            spans = _raw_spans(source) if isinstance(source, bytes) and source.isascii() else None
            if spans is not None:  # (ASCII: byte offsets are the text's)
                self._starts = _line_starts(source, spans)  # type: ignore[arg-type]
            else:
                try:
                    pairs = _op_spans(self.text)
                except (IndexError, ValueError):  # not the object json.loads read: no op positions
                    pairs = []
                spans = array("q", [offset for pair in pairs for offset in pair])
                lines, columns = jsonpos.Lines(self.text).positions(spans[::2].tolist())
                self._starts = array("q", [n for pair in zip(lines, columns, strict=True) for n in pair])
            self._spans = spans
        return len(self._spans) // 2

    def get(self, path: str, default: Any = None) -> Any:
        """An op's own path ("graph[3]", what the walk asks of every node) from where each op starts."""
        if path.startswith("graph[") and path.endswith("]"):
            try:
                index = int(path[6:-1])
            except ValueError:  # a path inside an op ("graph[3].inputs[0]")
                pass
            else:
                if 0 <= index < self._ops() and path == f"graph[{index}]":
                    starts = self._starts
                    return starts[2 * index], starts[2 * index + 1]  # type: ignore[index]
        try:
            return self[path]
        except KeyError:
            return default

    def __getitem__(self, path: str) -> tuple[int, int]:
        found = self._found.get(path)
        if found is None:
            found = self._found[path] = self._locate(path)
        return found

    def _locate(self, path: str) -> tuple[int, int]:
        count = self._ops()
        match = _OP.match(path)
        if match is None or int(match[1]) >= count:
            return jsonpos.find(self.text, [path])[path]
        index = int(match[1])
        assert self._starts is not None and self._spans is not None
        line, column = self._starts[2 * index], self._starts[2 * index + 1]
        rest = path[match.end() :].removeprefix(".")
        if not rest:
            return line, column
        start, end = self._spans[2 * index], self._spans[2 * index + 1]
        inner_line, inner_column = jsonpos.find(self.text[start:end], [rest])[rest]
        return line + inner_line - 1, inner_column + (column - 1 if inner_line == 1 else 0)

    def __iter__(self) -> Iterator[str]:
        return iter(self._found)

    def __len__(self) -> int:
        return len(self._found)


class _RawOps(msgspec.Struct):
    graph: list[msgspec.Raw]


_RAW_OPS = msgspec.json.Decoder(_RawOps)


def _line_starts(data: bytes, spans: array) -> array:
    """The line and column where each span starts, counting newlines from one to the next (no index of
    every line: a 40 MB file has two million)."""
    out = array("q")
    line, line_start, at = 1, 0, 0
    count, before, add = data.count, data.rfind, out.extend
    for start in spans[::2]:
        newlines = count(b"\n", at, start)
        if newlines:
            line += newlines
            line_start = before(b"\n", at, start) + 1
        add((line, start - line_start + 1))
        at = start
    return out


def _raw_spans(data: bytes) -> array | None:
    """Where each op of `graph` starts and ends, by msgspec: each op's bytes are a view into `data`, so
    the first one's address gives its offset, and each next one starts at the first brace after the
    last one's end. None where msgspec does not read the file so."""
    try:
        ops = _RAW_OPS.decode(data).graph
    except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None
    spans = array("q")
    if not ops:
        return spans
    at = np.frombuffer(memoryview(ops[0]), np.uint8).ctypes.data - np.frombuffer(data, np.uint8).ctypes.data
    find, add = data.find, spans.extend
    for op in ops:
        end = at + len(op)
        add((at, end))
        at = find(b"{", end)
    return spans


def _op_spans(text: str) -> list[tuple[int, int]]:
    """Where each element of the top-level `graph` list starts and ends, for text json.loads read."""
    ws = _WS.match
    spans: list[tuple[int, int]] = []
    at = ws(text, 0).end()  # type: ignore[union-attr]
    if text[at] != "{":
        return spans
    at = ws(text, at + 1).end()  # type: ignore[union-attr]
    while text[at] != "}":
        key, at = scanstring(text, at + 1)
        at = ws(text, ws(text, at).end() + 1).end()  # type: ignore[union-attr]  # past the colon
        if key == "graph" and text[at] == "[":
            spans = []  # the last "graph" wins, as in json.loads
            at = ws(text, at + 1).end()  # type: ignore[union-attr]
            while text[at] != "]":
                end = _DECODER.raw_decode(text, at)[1]
                spans.append((at, end))
                at = ws(text, end).end()  # type: ignore[union-attr]
                if text[at] == ",":
                    at = ws(text, at + 1).end()  # type: ignore[union-attr]
            at += 1
        else:
            at = _DECODER.raw_decode(text, at)[1]
        at = ws(text, at).end()  # type: ignore[union-attr]
        if text[at] == ",":
            at = ws(text, at + 1).end()  # type: ignore[union-attr]
    return spans


def _depth(document: Any, limit: int) -> None:
    """The document's nesting within `limit`, a level at a time: json.loads makes only dicts and lists
    as containers, so testing each child's exact type is enough, and cheaper than isinstance."""
    level = [document] if type(document) is dict or type(document) is list else []
    depth = 1
    while True:
        if depth > limit:
            raise LimitExceeded(
                "file", "max_graph_depth", f"the JSON nests deeper than {limit} levels (max_graph_depth)"
            )
        below = [
            child
            for value in level
            for child in (value.values() if type(value) is dict else value)
            if type(child) is dict or type(child) is list
        ]
        if not below:
            return
        depth += 1
        level = below


# oneDNN Graph JSON as msgspec reads it, for the plain path: each struct holds the fields the reader
# takes, typed as a well-formed file writes them (a layout_type a word, strides integers), every name
# known. Anything else (an unknown key, a value of another type, a NaN literal, JSON it cannot read) is
# left to the reference reader, which says what is wrong where. Each reads like the dict json.loads gives
# (get, [], in: an absent field is absent), so onednn_fields checks either.
class _Object(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self, key, UNSET)
        return default if value is UNSET else value

    def __getitem__(self, key: str) -> Any:
        value = getattr(self, key, UNSET)
        if value is UNSET:
            raise KeyError(key)
        return value

    def __contains__(self, key: str) -> bool:
        return getattr(self, key, UNSET) is not UNSET


class _Attr(_Object):
    type: str
    value: int | float | str | bool | list[int | float] | None


# The words a logical tensor's fields take, as Literals: msgspec then gives one string object for every
# tensor that says the same (a 50,000-op file holds 100,000 of each); another word is the reference
# reader's to read (a dtype opspec does not know, a layout the fields rule names).
_DTYPE = Literal[("undef", *DTYPES)]  # type: ignore[valid-type]
_LAYOUT = Literal[onednn_fields.LAYOUT_TYPES]  # type: ignore[valid-type]
_PROPERTY = Literal[onednn_fields.PROPERTY_TYPES]  # type: ignore[valid-type]


class _Tensor(_Object):
    id: int
    dtype: _DTYPE = "undef"
    shape: list[int] | None = None
    stride: list[int] | UnsetType = UNSET
    layout_type: _LAYOUT | UnsetType = UNSET
    property_type: _PROPERTY | UnsetType = UNSET


class _Op(_Object):
    id: int
    kind: str
    name: str = ""
    attrs: dict[str, _Attr] = {}
    inputs: list[_Tensor] = []
    outputs: list[_Tensor] = []


class _Document(_Object):
    graph: list[_Op]
    version: str | UnsetType = UNSET
    engine_kind: str | UnsetType = UNSET
    fpmath_mode: str | UnsetType = UNSET
    fpmath_mode_apply_to_int: str | UnsetType = UNSET
    input_ports: list[int] | UnsetType = UNSET
    output_ports: list[int] | UnsetType = UNSET


_DOCUMENT = msgspec.json.Decoder(_Document)
_ENCODE = msgspec.json.Encoder().encode
_DEPTH = 6  # the deepest a _Document nests: graph, op, inputs, tensor, shape (attrs, attr, value)
_BOM = b"\xef\xbb\xbf"


def _typed(data: bytes, settings: Settings) -> _Document | None:
    """The file as msgspec's structs, or None: the reference reader reads it."""
    if settings.graph_path != "plain" or settings.max_graph_depth < _DEPTH:
        return None
    try:
        return _DOCUMENT.decode(data.removeprefix(_BOM))
    except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None


def parse(data: bytes, settings: Settings) -> Graph:
    document = _typed(data, settings)
    if document is not None:
        return _Reader(document, _Positions(data), settings).graph()
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        message, line, column = not_utf8(data, exc)
        raise Malformed(message, "", line, column) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Malformed(f"not JSON: {exc.msg}", "", exc.lineno, exc.colno) from None
    except ValueError as exc:  # an integer past Python's digit limit: JSON, but not one we can read
        raise Malformed(f"the JSON cannot be read: {str(exc)[:200]}") from None
    except RecursionError:
        raise LimitExceeded(
            "file",
            "max_graph_depth",
            f"the JSON nests too deeply to read (max_graph_depth {settings.max_graph_depth})",
        ) from None
    _depth(document, settings.max_graph_depth)
    positions = _Positions(text)
    return _Reader(document, positions, settings).graph()


class _Reader:
    def __init__(self, document: Any, positions: Mapping[str, tuple[int, int]], settings: Settings):
        self.document = document
        self.positions = positions
        self.settings = settings
        self.problems: list = []
        self.translations: dict[tuple[str, str], Any] = {}
        # Logical tensors of one dtype and shape as one Value, so that the walk sees the same objects
        # and answers like nodes alike (graph.walk); a shape with a finding is read each time.
        self.values: dict[tuple[str, tuple[int, ...]], Value] = {}
        self.names: dict[int, str] = {}  # tensor id -> its name, one string for every declaration of it
        self.signatures: dict[Any, Any] = {}  # one object for every node of a signature
        # for onednn_fields, found along msgspec's structs (see typed_node)
        self.produced: dict[int, int] = {}  # tensor id -> the first op that produces it
        self.references: list[Any] = []  # what ops produce: the first producer's declaration
        self.pending: list[Any] = []  # what ops read and none made before: the first consumer's
        self.read: set[int] = set()

    def expect(self, ok: bool, message: str, path: str) -> None:
        if not ok:
            self.fail(message, path)

    def fail(self, message: str, path: str) -> NoReturn:
        line, column = jsonpos.locate(self.positions, path) or (None, None)
        raise Malformed(message, path, line, column)

    def graph(self) -> Graph:
        doc = self.document
        typed = type(doc) is _Document  # msgspec's: its types are the checks below
        if not typed:
            self.expect(isinstance(doc, dict), "a oneDNN Graph file is a JSON object with a `graph` list", "")
        ops = doc.get("graph")
        self.expect(isinstance(ops, list), "`graph` must be a list of ops", "graph" if "graph" in doc else "")
        limit = self.settings.max_graph_nodes
        if len(ops) > limit:
            raise LimitExceeded(
                "graph",
                "max_graph_nodes",
                f"the graph has {len(ops):,} ops, above the limit of {limit:,} (max_graph_nodes)",
            )
        if typed:
            nodes = [self.typed_node(index, op) for index, op in enumerate(ops)]
            pending = [reference for reference in self.pending if reference[0] not in self.produced]
            walked = ([op.id for op in ops], self.produced, self.references + pending, _uses)
            onednn_fields.check(doc, self.problems, walked)
        else:
            nodes = [self.node(index, op) for index, op in enumerate(ops)]
            onednn_fields.check(doc, self.problems)
        produced = {name for node in nodes for name in node.outputs}
        inputs: dict[str, Value] = {}
        for node in nodes:
            for name, value in zip(node.inputs, node.declared_inputs, strict=True):
                if name is not None and name not in produced and value is not None:
                    inputs.setdefault(name, value)
        return Graph(FORMAT, "onednn", nodes, inputs, self.problems, self.positions, declarations="exact")

    # In node() and tensor() each message is made only when its test fails: a 10,000-op file would
    # otherwise quote 110,000 values it never shows.
    def node(self, index: int, op: Any) -> Node:
        path = f"graph[{index}]"
        if not isinstance(op, dict):
            self.fail("each op is an object with id, name, kind, attrs, inputs, outputs", path)
        for key, types in (("id", int), ("kind", str)):
            if not isinstance(op.get(key), types) or isinstance(op.get(key), bool):
                self.fail(
                    f"op `{key}` must be {'an integer' if types is int else 'a string'}; got {shown(op.get(key))}",
                    f"{path}.{key}" if key in op else path,
                )
        name = op.get("name", "")
        if not isinstance(name, str):
            self.fail(f"op `name` must be a string; got {shown(name)}", f"{path}.name")
        attrs = op.get("attrs", {})
        if not isinstance(attrs, dict):
            self.fail("`attrs` must be an object of {type, value}", f"{path}.attrs")
        for key, attr in attrs.items():
            if not (isinstance(attr, dict) and "value" in attr and isinstance(attr.get("type"), str)):
                self.fail(
                    f'attribute {shown(key)} must be {{"type": ..., "value": ...}}', f"{path}.attrs.{key}"
                )
        tensors = {}
        for side in ("inputs", "outputs"):
            listed = op.get(side, [])
            if not isinstance(listed, list):
                self.fail(f"`{side}` must be a list of logical tensors", f"{path}.{side}")
            tensors[side] = [self.tensor(item, f"{path}.{side}[{k}]") for k, item in enumerate(listed)]
        kind = op["kind"]
        signature = (kind, json.dumps(attrs)) if kind in KINDS else None
        return Node(
            id=str(op["id"]),
            name=name,
            kind=kind,
            path=path,
            inputs=[tid for tid, _ in tensors["inputs"]],
            outputs=[tid for tid, _ in tensors["outputs"]],
            declared_inputs=[value for _, value in tensors["inputs"]],
            declared_outputs=[value for _, value in tensors["outputs"]],
            translate=self.translations_for(signature, attrs) if signature is not None else None,
            signature=signature,
            input_paths="{path}.inputs[{index}]",
            output_paths="{path}.outputs[{index}]",
        )

    def typed_node(self, index: int, op: _Op) -> Node:
        """A node of msgspec's structs, whose types are the checks `node` makes."""
        path = f"graph[{index}]"
        inputs, declared_inputs = self.typed_tensors(op.inputs, path, index, "inputs")
        outputs, declared_outputs = self.typed_tensors(op.outputs, path, index, "outputs")
        kind = KINDS.get(op.kind)  # (the registry's string: one for every node of the kind)
        if kind is not None:
            signature = (kind, _ENCODE(op.attrs))
            signature = self.signatures.setdefault(signature, signature)
            translate = self.translations_for(signature, op.attrs)
        else:
            kind, signature, translate = op.kind, None, None
        return Node(
            str(op.id), op.name, kind, path, inputs, outputs, declared_inputs, declared_outputs, translate, signature,
            input_paths="{path}.inputs[{index}]", output_paths="{path}.outputs[{index}]",
        )  # fmt: skip

    def typed_tensors(
        self, items: list[_Tensor], path: str, index: int, side: str
    ) -> tuple[list[str], list[Value]]:
        """One side's tensor names and values; along the way, each tensor's reference declaration for
        onednn_fields (its producer's, else its first consumer's), keyed by its Value and side: the
        reader gives declarations of the same fields one Value."""
        names, produced, tensor = self.names, self.produced, self.typed_tensor
        written = side == "outputs"
        tids, values = [], []
        for k, item in enumerate(items):
            tid = item.id
            tids.append(names.get(tid) or names.setdefault(tid, str(tid)))
            value = tensor(item, path, side, k)
            values.append(value)
            if tid in produced:
                continue
            if written:
                produced[tid] = index
                self.references.append((tid, item, index, side, k, (id(value), True)))
            elif tid not in self.read:  # a graph input's, unless an op makes it later
                self.read.add(tid)
                self.pending.append((tid, item, index, side, k, (id(value), False)))
        return tids, values

    def translations_for(self, signature: tuple[str, str], attrs: dict[str, Any]):
        """One translation function per distinct attribute set, which a file repeats many times over."""
        found = self.translations.get(signature)
        if found is None:
            found = self.translations[signature] = _translate(attrs)
        return found

    def tensor(self, item: Any, path: str) -> tuple[str, Value]:
        if not isinstance(item, dict):
            self.fail("a logical tensor is an object with id, dtype, shape", path)
        tid = item.get("id")
        if not isinstance(tid, int) or isinstance(tid, bool):
            self.fail(
                f"tensor `id` must be an integer; got {shown(tid)}", f"{path}.id" if "id" in item else path
            )
        dtype = item.get("dtype", "undef")
        if not isinstance(dtype, str):
            self.fail(f"tensor `dtype` must be a string; got {shown(dtype)}", f"{path}.dtype")
        shape = item.get("shape")
        if shape is not None and not (
            isinstance(shape, list)
            and all(type(d) is int or (isinstance(d, int) and not isinstance(d, bool)) for d in shape)
        ):
            self.fail(f"tensor `shape` must be a list of integers; got {shown(shape)}", f"{path}.shape")
        layout, stride, prop = item.get("layout_type"), item.get("stride"), item.get("property_type")
        strides = tuple(stride) if type(stride) is list and all(type(d) is int for d in stride) else None
        return str(tid), self.value(dtype, shape, layout, strides, prop, path)

    def typed_tensor(self, item: _Tensor, path: str, side: str, k: int) -> Value:
        layout, stride, prop, shape = item.layout_type, item.stride, item.property_type, item.shape
        layout = None if layout is UNSET else layout
        strides = None if stride is UNSET else tuple(stride)
        prop = None if prop is UNSET else prop
        if shape is not None:
            value = self.values.get((item.dtype, tuple(shape), layout, strides, prop))
            if value is not None:  # (the usual: a tensor like one read before)
                return value
        return self.value(item.dtype, shape, layout, strides, prop, f"{path}.{side}[{k}]")

    def value(
        self, dtype: str, shape: list[int] | None, layout: Any, strides: Any, prop: Any, path: str
    ) -> Value:
        if shape is None or shape == UNKNOWN_RANK:
            return Value(file_dtype(dtype), None, layout=layout, strides=strides, property=prop)
        # (a layout or property that is not a word is the fields' finding; such a tensor is not shared)
        shared = type(layout) in _WORDS and type(prop) in _WORDS
        key = (dtype, tuple(shape), layout, strides, prop)
        value = self.values.get(key) if shared else None
        if value is None:
            before = len(self.problems)
            value = Value(
                file_dtype(dtype), self.shape(shape, path), layout=layout, strides=strides, property=prop
            )
            if shared and len(self.problems) == before:
                self.values[key] = value
        return value

    def shape(self, shape: list[int] | None, path: str) -> tuple | None:
        if shape is None:
            return None
        if not rank_fits(len(shape), f"{path}.shape", self.settings, self.problems):
            return None
        dims = []
        for axis, dim in enumerate(shape):
            if dim in UNKNOWN_DIMS:
                dims.append(None)
            elif dim < 0:
                self.problems.append(
                    diagnostic("graph.dim", f"{path}.shape[{axis}]",
                               f"dim {dim} is negative; a oneDNN dim is >= 0, or -1 / INT64_MIN for unknown")
                )  # fmt: skip
                dims.append(None)
            else:
                dims.append(dim)
        return tuple(dims)


def _uses(ops: list[_Op]) -> tuple[set[str], set[tuple[str, str]], set[str]]:
    """onednn_fields' _uses, by the structs' own fields."""
    kinds = {op.kind for op in ops}
    attrs = {(op.kind, name) for op in ops for name in op.attrs}
    items = [item for op in ops for item in op.inputs] + [item for op in ops for item in op.outputs]
    words = {item.dtype for item in items} | {item.property_type for item in items}
    words.discard(UNSET)  # type: ignore[arg-type]
    return kinds, attrs, words


def _attr(attr: dict[str, Any]) -> Any:
    """A typed attribute's value as the descriptor takes it: `bool` is written 0 or 1."""
    value = attr["value"]
    if attr["type"] == "bool" and value in (0, 1) and not isinstance(value, float):
        return bool(value)
    return value


def _translate(attrs: Mapping[str, Any]):
    # one dict of the attributes for every node of the set (the walk reads it once: plain.descriptor)
    values = {key: _attr(attr) for key, attr in attrs.items()}

    def translate(node: Node, inputs: list[Value | None]) -> Translation:
        def paths() -> dict[str, str]:  # (made only for a node with findings)
            mapped = {f"attrs.{key}": f"{node.path}.attrs.{key}.value" for key in attrs}
            mapped |= {
                "attrs": f"{node.path}.attrs",
                "inputs": f"{node.path}.inputs",
                "outputs": f"{node.path}.outputs",
            }
            mapped |= {f"inputs[{k}]": f"{node.path}.inputs[{k}]" for k in range(len(inputs))}
            mapped |= {f"outputs[{k}]": f"{node.path}.outputs[{k}]" for k in range(len(node.outputs))}
            return mapped

        descriptor = {
            "kind": KINDS[node.kind],
            "attrs": values,
            "inputs": [wire_tensor(v or Value(None, None)) for v in inputs],
        }
        return Translation(with_declared_outputs(node, descriptor), paths)

    return translate
