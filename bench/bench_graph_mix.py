"""A seeded mix of 4,000 compute ops (bench/graph_mix.py: Convolution, MatMul, pooling, norms, eltwise,
layout) as oneDNN Graph JSON: opspec's check per node against ONNX's C++ `infer_shapes` per node on the
equivalent ONNX model, timed in turns in one run (CPU time, best of N).

Rows: opspec's whole check of the file (read and walk, as `opspec check` and the route run it), the walk
alone (of a graph read anew before each run, untimed), and the read alone; ONNX's `infer_shapes` on the model already loaded
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.core import collector
from app.core.config import Settings
from app.formats import graphs
from app.formats.graph import walk
from bench.graph_mix import mix, onednn_json, onnx_model
from bench.timing import race_fresh, verdict


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

    def fresh(each: Settings):  # a graph read anew, so no walk finds another's caches on it
        def read() -> Any:
            with collector.paused():
                return graphs.parse(data, each, "onednn")

        return read

    def check(each: Settings):
        return lambda _: graphs.check(data, each, "onednn")

    def walk_only(each: Settings):
        def run(graph: Any) -> None:
            with collector.paused():
                walk(graph, each)

        return run

    def read_only(_: Any) -> None:
        with collector.paused():
            graphs.parse(data, settings, "onednn")

    def infer(_: Any) -> None:
        onnx.shape_inference.infer_shapes(model)

    def loads(_: Any) -> None:
        with collector.paused():
            json.loads(data)

    nothing = lambda: None  # noqa: E731
    runs = [
        (nothing, check(settings)),
        (fresh(settings), walk_only(settings)),
        (nothing, read_only),
        (nothing, check(reference)),
        (fresh(reference), walk_only(reference)),
        (nothing, infer),
        (nothing, loads),
    ]
    times = race_fresh(args.rounds, *runs, clock=time.process_time)
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
