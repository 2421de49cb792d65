"""The body's size and time limits, enforced before the app reads a byte of JSON (pure ASGI: no per-request
task): over max_body_bytes is a 413, a body still arriving after body_timeout seconds is a 408."""

from __future__ import annotations

import asyncio
import io

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
        self._deadlines: dict[asyncio.AbstractEventLoop, Deadlines] = {}

    def _watch(self, loop: asyncio.AbstractEventLoop) -> Deadlines:
        for seen in [seen for seen in self._deadlines if seen.is_closed()]:  # a test client's, gone
            del self._deadlines[seen]
        deadlines = self._deadlines[loop] = Deadlines(loop, min(0.5, self.timeout / 4))
        return deadlines

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
        loop = asyncio.get_running_loop()
        deadlines = self._deadlines.get(loop) or self._watch(loop)
        task = asyncio.current_task()
        deadlines.watch(task, loop.time() + self.timeout)  # type: ignore[arg-type]
        buffer = None
        chunk, size = b"", 0
        try:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    break
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > max_bytes:
                    await _refuse(scope, send, size, max_bytes, limit)
                    return
                if buffer is None and not message.get("more_body", False):
                    break  # the common case: the whole body in one message, handed on as it is
                # Several messages: one growing buffer, not a list of chunks joined at the end (the
                # chunks and their join were the body twice over, the freed chunks a third copy in the
                # heap: peak RSS of a JSON-list evaluate 4.4x its body). It grows with what arrives,
                # not to the declared length at once: a declared length costs a client nothing to send.
                buffer = buffer or io.BytesIO()
                buffer.write(chunk)
                if not message.get("more_body", False):
                    break
        except asyncio.CancelledError:
            if task not in deadlines.expired:
                raise  # not ours: the server's (a client gone, a shutdown)
            task.uncancel()  # type: ignore[union-attr]
            detail = (
                f"the body was still arriving after {self.timeout:g} s ({size:,} bytes so far); "
                "the limit is body_timeout"
            )
            await answer(send, 408, problems.encoded("request-timeout", detail, problems.request_id(scope)))
            return
        finally:
            deadlines.forget(task)  # type: ignore[arg-type]
        if buffer is not None:  # getvalue() hands the buffer over as the body's bytes without a copy
            message = {"type": "http.request", "body": buffer.getvalue(), "more_body": False}
            buffer.close()
        elif message["type"] != "http.request":  # gone before a byte: an empty body, as ever
            message = {"type": "http.request", "body": b"", "more_body": False}
        replay = Replay(message, receive)
        del message, buffer, chunk  # the replay holds the only reference to the body; it drops it once read
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


class Deadlines:
    """The requests of one event loop whose bodies are being read, each with its deadline, looked at by
    one timer every `tick` seconds while any is watched; a request past its deadline is cancelled, and
    its reader answers 408. A timer per request (asyncio.timeout) cost ~6.5 us under uvloop, more than
    checking a small descriptor; watching costs a dict entry. The price: a 408 comes up to `tick` late."""

    def __init__(self, loop: asyncio.AbstractEventLoop, tick: float):
        self.loop = loop
        self.tick = tick
        self.watched: dict[asyncio.Task, float] = {}
        self.expired: set[asyncio.Task] = set()
        self._timer: asyncio.TimerHandle | None = None

    def watch(self, task: asyncio.Task, deadline: float) -> None:
        self.watched[task] = deadline
        if self._timer is None:
            self._timer = self.loop.call_later(self.tick, self._look)

    def forget(self, task: asyncio.Task) -> None:
        self.watched.pop(task, None)
        self.expired.discard(task)

    def _look(self) -> None:
        now = self.loop.time()
        for task, deadline in list(self.watched.items()):
            if deadline <= now and task not in self.expired:
                self.expired.add(task)
                task.cancel()
        self._timer = self.loop.call_later(self.tick, self._look) if self.watched else None


class Replay:
    """receive() that gives the message already read first, then the server's own."""

    __slots__ = ("_message", "_receive")

    def __init__(self, message: Message, receive: Receive):
        self._message: Message | None = message
        self._receive = receive

    async def __call__(self) -> Message:
        message = self._message
        if message is None:
            return await self._receive()
        self._message = None  # handed over, not kept (see BodyLimit)
        return message
