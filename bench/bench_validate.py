"""Validation speed: (a) in-process validate+infer per descriptor, single and batch, for the ReduceMax
mix and for all four ops; (b) POST /v1/validate throughput against a bare FastAPI route answering a
fixed body of the same size, on the same server, in the same run. Prints figures; asserts nothing.

    .venv/bin/python bench/bench_validate.py [--requests 1000] [--http-rounds 7]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from fastapi import Request, Response

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.core import engine
from app.core.config import get_settings
from app.ops import BY_NAME, DESCRIPTOR
from bench.timing import best_of, race_median, verdict

MIX = [
    {
        "kind": "ReduceMax",
        "attrs": {"axes": [1], "keep_dims": True},
        "inputs": [{"dtype": "f32", "shape": [2, "N", 4]}],
    },
    {"kind": "ReduceMax", "attrs": {"axes": [0, -1]}, "inputs": [{"dtype": "bf16", "shape": [8, 16, 32, 3]}]},
    {"kind": "ReduceMax", "attrs": {"axes": [5, 1, -2]}, "inputs": [{"dtype": "f16", "shape": [2, 3, 4]}]},
    {
        "kind": "ReduceMax",
        "attrs": {"keep_dims": True},
        "inputs": [{"dtype": "f32", "shape": [4, 5, 6]}, {"dtype": "s32", "shape": [2], "data": [0, 2]}],
        "outputs": [{"dtype": "f32", "shape": [1, 5, 1]}],
    },
    {"kind": "ReduceMax", "attrs": {"axes": []}, "inputs": [{"dtype": "f32", "shape": None}]},
]

# The other three ops, one descriptor each: symbols, constant ids, strides and a declared output.
OTHER_OPS = [
    {
        "kind": "SegmentMax",
        "attrs": {"fill_mode": "LOWEST"},
        "inputs": [
            {"dtype": "f32", "shape": ["N", 4]},
            {"dtype": "s64", "shape": [6], "data": [0, 0, 1, 3, 3, 3]},
        ],
    },
    {"kind": "Max", "inputs": [{"dtype": "f32", "shape": ["N", 3, 1]}, {"dtype": "f32", "shape": [4]}]},
    {
        "kind": "mli_krn_argmax_sa8",
        "attrs": {"axis": 1, "top_k": 2},
        "inputs": [{"dtype": "sa8", "shape": [2, 8, 4], "strides": [40, 5, 1], "quant": {"scale": 1}}],
        "outputs": [{"dtype": "sa32", "shape": [8, 2]}],
    },
]


def in_process(rounds: int) -> None:
    for label, mix in (("ReduceMax mix", MIX), ("all four ops", MIX + OTHER_OPS)):
        _in_process(label, mix, rounds)


def _in_process(label: str, mix: list[dict], rounds: int) -> None:
    settings = get_settings()
    bodies = mix * rounds

    def single() -> None:
        for body in bodies:
            descriptor = DESCRIPTOR.validate_python(body)
            engine.check(BY_NAME[descriptor.kind], descriptor, settings)

    def batch() -> None:
        from app.api.models import BatchRequest

        request = BatchRequest.model_validate({"ops": bodies})
        for descriptor in request.ops:
            engine.check(BY_NAME[descriptor.kind], descriptor, settings)

    for name, run in (("single", single), ("batch", batch)):
        seconds = best_of(5, run)
        per = seconds / len(bodies)
        print(
            f"(a) in-process validate+infer, {label}, {name:6}: {per * 1e6:7.1f} us/descriptor  "
            f"{1 / per:10,.0f} descriptors/s"
        )


def serve(port: int) -> None:
    """The bench server: the real app plus a bare route returning a fixed body of a validate answer's size."""
    import uvicorn

    from app.api.main import create_app
    from app.api.routes.check import verdict, verdict_json

    app = create_app()
    answer = verdict_json(verdict(DESCRIPTOR.validate_python(MIX[0]), get_settings()))  # the route's bytes

    @app.post("/bare")
    async def bare(request: Request) -> Response:
        # Reads the body as any POST handler must: a route that ignored it could answer before the
        # body's TCP segment is even read, and the ratio would measure that instead of opspec.
        await request.body()
        return Response(answer, media_type="application/json")

    @app.post("/echo")
    async def echo(request: Request) -> Response:
        # The floor for an evaluation: read a body, answer one of the same size.
        return Response(await request.body(), media_type="application/json")

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def start_server(port: int) -> Iterator[str]:
    """The bench server in a process of its own, answering healthz; yields its base URL."""
    # No access log: a JSON line per request on the bench's stderr would drown its figures.
    env = {**os.environ, "OPSPEC_ACCESS_LOG": "false"}
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)], env=env)
    try:
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, timeout=10) as client:
            for _ in range(100):
                try:
                    client.get("/healthz")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=10)


def over_http(requests: int, rounds: int) -> None:
    port = free_port()
    with start_server(port) as base:
        with httpx.Client(base_url=base, timeout=10) as client:
            body = json.dumps(MIX[0]).encode()
            headers = {"content-type": "application/json"}
            validate_size = len(client.post("/v1/validate", content=body, headers=headers).content)
            bare_size = len(client.post("/bare", content=body, headers=headers).content)

            def hammer(path: str) -> None:
                for _ in range(requests):
                    client.post(path, content=body, headers=headers)

            # Medians of interleaved rounds (as bench_small's HTTP figure): drift in the machine's load
            # hits both routes alike, and one lucky round of either does not set the ratio.
            ours, base = race_median(rounds, lambda: hammer("/v1/validate"), lambda: hammer("/bare"))
        validate, bare = requests / ours, requests / base
        print(f"(b) POST /v1/validate: {validate:8,.0f} req/s ({validate_size} B answers)")
        print(f"    bare fixed route:  {bare:8,.0f} req/s ({bare_size} B answers)")
        print(
            f"    ratio validate/bare: {validate / bare:.2f}  (goal >= 0.95: {verdict(validate / bare, 0.95, at_least=True)})"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1000, help="requests per HTTP round")
    parser.add_argument("--http-rounds", type=int, default=7, help="interleaved HTTP rounds (medians)")
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--serve", type=int)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    in_process(args.rounds)
    over_http(args.requests, args.http_rounds)


if __name__ == "__main__":
    main()
