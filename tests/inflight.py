"""A request caught in flight by a shutdown, for the SIGTERM tests of `opspec serve` and the image.

The request announces its body with `Expect: 100-continue`, so the server's `100 Continue` proves it
has taken the request and the app is waiting on the body; the test then stops the server and sends
the body, and a graceful shutdown still answers it in full.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any

BODY = {
    "kind": "Max",
    "inputs": [{"dtype": "f32", "shape": ["N", 1]}, {"dtype": "f32", "shape": [3]}],
}
VERDICT_OUTPUTS = [{"dtype": "f32", "shape": ["N", 3]}]


def validate_across_shutdown(port: int, stop: Callable[[], None]) -> tuple[int, dict[str, Any]]:
    """POST /v1/validate; `stop()` runs after the server took the request and before its body is sent.

    Returns the status and the JSON answer.
    """
    body = json.dumps(BODY).encode()
    head = (
        f"POST /v1/validate HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(head)
        interim = _read_until(conn, b"\r\n\r\n")
        assert interim.startswith(b"HTTP/1.1 100 "), interim
        stop()
        conn.sendall(body)
        response = _read_until(conn, b"")
    head_bytes, _, payload = response.partition(b"\r\n\r\n")
    status = int(head_bytes.split(b" ", 2)[1])
    return status, json.loads(payload)


def _read_until(conn: socket.socket, end: bytes) -> bytes:
    """Bytes up to and including `end`, or until the server closes when `end` is empty."""
    data = b""
    while not end or end not in data:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data
