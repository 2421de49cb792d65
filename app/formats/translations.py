"""ONNX and OpenVINO ops that are exactly a oneDNN Graph op, as one table of data.

Each row says which native op (and from which opset or version), which oneDNN op it is, which native
inputs become the op's inputs, and where each oneDNN attribute comes from (a native attribute, a
constant input's values, a fixed value). A row applies only when its oneDNN kind is in the registry
(`app.ops.BY_NAME`) and the registry's op has every attribute the row gives (and the row gives every
attribute the op requires), so rows light up as the oneDNN op set grows and a row never makes a node
fail for opspec's want of an op. Where a row's semantics agree only under a condition (Softmax's axis
before opset 13, Clip with constant bounds), its `exact` function says why not, and the node is then
typed by the engine's own inference with a note that says so. docs/translations.md lists the table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from app.formats.errors import shown
from app.formats.graph import Node, Translation, Value, absent_output, wire_tensor, with_declared_outputs
from app.ops import BY_NAME


class NotExact(Exception):
    """This node, with these attributes or inputs, is not exactly the oneDNN op: the message says why."""


# --- where an attribute's value comes from ----------------------------------------------------------

Native = Mapping[str, Any]  # the node's attributes, read by the reader (ONNX values; IR strings)


@dataclass(frozen=True, slots=True)
class Attr:
    """A native attribute, converted; absent: the default (MISSING: the row does not apply)."""

    name: str
    default: Any = None
    convert: Callable[[Any], Any] | None = None
    required: bool = False

    def get(self, native: Native, inputs: Sequence[Value | None]) -> Any:
        if self.name not in native:
            if self.required:
                raise NotExact(f"it has no {self.name} attribute")
            return self.default
        value = native[self.name]
        try:
            return self.convert(value) if self.convert else value
        except (TypeError, ValueError):  # (an INT where the format has INTS, a word where a number)
            raise NotExact(
                f"its {self.name} attribute {shown(value)} is not of the type the op reads"
            ) from None


@dataclass(frozen=True, slots=True)
class Fixed:
    value: Any

    def get(self, native: Native, inputs: Sequence[Value | None]) -> Any:
        return self.value


@dataclass(frozen=True, slots=True)
class Const:
    """A constant input's values (an initializer, a Constant node, a Const layer with its weights)."""

    index: int
    convert: Callable[[list[Any]], Any] = list

    def get(self, native: Native, inputs: Sequence[Value | None]) -> Any:
        value = inputs[self.index] if self.index < len(inputs) else None
        if value is None or value.data is None:
            raise NotExact(f"input {self.index} is not a constant whose values are known here")
        return self.convert(value.data.reshape(-1).tolist())


@dataclass(frozen=True, slots=True)
class Computed:
    """A value worked out from the native attributes and inputs (pads split in two, a default per rank)."""

    function: Callable[[Native, Sequence[Value | None]], Any]

    def get(self, native: Native, inputs: Sequence[Value | None]) -> Any:
        return self.function(native, inputs)


Source = Attr | Fixed | Const | Computed


@dataclass(frozen=True, slots=True)
class Row:
    format: str  # onnx, openvino
    native: str  # ONNX op_type, IR layer type
    target: str  # the oneDNN Graph kind
    inputs: tuple[int, ...] = (0,)  # native inputs that are the op's inputs, in its port order
    optional: tuple[int, ...] = ()  # native inputs passed on when present (a bias)
    attrs: Mapping[str, Source] = field(default_factory=dict)
    since: int = 0  # ONNX: the first opset the row holds for
    versions: frozenset[str] = frozenset()  # IR: the layer versions it holds for; empty: every one
    exact: Callable[[Native, Sequence[Value | None], int], str] | None = None  # why not, or ''
    when: str = ""  # the condition, for the docs table
    # How many of the native outputs (from the first) are the op's outputs; a node with any other output
    # present is not the op, except for the outputs in `typed_outputs`, which the op does not compute and
    # the format's engine types (LayerNormalization's Mean and InvStdDev).
    outputs: int = 1
    typed_outputs: tuple[int, ...] = ()
    # Native inputs that need a change of form to be the op's (an N-D Scale flattened to 1-D): by index, a
    # function of the node's attributes and inputs that gives the op's tensor, or raises NotExact.
    adapt: Mapping[int, Callable[[Native, Sequence[Value | None]], Value]] = field(default_factory=dict)
    # Where the two specs agree on validity and shapes but not on every value (a NaN input): said in the
    # translation's note and the docs table, so a user comparing values knows.
    differs: str = ""


# --- conversions ------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _ints(value: Any) -> list[int]:
    if isinstance(value, str):
        return [int(v) for v in value.split(",") if v.strip()]
    return [int(v) for v in value]


def _float(value: Any) -> float:
    return float(value)


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1")
    return bool(value)


def _scalar(values: list[Any]) -> float | str:
    if len(values) != 1:
        raise NotExact(f"a bound holds {len(values)} values, not one")
    return _bound(values[0])


def _bound(value: Any) -> float | str:
    """A bound as the descriptor spells it: a number, or "inf" / "-inf" (no bound on that side)."""
    bound = float(value)
    if math.isnan(bound):
        raise NotExact("a bound is NaN")
    return bound if math.isfinite(bound) else ("inf" if bound > 0 else "-inf")


def _rank(inputs: Sequence[Value | None], index: int = 0) -> int:
    value = inputs[index] if index < len(inputs) else None
    if value is None or value.shape is None:
        raise NotExact(f"input {index}'s rank is unknown, so the defaults per spatial axis are unknown")
    return len(value.shape)


def _spatial(name: str, fill: int) -> Computed:
    """An ONNX per-spatial-axis attribute (strides, dilations), its default `fill` on each axis."""

    def get(native: Native, inputs: Sequence[Value | None]) -> list[int]:
        if name in native:
            return _ints(native[name])
        return [fill] * (_rank(inputs) - 2)

    return Computed(get)


def _pads(half: int) -> Computed:
    """ONNX `pads` [x1_begin, x2_begin, ..., x1_end, x2_end]: one half of it (0 begin, 1 end)."""

    def get(native: Native, inputs: Sequence[Value | None]) -> list[int]:
        if "pads" not in native:
            return [0] * (_rank(inputs) - 2)
        pads = _ints(native["pads"])
        middle = len(pads) // 2
        return pads[:middle] if half == 0 else pads[middle:]

    return Computed(get)


AUTO_PAD = {"NOTSET": "None", "SAME_UPPER": "SAME_UPPER", "SAME_LOWER": "SAME_LOWER", "VALID": "VALID"}
IR_AUTO_PAD = {"explicit": "None", "same_upper": "SAME_UPPER", "same_lower": "SAME_LOWER", "valid": "VALID"}


def _auto_pad(value: Any) -> str:
    text = _text(value)
    if text not in AUTO_PAD:
        raise NotExact(f"auto_pad {shown(text)} has no oneDNN counterpart")
    return AUTO_PAD[text]


def _ir_auto_pad(value: Any) -> str:
    text = _text(value).lower()
    if text not in IR_AUTO_PAD:
        raise NotExact(f"auto_pad {shown(text)} has no oneDNN counterpart")
    return IR_AUTO_PAD[text]


def _perm(native: Native, inputs: Sequence[Value | None]) -> list[int]:
    if "perm" in native:
        return _ints(native["perm"])
    return list(reversed(range(_rank(inputs))))


# --- conditions ------------------------------------------------------------------------------------


def _softmax_axis(native: Native, inputs: Sequence[Value | None], opset: int) -> str:
    """Before opset 13, ONNX Softmax flattens the input to 2-D at `axis` (default 1) and normalises the
    whole trailing block: the same as oneDNN's per-axis SoftMax only when that block is the last axis."""
    axis = int(native.get("axis", 1))
    value = inputs[0] if inputs else None
    rank = None if value is None or value.shape is None else len(value.shape)
    if axis == -1 or (rank is not None and axis == rank - 1):
        return ""
    return (
        f"before opset 13 ONNX Softmax normalises over every axis from {axis} on (the input flattened to "
        "2-D), which oneDNN's SoftMax over one axis computes only when that is the last axis"
    )


def _clip_bounds(native: Native, inputs: Sequence[Value | None], opset: int) -> str:
    """oneDNN Clamp needs both bounds; ONNX Clip's absent bound is no bound at all."""
    if opset < 11:
        missing = [name for name in ("min", "max") if name not in native]
    else:
        missing = [
            name for index, name in ((1, "min"), (2, "max")) if index >= len(inputs) or inputs[index] is None
        ]
    if missing:
        return (
            f"Clip without {' and '.join(missing)} is unbounded there, and oneDNN's Clamp needs both bounds"
        )
    return ""


def _gelu_erf(native: Native, inputs: Sequence[Value | None], opset: int) -> str:
    mode = _text(native.get("approximate", native.get("approximation_mode", "none"))).lower()
    return "" if mode in ("none", "erf") else f"the {mode} approximation of GELU is not oneDNN's GELU (erf)"


def _inference(native: Native, inputs: Sequence[Value | None], opset: int) -> str:
    if int(native.get("training_mode", 0)):
        return "BatchNormalization in training mode updates its statistics, which BatchNormInference does not"
    if not int(native.get("spatial", 1)):
        return "BatchNormalization with spatial=0 keeps statistics per element, oneDNN's per channel"
    return ""


def _pool_exact(average: bool) -> Callable[[Native, Sequence[Value | None], int], str]:
    """ONNX pooling against oneDNN's: AvgPool has no dilations, and with ceil_mode ONNX drops a last
    window that would start in the end padding (onnx.reference, the shape inference), where oneDNN's
    ceil rounding keeps it: exact only where no axis has such a window."""

    def exact(native: Native, inputs: Sequence[Value | None], opset: int) -> str:
        if int(native.get("storage_order", 0)):
            return "storage_order=1 gives column-major indices, which oneDNN's MaxPool does not"
        if average and any(d != 1 for d in _ints(native.get("dilations", []))):
            return "oneDNN's AvgPool has no dilations"
        if not int(native.get("ceil_mode", 0)):
            return ""
        if _text(native.get("auto_pad", "NOTSET")) != "NOTSET":
            return "ceil_mode with auto_pad has no oneDNN counterpart"
        src = inputs[0] if inputs else None
        kernel = _ints(native.get("kernel_shape", []))
        spatial = None if src is None or src.shape is None else src.shape[2:]
        if spatial is None or len(spatial) != len(kernel) or not all(type(d) is int for d in spatial):
            return "with ceil_mode, whether ONNX drops a last window that starts in the padding depends on sizes not known here"
        count = len(kernel)
        strides = _ints(native.get("strides", [1] * count))
        dilations = _ints(native.get("dilations", [1] * count))
        pads = _ints(native.get("pads", [0] * 2 * count))
        for axis, size in enumerate(spatial):
            window = dilations[axis] * (kernel[axis] - 1) + 1
            span = size + pads[axis] + pads[count + axis] - window
            ceiled = -(-span // strides[axis]) + 1
            if (ceiled - 1) * strides[axis] >= size + pads[axis]:
                return (
                    f"with ceil_mode, the last window on spatial axis {axis} would start past the input's end "
                    "(in the end padding or beyond): ONNX drops it, oneDNN's ceil rounding keeps it"
                )
        return ""

    return exact


def _one_way_cond(native: Native, inputs: Sequence[Value | None], opset: int) -> str:
    """ONNX Where (and OpenVINO's Select) broadcast cond, X and Y together; oneDNN's Select broadcasts X
    with Y and cond one way onto that: the same only where cond's shape fits in X and Y's broadcast
    shape."""
    shapes = [None if k >= len(inputs) or inputs[k] is None else inputs[k].shape for k in range(3)]
    cond, x, y = shapes
    if cond is None or x is None or y is None:
        return "an input's rank is unknown, so whether cond broadcasts one way onto X and Y cannot be told"
    rank = max(len(x), len(y))
    pad_x, pad_y = (1,) * (rank - len(x)) + tuple(x), (1,) * (rank - len(y)) + tuple(y)
    both = [a if a == b or b == 1 else b if a == 1 else None for a, b in zip(pad_x, pad_y, strict=True)]
    fits = len(cond) <= rank and all(
        c == 1 or (c is not None and c == d) for c, d in zip(cond, both[rank - len(cond) :], strict=True)
    )
    if fits:
        return ""
    return (
        f"Where broadcasts cond {_shape(cond)} with X {_shape(x)} and Y {_shape(y)}; oneDNN's Select "
        "broadcasts cond one way onto X and Y's shape, which cond does not provably fit"
    )


def _shape(shape: Sequence[Any]) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def _normalized_vector(index: int) -> Callable[[Native, Sequence[Value | None]], Value]:
    """LayerNormalization's Scale or B (input `index`), shaped as the normalized dims, as oneDNN's 1-D gamma
    or beta of their element count: the same values in the same order."""

    def adapt(native: Native, inputs: Sequence[Value | None]) -> Value:
        src, value = inputs[0], inputs[index]
        assert value is not None
        if src is None or src.shape is None or value.shape is None:
            raise NotExact("the input's or Scale's rank is unknown")
        rank = len(src.shape)
        axis = int(native.get("axis", -1))
        begin = axis + rank if axis < 0 else axis
        normalized = tuple(src.shape[begin:]) if 0 <= begin < rank else None
        if normalized is None or tuple(value.shape) != normalized:
            return _not_normalized(index, value.shape, normalized)
        if len(normalized) == 1:
            return value
        if not all(type(d) is int for d in normalized):
            raise NotExact(f"input {index}'s shape {_shape(value.shape)} has unknown dims to flatten")
        flat = math.prod(normalized)  # type: ignore[arg-type]
        data = None if value.data is None else value.data.reshape(-1)
        return Value(value.dtype, (flat,), data)

    return adapt


def _not_normalized(index: int, shape: Sequence[Any], normalized: Sequence[Any] | None) -> NoReturn:
    want = "unknown" if normalized is None else _shape(normalized)
    raise NotExact(
        f"input {index}'s shape {_shape(shape)} is not the normalized dims {want}: ONNX broadcasts it, "
        "oneDNN's gamma and beta hold one value per normalized element"
    )


def _numpy_broadcast(native: Native, inputs: Sequence[Value | None], opset: int) -> str:
    mode = _text(native.get("auto_broadcast", "numpy")).lower()
    return "" if mode in ("numpy", "none") else f"auto_broadcast={mode} has no oneDNN counterpart"


# --- the table ---------------------------------------------------------------------------------------

NUMPY = Fixed("numpy")
O = "onnx"  # noqa: E741 - the column's one-letter tag keeps the rows to a line
V = "openvino"

_ONNX_UNARY = {
    "Relu": "ReLU", "Abs": "Abs", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Exp": "Exp", "Log": "Log",
    "Sqrt": "Sqrt", "Reciprocal": "Reciprocal", "Round": "Round", "HardSwish": "HardSwish", "Mish": "Mish",
}  # fmt: skip
_ONNX_BINARY = {
    "Add": "Add", "Sub": "Subtract", "Mul": "Multiply", "Div": "Divide", "Min": "Minimum",
    "Where": "Select",
}  # fmt: skip
_IR_UNARY = {
    # (an IR writes OpenVINO's Relu as type ReLU)
    "ReLU": "ReLU", "Abs": "Abs", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Exp": "Exp", "Log": "Log",
    "Sqrt": "Sqrt", "HSwish": "HardSwish", "Mish": "Mish", "SoftPlus": "SoftPlus",
}  # fmt: skip
_IR_BINARY = {
    "Add": "Add", "Subtract": "Subtract", "Multiply": "Multiply", "Divide": "Divide", "Maximum": "Maximum",
    "Minimum": "Minimum", "SquaredDifference": "SquaredDifference",
}  # fmt: skip
_REDUCTIONS = ("ReduceMax", "ReduceMin", "ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2")


# Where oneDNN's op and ONNX's agree on validity and shapes but not on every value (seen by running both
# on NaN, infinities and signed zeros: tests/formats/test_translation_claims.py holds each to it).
_NAN_GIVES = "a NaN gives {} in oneDNN, NaN in ONNX"
_ONNX_DIFFERS = {
    "Relu": _NAN_GIVES.format(0),
    "Reciprocal": "-0 gives +inf in oneDNN, -inf in ONNX",
    "HardSigmoid": _NAN_GIVES.format(1),
    "Clip": _NAN_GIVES.format("min"),
    "Min": "a NaN in one input gives the other input in oneDNN, NaN in ONNX",
}

ROWS: tuple[Row, ...] = (
    # ONNX: elementwise
    *(Row(O, native, target, differs=_ONNX_DIFFERS.get(native, "")) for native, target in _ONNX_UNARY.items()),
    Row(O, "Elu", "Elu", attrs={"alpha": Attr("alpha", 1.0, _float)}),
    Row(O, "LeakyRelu", "LeakyReLU", attrs={"alpha": Attr("alpha", 0.01, _float)}),
    Row(O, "HardSigmoid", "HardSigmoid",
        attrs={"alpha": Attr("alpha", 0.2, _float), "beta": Attr("beta", 0.5, _float)},
        differs=_ONNX_DIFFERS["HardSigmoid"]),
    Row(O, "Softplus", "SoftPlus"),
    Row(O, "Gelu", "GELU", since=20, exact=_gelu_erf, when="approximate='none'"),
    Row(O, "Clip", "Clamp", since=11, attrs={"min": Const(1, _scalar), "max": Const(2, _scalar)},
        exact=_clip_bounds, when="min and max both given, as constants", differs=_ONNX_DIFFERS["Clip"]),
    Row(O, "Clip", "Clamp", attrs={"min": Attr("min", convert=_bound, required=True),
                                   "max": Attr("max", convert=_bound, required=True)},
        exact=_clip_bounds, when="opset < 11: min and max attributes both given", differs=_ONNX_DIFFERS["Clip"]),
    *(Row(O, native, target, (0, 1), attrs={"auto_broadcast": NUMPY}, differs=_ONNX_DIFFERS.get(native, ""))
      for native, target in _ONNX_BINARY.items() if native != "Where"),
    Row(O, "Where", "Select", (0, 1, 2), attrs={"auto_broadcast": NUMPY}, exact=_one_way_cond,
        when="cond's shape fits X and Y's broadcast shape (oneDNN broadcasts cond one way)"),
    Row(O, "MatMul", "MatMul", (0, 1), attrs={"transpose_a": Fixed(False), "transpose_b": Fixed(False)}),
    Row(O, "Softmax", "SoftMax", attrs={"axis": Attr("axis", -1, int)}, since=13, when="opset >= 13 (axis -1 default)"),
    Row(O, "Softmax", "SoftMax", attrs={"axis": Attr("axis", 1, int)}, exact=_softmax_axis,
        when="opset < 13: axis is the last axis"),
    Row(O, "LogSoftmax", "LogSoftmax", attrs={"axis": Attr("axis", -1, int)}, since=13),
    Row(O, "LogSoftmax", "LogSoftmax", attrs={"axis": Attr("axis", 1, int)}, exact=_softmax_axis),
    Row(O, "Concat", "Concat", tuple(range(64)), attrs={"axis": Attr("axis", convert=int, required=True)},
        when="every input"),
    Row(O, "Transpose", "StaticTranspose", attrs={"order": Computed(_perm)}),
    Row(O, "Reshape", "StaticReshape", since=5,
        attrs={"shape": Const(1, _ints), "special_zero": Computed(lambda n, i: not int(n.get("allowzero", 0)))},
        when="the shape input is a constant"),
    Row(O, "Conv", "Convolution", (0, 1), (2,),
        attrs={"strides": _spatial("strides", 1), "dilations": _spatial("dilations", 1),
               "pads_begin": _pads(0), "pads_end": _pads(1), "auto_pad": Attr("auto_pad", "None", _auto_pad),
               "groups": Attr("group", 1, int), "data_format": Fixed("NCX"), "weights_format": Fixed("OIX")}),
    Row(O, "MaxPool", "MaxPool",
        attrs={"kernel": Attr("kernel_shape", convert=_ints, required=True), "strides": _spatial("strides", 1),
               "dilations": _spatial("dilations", 1), "pads_begin": _pads(0), "pads_end": _pads(1),
               "auto_pad": Attr("auto_pad", "None", _auto_pad),
               "rounding_type": Computed(lambda n, i: "ceil" if int(n.get("ceil_mode", 0)) else "floor"),
               "data_format": Fixed("NCX")},
        exact=_pool_exact(average=False),
        when="one output (no Indices), storage_order=0; with ceil_mode, no last window starting in the end padding"),
    Row(O, "AveragePool", "AvgPool",
        attrs={"kernel": Attr("kernel_shape", convert=_ints, required=True), "strides": _spatial("strides", 1),
               "pads_begin": _pads(0), "pads_end": _pads(1), "auto_pad": Attr("auto_pad", "None", _auto_pad),
               "exclude_pad": Computed(lambda n, i: not int(n.get("count_include_pad", 0))),
               "rounding_type": Computed(lambda n, i: "ceil" if int(n.get("ceil_mode", 0)) else "floor"),
               "data_format": Fixed("NCX")},
        exact=_pool_exact(average=True),
        when="no dilations; with ceil_mode, no last window starting in the end padding"),
    Row(O, "BatchNormalization", "BatchNormInference", (0, 1, 2, 3, 4),
        attrs={"epsilon": Attr("epsilon", 1e-5, _float), "data_format": Fixed("NCX")}, exact=_inference,
        when="training_mode=0 (one output), spatial=1"),
    # (oneDNN's LayerNorm takes gamma and beta together: a LayerNormalization without B is not it)
    Row(O, "LayerNormalization", "LayerNorm", (0, 1, 2),
        attrs={"epsilon": Attr("epsilon", 1e-5, _float), "begin_norm_axis": Attr("axis", -1, int),
               "keep_stats": Fixed(False), "use_affine": Fixed(True)}, since=17,
        typed_outputs=(1, 2), adapt={1: _normalized_vector(1), 2: _normalized_vector(2)},
        when="Scale and B shaped as the normalized dims (flattened to oneDNN's 1-D gamma and beta); Mean and "
        "InvStdDev, if present, typed by ONNX's inference (not oneDNN's mean and variance)"),
    # OpenVINO IR: elementwise
    *(Row(V, native, target) for native, target in _IR_UNARY.items()),
    Row(V, "Clamp", "Clamp", attrs={"min": Attr("min", convert=_bound, required=True),
                                    "max": Attr("max", convert=_bound, required=True)}),
    Row(V, "Elu", "Elu", attrs={"alpha": Attr("alpha", convert=_float, required=True)}),
    Row(V, "Gelu", "GELU", exact=_gelu_erf, when="approximation_mode=ERF"),
    *(Row(V, native, target, (0, 1), attrs={"auto_broadcast": Attr("auto_broadcast", "numpy", _text)},
          exact=_numpy_broadcast) for native, target in _IR_BINARY.items()),
    # OpenVINO's Maximum with numpy broadcasting is opspec's Max of two inputs, while oneDNN's Maximum is not in
    Row(V, "Maximum", "Max", (0, 1), exact=_numpy_broadcast, when="auto_broadcast=numpy; until Maximum is in"),
    Row(V, "Select", "Select", (0, 1, 2), attrs={"auto_broadcast": Attr("auto_broadcast", "numpy", _text)},
        exact=lambda n, i, o: _numpy_broadcast(n, i, o) or _one_way_cond(n, i, o),
        when="auto_broadcast=numpy and cond's shape fits then and else's broadcast shape"),
    Row(V, "MatMul", "MatMul", (0, 1), attrs={"transpose_a": Attr("transpose_a", False, _bool),
                                              "transpose_b": Attr("transpose_b", False, _bool)}),
    # (an IR writes Softmax-1 and Softmax-8, which takes negative axes too, as type SoftMax)
    Row(V, "SoftMax", "SoftMax", attrs={"axis": Attr("axis", 1, int)}),
    Row(V, "LogSoftmax", "LogSoftmax", attrs={"axis": Attr("axis", 1, int)}),
    Row(V, "Concat", "Concat", tuple(range(64)), attrs={"axis": Attr("axis", convert=int, required=True)}),
    Row(V, "Transpose", "StaticTranspose", attrs={"order": Const(1, _ints)}, when="perm is a constant"),
    Row(V, "Reshape", "StaticReshape", attrs={"shape": Const(1, _ints),
                                              "special_zero": Attr("special_zero", False, _bool)},
        when="the shape input is a constant"),
    *(Row(V, kind, kind, attrs={"axes": Const(1, _ints), "keep_dims": Attr("keep_dims", False, _bool)},
          when="the axes input is a constant") for kind in _REDUCTIONS if kind != "ReduceMax"),
    Row(V, "Convolution", "Convolution", (0, 1),
        attrs={"strides": Attr("strides", convert=_ints, required=True),
               "dilations": Attr("dilations", convert=_ints, required=True),
               "pads_begin": Attr("pads_begin", convert=_ints, required=True),
               "pads_end": Attr("pads_end", convert=_ints, required=True),
               "auto_pad": Attr("auto_pad", "None", _ir_auto_pad), "groups": Fixed(1),
               "data_format": Fixed("NCX"), "weights_format": Fixed("OIX")}),
    Row(V, "MaxPool", "MaxPool", versions=frozenset({"opset1"}),
        attrs={"strides": Attr("strides", convert=_ints, required=True),
               "kernel": Attr("kernel", convert=_ints, required=True),
               "pads_begin": Attr("pads_begin", convert=_ints, required=True),
               "pads_end": Attr("pads_end", convert=_ints, required=True),
               "auto_pad": Attr("auto_pad", "None", _ir_auto_pad),
               "rounding_type": Attr("rounding_type", "floor", lambda v: _text(v).lower()),
               "data_format": Fixed("NCX")}),
    Row(V, "AvgPool", "AvgPool", versions=frozenset({"opset1"}),
        attrs={"strides": Attr("strides", convert=_ints, required=True),
               "kernel": Attr("kernel", convert=_ints, required=True),
               "pads_begin": Attr("pads_begin", convert=_ints, required=True),
               "pads_end": Attr("pads_end", convert=_ints, required=True),
               "exclude_pad": Attr("exclude-pad", False, _bool),
               "auto_pad": Attr("auto_pad", "None", _ir_auto_pad),
               "rounding_type": Attr("rounding_type", "floor", lambda v: _text(v).lower()),
               "data_format": Fixed("NCX")}),
)  # fmt: skip

# ONNX ops reduced like ReduceMax (app/formats/onnx.py translates their axes and keepdims): the opset
# from which the axes are an input rather than an attribute.
ONNX_REDUCTIONS = {"ReduceMax": 18, "ReduceMin": 18, "ReduceSum": 13, "ReduceMean": 18, "ReduceProd": 18,
                   "ReduceL1": 18, "ReduceL2": 18}  # fmt: skip

# Native ops that look like a oneDNN or opspec op but are not it: the note says why, and the engine types them.
NOT_THE_SAME = {
    (
        O,
        "ArgMax",
    ): "ONNX ArgMax gives the index of the largest value along one axis; opspec's Argmax is MLI's "
    "top-k per slice of quantised data, so it is not checked as that",
    (V, "TopK"): "OpenVINO TopK is not MLI's Argmax (its outputs, order and tie rule differ)",
}


def _attr_fields(kind: str) -> dict[str, Any] | None:
    spec = BY_NAME.get(kind)
    if spec is None:
        return None
    model = spec.descriptor.model_fields["attrs"].annotation
    return getattr(model, "model_fields", {})


def fits(row: Row) -> bool:
    """The row's op is in the registry, with every attribute the row gives, and the row gives every
    attribute the op requires."""
    fields = _attr_fields(row.target)
    if fields is None:
        return False
    if any(name not in fields for name in row.attrs):
        return False
    return all(name in row.attrs for name, info in fields.items() if info.is_required())


def lookup(format: str, native: str, opset: int = 0, version: str = "") -> Row | None:
    """The first row for this native op that applies to the file's opset or layer version and whose op
    the registry has."""
    for row in _BY_NATIVE.get((format, native), ()):
        if row.since and opset < row.since:
            continue
        if row.versions and version not in row.versions:
            continue
        if fits(row):
            return row
    return None


_BY_NATIVE: dict[tuple[str, str], list[Row]] = {}
for _row in ROWS:
    _BY_NATIVE.setdefault((_row.format, _row.native), []).append(_row)
for _rows in _BY_NATIVE.values():  # the row of the newest opset first
    _rows.sort(key=lambda row: -row.since)


# Why a node whose attributes are not of the types its format gives them (a file its own checker
# refuses) is not checked as the op: its engine names the fault.
MALFORMED = "an attribute of it is not of the type its format defines"
VARIADIC = 64  # a row whose inputs run this long takes every input the node has (Concat)
InputPath = Callable[[Node, int], str]
AttrPath = Callable[[Node, str], str]


def translator(
    row: Row, native: Native, opset: int, label: str, input_path: InputPath, attr_path: AttrPath
) -> Callable[[Node, list[Value | None]], Translation]:
    """The node's translation by its row: the descriptor, its paths in the file's terms, the note; or, where
    one of the row's preconditions fails for this node, why it is not the op."""
    spec = BY_NAME[row.target]
    sources = {name: source for name, source in row.attrs.items()}
    # inputs the op reads as attributes (Clip's bounds, Reshape's shape) besides its own inputs
    allowed = {*row.inputs, *row.optional, *(s.index for s in sources.values() if isinstance(s, Const))}
    outputs = set(range(row.outputs)) | set(row.typed_outputs)

    def translate(node: Node, inputs: list[Value | None]) -> Translation:
        head = f"{label} {node.kind}"

        def refuse(why: str) -> Translation:
            return Translation(None, why=f"{head} is not checked as oneDNN {row.target}: {why}")

        try:
            why = row.exact(native, inputs, opset) if row.exact else ""
        except (TypeError, ValueError):  # an attribute of another type than the format gives it
            why = MALFORMED
        if why:
            return refuse(why)
        extra_out = [
            k for k, name in enumerate(node.outputs) if k not in outputs and not absent_output(node, k)
        ]
        if extra_out:
            return refuse(f"it has output {extra_out[0]}, which oneDNN's {row.target} does not give")
        if len(row.inputs) >= VARIADIC:
            used = [k for k in range(len(inputs)) if node.inputs[k] is not None]
        else:
            used = [k for k in row.inputs if k < len(inputs) and node.inputs[k] is not None]
            extra = [k for k, name in enumerate(node.inputs) if name is not None and k not in allowed]
            if len(used) < len(row.inputs) or extra:
                return Translation(
                    None,
                    why=f"{head} with {len(inputs)} inputs is not oneDNN's {row.target} of {len(row.inputs)}",
                )
            used += [k for k in row.optional if k < len(inputs) and node.inputs[k] is not None]
        why = dtypes_differ(spec, [inputs[k] for k in used])
        if why:
            return Translation(None, why=f"{head} on {why}")
        try:
            attrs = {name: source.get(native, inputs) for name, source in sources.items()}
            values = [row.adapt[k](native, inputs) if k in row.adapt else inputs[k] for k in used]
        except NotExact as exc:
            return refuse(str(exc))
        except (TypeError, ValueError):
            return refuse(MALFORMED)
        tensors = [wire_tensor(v or Value(None, None)) for v in values]
        descriptor: dict[str, Any] = {"kind": row.target, "inputs": tensors}
        if attrs:
            descriptor["attrs"] = attrs

        def paths() -> dict[str, str]:
            mapped = {f"inputs[{slot}]": input_path(node, k) for slot, k in enumerate(used)}
            mapped |= {f"outputs[{k}]": f"{node.path}.output[{k}]" for k in range(len(node.outputs))}
            for name, source in sources.items():
                if isinstance(source, Attr):
                    mapped[f"attrs.{name}"] = attr_path(node, source.name)
                elif isinstance(source, Const):
                    mapped[f"attrs.{name}"] = input_path(node, source.index)
            return mapped

        said = ", ".join(
            f"{name}={value!r}" for name, value in attrs.items() if not isinstance(sources[name], Fixed)
        )
        note = f"{head} is checked as oneDNN {row.target}" + (f" with {said}" if said else "")
        typed = [k for k in row.typed_outputs if k < len(node.outputs) and not absent_output(node, k)]
        if typed:
            note += f"; output {', '.join(map(str, typed))} typed by the format's own inference"
        if row.differs:
            note += f" (values differ: {row.differs})"
        return Translation(
            with_declared_outputs(node, descriptor, row.outputs), paths, [note], native_inputs=used
        )

    return translate


def dtypes_differ(spec: Any, values: Sequence[Value | None]) -> str:
    """'' when the inputs' dtypes are a row of the op's dtype table (its page's "Supported data types"; each
    port's dtypes where it has no table); else what they are and what the op takes, for the note."""
    dtypes = [None if v is None else v.dtype for v in values]
    names = [spec.port(slot).name for slot in range(len(dtypes))]
    if spec.dtype_table:
        if any(all(row.get(name) in (dtype, None) for name, dtype in zip(names, dtypes, strict=True))
               for row in spec.dtype_table):  # fmt: skip
            return ""
        ports = dict.fromkeys(names)
        rows = sorted({", ".join(row.get(name, "-") for name in ports) for row in spec.dtype_table})
        listed = ", ".join(rows) if len(ports) == 1 else "(" + "), (".join(rows) + ")"
        return (
            f"{', '.join(f'{n} {d}' for n, d in dict(zip(names, dtypes, strict=True)).items())}: oneDNN's "
            f"{spec.kind} is defined for {', '.join(ports)} {listed} only"
        )
    for name, dtype, slot in zip(names, dtypes, range(len(dtypes)), strict=True):
        allowed = spec.port(slot).dtypes
        if dtype is not None and allowed and dtype not in allowed:
            return (
                f"{name} {dtype}: oneDNN's {spec.kind} is defined for {', '.join(sorted(allowed))} only there"
            )
    return ""


def _source_text(source: Source) -> str:
    if isinstance(source, Attr):
        return f"`{source.name}`" + (f" (default {source.default!r})" if source.default is not None else "")
    if isinstance(source, Fixed):
        return repr(source.value)
    if isinstance(source, Const):
        return f"input {source.index} (constant)"
    return "worked out"


def markdown() -> str:
    """docs/translations.md's table, from the rows (a test keeps the file equal to it)."""
    lines = [
        "| format | native op | oneDNN op | since | inputs | attributes | exact when | values differ |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in ROWS:
        since = f"opset {row.since}" if row.since else ", ".join(sorted(row.versions)) or "any"
        inputs = "all" if len(row.inputs) >= VARIADIC else ", ".join(map(str, row.inputs))
        if row.optional:
            inputs += " (+ " + ", ".join(map(str, row.optional)) + " if given)"
        attrs = "; ".join(f"{name} <- {_source_text(source)}" for name, source in row.attrs.items()) or "-"
        when = row.when or "always"
        if row.outputs != 1 or row.typed_outputs:
            when += f" ({row.outputs} output{'s' * (row.outputs > 1)} checked"
            when += (
                f"; {', '.join(map(str, row.typed_outputs))} typed by the engine)"
                if row.typed_outputs
                else ")"
            )
        lines.append(
            f"| {row.format} | {row.native} | {row.target} | {since} | {inputs} | {attrs} | {when} | "
            f"{row.differs or '-'} |"
        )
    for (fmt, native), why in NOT_THE_SAME.items():
        lines.append(f"| {fmt} | {native} | (none) | | | | {why} | |")
    return "\n".join(lines) + "\n"


HEADER = """# Translations: ONNX and OpenVINO ops checked as oneDNN Graph ops

A node of an ONNX model or an OpenVINO IR whose op is exactly a oneDNN Graph op (the same semantics for
the attributes it uses) is checked as that op by opspec's rules, with an info diagnostic
(`graph.translated`) that says how. The table is data (`app/formats/translations.py`, `ROWS`); a row
applies only when its oneDNN op is in opspec's registry with every attribute the row gives, so rows
light up as the oneDNN op set grows (`translations.fits(row)` says which do in a build). A node whose row does
not apply (or whose attributes make it inexact: the "exact when" column) is not checked by opspec; the
format's engine types it (ONNX shape inference; OpenVINO, when installed) and a `graph.untranslatable`
note says why.

Every row is a claim of exact equivalence, taken only when all its preconditions hold for the node at
hand: its opset or layer version, the attributes it has, which optional inputs and outputs are present,
the dtype of every input (a combination in the oneDNN op's table of supported data types: no oneDNN op
takes f64, and most no integers), constant values where an attribute comes from an input, and the
direction of broadcasting. `specs/translations/onnx.json` holds, for every ONNX row, nodes where it is
taken (their shapes are ONNX's inference, their values onnx.reference's) and nodes where it is refused
(with the reason the note gives). The "values differ" column says where the two specs agree on validity
and shapes but not on every value (NaN handling): the tests hold those statements true too.

ONNX's reductions (ReduceMax, ReduceMin, ReduceSum, ReduceMean, ReduceProd, ReduceL1, ReduceL2) are
translated by `app/formats/onnx.py` itself: ONNX reduces every axis when `axes` is absent or empty
(unless `noop_with_empty_axes`), keeps dims by default and moves `axes` from an attribute to an input
at opset 18 (ReduceSum at 13), so each node becomes the oneDNN reduction with the explicit axes that
computes the same thing. ONNX Max (any number of inputs, numpy broadcasting) is opspec's Max;
OpenVINO's ReduceMax-1 and SegmentMax-16 are checked as themselves (`app/formats/openvino.py`).

This file is written by `python -m app.formats.translations > docs/translations.md`; a test keeps it equal
to the table.

"""

if __name__ == "__main__":  # python -m app.formats.translations > docs/translations.md
    print(HEADER + markdown(), end="")
