"""The hostile corpus: bodies built to make a fast path do too much work (many short data lists, deep
nesting, long strings, many errors, bytes that are not UTF-8), each sent to POST /v1/validate,
/v1/evaluate and /v1/validate/batch of the app in-process (Starlette's TestClient, no network).
Prints each body's CPU time per MB and the worst, against the goal of 2 s per MB, and any status of
500 or more. Asserts nothing.

    .venv/bin/python bench/bench_hostile.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient

from app.api.main import create_app
from app.core.config import Settings

GOAL_SECONDS_PER_MB = 2.0


def _max(count: int, tensor: dict) -> bytes:
    return json.dumps({"kind": "Max", "inputs": [tensor] * count}).encode()


def corpus() -> dict[str, bytes]:
    one = {"dtype": "f32", "shape": [1], "data": [1.0]}
    return {
        "Max of 100,000 one-value inputs": _max(100_000, one),
        "Max of 100,000 nested one-value inputs": _max(100_000, {**one, "shape": [1, 1], "data": [[1.0]]}),
        "Max of 100,000 inputs without data": _max(100_000, {"dtype": "f32", "shape": [1]}),
        "one list of 1,000,000 values": _max(
            1, {"dtype": "f32", "shape": [1_000_000], "data": [1.5] * 1_000_000}
        ),
        "500,000 bad axes": json.dumps(
            {
                "kind": "ReduceMax",
                "attrs": {"axes": ["a"] * 500_000},
                "inputs": [{"dtype": "f32", "shape": [2]}],
            }
        ).encode(),
        "a 4 MB symbol": _max(1, {"dtype": "f32", "shape": ["N" * 4_000_000]}),
        "brackets 100,000 deep": b'{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [1], "data": '
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}]}",
        "100,000 strings not UTF-8": _max(100_000, {"dtype": "f32", "shape": [1]}).replace(
            b'"f32"', b'"\xff\xfe"'
        ),
        "100,000 unclosed data lists": b'{"kind": "Max", "inputs": [' + b'{"data": [' * 100_000,
    }


def main() -> None:
    client = TestClient(create_app(Settings(access_log=False)), raise_server_exceptions=False)
    headers = {"content-type": "application/json"}
    worst, failures = 0.0, 0
    print(f"{'body':42} {'route':18} {'MB':>6} {'CPU s':>7} {'s/MB':>6} status")
    for name, body in corpus().items():
        megabytes = len(body) / 1e6
        for route in ("/v1/validate", "/v1/evaluate", "/v1/validate/batch"):
            payload = body if route != "/v1/validate/batch" else b'{"ops": [' + body + b"]}"
            start = time.process_time()
            status = client.post(route, content=payload, headers=headers).status_code
            seconds = time.process_time() - start
            per_mb = seconds / megabytes
            worst = max(worst, per_mb)
            failures += status >= 500
            flag = "  <-- 5xx" if status >= 500 else ""
            print(f"{name[:42]:42} {route:18} {megabytes:6.2f} {seconds:7.2f} {per_mb:6.2f} {status}{flag}")
    verdict = "within" if worst <= GOAL_SECONDS_PER_MB else "OVER"
    print(
        f"worst: {worst:.2f} CPU s per MB ({verdict} the goal of {GOAL_SECONDS_PER_MB} s per MB); 5xx: {failures}"
    )


if __name__ == "__main__":
    main()
