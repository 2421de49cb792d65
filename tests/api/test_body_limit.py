"""BodyLimit reads the whole body before the app runs: the app gets it whole and exact, and the
middleware keeps no copy of its own once it has handed it over."""

from __future__ import annotations

import asyncio
import tracemalloc

from starlette.requests import Request

from app.api.limits import BodyLimit

CHUNK = 1 << 16


def _run(chunks: list[bytes], app_reads) -> list[dict]:
    """Drive BodyLimit as a server would, the body arriving in `chunks`; the messages it sent."""
    messages = [{"type": "http.request", "body": chunk, "more_body": True} for chunk in chunks]
    messages[-1]["more_body"] = False
    messages.append({"type": "http.disconnect"})
    sent: list[dict] = []

    async def receive() -> dict:
        return messages.pop(0)

    async def send(message: dict) -> None:
        sent.append(message)

    async def app(scope, receive, send) -> None:
        await app_reads(Request(scope, receive), receive)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    length = str(sum(map(len, chunks))).encode()
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/evaluate",
        "headers": [(b"content-length", length)],
    }
    asyncio.run(BodyLimit(app, max_bytes=1 << 30, timeout=60)(scope, receive, send))
    return sent


def test_the_app_gets_the_body_whole_and_then_the_servers_own_messages() -> None:
    chunks = [bytes([i]) * (CHUNK + i) for i in range(5)] + [b"", b"end"]
    seen = {}

    async def reads(request: Request, receive) -> None:
        seen["body"] = await request.body()
        seen["after"] = await receive()

    sent = _run(chunks, reads)
    assert seen["body"] == b"".join(chunks) and type(seen["body"]) is bytes
    assert seen["after"] == {"type": "http.disconnect"}
    assert sent[0]["status"] == 200


def test_the_middleware_keeps_no_copy_of_the_body() -> None:
    """While the app holds the body, the bytes held beside the chunks (the server's, allocated before
    the count starts) are that one body: the chunks joined and kept by the middleware as well were
    the body twice over for the whole request. Starlette's own join is a brief second copy."""
    chunks = [bytes([i % 251]) * CHUNK for i in range(128)]  # 8 MiB
    size = len(chunks) * CHUNK
    held = {}

    async def reads(request: Request, receive) -> None:
        body = await request.body()
        held["traced"] = tracemalloc.get_traced_memory()[0] - held["before"]
        held["length"] = len(body)

    tracemalloc.start()
    try:
        held["before"] = tracemalloc.get_traced_memory()[0]
        _run(chunks, reads)
        peak = tracemalloc.get_traced_memory()[1] - held["before"]
    finally:
        tracemalloc.stop()
    assert held["length"] == size
    assert held["traced"] < 1.25 * size  # before: ~2x
    assert peak < 2.5 * size
