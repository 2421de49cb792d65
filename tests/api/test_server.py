"""app/api/server.py: OneWrite, the transport that sends an answer's head and body in one write, and
the header timer under h11, the protocol `opspec serve` falls back to without httptools."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import httpx

from app.api.server import OneWrite
from tests.conftest import free_port


class Recorder:
    """A transport that records what is written to it and what is asked of it."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def write(self, data: bytes) -> None:
        self.calls.append(("write", bytes(data)))

    def writelines(self, chunks) -> None:
        self.calls.append(("writelines", [bytes(c) for c in chunks]))

    def close(self) -> None:
        self.calls.append(("close",))

    def abort(self) -> None:
        self.calls.append(("abort",))

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default=None):
        return ("127.0.0.1", 1) if name in ("peername", "sockname") else default


def _on_a_loop(body) -> list[tuple]:
    async def run() -> list[tuple]:
        recorder = Recorder()
        body(OneWrite(recorder, asyncio.get_running_loop()))
        await asyncio.sleep(0)  # the loop's turn: what is held is written
        await asyncio.sleep(0)
        return recorder.calls

    return asyncio.run(run())


def test_a_head_and_its_body_go_in_one_write() -> None:
    def answer(transport: OneWrite) -> None:
        transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.write(b'{"valid":true}')

    assert _on_a_loop(answer) == [("write", b'HTTP/1.1 200 OK\r\n\r\n{"valid":true}')]


def test_a_lone_small_write_goes_by_the_end_of_the_loops_turn() -> None:
    assert _on_a_loop(lambda t: t.write(b"HTTP/1.1 100 Continue\r\n\r\n")) == [
        ("write", b"HTTP/1.1 100 Continue\r\n\r\n")
    ]


def test_order_is_kept_around_large_writes_closes_and_lists() -> None:
    big = b"x" * (OneWrite.JOIN_BYTES + 1)

    def answer(transport: OneWrite) -> None:
        transport.write(b"head")
        transport.write(big)  # past the join size: the head first, then the body, as two writes
        transport.write(b"a")
        transport.writelines([b"b", b"c"])
        transport.write(b"d")
        transport.close()

    assert _on_a_loop(answer) == [
        ("write", b"head"),
        ("write", big),
        ("write", b"a"),
        ("writelines", [b"b", b"c"]),
        ("write", b"d"),
        ("close",),
    ]


def test_an_abort_drops_what_is_held_and_other_attributes_are_the_transports() -> None:
    def answer(transport: OneWrite) -> None:
        transport.write(b"never sent")
        transport.abort()
        assert transport.get_extra_info("peername") == ("127.0.0.1", 1)
        assert transport.is_closing() is False

    assert _on_a_loop(answer) == [("abort",)]


def test_the_h11_fallback_answers_and_cuts_slow_headers_off() -> None:
    """Without httptools, `opspec serve` runs h11 under the same header timer and one-write transport."""
    port = free_port()
    code = (
        "import uvicorn, sys; from app.api.server import HeaderTimeout, served_app; "
        f"uvicorn.run(served_app(), host='127.0.0.1', port={port}, http=HeaderTimeout, loop='asyncio', "
        "log_level='warning')"
    )
    env = {**os.environ, "OPSPEC_HEADER_TIMEOUT": "1", "OPSPEC_ACCESS_LOG": "false"}
    server = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.post(
                    f"http://127.0.0.1:{port}/v1/validate",
                    json={"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}]},
                )
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr.read()
                time.sleep(0.1)
        assert answer.status_code == 200 and answer.json()["valid"] is True
        assert len(answer.headers["x-request-id"]) == 32
        with socket.create_connection(("127.0.0.1", port), timeout=10) as slow:
            slow.sendall(b"POST /v1/validate HTTP/1.1\r\nHost: x\r\n")  # and never the rest
            started = time.monotonic()
            assert slow.recv(100) == b""
            assert time.monotonic() - started < 5
    finally:
        server.terminate()
        server.wait(timeout=10)
        server.stderr.close()
