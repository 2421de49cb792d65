"""Descriptors as plain objects, for the graph walk: what a check reads of a descriptor (its kind, attrs,
inputs and outputs; a tensor's dtype, shape, data, strides and quant), made from the wire dict a graph
reader's translation gives, without pydantic.

A graph of 10,000 nodes is 10,000 descriptors, nearly all well formed and made by opspec's own readers
from values it already holds in canonical form: pydantic's models (a model per descriptor, attribute
set and tensor, a validator per field) cost more than the check they feed. This pass takes each value
through the same rules as the models, for the subset a graph reader writes (tensors of dtype, shape and
base64 data; attributes of a oneDNN family member's types, or a seed op's own attribute model), and
answers None for anything else: a value outside the subset or one a rule refuses. The walker then
parses that descriptor with pydantic as before, which explains every fault with its path.
tests/core/test_plain.py holds the two to the same values and verdicts, and
tests/formats/test_graph_paths.py whole graphs to the same answers.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from app.core.config import get_settings
from app.core.dtypes import DTYPES, canonical_dtype
from app.core.family import Attr, Family
from app.core.numbers import INT64_MAX, INT64_MIN
from app.core.registry import OpSpec
from app.core.shapes import Shape, parse_dim
from app.core.tensors import RankAndStrides

_NOT = object()  # a value this pass leaves to pydantic


class PlainTensor(RankAndStrides):
    """A tensor as the check reads it (Tensor's fields), of dtype, shape and at most data."""

    __slots__ = ("data", "dtype", "shape")
    strides = None  # the fields Tensor has and this pass never takes
    quant = None

    def __init__(self, dtype: str, shape: Shape | None, data: Any = None):
        self.dtype = dtype
        self.shape = shape
        self.data = data


class PlainDescriptor:
    """A descriptor as the check reads it: the fields of the op's pydantic model."""

    __slots__ = ("attrs", "inputs", "kind", "outputs")

    def __init__(self, kind: str, attrs: Any, inputs: list[PlainTensor], outputs: list[PlainTensor] | None):
        self.kind = kind
        self.attrs = attrs
        self.inputs = inputs
        self.outputs = outputs


class WireTensor(dict):
    """A wire tensor (a dict, as the descriptor answer shows it) that keeps the plain tensor it reads as,
    for a graph reader's value that many nodes read (graph.wire_tensor makes one per value)."""

    __slots__ = ("plain",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.plain: PlainTensor | None = None


class _Default:
    """A field of a plain attribute class, as a rule asks a pydantic model's field for its default."""

    __slots__ = ("default",)

    def __init__(self, default: Any):
        self.default = default


class PlainAttrs:
    """Base of a family member's plain attribute class: one slot per attribute, the given names in
    `model_fields_set` and each field's default in `model_fields`, as on the pydantic model."""

    __slots__ = ("model_fields_set",)
    model_fields: Mapping[str, _Default] = {}
    attrs: tuple[Attr, ...] = ()


def _attrs_class(spec: OpSpec) -> type[PlainAttrs]:
    found = _CLASSES.get(spec.kind)
    if found is not None:
        return found
    attrs: tuple[Attr, ...] = spec.extra.attrs
    names = tuple(attr.name for attr in attrs)
    found = _CLASSES[spec.kind] = type(
        f"Plain{spec.kind}Attrs",
        (PlainAttrs,),
        {
            "__slots__": names,
            "model_fields": {a.name: _Default(None if a.required else a.default) for a in attrs},
            "attrs": attrs,
        },
    )
    return found


_CLASSES: dict[str, type[PlainAttrs]] = {}  # by kind, made on first use


def _number(value: Any) -> Any:
    """An f32 item as pydantic's float gives it: a finite float, or an int within int64 as a float."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else _NOT
    if kind is int and INT64_MIN <= value <= INT64_MAX:
        return float(value)
    return _NOT


def _numbers(values: list) -> Any:
    out = [_number(v) for v in values]
    return _NOT if _NOT in out else out


def _value(kind: str, value: Any) -> Any:
    """An attribute value of a oneDNN type as its pydantic field validates it, or _NOT."""
    if value is None:
        return None
    if kind == "s64":
        return value if type(value) is int and INT64_MIN <= value <= INT64_MAX else _NOT
    if kind == "s64[]":
        if type(value) is list and all(type(v) is int and INT64_MIN <= v <= INT64_MAX for v in value):
            return list(value)
        return _NOT
    if kind == "bool":
        return value if type(value) is bool else _NOT
    if kind == "string":
        return value if type(value) is str else _NOT
    if kind == "f32":  # Numbers: a number or a list of them
        return _numbers(value) if type(value) is list else _number(value)
    if kind == "f32[]":
        return _numbers(value) if type(value) is list else _NOT
    if kind == "f32|inf":  # Bound: a number, or an infinity spelled "inf" / "-inf"
        return float(value) if value in ("inf", "-inf") and type(value) is str else _number(value)
    return _NOT


def attributes(spec: OpSpec, given: Any) -> Any:
    """The op's attributes as its model would hold them, or None: a family member's as a plain object,
    a seed op's by its own model (its validators are its own; a few attribute sets per graph)."""
    if type(given) is not dict:
        return None
    if not isinstance(spec.extra, Family):
        try:
            return spec.descriptor.model_fields["attrs"].annotation.model_validate(given)
        except ValidationError:
            return None
    cls = _attrs_class(spec)
    out = cls()
    for attr in cls.attrs:
        name = attr.name
        if name in given:
            value = _value(attr.type, given[name])
            if value is _NOT:
                return None
        else:
            value = cls.model_fields[name].default
        setattr(out, name, value)
    if len(given) > len(cls.attrs) or not given.keys() <= cls.model_fields.keys():
        return None  # a name the op does not have: pydantic names it
    out.model_fields_set = set(given)
    return out


@functools.lru_cache(maxsize=4096)  # a graph's few symbols and expressions come back on every node
def _dim_text(text: str) -> Any:
    try:
        return parse_dim(text)
    except ValueError:
        return _NOT


def shape(dims: Any) -> Any:
    """A wire shape as Tensor's validator reads it (a tuple of parse_dim's dims), or _NOT."""
    if dims is None:
        return None
    if type(dims) is not list or len(dims) > get_settings().max_rank:
        return _NOT
    out = []
    for dim in dims:
        kind = type(dim)
        if kind is int:
            if 0 <= dim <= INT64_MAX:
                out.append(dim)
            elif dim == -1:
                out.append(None)
            else:
                return _NOT
        elif dim is None:
            out.append(None)
        elif kind is str:
            parsed = _dim_text(dim)
            if parsed is _NOT:
                return _NOT
            out.append(parsed)
        else:
            return _NOT
    return tuple(out)


_TENSOR_KEYS = frozenset({"dtype", "shape", "data"})


@functools.lru_cache(maxsize=256)
def _dtype(name: str) -> str | None:
    try:
        return canonical_dtype(name)
    except ValueError:
        return None


def tensor(raw: Any) -> PlainTensor | None:
    """A wire tensor of dtype, shape and at most data (kept as given: the check decodes it), or None."""
    if type(raw) is WireTensor:
        if raw.plain is None:
            raw.plain = _tensor(raw)
        return raw.plain
    return _tensor(raw) if type(raw) is dict else None


def _tensor(raw: dict[str, Any]) -> PlainTensor | None:
    if not raw.keys() <= _TENSOR_KEYS or "shape" not in raw:
        return None
    name = raw.get("dtype")
    dtype = (name if name in DTYPES else _dtype(name)) if type(name) is str else None
    if dtype is None:
        return None
    dims = shape(raw["shape"])
    if dims is _NOT:
        return None
    return PlainTensor(dtype, dims, raw.get("data"))


def tensors(raw: Any) -> list[PlainTensor] | None:
    if type(raw) is not list:
        return None
    out = []
    for item in raw:
        made = tensor(item)
        if made is None:
            return None
        out.append(made)
    return out


_DESCRIPTOR_KEYS = frozenset({"kind", "attrs", "inputs", "outputs"})
_NONE: dict[str, Any] = {}  # no attributes given


def descriptor(
    spec: OpSpec, raw: dict[str, Any], read: dict[tuple[int, str], tuple[Any, Any]] | None = None
) -> PlainDescriptor | None:
    """`raw` (a descriptor of `spec`'s kind, as a graph translation writes it) as the check reads it, or
    None where pydantic must read it. `read`: attribute sets read so far, by the id of their dict and the
    kind that read it (held there with what it read as), for a reader that gives one dict to every node of an attribute set."""
    if not raw.keys() <= _DESCRIPTOR_KEYS or raw.get("kind") not in spec.names:
        return None
    given = raw.get("attrs", _NONE)
    if read is None:
        attrs = attributes(spec, given)
    else:
        # One dict may serve nodes of several kinds (a translation's empty attributes: ReLU's and
        # GELU's), and each kind reads it into its own class.
        key = (id(given), spec.kind)
        found = read.get(key)
        if found is None or found[0] is not given:
            found = read[key] = (given, attributes(spec, given))
        attrs = found[1]
    inputs = tensors(raw.get("inputs"))
    if attrs is None or inputs is None:
        return None
    outputs = raw.get("outputs")
    if outputs is not None:
        outputs = tensors(outputs)
        if outputs is None:
            return None
    return PlainDescriptor(raw["kind"], attrs, inputs, outputs)
