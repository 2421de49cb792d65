"""What oneDNN Graph JSON says besides its ops: the graph's own fields, each logical tensor's layout and
property, op ids, and what the oneDNN release the file names had.

The values a field may take are the words oneDNN's own writer uses (src/graph/utils/debug.cpp:
engine_kind2str, fpmath_mode2str, layout_type2str, property_type2str; src/graph/interface/graph.cpp
serialize), which benchdnn's reader (tests/benchdnn/graph/deserialize.cpp) reads back. Strides are
held to the check oneDNN makes when it turns a logical tensor into memory (memory_desc_strides_check):
a tensor it refuses there aborts the process at compile. docs/graph-rules.md says where opspec
refuses what the library lets through (and why).

A value's layout and property are checked on one declaration: its producer's, or for a graph input its
first consumer's; another declaration that differs from it is the edge's fault (graph.edge.layout,
graph.edge.property), said once there.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from app.core.diagnostics import Diagnostic, Related
from app.core.numbers import INT64_MIN
from app.core.tensors import stride_overlap
from app.formats import onednn_versions
from app.formats.errors import shown
from app.formats.graph import diagnostic

# The graph's own fields: the values oneDNN's writer gives them, in any case (benchdnn compares
# fpmath_mode and fpmath_mode_apply_to_int without case, and reads 1 and 0 as the latter too).
FIELDS: dict[str, tuple[str, ...]] = {
    "engine_kind": ("cpu", "gpu", "any"),
    "fpmath_mode": ("strict", "bf16", "f16", "tf32", "any"),
    "fpmath_mode_apply_to_int": ("true", "false", "1", "0"),  # strings, as the writer writes them
}
LAYOUT_TYPES = ("undef", "any", "strided", "opaque")
PROPERTY_TYPES = ("undef", "variable", "constant", "host_scalar")
HOST_SCALAR_DTYPES = ("s32", "f32", "s64")  # dnnl_graph_logical_tensor_init refuses any other
UNKNOWN = frozenset({-1, INT64_MIN})  # a stride (or dim) left unknown; one alone: all strides unknown
VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")
FIRST_RELEASE = (3, 0)  # the first oneDNN with the Graph API; earlier numbers are its preview's (v0.x)


# A tensor's reference declaration: (tensor id, the logical tensor, its op's place, "outputs" or "inputs",
# its place there, a key equal for declarations checked alike, or None)
Reference = tuple[int, Any, int, str, int, Any]


def check(
    document: Any,
    problems: list[Diagnostic],
    walked: tuple[list[int], dict[int, int], list[Reference], Uses] | None = None,
) -> None:
    """The document's fields, ports, op ids and tensors (read by the reader already: ops are objects with
    integer ids, tensors objects with integer ids and shapes), each fault one finding in `problems`.
    `walked`: what a reader that walked the ops already found there (each op's id, the first op that
    produces each tensor, each tensor's reference declaration in order: see _references, and how to
    find what the ops use: see _uses); the document is a dict as json.loads gives it, or an object read
    as one (get, [], in)."""
    version = _fields(document, problems)
    ops: list[dict[str, Any]] = document["graph"]
    uses = None
    if walked is None:
        ids = [op["id"] for op in ops]
        produced: dict[int, int] = {}  # a tensor an op produces -> the first op that does
        for index, op in enumerate(ops):
            for item in op.get("outputs", ()):
                produced.setdefault(item["id"], index)
        references = _references(ops, produced)
    else:
        ids, produced, references, uses = walked
    _op_ids(ids, ops, problems)
    _ports(document, ops, produced, problems)
    _tensors(references, problems)
    if version is not None:
        _newer(ops, document["version"], version, problems, uses)


def _fields(document: dict[str, Any], problems: list[Diagnostic]) -> tuple[int, int] | None:
    """The graph's fields against the format's values; the file's (major, minor) version when it says
    one opspec can compare."""
    for name, allowed in FIELDS.items():
        value = document.get(name)
        if name in document and not (isinstance(value, str) and value.lower() in allowed):
            problems.append(
                diagnostic("graph.field", name,
                           f"{name} {shown(document[name])} is not a value of the format: one of "
                           f"{', '.join(map(repr, allowed))}")
            )  # fmt: skip
    if "version" not in document:
        return None
    version = document["version"]
    if not isinstance(version, str):
        problems.append(
            diagnostic(
                "graph.field", "version", f"version must be a string such as '3.13.0'; got {shown(version)}"
            )
        )
        return None
    match = VERSION.fullmatch(version)
    if match is None:
        problems.append(
            diagnostic("graph.field", "version",
                       f"version {shown(version)} is not a oneDNN release number (major.minor.patch, such as "
                       "'3.13.0'), so what that release had cannot be told", "warning")
        )  # fmt: skip
        return None
    return int(match[1]), int(match[2])


def _who(ops: list[dict[str, Any]], index: int) -> str:
    name = ops[index].get("name")
    return f"graph[{index}] ({name})" if isinstance(name, str) and name else f"graph[{index}]"


def _op_ids(ids: list[int], ops: list[dict[str, Any]], problems: list[Diagnostic]) -> None:
    if len(set(ids)) == len(ids):
        return  # (at C speed, for the usual file)
    first: dict[int, int] = {}
    for index, op_id in enumerate(ids):
        seen = first.setdefault(op_id, index)
        if seen != index:
            finding = diagnostic(
                "graph.op.id",
                f"graph[{index}].id",
                f"op id {op_id} of {_who(ops, index)} is {_who(ops, seen)}'s too: each op has its own id (the "
                "library's partitioning crashes on some graphs that repeat one, and benchdnn keeps one op per id)",
            )
            finding.related = [Related(path=f"graph[{seen}].id", message=f"{_who(ops, seen)} has id {op_id}")]
            problems.append(finding)


def _references(ops: list[dict[str, Any]], produced: dict[int, int]) -> list[Reference]:
    """Each logical tensor's reference declaration: its producer's, else its first consumer's; those of
    what ops produce first, in op order, then those of the graph's inputs."""
    out: list[Reference] = []
    done: set[int] = set()
    for side in ("outputs", "inputs"):
        written = side == "outputs"
        for index, op in enumerate(ops):
            for k, item in enumerate(op.get(side, ())):
                tid = item["id"]
                if tid in done or (not written and tid in produced):
                    continue
                done.add(tid)
                try:
                    shape, stride = item.get("shape"), item.get("stride")
                    key = (item.get("layout_type"), item.get("property_type"), item.get("dtype"), written,
                           tuple(shape) if type(shape) is list else shape,
                           tuple(stride) if type(stride) is list else stride)  # fmt: skip
                    hash(key)
                except TypeError:  # (a stride list holding an object: checked, never shared)
                    key = None
                out.append((tid, item, index, side, k, key))
    return out


def _tensors(references: list[Reference], problems: list[Diagnostic]) -> None:
    """Each logical tensor's reference declaration checked; what a declaration found fine says is
    remembered, so that its like (most of a file) is not checked again."""
    fine: set[Any] = set()
    for tid, item, index, side, k, key in references:
        if key is not None and key in fine:
            continue
        before = len(problems)
        _tensor(tid, item, f"graph[{index}].{side}[{k}]", side == "outputs", problems)
        if key is not None and len(problems) == before:
            fine.add(key)


def _ports(
    document: dict[str, Any],
    ops: list[dict[str, Any]],
    produced: dict[int, int],
    problems: list[Diagnostic],
) -> None:
    """input_ports name the graph's inputs and output_ports what its ops produce. benchdnn reads them only
    to rewrite shapes from its command line (and adds every graph input to input_ports itself), and the
    library never sees them, so a port that names nothing of the graph is a warning."""
    for side in ("input_ports", "output_ports"):
        if side not in document:
            continue
        ports = document[side]
        if not (isinstance(ports, list) and all(type(p) is int for p in ports)):
            problems.append(
                diagnostic("graph.field", side, f"{side} must be a list of tensor ids; got {shown(ports)}")
            )
            continue
        read = {item["id"] for op in ops for item in op.get("inputs", ())}
        for k, tid in enumerate(ports):
            why = ""
            if tid not in produced and tid not in read:
                why = "which no op of the graph reads or writes"
            elif side == "input_ports" and tid in produced:
                why = f"which {_who(ops, produced[tid])} produces: not a graph input"
            elif side == "output_ports" and tid not in produced:
                why = "which no op produces: a graph input, not an output"
            if why:
                problems.append(
                    diagnostic("graph.ports", f"{side}[{k}]", f"{side} names tensor {tid}, {why}")
                )


def _tensor(tid: int, item: dict[str, Any], path: str, written: bool, problems: list[Diagnostic]) -> None:
    layout = item.get("layout_type", "strided")
    if layout not in LAYOUT_TYPES:
        problems.append(
            diagnostic("graph.layout.type", f"{path}.layout_type",
                       f"tensor {tid}'s layout_type {shown(layout)} is not a value of the format: one of "
                       f"{', '.join(map(repr, LAYOUT_TYPES))}")
        )  # fmt: skip
    prop = item.get("property_type", "undef")
    shape = item.get("shape")
    if prop not in PROPERTY_TYPES:
        problems.append(
            diagnostic("graph.property", f"{path}.property_type",
                       f"tensor {tid}'s property_type {shown(prop)} is not a value of the format: one of "
                       f"{', '.join(map(repr, PROPERTY_TYPES))}")
        )  # fmt: skip
    elif prop == "host_scalar" and (shape != [] or item.get("dtype") not in HOST_SCALAR_DTYPES):
        problems.append(
            diagnostic("graph.property", f"{path}.property_type",
                       f"tensor {tid} is a host_scalar, so it has shape [] and dtype s32, f32 or s64; it is "
                       f"{shown(item.get('dtype'))} {shown(shape)} (the library refuses to make it)")
        )  # fmt: skip
    if layout in ("any", "opaque"):
        if not written:
            problems.append(
                diagnostic("graph.layout.input", f"{path}.layout_type",
                           f"tensor {tid} is a graph input of layout_type {layout}: an input is laid out by its "
                           "strides, and "
                           + ("compile has no layout to read it by (oneDNN fails on it)" if layout == "any" else
                              "an opaque layout's id cannot be written in a file"))
            )  # fmt: skip
        return
    if "stride" not in item or layout not in LAYOUT_TYPES:
        return  # (no strides written: dense, as the library makes them)
    _strides(tid, item, path, written, problems)


def _strides(tid: int, item: dict[str, Any], path: str, written: bool, problems: list[Diagnostic]) -> None:
    strides, shape = item["stride"], item.get("shape")
    where = f"{path}.stride"
    if not (isinstance(strides, list) and all(type(s) is int for s in strides)):
        problems.append(
            diagnostic(
                "graph.layout.strides",
                where,
                f"tensor {tid}'s stride must be a list of integers; got {shown(strides)}",
            )
        )
        return
    known = isinstance(shape, list) and all(d >= 0 for d in shape)
    if (len(strides) == 1 and strides[0] in UNKNOWN) or (strides and all(s in UNKNOWN for s in strides)):
        # (with a dim unknown too, the graph's shapes come at compile, strides with them)
        if not written and known:
            problems.append(
                diagnostic("graph.layout.input", where,
                           f"tensor {tid} is a graph input whose strides are unknown ({shown(strides)}): an input "
                           "is read by its strides (oneDNN aborts at compile without them)")
            )  # fmt: skip
        return
    if not known:
        return  # (unknown dims: the library checks such strides when it knows them; a bad dim is graph.dim's)
    said = f"tensor {tid}'s stride {shown(strides)} for shape {shown(shape)}"
    if len(strides) != len(shape):
        problems.append(
            diagnostic("graph.layout.strides", where,
                       f"{said} has {len(strides)} entries for rank {len(shape)}: one stride per dim (the library "
                       "reads as many strides as the shape has dims)")
        )  # fmt: skip
        return
    if any(s in UNKNOWN for s in strides):
        return  # some strides unknown: the library checks them once known
    if 0 in shape:
        return  # no elements: nothing is laid out (the library checks nothing either)
    # (a dim of 1 is never stepped along: the library passes over its stride, whatever it is)
    negative = next((axis for axis, s in enumerate(strides) if s < 0 and shape[axis] > 1), None)
    if negative is not None:
        problems.append(
            diagnostic("graph.layout.strides", f"{where}[{negative}]",
                       f"{said} is negative in dim {negative}: a stride is >= 0 (oneDNN aborts at compile)")
        )  # fmt: skip
        return
    if written:
        zero = next((axis for axis, s in enumerate(strides) if s == 0 and shape[axis] > 1), None)
        if zero is not None:
            problems.append(
                diagnostic("graph.layout.strides", f"{where}[{zero}]",
                           f"{said} is 0 in dim {zero}, so the op that writes it puts its {shape[zero]} elements "
                           "along that dim at one address; a zero stride is a broadcast read, for a graph input")
            )  # fmt: skip
            return
    found = stride_overlap(shape, strides)
    if found is not None:
        dim, inner = found
        problems.append(
            diagnostic("graph.layout.strides", f"{where}[{dim}]",
                       f"{said} lets elements share an address: dim {dim} steps {strides[dim]}, within the "
                       f"{strides[inner] * shape[inner]} elements that dim {inner} spans ({shape[inner]} x stride "
                       f"{strides[inner]}); oneDNN refuses such strides (it aborts at compile)")
        )  # fmt: skip


Uses = Callable[[Any], tuple[set[str], set[tuple[str, str]], set[str]]]


def _uses(ops: list[dict[str, Any]]) -> tuple[set[str], set[tuple[str, str]], set[str]]:
    """The op kinds, (kind, attribute) pairs, and tensor dtypes and property types the ops use."""
    kinds = {op["kind"] for op in ops}
    attrs = {(op["kind"], name) for op in ops for name in op.get("attrs", ())}
    items = [item for op in ops for side in ("inputs", "outputs") for item in op.get(side, ())]
    words = {item.get("dtype") for item in items}  # (strings: the reader holds a dtype to that)
    words |= {prop for item in items if type(prop := item.get("property_type")) is str}
    return kinds, attrs, words  # type: ignore[return-value]


def _newer(
    ops: list[dict[str, Any]],
    text: str,
    version: tuple[int, int],
    problems: list[Diagnostic],
    used: Uses | None = None,
) -> None:
    """Each op kind, attribute, dtype and property type the file uses that came after the oneDNN release
    its `version` names: one warning per feature, at its first use. Before 3.0 (the Graph API's preview
    releases) nothing is compared."""
    if version < FIRST_RELEASE:
        return
    ops_after = {kind for kind, since in onednn_versions.OPS.items() if since > version}
    attrs_after = {key for key, since in onednn_versions.ATTRS.items() if since > version}
    dtypes_after = {dtype for dtype, since in onednn_versions.DTYPES.items() if since > version}
    props_after = {prop for prop, since in onednn_versions.PROPERTIES.items() if since > version}
    if not (ops_after or attrs_after or dtypes_after or props_after):
        return  # (a file of the latest releases: nothing it may use came later)
    uses: Counter[str] = Counter()
    first: dict[str, tuple[str, tuple[int, int]]] = {}

    def use(what: str, path: str, since: tuple[int, int]) -> None:
        uses[what] += 1
        first.setdefault(what, (path, since))

    # (a set of what the file uses first, at C speed: most files use nothing newer than they say)
    kinds, attrs, words = (used or _uses)(ops)
    ops_after &= kinds
    attrs_after &= attrs
    tensors = not words.isdisjoint(dtypes_after | props_after)
    if not (ops_after or attrs_after or tensors):
        return
    for index, op in enumerate(ops):
        kind = op["kind"]
        if kind in ops_after:
            use(f"op {kind}", f"graph[{index}].kind", onednn_versions.OPS[kind])
        if attrs_after:
            for name in op.get("attrs", {}):
                if (kind, name) in attrs_after:
                    use(
                        f"{kind}'s attribute {name}",
                        f"graph[{index}].attrs.{name}",
                        onednn_versions.ATTRS[kind, name],
                    )
        if not tensors:
            continue
        for side in ("inputs", "outputs"):
            for k, item in enumerate(op.get(side, ())):
                dtype, prop = item.get("dtype"), item.get("property_type")
                if type(dtype) is str and dtype in dtypes_after:
                    use(f"dtype {dtype}", f"graph[{index}].{side}[{k}].dtype", onednn_versions.DTYPES[dtype])
                if type(prop) is str and prop in props_after:
                    use(f"property_type {prop}", f"graph[{index}].{side}[{k}].property_type",
                        onednn_versions.PROPERTIES[prop])  # fmt: skip
    for what, (path, since) in first.items():
        more = uses[what] - 1
        problems.append(
            diagnostic("graph.version", path,
                       f"{what} came in oneDNN {since[0]}.{since[1]}, but the file says version {text}"
                       + (f" ({more} more use{'s' if more > 1 else ''} after this one)" if more else ""))
        )  # fmt: skip
