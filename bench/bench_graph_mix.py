"""A seeded mix of 4,000 compute ops (bench/graph_mix.py: Convolution, MatMul, pooling, norms, eltwise,
layout) as oneDNN Graph JSON: opspec's check per node against ONNX's C++ `infer_shapes` per node on the
equivalent ONNX model, timed in turns in one run (CPU time, best of N).

Rows: opspec's whole check of the file (read and walk, as `opspec check` and the route run it), the walk
alone (the file read beforehand), and the read alone; ONNX's `infer_shapes` on the model already loaded
(what ONNX's own per-node cost is), and `json.loads` of the file (the standard library's reader, for
scale). Each opspec row runs today's graph path (the reference, `OPSPEC_GRAPH_PATH=reference`) too.

Goal (issue 30): the check within 2x ONNX's infer_shapes per node.

    .venv/bin/python bench/bench_graph_mix.py [--ops 4000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.core import collector
from app.core.config import Settings
from app.formats import graphs
from app.formats.graph import walk
from bench.graph_mix import mix, onednn_json, onnx_model
from bench.timing import race, verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    import onnx

    ops = mix(args.ops)
    data = onednn_json(ops)
    model = onnx.load_model_from_string(onnx_model(ops))
    settings = Settings(graph_path="plain")
    reference = Settings(graph_path="reference")
    for each in (settings, reference):
        result = graphs.check(data, each, "onednn")
        assert result.valid and result.coverage.checked == args.ops, result.coverage
    graph = graphs.parse(data, settings, "onednn")
    reference_graph = graphs.parse(data, reference, "onednn")

    def check() -> None:
        graphs.check(data, settings, "onednn")

    def check_reference() -> None:
        graphs.check(data, reference, "onednn")

    def walk_only() -> None:
        with collector.paused():
            walk(graph, settings)

    def walk_reference() -> None:
        with collector.paused():
            walk(reference_graph, reference)

    def read_only() -> None:
        with collector.paused():
            graphs.parse(data, settings, "onednn")

    def infer() -> None:
        onnx.shape_inference.infer_shapes(model)

    def loads() -> None:
        with collector.paused():
            json.loads(data)

    runs = [check, walk_only, read_only, check_reference, walk_reference, infer, loads]
    times = race(args.rounds, *runs, clock=time.process_time)
    ours, walked, read, old, old_walk, theirs, parsed = (t / args.ops * 1e6 for t in times)
    kinds = len({op.kind for op in ops})
    print(
        f"{args.ops:,} mixed compute ops ({kinds} kinds) as oneDNN Graph JSON ({len(data) / 1e6:.1f} MB); "
        f"CPU time per node, best of {args.rounds}, taking turns"
    )
    print(f"  ONNX infer_shapes (the same graph as ONNX)  {theirs:7.2f} us")
    print(f"  opspec check (read + walk)                  {ours:7.2f} us  {ours / theirs:6.2f}x ONNX")
    print(f"    walk alone                                {walked:7.2f} us  {walked / theirs:6.2f}x ONNX")
    print(f"    read alone                                {read:7.2f} us  {read / theirs:6.2f}x ONNX")
    print(f"  reference path: check                       {old:7.2f} us  {old / theirs:6.2f}x ONNX")
    print(f"    reference walk alone                      {old_walk:7.2f} us  {old_walk / theirs:6.2f}x ONNX")
    print(f"  json.loads of the file, for scale           {parsed:7.2f} us  {parsed / theirs:6.2f}x ONNX")
    print(
        f"  check / ONNX: {ours / theirs:.2f}x (goal <= 2x: {verdict(ours / theirs, 2.0)}); the new path "
        f"{old / ours:.1f}x faster than the reference"
    )


if __name__ == "__main__":
    main()
