"""`opspec serve` for real: the console script binds a port and answers over TCP, as `make serve` runs it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

OPSPEC = Path(sys.executable).with_name("opspec")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_answers_over_tcp() -> None:
    port = free_port()
    env = {**os.environ, "OPSPEC_PORT": str(port)}  # the port from settings, as make serve's PORT does
    server = subprocess.Popen(
        [str(OPSPEC), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
                break
            except httpx.TransportError:
                assert server.poll() is None, "opspec serve exited before it answered"
                assert time.monotonic() < deadline, "opspec serve did not answer within 30 s"
                time.sleep(0.1)
        body = {
            "kind": "Max",
            "inputs": [{"dtype": "f32", "shape": ["N", 1]}, {"dtype": "f32", "shape": [3]}],
        }
        verdict = httpx.post(f"{base}/v1/validate", json=body).json()
        assert verdict["valid"] is True
        assert verdict["outputs"] == [{"dtype": "f32", "shape": ["N", 3]}]
        assert httpx.get(f"{base}/docs").status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=10)
