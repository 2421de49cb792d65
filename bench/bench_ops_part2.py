"""The per-node cost of checking MatMul and Convolution nodes: opspec's whole-graph check of a oneDNN
Graph JSON file (read, walk, check every node: attributes, dtypes, channels, windows, declared
outputs) against onnx.shape_inference.infer_shapes on an ONNX model of the same nodes (Conv, MatMul,
same shapes), timed in turns in one run. Also one descriptor checked alone, per op. Prints figures;
asserts nothing but that the file checks valid.

Goal: opspec within 2x of ONNX's C++ shape inference per node.

    .venv/bin/python bench/bench_ops_part2.py [--nodes 4000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import onnx
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.core.config import Settings
from app.core.engine import check
from app.formats import graphs
from app.ops import REGISTRY
from bench.timing import race, verdict

CONV_ATTRS = {"strides": [1, 1], "pads_begin": [1, 1], "pads_end": [1, 1], "dilations": [1, 1], "groups": 1,
              "data_format": "NCX", "weights_format": "OIX", "auto_pad": "None"}  # fmt: skip


def activation(index: int) -> list[int]:
    """Node i's data: [1, 16, 4 + i, 8]. Every node has shapes of its own, so no check is answered from
    an earlier node's (opspec's graph walk reuses the answer for a repeated node, ONNX does not)."""
    return [1, 16, 4 + index, 8]


def _lt(tid: int, shape: list[int], prop: str = "undef") -> dict:
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return {"id": tid, "dtype": "f32", "shape": shape, "stride": strides, "layout_type": "strided",
            "property_type": prop}  # fmt: skip


def _attr(value) -> dict:
    if isinstance(value, bool):
        return {"type": "bool", "value": int(value)}
    if isinstance(value, int):
        return {"type": "s64", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    return {"type": "s64[]", "value": value}


def onednn_graph(nodes: int) -> bytes:
    """Convolution (16 -> 16 channels, 3x3, pads 1, bias) and MatMul (by [8, 8]) in turn, each on its own
    input, with declared outputs, as benchdnn writes a graph."""
    ops = []
    for index in range(nodes):
        shape, base = activation(index), 10 * index
        if index % 2 == 0:
            kind, attrs = "Convolution", CONV_ATTRS
            inputs = [
                _lt(base, shape),
                _lt(base + 1, [16, 16, 3, 3], "constant"),
                _lt(base + 2, [16], "constant"),
            ]
        else:
            kind, attrs = "MatMul", {"transpose_a": False, "transpose_b": False}
            inputs = [_lt(base, shape), _lt(base + 1, [8, 8], "constant")]
        ops.append({"id": index, "name": f"{kind.lower()}{index}", "kind": kind,
                    "attrs": {k: _attr(v) for k, v in attrs.items()}, "inputs": inputs,
                    "outputs": [_lt(base + 3, shape)]})  # fmt: skip
    document = {"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}
    return (json.dumps(document, indent=2) + "\n").encode()


def onnx_graph(nodes: int) -> bytes:
    """The same nodes as an ONNX model: Conv (pads 1) and MatMul, every tensor a typed graph input."""
    layers, inputs, outputs = [], [], []
    for index in range(nodes):
        shape, x, out = activation(index), f"x{index}", f"y{index}"
        inputs.append(helper.make_tensor_value_info(x, TensorProto.FLOAT, shape))
        if index % 2 == 0:
            w, b = f"w{index}", f"b{index}"
            inputs += [helper.make_tensor_value_info(w, TensorProto.FLOAT, [16, 16, 3, 3]),
                       helper.make_tensor_value_info(b, TensorProto.FLOAT, [16])]  # fmt: skip
            layers.append(helper.make_node("Conv", [x, w, b], [out], pads=[1, 1, 1, 1], strides=[1, 1],
                                           dilations=[1, 1], group=1, kernel_shape=[3, 3]))  # fmt: skip
        else:
            m = f"m{index}"
            inputs.append(helper.make_tensor_value_info(m, TensorProto.FLOAT, [8, 8]))
            layers.append(helper.make_node("MatMul", [x, m], [out]))
        outputs.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, shape))
    graph = helper.make_graph(layers, "nodes", inputs, outputs)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    return onnx.shape_inference.infer_shapes(proto).SerializeToString()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    settings = Settings()
    ours_data, theirs_data = onednn_graph(args.nodes), onnx_graph(args.nodes)
    result = graphs.check(ours_data, settings, "onednn")
    assert result.valid and [n.checked_as for n in result.nodes[:2]] == ["Convolution", "MatMul"], [
        d for n in result.nodes for d in n.diagnostics
    ][:3]
    proto = onnx.load_model_from_string(theirs_data)
    onnx.shape_inference.infer_shapes(proto, check_type=True, strict_mode=True)

    def opspec() -> None:
        graphs.check(ours_data, settings, "onednn")

    def onnx_infer() -> None:
        onnx.shape_inference.infer_shapes(
            onnx.load_model_from_string(theirs_data), check_type=True, strict_mode=True
        )

    wall = race(args.repeats, opspec, onnx_infer)
    cpu = race(args.repeats, opspec, onnx_infer, clock=time.process_time)
    n = args.nodes
    print(
        f"{n:,} nodes, Convolution 16->16 3x3 and MatMul by [8, 8] in turn, each of its own shapes; best of {args.repeats}, taking turns"
    )
    print(f"  opspec check of the oneDNN Graph JSON ({len(ours_data):,} bytes): {wall[0] * 1e3:8.1f} ms wall, "
          f"{cpu[0] * 1e3:8.1f} ms CPU, {cpu[0] / n * 1e6:6.1f} us CPU per node")  # fmt: skip
    print(f"  onnx infer_shapes of the ONNX model ({len(theirs_data):,} bytes):  {wall[1] * 1e3:8.1f} ms wall, "
          f"{cpu[1] * 1e3:8.1f} ms CPU, {cpu[1] / n * 1e6:6.1f} us CPU per node")  # fmt: skip
    ratio = cpu[0] / cpu[1]
    print(
        f"  ratio opspec / onnx: {wall[0] / wall[1]:.2f}x wall, {ratio:.2f}x CPU (goal: at most 2x): {verdict(ratio, 2.0)}"
    )

    # The walk alone (the nodes checked, positions looked up), the file read beforehand: the part of the
    # check that is the ops' rules rather than the oneDNN JSON reader's.
    walks = []
    for _ in range(args.repeats):
        graph = graphs.parse(ours_data, settings, "onednn")
        start = time.process_time()
        graphs.walk(graph, settings)
        walks.append(time.process_time() - start)
    walk = min(walks)
    print(f"  of which the walk (every node checked), the file read beforehand: {walk * 1e3:8.1f} ms CPU, "
          f"{walk / n * 1e6:6.1f} us per node, {walk / cpu[1]:.2f}x onnx: {verdict(walk / cpu[1], 2.0)}")  # fmt: skip

    # One descriptor alone, the cost a compiler pays per op through the library.
    for kind, node in (("Convolution", 0), ("MatMul", 1)):
        op = json.loads(ours_data)["graph"][node]
        body = {"kind": kind, "attrs": {k: (bool(v["value"]) if v["type"] == "bool" else v["value"]) for k, v in op["attrs"].items()},
                "inputs": [{"dtype": t["dtype"], "shape": t["shape"]} for t in op["inputs"]],
                "outputs": [{"dtype": "f32", "shape": activation(node)}]}  # fmt: skip
        spec = REGISTRY[kind]
        descriptor = spec.descriptor.model_validate(body)
        count = 2000
        (best,) = race(
            args.repeats,
            lambda spec=spec, descriptor=descriptor, count=count: [
                check(spec, descriptor, settings) for _ in range(count)
            ],
            clock=time.process_time,
        )
        print(f"  {kind} descriptor checked alone (parsed once): {best / count * 1e6:6.1f} us CPU each")


if __name__ == "__main__":
    main()
