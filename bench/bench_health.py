"""/healthz latency while large validations and evaluations run: the event loop must stay free.

Starts `opspec serve` on a loopback port, measures /healthz alone (the baseline, same run), then again
while worker threads keep posting large bodies: a 3 MB validate of repeated axes, a 1 MB validate of
many Max inputs, and an evaluation of a 1M-element ReduceMax. Prints p50/p99 against the goal (p99 under
50 ms). Bounded: --seconds of load (default 8), loopback only. Asserts nothing.

    .venv/bin/python bench/bench_health.py [--seconds 8]
"""

from __future__ import annotations

import argparse
import base64
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

GOAL_P99_MS = 50.0
OPSPEC = Path(sys.executable).with_name("opspec")
JSON = {"content-type": "application/json"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


LOADS = (
    "validate 3 MB of repeated axes",
    "validate 1 MB of Max inputs",
    "evaluate ReduceMax over 1M elements",
)


def worker(base: str, name: str, done: Any, count: Any) -> None:
    body = bodies()[name]
    route = "/v1/evaluate" if name.startswith("evaluate") else "/v1/validate"
    with httpx.Client(base_url=base, timeout=120) as own:
        while not done.is_set():
            answer = own.post(route, content=body, headers=JSON)
            assert answer.status_code == 200, answer.text[:300]
            with count.get_lock():
                count.value += 1


def bodies() -> dict[str, bytes]:
    values = np.arange(1 << 20, dtype=np.float32)
    return {
        "validate 3 MB of repeated axes": json.dumps(
            {
                "kind": "ReduceMax",
                "attrs": {"axes": [0] * 1_000_000},
                "inputs": [{"dtype": "f32", "shape": [2, 3]}],
            }
        ).encode(),
        "validate 1 MB of Max inputs": json.dumps(
            {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2, "N"]}] * 30_000}
        ).encode(),
        "evaluate ReduceMax over 1M elements": json.dumps(
            {
                "kind": "ReduceMax",
                "attrs": {"axes": [1]},
                "inputs": [
                    {
                        "dtype": "f32",
                        "shape": [1024, 1024],
                        "data": {"encoding": "base64", "bytes": base64.b64encode(values.tobytes()).decode()},
                    }
                ],
            }
        ).encode(),
    }


def latencies(client: httpx.Client, seconds: float) -> list[float]:
    samples = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        start = time.perf_counter()
        assert client.get("/healthz").status_code == 200
        samples.append((time.perf_counter() - start) * 1000)
        time.sleep(0.005)
    return samples


def percentile(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1] if len(samples) > 1 else samples[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args()
    port = free_port()
    env = {**os.environ, "OPSPEC_PORT": str(port), "OPSPEC_ACCESS_LOG": "false"}
    server = subprocess.Popen(
        [str(OPSPEC), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/healthz")
                break
            except httpx.TransportError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("opspec serve did not start") from None
                time.sleep(0.1)
        with httpx.Client(base_url=base, timeout=60) as client:
            idle = latencies(client, min(args.seconds, 3))
            # Load from other processes: threads here would hold this process's GIL while they encode
            # megabytes, and the /healthz timings would measure the client, not the server.
            done = multiprocessing.Event()
            counts = {name: multiprocessing.Value("i", 0) for name in LOADS}
            workers = [
                multiprocessing.Process(target=worker, args=(base, name, done, counts[name]), daemon=True)
                for name in LOADS
            ]
            for process in workers:
                process.start()
            time.sleep(1.0)  # let the load start
            busy = latencies(client, args.seconds)
            done.set()
            for process in workers:
                process.join(timeout=120)
    finally:
        server.terminate()
        server.wait(timeout=10)
    print("/healthz latency, same server, same run (loopback):")
    for label, samples in (("idle", idle), ("under load", busy)):
        print(
            f"  {label:11s} n={len(samples):4d}  p50 {percentile(samples, 50):6.1f} ms  "
            f"p99 {percentile(samples, 99):6.1f} ms  max {max(samples):6.1f} ms"
        )
    p99 = percentile(busy, 99)
    verdict = "meets" if p99 < GOAL_P99_MS else "MISSES"
    print(f"  p99 under load {p99:.1f} ms; goal < {GOAL_P99_MS:.0f} ms: {verdict} it")
    print("  load completed: " + ", ".join(f"{name} x{count.value}" for name, count in counts.items()))


if __name__ == "__main__":
    main()
