"""A seeded zoo of small graph files in the three formats opspec reads, as a model zoo or a compiler's
test folder holds them: oneDNN Graph JSON (benchdnn's fields), ONNX (as exported: no value_info) and
OpenVINO IR (.xml with its .bin), about a third each, each a graph of 4 to 30 ops on a 4-D f32 tensor:
eltwise (ReLU, Abs, Sigmoid, Tanh), binary with a constant broadcast over the channels (Add,
Multiply, Maximum), ReduceMax over the channels, SoftMax, MaxPool, Convolution and MatMul. The same
seed writes the same bytes.

    .venv/bin/python bench/zoo.py FOLDER [--files 2000] [--seed 0]

bench/bench_jobs.py checks such a zoo with --jobs 1 and 2.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.graph_mix import dense_strides

FORMATS = ("onednn", "onnx", "openvino")
UNARY = ("ReLU", "Abs", "Sigmoid", "Tanh")
BINARY = ("Add", "Multiply", "Maximum")
# Each op as each format spells it: oneDNN Graph, ONNX, OpenVINO IR (type, opset)
SPELLING = {
    "ReLU": ("ReLU", "Relu", ("ReLU", "opset1")),
    "Abs": ("Abs", "Abs", ("Abs", "opset1")),
    "Sigmoid": ("Sigmoid", "Sigmoid", ("Sigmoid", "opset1")),
    "Tanh": ("Tanh", "Tanh", ("Tanh", "opset1")),
    "Add": ("Add", "Add", ("Add", "opset1")),
    "Multiply": ("Multiply", "Mul", ("Multiply", "opset1")),
    "Maximum": ("Maximum", "Max", ("Maximum", "opset1")),
    "ReduceMax": ("ReduceMax", "ReduceMax", ("ReduceMax", "opset1")),
    "SoftMax": ("SoftMax", "Softmax", ("Softmax", "opset8")),
    "MaxPool": ("MaxPool", "MaxPool", ("MaxPool", "opset1")),
    "Convolution": ("Convolution", "Conv", ("Convolution", "opset1")),
    "MatMul": ("MatMul", "MatMul", ("MatMul", "opset1")),
}


@dataclass
class Op:
    kind: str  # the neutral name: a key of SPELLING
    inputs: list[str]
    output: str
    attrs: dict = field(default_factory=dict)


@dataclass
class Graph:
    """Values by name (their shapes), constants' data, and ops in order; `x` is the one input."""

    shapes: dict[str, list[int]]
    constants: dict[str, np.ndarray]
    ops: list[Op]


def graph(rng: random.Random) -> Graph:
    """4 to 30 ops, each on the value the previous one made."""
    shape = [rng.choice((1, 2)), rng.choice((3, 4, 8, 16)), rng.choice((8, 16, 32)), rng.choice((8, 16, 32))]
    g = Graph({"x": shape}, {}, [])
    current = "x"
    for index in range(rng.randint(4, 30)):
        n, c, h, w = g.shapes[current]
        out = f"v{index}"
        choice = rng.random()
        if choice < 0.35:
            op, new = Op(rng.choice(UNARY), [current], out), [n, c, h, w]
        elif choice < 0.6:
            const = f"k{index}"
            g.constants[const] = np.asarray(rng.random(), np.float32) * np.ones((1, c, 1, 1), np.float32)
            op, new = Op(rng.choice(BINARY), [current, const], out), [n, c, h, w]
        elif choice < 0.67:
            op, new = Op("ReduceMax", [current], out, {"axes": [1]}), [n, 1, h, w]
        elif choice < 0.74:
            op, new = Op("SoftMax", [current], out, {"axis": 1}), [n, c, h, w]
        elif choice < 0.82 and h >= 4 and w >= 4:
            op, new = Op("MaxPool", [current], out), [n, c, h // 2, w // 2]
        elif choice < 0.91:
            const, channels = f"k{index}", rng.choice((4, 8, 16))
            g.constants[const] = np.full((channels, c, 3, 3), 0.01 * (index + 1), np.float32)
            op, new = Op("Convolution", [current, const], out), [n, channels, h, w]
        else:
            const, width = f"k{index}", rng.choice((8, 16))
            g.constants[const] = np.full((w, width), 0.5, np.float32)
            op, new = Op("MatMul", [current, const], out), [n, c, h, width]
        g.shapes[out] = new
        for name, array in g.constants.items():
            g.shapes.setdefault(name, list(array.shape))
        g.ops.append(op)
        current = out
    return g


# --- oneDNN Graph JSON --------------------------------------------------------------------------------


def _onednn_attrs(op: Op) -> dict:
    if op.kind == "ReduceMax":
        return {
            "axes": {"type": "s64[]", "value": op.attrs["axes"]},
            "keep_dims": {"type": "bool", "value": 1},
        }
    if op.kind == "SoftMax":
        return {"axis": {"type": "s64", "value": op.attrs["axis"]}}
    if op.kind == "MaxPool":
        return {
            "strides": {"type": "s64[]", "value": [2, 2]},
            "kernel": {"type": "s64[]", "value": [2, 2]},
            "pads_begin": {"type": "s64[]", "value": [0, 0]},
            "pads_end": {"type": "s64[]", "value": [0, 0]},
            "data_format": {"type": "string", "value": "NCX"},
        }
    if op.kind == "Convolution":
        return {
            "strides": {"type": "s64[]", "value": [1, 1]},
            "dilations": {"type": "s64[]", "value": [1, 1]},
            "pads_begin": {"type": "s64[]", "value": [1, 1]},
            "pads_end": {"type": "s64[]", "value": [1, 1]},
            "groups": {"type": "s64", "value": 1},
            "data_format": {"type": "string", "value": "NCX"},
            "weights_format": {"type": "string", "value": "OIX"},
        }
    if op.kind in BINARY:
        return {"auto_broadcast": {"type": "string", "value": "numpy"}}
    if op.kind == "MatMul":
        return {"transpose_a": {"type": "bool", "value": 0}, "transpose_b": {"type": "bool", "value": 0}}
    return {}


def onednn(g: Graph) -> bytes:
    ids = {name: index for index, name in enumerate(g.shapes)}

    def tensor(name: str) -> dict:
        shape = g.shapes[name]
        return {
            "id": ids[name],
            "dtype": "f32",
            "shape": shape,
            "stride": dense_strides(shape),
            "layout_type": "strided",
            "property_type": "constant" if name in g.constants else "undef",
        }

    ops = [
        {
            "id": index,
            "name": f"{op.kind.lower()}{index}",
            "kind": SPELLING[op.kind][0],
            "attrs": _onednn_attrs(op),
            "inputs": [tensor(name) for name in op.inputs],
            "outputs": [tensor(op.output)],
        }
        for index, op in enumerate(g.ops)
    ]
    document = {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}
    return json.dumps(document, indent=2).encode()


# --- ONNX ------------------------------------------------------------------------------------------------


def onnx(g: Graph) -> bytes:
    from onnx import TensorProto, helper, numpy_helper

    nodes, initializers = [], [numpy_helper.from_array(a, name) for name, a in g.constants.items()]
    for index, op in enumerate(g.ops):
        name, kind = f"{op.kind.lower()}{index}", SPELLING[op.kind][1]
        inputs = list(op.inputs)
        attrs: dict = {}
        if op.kind == "ReduceMax":
            axes = f"axes{index}"
            initializers.append(numpy_helper.from_array(np.array(op.attrs["axes"], np.int64), axes))
            inputs.append(axes)
            attrs = {"keepdims": 1}
        elif op.kind == "SoftMax":
            attrs = {"axis": op.attrs["axis"]}
        elif op.kind == "MaxPool":
            attrs = {"kernel_shape": [2, 2], "strides": [2, 2]}
        elif op.kind == "Convolution":
            attrs = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
        nodes.append(helper.make_node(kind, inputs, [op.output], name=name, **attrs))
    last = g.ops[-1].output
    graph_proto = helper.make_graph(
        nodes,
        "zoo",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, g.shapes["x"])],
        [helper.make_tensor_value_info(last, TensorProto.FLOAT, None)],
        initializers,
    )
    model = helper.make_model(graph_proto, opset_imports=[helper.make_opsetid("", 18)])
    return model.SerializeToString()


# --- OpenVINO IR ----------------------------------------------------------------------------------------


def _port(port: int, shape: list[int], precision: str = "FP32") -> str:
    dims = "".join(f"<dim>{d}</dim>" for d in shape)
    return f'<port id="{port}" precision="{precision}">{dims}</port>'


def _ir_data(op: Op) -> str:
    if op.kind == "ReduceMax":
        return '<data keep_dims="true" />'
    if op.kind == "SoftMax":
        return f'<data axis="{op.attrs["axis"]}" />'
    if op.kind == "MaxPool":
        return (
            '<data strides="2,2" kernel="2,2" pads_begin="0,0" pads_end="0,0" rounding_type="floor" '
            'auto_pad="explicit" />'
        )
    if op.kind == "Convolution":
        return '<data strides="1,1" dilations="1,1" pads_begin="1,1" pads_end="1,1" auto_pad="explicit" />'
    if op.kind in BINARY:
        return '<data auto_broadcast="numpy" />'
    if op.kind == "MatMul":
        return '<data transpose_a="false" transpose_b="false" />'
    return ""


def openvino(g: Graph) -> tuple[bytes, bytes]:
    """The IR's XML and its weights (.bin)."""
    layers, edges, weights = [], [], bytearray()
    where: dict[str, tuple[int, int]] = {}  # value -> (layer id, output port)

    def layer(name: str, kind: tuple[str, str], data: str, inputs: list[str], out: list[int] | None) -> int:
        """A layer of type and version `kind`, its inputs wired to their producers; `out`: its output's
        shape (None: a Result)."""
        lid = len(layers)
        ports = "".join(
            _port(i, g.shapes[v], "I64" if v.startswith("axes") else "FP32") for i, v in enumerate(inputs)
        )
        for port, value in enumerate(inputs):
            source, source_port = where[value]
            edges.append(
                f'<edge from-layer="{source}" from-port="{source_port}" to-layer="{lid}" to-port="{port}" />'
            )
        precision = "I64" if name.startswith("axes") else "FP32"
        output = f"<output>{_port(len(inputs), out, precision)}</output>" if out is not None else ""
        body = f"{data}{f'<input>{ports}</input>' if inputs else ''}{output}"
        layers.append(f'<layer id="{lid}" name="{name}" type="{kind[0]}" version="{kind[1]}">{body}</layer>')
        return lid

    x = g.shapes["x"]
    shape = ",".join(map(str, x))
    where["x"] = (
        layer("x", ("Parameter", "opset1"), f'<data shape="{shape}" element_type="f32" />', [], x),
        0,
    )
    for name, array in g.constants.items():
        raw = array.astype("<f4").tobytes()
        shape = ",".join(map(str, array.shape))
        data = f'<data element_type="f32" shape="{shape}" offset="{len(weights)}" size="{len(raw)}" />'
        weights += raw
        where[name] = (layer(name, ("Const", "opset1"), data, [], list(array.shape)), 0)
    for index, op in enumerate(g.ops):
        inputs = list(op.inputs)
        if op.kind == "ReduceMax":
            axes = f"axes{index}"
            raw = np.array(op.attrs["axes"], "<i8").tobytes()
            data = f'<data element_type="i64" shape="1" offset="{len(weights)}" size="{len(raw)}" />'
            weights += raw
            g.shapes[axes] = [1]
            where[axes] = (layer(axes, ("Const", "opset1"), data, [], [1]), 0)
            inputs.append(axes)
        lid = layer(
            f"{op.kind.lower()}{index}", SPELLING[op.kind][2], _ir_data(op), inputs, g.shapes[op.output]
        )
        where[op.output] = (lid, len(inputs))
    layer("out", ("Result", "opset1"), "", [g.ops[-1].output], None)
    xml = (
        '<?xml version="1.0"?>\n<net name="zoo" version="11">\n<layers>\n'
        + "\n".join(layers)
        + "\n</layers>\n<edges>\n"
        + "\n".join(edges)
        + "\n</edges>\n</net>\n"
    )
    return xml.encode(), bytes(weights)


def write_zoo(folder: Path, files: int = 2000, seed: int = 0) -> list[Path]:
    """`files` graph files under `folder` (a hundred to a subfolder, as a zoo is laid out); the list of
    the graphs' files (an IR's .bin beside its .xml is not listed)."""
    rng = random.Random(seed)
    written = []
    for index in range(files):
        format = FORMATS[index % len(FORMATS)] if rng.random() < 0.9 else rng.choice(FORMATS)
        g = graph(rng)
        base = folder / f"set{index // 100:02d}" / f"model{index:05d}"
        base.parent.mkdir(parents=True, exist_ok=True)
        if format == "onednn":
            path = base.with_suffix(".json")
            path.write_bytes(onednn(g))
        elif format == "onnx":
            path = base.with_suffix(".onnx")
            path.write_bytes(onnx(g))
        else:
            path = base.with_suffix(".xml")
            xml, weights = openvino(g)
            path.write_bytes(xml)
            base.with_suffix(".bin").write_bytes(weights)
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    written = write_zoo(args.folder, args.files, args.seed)
    print(f"{len(written):,} graph files under {args.folder}")


if __name__ == "__main__":
    main()
