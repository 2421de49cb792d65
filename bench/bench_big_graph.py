"""A 50,000-node graph as `opspec check` reads it (read, ONNX's own inference for ONNX, walk, the file's
report): wall and CPU time, and the memory it takes beyond the interpreter with its modules loaded
(the peak resident set, VmHWM reset before the file is read, above the resident set then) against the
file's size. Each format in a fresh process, so one's peak is not another's.

Goal: under 3 s and under 4x the file's size in memory, for a oneDNN Graph JSON file as benchdnn and
ONEDNN_GRAPH_DUMP write them (every logical tensor with its strides) and for an ONNX model as exported
(no value_info, so ONNX's shape inference types every value first).

    .venv/bin/python bench/bench_big_graph.py [--nodes 50000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHAPE = [1, 128, 150, 150]
STRIDE = [2880000, 22500, 150, 1]


def onednn_file(nodes: int, path: Path) -> None:
    """A chain of ReLU and Abs ops, each tensor with benchdnn's fields."""
    ops = []
    for i in range(nodes):
        tensor = {
            "dtype": "f32",
            "shape": SHAPE,
            "stride": STRIDE,
            "layout_type": "strided",
            "property_type": "undef",
        }
        ops.append(
            {"id": i, "name": f"op{i}", "kind": "ReLU" if i % 2 else "Abs", "attrs": {},
             "inputs": [{"id": i, **tensor}], "outputs": [{"id": i + 1, **tensor}]}
        )  # fmt: skip
    document = {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}
    path.write_text(json.dumps(document, indent=2))


def onnx_file(nodes: int, path: Path) -> None:
    """Relu, Max and ReduceMax in turn on [N, 8, 16], as exported: no value_info."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    layers, current = [], "x"
    for i in range(nodes):
        out = f"v{i}"
        if i % 3 == 0:
            layers.append(helper.make_node("Relu", [current], [out], name=f"relu{i}"))
        elif i % 3 == 1:
            layers.append(
                helper.make_node("ReduceMax", [current, "axes"], [out], name=f"reduce{i}", keepdims=1)
            )
        else:
            layers.append(helper.make_node("Max", [current, "b"], [out], name=f"max{i}"))
        current = out
    graph = helper.make_graph(
        layers, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8, 16])],
        [helper.make_tensor_value_info(current, TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array([2], np.int64), "axes"),
         numpy_helper.from_array(np.zeros((1, 1, 16), np.float32), "b")],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    path.write_bytes(model.SerializeToString())


CHILD = """
import sys, time
sys.path.insert(0, {root!r})
from app.core.config import Settings, get_settings
from app.formats import graphs, onednn, onnx  # the readers and their libraries, loaded before the baseline
from app.formats.readers import read_source
from app.formats.source import Source
from app.report.model import RunReport
get_settings.cache_clear()
import os
os.environ["OPSPEC_MAX_GRAPH_NODES"] = "1000000"
get_settings()
path = {path!r}


def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024


open("/proc/self/clear_refs", "w").write("5")  # the peak (VmHWM) starts again from here
base = status("VmRSS")
wall, cpu = time.perf_counter(), time.process_time()
data = open(path, "rb").read()
run = RunReport()
run.add(read_source(Source(path, data, path)))
summary = run.summary()
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = status("VmHWM")
print(len(data), summary.units, summary.checked, summary.valid, wall, cpu, peak - base)
"""


def measure(path: Path) -> tuple[int, int, int, int, float, float, int]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(ROOT), path=str(path))],
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    size, units, checked, valid, wall, cpu, grown = out
    return int(size), int(units), int(checked), int(valid), float(wall), float(cpu), int(grown)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        files = {
            "oneDNN Graph JSON": Path(folder, "big.json"),
            "ONNX (no value_info)": Path(folder, "big.onnx"),
        }
        onednn_file(args.nodes, files["oneDNN Graph JSON"])
        onnx_file(args.nodes, files["ONNX (no value_info)"])
        print(
            f"{args.nodes:,}-node graphs, `opspec check` in-process (read, infer, walk, report); best of {args.rounds}"
        )
        for name, path in files.items():
            runs = [measure(path) for _ in range(args.rounds)]
            size, units, checked, valid, _, _, _ = runs[0]
            wall = min(r[4] for r in runs)
            cpu = min(r[5] for r in runs)
            grown = min(r[6] for r in runs)
            print(
                f"  {name:22} {size / 1e6:7.1f} MB, {units:,} nodes ({checked:,} checked, {valid:,} valid): "
                f"{wall:5.2f} s wall, {cpu:5.2f} s CPU; memory +{grown / 1e6:6.1f} MB = {grown / size:5.1f}x the file "
                "(goals: 3 s, 4x)"
            )


if __name__ == "__main__":
    main()
