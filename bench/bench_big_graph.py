"""A 50,000-node graph as `opspec check` reads it (read, ONNX's own inference for ONNX, walk, the file's
report): wall and CPU time, and the memory it takes beyond the interpreter with its modules loaded
(the peak resident set, VmHWM reset before the file is read, above the resident set then) against the
file's size. Each run in a fresh process, so one's peak is not another's; the rounds take turns.

The baseline, in the same rounds: ONNX's own `infer_shapes` (strict, as opspec runs it) on a chain of
the same ops (Abs and Relu in turn, 50,000 nodes), the file read and parsed in the same way. opspec's
oneDNN Graph JSON check runs on the plain path (the default) and on the reference path
(OPSPEC_GRAPH_PATH=reference).

Goals (issue 30): the oneDNN Graph JSON file, as benchdnn and ONEDNN_GRAPH_DUMP write them (every
logical tensor with its strides), in at most 4x its size in memory and within 2x ONNX's infer_shapes
on the chain; the ONNX model as exported (no value_info, so ONNX's shape inference types every value
first) under 3 s and 4x.

    .venv/bin/python bench/bench_big_graph.py [--nodes 50000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import verdict  # noqa: E402

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


BASELINE = """
import sys, time
import onnx
path = {path!r}


def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024


open("/proc/self/clear_refs", "w").write("5")
base = status("VmRSS")
wall, cpu = time.perf_counter(), time.process_time()
data = open(path, "rb").read()
model = onnx.shape_inference.infer_shapes(onnx.load_model_from_string(data), check_type=True, strict_mode=True)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = status("VmHWM")
print(len(data), len(model.graph.node), 0, 0, wall, cpu, peak - base)
"""


def onnx_chain(nodes: int, path: Path) -> None:
    """The oneDNN file's ops as ONNX: Abs and Relu in turn on [1, 128, 150, 150]."""
    from onnx import TensorProto, helper

    layers, current = [], "x"
    for i in range(nodes):
        layers.append(helper.make_node("Relu" if i % 2 else "Abs", [current], [f"v{i}"], name=f"op{i}"))
        current = f"v{i}"
    graph = helper.make_graph(
        layers, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info(current, TensorProto.FLOAT, None)],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    path.write_bytes(model.SerializeToString())


Run = tuple[int, int, int, int, float, float, int]


def measure(path: Path, child: str = CHILD, graph_path: str = "plain") -> Run:
    env = {**os.environ, "OPSPEC_GRAPH_PATH": graph_path}
    out = subprocess.run(
        [sys.executable, "-c", child.format(root=str(ROOT), path=str(path))],
        check=True, capture_output=True, text=True, env=env,
    ).stdout.split()  # fmt: skip
    size, units, checked, valid, wall, cpu, grown = out
    return int(size), int(units), int(checked), int(valid), float(wall), float(cpu), int(grown)


def best(runs: list[Run]) -> tuple[Run, float, float, int]:
    """The first run, and the least wall time, CPU time and memory of all."""
    return runs[0], min(r[4] for r in runs), min(r[5] for r in runs), min(r[6] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        json_file, onnx_file_, chain = (
            Path(folder, "big.json"),
            Path(folder, "big.onnx"),
            Path(folder, "chain.onnx"),
        )
        onednn_file(args.nodes, json_file)
        onnx_file(args.nodes, onnx_file_)
        onnx_chain(args.nodes, chain)
        contenders = {
            "oneDNN Graph JSON": lambda: measure(json_file),
            "  (reference path)": lambda: measure(json_file, graph_path="reference"),
            "ONNX (no value_info)": lambda: measure(onnx_file_),
            "ONNX infer_shapes, chain": lambda: measure(chain, BASELINE),
        }
        runs: dict[str, list[Run]] = {name: [] for name in contenders}
        for _ in range(args.rounds):  # taking turns, so a burst of load hits every contender alike
            for name, run in contenders.items():
                runs[name].append(run())
    print(
        f"{args.nodes:,}-node graphs, `opspec check` in-process (read, infer, walk, report), each run a fresh "
        f"process; best of {args.rounds}, taking turns"
    )
    _, _, onnx_cpu, _ = best(runs["ONNX infer_shapes, chain"])
    for name, found in runs.items():
        (size, units, checked, valid, *_), wall, cpu, grown = best(found)
        counts = f"{units:,} nodes" + (f" ({checked:,} checked, {valid:,} valid)" if checked else "")
        print(
            f"  {name:26} {size / 1e6:6.1f} MB, {counts}: {wall:5.2f} s wall, {cpu:5.2f} s CPU "
            f"({cpu / onnx_cpu:4.1f}x ONNX's); memory +{grown / 1e6:6.1f} MB = {grown / size:5.1f}x the file"
        )
    (size, *_), _, cpu, grown = best(runs["oneDNN Graph JSON"])
    print(
        f"  oneDNN Graph JSON: memory {grown / size:.1f}x the file (goal <= 4x: {verdict(grown / size, 4.0)}), "
        f"CPU {cpu / onnx_cpu:.1f}x ONNX's infer_shapes on the chain (goal <= 2x: {verdict(cpu / onnx_cpu, 2.0)})"
    )


if __name__ == "__main__":
    main()
