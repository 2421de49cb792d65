"""A seeded mix of compute ops as one graph, written both as oneDNN Graph JSON (as benchdnn and
ONEDNN_GRAPH_DUMP write it: every logical tensor with its strides, layout and property) and as the
equivalent ONNX model (the same ops through the translation table's rows, weights as typed graph
inputs), for the benchmarks that race opspec's graph check against ONNX's own shape inference.

The graph is chains of about 40 ops, each from a graph input of its own size, as a CNN with attention
blocks goes: Convolution (1x1 and 3x3, strides 1 and 2, with and without bias), BatchNormInference,
eltwise (ReLU, Sigmoid, Tanh, Abs, Exp, Elu), MaxPool and AvgPool, and in token layout LayerNorm and
MatMul, with StaticReshape and StaticTranspose between the two layouts. Sizes are drawn, so nodes of
one signature repeat about as often as they do in a model (a block repeated at one size), not more.

    ops = mix(4000)                       # the records
    onednn_json(ops) -> bytes;  onnx_model(ops) -> bytes
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

CHAIN = 40  # ops per chain before a new graph input starts the next
ELTWISE = {"ReLU": "Relu", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Abs": "Abs", "Exp": "Exp", "Elu": "Elu"}


@dataclass
class Op:
    kind: str  # the oneDNN kind
    attrs: dict[str, tuple[str, Any]]  # name -> (oneDNN attribute type, value)
    inputs: list[tuple[str, list[int], str]]  # (value name, shape, property: undef / constant)
    outputs: list[tuple[str, list[int]]]
    onnx: dict[str, Any] = field(default_factory=dict)  # ONNX op_type and attributes


class _Maker:
    def __init__(self, seed: int):
        self.random = random.Random(seed)
        self.ops: list[Op] = []
        self.count = 0
        self.image = (0, 0)  # the spatial size a token layout came from, to go back to

    def name(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def add(self, op: Op) -> str:
        self.ops.append(op)
        return op.outputs[0][0]

    # --- image layout [N, C, H, W] ---

    def conv(self, x: str, shape: list[int]) -> tuple[str, list[int]]:
        n, c, h, w = shape
        pick = self.random
        co = pick.choice([c, min(c * 2, 512), max(c // 2, 8)])
        k = pick.choice([1, 3, 3])
        s = 2 if h >= 8 and pick.random() < 0.25 else 1
        p = k // 2
        ho, wo = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        weights = [co, c, k, k]
        inputs = [(x, shape, "undef"), (self.name("w"), weights, "constant")]
        if pick.random() < 0.5:
            inputs.append((self.name("b"), [co], "constant"))
        attrs = {
            "strides": ("s64[]", [s, s]), "pads_begin": ("s64[]", [p, p]), "pads_end": ("s64[]", [p, p]),
            "dilations": ("s64[]", [1, 1]), "auto_pad": ("string", "None"), "groups": ("s64", 1),
            "data_format": ("string", "NCX"), "weights_format": ("string", "OIX"),
        }  # fmt: skip
        out = [n, co, ho, wo]
        onnx = {"op_type": "Conv", "kernel_shape": [k, k], "strides": [s, s], "pads": [p, p, p, p],
                "dilations": [1, 1]}  # fmt: skip
        return self.add(Op("Convolution", attrs, inputs, [(self.name("t"), out)], onnx)), out

    def batchnorm(self, x: str, shape: list[int]) -> tuple[str, list[int]]:
        c = shape[1]
        inputs = [(x, shape, "undef")] + [(self.name(s), [c], "constant") for s in ("g", "be", "mu", "var")]
        attrs = {"epsilon": ("f32", 1e-5), "data_format": ("string", "NCX")}
        onnx = {"op_type": "BatchNormalization", "epsilon": 1e-5}
        return self.add(Op("BatchNormInference", attrs, inputs, [(self.name("t"), shape)], onnx)), shape

    def eltwise(self, x: str, shape: list[int]) -> tuple[str, list[int]]:
        kind = self.random.choice(list(ELTWISE))
        attrs = {"alpha": ("f32", 1.0)} if kind == "Elu" else {}
        onnx = {"op_type": ELTWISE[kind], **({"alpha": 1.0} if kind == "Elu" else {})}
        return self.add(Op(kind, attrs, [(x, shape, "undef")], [(self.name("t"), shape)], onnx)), shape

    def pool(self, x: str, shape: list[int]) -> tuple[str, list[int]]:
        n, c, h, w = shape
        pick = self.random
        k = pick.choice([2, 3])
        s = 2 if h >= 4 else 1
        p = 1 if k == 3 else 0
        ho, wo = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        attrs = {
            "kernel": ("s64[]", [k, k]), "strides": ("s64[]", [s, s]), "pads_begin": ("s64[]", [p, p]),
            "pads_end": ("s64[]", [p, p]), "rounding_type": ("string", "floor"), "auto_pad": ("string", "None"),
            "data_format": ("string", "NCX"),
        }  # fmt: skip
        onnx: dict[str, Any] = {"kernel_shape": [k, k], "strides": [s, s], "pads": [p, p, p, p]}
        if pick.random() < 0.5:
            kind = "MaxPool"
            attrs["dilations"] = ("s64[]", [1, 1])
            onnx |= {"op_type": "MaxPool", "dilations": [1, 1]}
        else:
            kind = "AvgPool"
            attrs["exclude_pad"] = ("bool", 1)
            onnx |= {"op_type": "AveragePool", "count_include_pad": 0}
        out = [n, c, ho, wo]
        return self.add(Op(kind, attrs, [(x, shape, "undef")], [(self.name("t"), out)], onnx)), out

    def to_tokens(self, x: str, shape: list[int]) -> tuple[str, list[int]]:
        n, c, h, w = shape
        self.image = (h, w)
        flat = [n, c, h * w]
        x = self.reshape(x, shape, flat)
        tokens = [n, h * w, c]
        return self.transpose(x, flat, tokens), tokens

    # --- token layout [N, L, C] ---

    def layernorm(self, x: str, shape: list[int]) -> tuple[str, list[int]]:
        c = shape[-1]
        inputs = [(x, shape, "undef"), (self.name("g"), [c], "constant"), (self.name("be"), [c], "constant")]
        attrs = {"begin_norm_axis": ("s64", -1), "use_affine": ("bool", 1), "keep_stats": ("bool", 0),
                 "epsilon": ("f32", 1e-5)}  # fmt: skip
        onnx = {"op_type": "LayerNormalization", "axis": -1, "epsilon": 1e-5}
        return self.add(Op("LayerNorm", attrs, inputs, [(self.name("t"), shape)], onnx)), shape

    def matmul(self, x: str, shape: list[int]) -> tuple[str, list[int]]:
        n, length, c = shape
        co = self.random.choice([c, min(c * 2, 512), max(c // 2, 8)])
        inputs = [(x, shape, "undef"), (self.name("w"), [c, co], "constant")]
        attrs = {"transpose_a": ("bool", 0), "transpose_b": ("bool", 0)}
        out = [n, length, co]
        return self.add(Op("MatMul", attrs, inputs, [(self.name("t"), out)], {"op_type": "MatMul"})), out

    def to_image(self, x: str, shape: list[int]) -> tuple[str, list[int]]:
        n, length, c = shape
        h, w = self.image
        x = self.transpose(x, shape, [n, c, length])
        image = [n, c, h, w]
        return self.reshape(x, [n, c, length], image), image

    # --- layout ---

    def reshape(self, x: str, shape: list[int], to: list[int]) -> str:
        attrs = {"shape": ("s64[]", to), "special_zero": ("bool", 0)}
        return self.layout("StaticReshape", attrs, x, shape, to, {"op_type": "Reshape", "shape": to})

    def transpose(self, x: str, shape: list[int], to: list[int]) -> str:
        attrs = {"order": ("s64[]", [0, 2, 1])}
        return self.layout(
            "StaticTranspose", attrs, x, shape, to, {"op_type": "Transpose", "perm": [0, 2, 1]}
        )

    def layout(self, kind: str, attrs: dict, x: str, shape: list[int], to: list[int], onnx: dict) -> str:
        return self.add(Op(kind, attrs, [(x, shape, "undef")], [(self.name("t"), to)], onnx))


# What follows a value, by a roll in [0, 1): each row the step taken below its bound (None: none).
IMAGE = (
    (0.3, "conv"),
    (0.45, "batchnorm"),
    (0.7, "eltwise"),
    (0.82, "pool"),
    (0.9, None),
    (1.0, "to_tokens"),
)
TOKENS = ((0.3, "layernorm"), (0.6, "matmul"), (0.85, "eltwise"), (1.0, "to_image"))


def mix(count: int, seed: int = 0) -> list[Op]:
    """`count` ops (exactly), in chains from graph inputs of drawn sizes."""
    maker = _Maker(seed)
    pick = maker.random
    while len(maker.ops) < count:
        start = len(maker.ops)
        shape = [
            pick.choice([1, 2, 4, 8]),
            pick.choice([16, 32, 64, 128]),
            *[pick.choice([14, 28, 32, 56])] * 2,
        ]
        x = maker.name("x")
        image = True
        while len(maker.ops) - start < CHAIN and len(maker.ops) < count:
            roll = pick.random()
            step = next(name for upto, name in (IMAGE if image else TOKENS) if roll < upto)
            if step is None or (step.startswith("to_") and count - len(maker.ops) < 2):
                continue
            if step == "pool" and shape[2] < 4:
                continue
            x, shape = getattr(maker, step)(x, shape)
            image = len(shape) == 4
    del maker.ops[count:]
    return maker.ops


def dense_strides(shape: list[int]) -> list[int]:
    """A dense row-major tensor's strides, in elements."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= dim
    return strides[::-1]


def onednn_json(ops: list[Op], indent: int | None = None) -> bytes:
    """The ops as oneDNN Graph JSON: tensor ids numbered by value, every tensor with its fields."""
    ids: dict[str, int] = {}

    def tensor(name: str, shape: list[int], prop: str = "undef") -> dict[str, Any]:
        tid = ids.setdefault(name, len(ids))
        return {"id": tid, "dtype": "f32", "shape": shape, "stride": dense_strides(shape), "layout_type": "strided",
                "property_type": prop}  # fmt: skip

    graph = [
        {
            "id": index,
            "name": f"{op.kind.lower()}_{index}",
            "kind": op.kind,
            "attrs": {name: {"type": t, "value": value} for name, (t, value) in op.attrs.items()},
            "inputs": [tensor(name, shape, prop) for name, shape, prop in op.inputs],
            "outputs": [tensor(name, shape) for name, shape in op.outputs],
        }
        for index, op in enumerate(ops)
    ]
    document = {"version": "3.13.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": graph}
    return json.dumps(document, indent=indent).encode()


def onnx_model(ops: list[Op]) -> bytes:
    """The same ops as an ONNX model (opset 18): weights and chain inputs as typed graph inputs, a
    Reshape's shape as an initializer, every chain's last value a graph output; no value_info."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    produced = {name for op in ops for name, _ in op.outputs}
    read = {name for op in ops for name, _, _ in op.inputs}
    inputs, seen = [], set()
    nodes, initializers = [], []
    for index, op in enumerate(ops):
        names = []
        for name, shape, _ in op.inputs:
            if name not in produced and name not in seen:
                seen.add(name)
                inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
            names.append(name)
        attrs = {k: v for k, v in op.onnx.items() if k not in ("op_type", "shape")}
        if op.onnx["op_type"] == "Reshape":
            target = f"shape{index}"
            initializers.append(numpy_helper.from_array(np.array(op.onnx["shape"], np.int64), target))
            names.append(target)
        nodes.append(
            helper.make_node(op.onnx["op_type"], names, [op.outputs[0][0]], name=f"n{index}", **attrs)
        )
    outputs = [
        helper.make_tensor_value_info(name, TensorProto.FLOAT, None)
        for op in ops
        for name, _ in op.outputs
        if name not in read
    ]
    graph = helper.make_graph(nodes, "mix", inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model.SerializeToString()
