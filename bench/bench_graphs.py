"""A 10,000-node ONNX model of ReduceMax and Max nodes: opspec's whole-graph check (read, walk, check
every node) against onnx.shape_inference.infer_shapes on the same model, timed in turns in one run.

Goal: opspec within 3x of ONNX's shape inference, which does no rule checking and no symbol arithmetic.
Since opspec's check of an ONNX model runs that same inference first (to type what opspec does not
check), the ratio holds ONNX's own time once over.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.core.config import Settings
from app.formats import graphs
from bench.timing import race

NODES = 10_000


def model(nodes: int = NODES) -> bytes:
    """A chain x[N, 8, 16] -> ReduceMax(axes [2], keepdims) -> Max with b[1, 1, 16] -> ... with value_info
    written by ONNX's own shape inference, as a user's model has it."""
    layers = []
    current = "x"
    for index in range(nodes // 2):
        reduced, widened = f"r{index}", f"m{index}"
        layers.append(
            helper.make_node("ReduceMax", [current, "axes"], [reduced], name=f"reduce{index}", keepdims=1)
        )
        layers.append(helper.make_node("Max", [reduced, "b"], [widened], name=f"max{index}"))
        current = widened
    graph = helper.make_graph(
        layers,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8, 16])],
        [helper.make_tensor_value_info(current, TensorProto.FLOAT, ["N", 8, 16])],
        [
            numpy_helper.from_array(np.array([2], dtype=np.int64), "axes"),
            numpy_helper.from_array(np.zeros((1, 1, 16), dtype=np.float32), "b"),
        ],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    return onnx.shape_inference.infer_shapes(proto).SerializeToString()


def main() -> None:
    data = model()
    settings = Settings()
    result = graphs.check(data, settings, "onnx")
    assert result.valid and len(result.nodes) == NODES, [
        d for n in result.nodes for d in n.diagnostics if d.severity == "error"
    ][:3]
    assert result.nodes[-1].outputs[0].shape == ["N", 8, 16]

    def opspec() -> None:
        graphs.check(data, settings, "onnx")

    def onnx_infer() -> None:
        onnx.shape_inference.infer_shapes(
            onnx.load_model_from_string(data), check_type=True, strict_mode=True
        )

    ours, theirs = race(5, opspec, onnx_infer)
    cpu_ours, cpu_theirs = race(5, opspec, onnx_infer, clock=time.process_time)
    print(f"ONNX model: {NODES:,} nodes (ReduceMax and Max), {len(data):,} bytes; best of 5, taking turns")
    print(f"  opspec whole-graph check:           {ours * 1e3:8.1f} ms wall, {cpu_ours * 1e3:8.1f} ms CPU")
    print(
        f"  onnx.shape_inference.infer_shapes:  {theirs * 1e3:8.1f} ms wall, {cpu_theirs * 1e3:8.1f} ms CPU"
    )
    print(
        f"  ratio opspec / onnx: {ours / theirs:.2f}x wall, {cpu_ours / cpu_theirs:.2f}x CPU "
        f"({cpu_ours / NODES * 1e6:.1f} us CPU per node; goal: within 3x)"
    )


if __name__ == "__main__":
    main()
