"""The body's size and time limits, enforced before the app reads a byte of JSON (pure ASGI: no per-request
task): over max_body_bytes is a 413, a body still arriving after body_timeout seconds is a 408."""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api import problems


class BodyLimit:
    """`max_bytes` (named by the setting `limit`) for every path, except the paths in `by_path` that carry
    their own (a graph file may be larger than a descriptor: max_graph_bytes)."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        timeout: float,
        limit: str = "max_body_bytes",
        by_path: dict[str, tuple[int, str]] | None = None,
    ):
        self.app = app
        self.default = (max_bytes, limit)
        self.by_path = by_path or {}
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes, limit = self.by_path.get(scope["path"], self.default)
        declared = dict(scope.get("headers", ())).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            await _refuse(scope, send, int(declared), max_bytes, limit)
            return
        # Read it all (up to the limit) before the app runs, then replay it: a chunked body has no
        # length up front, and a client that trickles its body must not hold a connection for ever.
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.timeout):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        break
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > max_bytes:
                        await _refuse(scope, send, size, max_bytes, limit)
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            detail = (
                f"the body was still arriving after {self.timeout:g} s ({size:,} bytes so far); "
                "the limit is body_timeout"
            )
            await answer(send, 408, problems.encoded("request-timeout", detail, problems.request_id(scope)))
            return
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _refuse(scope: Scope, send: Send, size: int, max_bytes: int, limit: str) -> None:
    detail = f"the body is {size:,} bytes or more, above the limit of {max_bytes:,} ({limit})"
    await answer(send, 413, problems.encoded("too-large", detail, problems.request_id(scope), limit=limit))


async def answer(send: Send, status: int, body: bytes, extra: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    """A problem answer from middleware, before the app has run."""
    headers = [
        (b"content-type", problems.MEDIA_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
        # The rest of the request is unread: the connection cannot carry another one.
        (b"connection", b"close"),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
