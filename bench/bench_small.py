"""Small requests and memory, in the same run:
(a) in-process evaluation of Max over 2 x 1,000 f32 given in base64, through the wire path (bytes to
    descriptor, evaluate, answer to bytes), against onnxruntime's session.run on the same arrays;
(b) POST /v1/evaluate of that request against a bare route echoing a body of the same size, on one
    server (POST /v1/validate against a bare route is in bench_validate.py);
(c) a request's peak extra memory (tracemalloc: Python objects and NumPy buffers) against its body size,
    data as JSON lists and as base64. Prints figures with their goals; asserts nothing.

    .venv/bin/python bench/bench_small.py [--requests 2000]
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.api.routes.check import evaluate_answer, read_descriptor
from app.core import engine
from app.core.config import get_settings
from app.ops import BY_NAME
from bench.engines import onnx_session
from bench.timing import race_median, verdict

HEADERS = {"content-type": "application/json"}


def _b64(array: np.ndarray) -> dict:
    return {"encoding": "base64", "bytes": base64.b64encode(array.tobytes()).decode()}


def wire(body: bytes) -> bytes:
    """What POST /v1/evaluate does between the body and the answer, without the HTTP server."""
    descriptor = read_descriptor(body, get_settings())
    result = engine.evaluate(BY_NAME[descriptor.kind], descriptor, get_settings())
    return evaluate_answer(result)


def small_body(arrays: list[np.ndarray]) -> bytes:
    inputs = [{"dtype": "f32", "shape": list(a.shape), "data": _b64(a)} for a in arrays]
    return json.dumps({"kind": "Max", "inputs": inputs}).encode()


def in_process(rounds: int) -> None:
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(1000).astype(np.float32) for _ in range(2)]
    body = small_body(arrays)
    run = onnx_session("Max", arrays, 1)

    def ours() -> None:
        for _ in range(100):
            wire(body)

    def theirs() -> None:
        for _ in range(100):
            run()

    mine, base = race_median(rounds, ours, theirs)
    ratio = mine / base
    print(
        f"  in-process evaluate, Max 2 x 1,000 f32 base64 via the wire path: {mine * 1e4:6.1f} us  "
        f"onnxruntime session.run {base * 1e4:5.1f} us  ratio {ratio:5.2f} (goal <= 4: {verdict(ratio, 4)})"
    )


def over_http(requests: int, rounds: int) -> None:
    import httpx

    from bench.bench_validate import free_port, start_server

    rng = np.random.default_rng(1)
    evaluate_body = small_body([rng.standard_normal(1000).astype(np.float32) for _ in range(2)])
    pairs = {"evaluate": ("/v1/evaluate", "/echo", evaluate_body, 0.7)}  # validate: bench_validate.py
    with start_server(free_port()) as url, httpx.Client(base_url=url, timeout=30) as client:

        def hammer(path: str, body: bytes) -> None:
            for _ in range(requests):
                client.post(path, content=body, headers=HEADERS)

        for route, bare, body, goal in pairs.values():
            assert client.post(route, content=body, headers=HEADERS).status_code == 200
            ours, base = race_median(
                rounds, lambda r=route, b=body: hammer(r, b), lambda r=bare, b=body: hammer(r, b)
            )
            ratio = base / ours  # requests/s, ours over the bare route's
            print(
                f"  POST {route}: {requests / ours:7,.0f} req/s   bare {bare}: {requests / base:7,.0f} req/s   "
                f"ratio {ratio:4.2f} (goal >= {goal}: {verdict(ratio, goal, at_least=True)})"
            )


def peak_memory() -> None:
    rng = np.random.default_rng(2)
    values = rng.integers(0, 10, (2000, 2000)).astype(np.float32)  # one digit each: the densest JSON list
    cases = {
        "JSON lists": (values.tolist(), 4.0),
        "base64": (_b64(values), 3.0),
    }
    for name, (data, goal) in cases.items():
        body = json.dumps(
            {
                "kind": "ReduceMax",
                "attrs": {"axes": [0]},
                "inputs": [{"dtype": "f32", "shape": [2000, 2000], "data": data}],
            },
            separators=(",", ":"),
        ).encode()
        del data
        tracemalloc.start()
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        wire(body)
        peak = tracemalloc.get_traced_memory()[1] - before
        tracemalloc.stop()
        ratio = peak / len(body)
        print(
            f"  peak extra memory, ReduceMax of 4M f32 as {name:10}: body {len(body) / 1e6:5.1f} MB  peak "
            f"{peak / 1e6:6.1f} MB  ratio {ratio:5.1f} (goal <= {goal:.0f}: {verdict(ratio, goal)})"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print("Small requests and memory")
    in_process(args.rounds * 3)
    over_http(args.requests, args.rounds)
    peak_memory()


if __name__ == "__main__":
    main()
