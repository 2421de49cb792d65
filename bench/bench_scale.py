"""Validation at compiler scale, in the same run:
(a) in-process cost per descriptor against ONNX's C++ shape inference per node (onnx.shape_inference
    .infer_shapes) on the same 10,000 ReduceMax ops, and on Max nodes of 8 and 64 inputs (models with
    the same symbolic dims); ours from parsed descriptors (check only), from dicts (parse + check), and
    from each descriptor's JSON text as the routes read it (read_descriptor + check);
(b) POST /v1/validate/batch with 100,000 ReduceMax descriptors end to end (send to last byte), one
    server process (one core). Prints figures with their goals; asserts nothing.

    .venv/bin/python bench/bench_scale.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.api.routes.check import read_descriptor
from app.core import engine
from app.core.config import get_settings
from app.ops import BY_NAME, DESCRIPTOR
from bench.timing import race_median, verdict

NODES = 10_000


def reduce_ops(count: int) -> list[dict]:
    ops = []
    for i in range(count):
        shape = ["N", 3 + i % 5, 16, "W"] if i % 2 else ["N", 8, 8 + i % 3]
        axes = [1] if i % 3 else [-1, 0]
        ops.append(
            {
                "kind": "ReduceMax",
                "attrs": {"axes": axes, "keep_dims": bool(i % 2)},
                "inputs": [{"dtype": "f32", "shape": shape}],
            }
        )
    return ops


def max_ops(count: int, inputs: int) -> list[dict]:
    shapes = [["N", 3, 1], [4], ["N", 1, 4], [1, 3, 4], [3, 1], ["N", 3, 4], [1], [1, 1, 4]]
    return [
        {
            "kind": "Max",
            "inputs": [{"dtype": "f32", "shape": shapes[(i + k) % len(shapes)]} for k in range(inputs)],
        }
        for i in range(count)
    ]


def onnx_model(ops: list[dict]):
    from onnx import TensorProto, helper

    inputs, nodes, outputs = [], [], []
    for i, op in enumerate(ops):
        names = []
        for k, tensor in enumerate(op["inputs"]):
            name = f"x{i}_{k}"
            inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, tensor["shape"]))
            names.append(name)
        attrs = {}
        if op["kind"] == "ReduceMax":
            attrs = {"axes": op["attrs"]["axes"], "keepdims": int(op["attrs"]["keep_dims"])}
        nodes.append(helper.make_node(op["kind"], names, [f"y{i}"], **attrs))
        outputs.append(helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "scale", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def per_node(label: str, ops: list[dict], goal: float, rounds: int) -> None:
    import onnx

    model = onnx_model(ops)
    settings = get_settings()
    parsed = [DESCRIPTOR.validate_python(op) for op in ops]

    def check_only() -> None:
        for descriptor in parsed:
            engine.check(BY_NAME[descriptor.kind], descriptor, settings)

    def parse_and_check() -> None:
        for op in ops:
            descriptor = DESCRIPTOR.validate_python(op)
            engine.check(BY_NAME[descriptor.kind], descriptor, settings)

    texts = [json.dumps(op).encode() for op in ops]

    def read_and_check() -> None:  # from each descriptor's JSON text, as the routes read it
        for text in texts:
            descriptor = read_descriptor(text)
            engine.check(BY_NAME[descriptor.kind], descriptor, settings)

    ours, with_parse, with_read, base = race_median(
        rounds, check_only, parse_and_check, read_and_check, lambda: onnx.shape_inference.infer_shapes(model)
    )
    n = len(ops)
    print(
        f"  {label}: ours {ours / n * 1e6:6.2f} us/op (with parsing from dicts {with_parse / n * 1e6:6.2f}, from "
        f"JSON text {with_read / n * 1e6:6.2f})  ONNX infer_shapes {base / n * 1e6:6.2f} us/node  ratio "
        f"{ours / base:5.2f} (goal <= {goal}: {verdict(ours / base, goal)}; with parsing from dicts "
        f"{with_parse / base:5.2f}, from JSON text {with_read / base:5.2f})"
    )


def distinct_ops(count: int) -> list[dict]:
    """ReduceMax descriptors that all differ (a dim counts up), so no two texts repeat."""
    ops = reduce_ops(count)
    for i, op in enumerate(ops):
        op["inputs"][0]["shape"][1] = 3 + i
    return ops


def over_http(count: int, rounds: int) -> None:
    import httpx

    from bench.bench_validate import free_port, start_server

    batches = {
        "ReduceMax descriptors, 13 distinct texts repeated": reduce_ops(count),
        "ReduceMax descriptors, all distinct": distinct_ops(count),
    }
    port = free_port()
    with start_server(port) as base, httpx.Client(base_url=base, timeout=120) as client:
        for label, ops in batches.items():
            body = json.dumps({"ops": ops}).encode()
            rates = []
            for _ in range(rounds):
                start = time.perf_counter()
                response = client.post(
                    "/v1/validate/batch", content=body, headers={"content-type": "application/json"}
                )
                response.read()
                rates.append(count / (time.perf_counter() - start))
                assert response.status_code == 200, response.text[:300]
            rate = sorted(rates)[len(rates) // 2]
            print(
                f"  POST /v1/validate/batch, {count:,} {label} ({len(body) / 1e6:.1f} MB): {rate:10,.0f} "
                f"descriptors/s end to end (goal >= 100,000: {verdict(rate, 100_000, at_least=True)})"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(
        f"Validation per op against ONNX's C++ shape inference per node, {NODES:,} ops (medians of {args.rounds})"
    )
    per_node("ReduceMax      ", reduce_ops(NODES), 2.0, args.rounds)
    per_node("Max, 8 inputs  ", max_ops(NODES // 10, 8), 3.0, args.rounds)
    per_node("Max, 64 inputs ", max_ops(NODES // 10, 64), 3.0, args.rounds)
    over_http(100_000, args.rounds)


if __name__ == "__main__":
    main()
