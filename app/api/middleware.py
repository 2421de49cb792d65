"""The outermost layer of every request (pure ASGI, so a small request pays a few microseconds, not a
task): its id, the Content-Type gate, the access log line and the request metrics.

Which media types a POST route reads is the route's own declaration: the content types of its
requestBody in the OpenAPI document (a route taking XML, ONNX bytes or multipart lists them in its
openapi_extra; FastAPI lists JSON for a body model). JSON is application/json or any +json type; anything else, or no Content-Type, is a 415.
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import os
import re
import secrets
import sys
import time

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api import metrics, problems
from app.api.jsontext import json_text
from app.api.limits import answer
from app.core.numbers import clip

JSON = "application/json"
SANE_ID = re.compile(rb"^[A-Za-z0-9._:@+=/-]{1,128}$")


class RouteTable:
    """The app's documented routes by path, read from its OpenAPI document once, on first use: the
    path's template (for metric labels: never the raw path, whose values are unbounded) and the media
    types each POST body may have (those its requestBody declares; FastAPI declares JSON for a model)."""

    def __init__(self, app: FastAPI):
        self.app = app
        self._exact: dict[str, tuple[str, dict[str, frozenset[str]]]] | None = None
        self._patterns: list[tuple[re.Pattern[str], str, dict[str, frozenset[str]]]] = []

    def _build(self) -> dict[str, tuple[str, dict[str, frozenset[str]]]]:
        exact = {}
        for template, operations in self.app.openapi()["paths"].items():
            media = {
                method.upper(): frozenset(k.lower() for k in (op.get("requestBody") or {}).get("content", {}))
                or frozenset({JSON})
                for method, op in operations.items()
            }
            if "{" in template:
                pattern = re.compile("^" + re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(template)) + "$")
                self._patterns.append((pattern, template, media))
            else:
                exact[template] = (template, media)
        return exact

    def find(self, path: str) -> tuple[str, dict[str, frozenset[str]]] | None:
        if self._exact is None:
            self._exact = self._build()
        found = self._exact.get(path)
        if found is None:
            found = next(((t, m) for p, t, m in self._patterns if p.match(path)), None)
        return found


def accepts(allowed: frozenset[str], content_type: bytes | None) -> bool:
    if content_type is None:
        return False
    media = content_type.split(b";", 1)[0].strip().lower().decode("latin-1")
    if media in allowed:
        return True
    if JSON in allowed and media.startswith("application/") and media.endswith("+json"):
        return True
    # a declared "type/*" takes any subtype (multipart/*)
    return any(a.endswith("/*") and media.startswith(a[:-1]) for a in allowed)


class MediaGate:
    """415 for a POST whose Content-Type its route does not read (inside CORS, so a page elsewhere sees
    the 415 and not a CORS failure)."""

    def __init__(self, app: ASGIApp, routes: RouteTable):
        self.app = app
        self.routes = routes
        # (path, Content-Type) pairs found readable: the next request of the pair goes straight on
        self._accepted: set[tuple[str, bytes | None]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            content_type = dict(scope["headers"]).get(b"content-type")
            if (scope["path"], content_type) in self._accepted:
                await self.app(scope, receive, send)
                return
            found = self.routes.find(scope["path"])
            allowed = None if found is None else found[1].get("POST")
            if allowed is not None and accepts(allowed, content_type):
                if len(self._accepted) < 256:  # paths of the table, the types clients send: bounded
                    self._accepted.add((scope["path"], content_type))
            elif allowed is not None:
                shown = "none" if content_type is None else repr(clip(content_type.decode("latin-1"), 100))
                detail = (
                    f"Content-Type {shown} is not read here; {scope['path']} takes "
                    f"{', '.join(sorted(allowed))}" + (" (or a +json type)" if JSON in allowed else "")
                )
                body = problems.encoded("unsupported-media-type", detail, problems.request_id(scope))
                await answer(send, 415, body, ((b"accept-post", ", ".join(sorted(allowed)).encode()),))
                return
        await self.app(scope, receive, send)


class Gate:
    """Request id, access log and request metrics, around everything else.

    On the path of every request, so each part is kept to a few microseconds (bench/bench_http.py
    measures the whole against a bare app): the id from a counter, not a system call (RequestIds); the
    metrics folded in batches (metrics.record_request); the log line formatted from its parts made once
    per route and written in batches (AccessLog), not through a LogRecord, formatter and handler."""

    def __init__(self, app: ASGIApp, routes: RouteTable, access_log: bool = True):
        self.app = app
        self.routes = routes
        self.access_log = access_log
        # (method, path) of a documented route without parameters -> its template and the middle of its
        # log line, made once: formatting the line's constant part was most of the log's cost. Bounded
        # by the route table (a path with parameters, or an unknown one, is never kept).
        self._known: dict[tuple[str, str], tuple[str, str]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        given = next((value for name, value in scope["headers"] if name == b"x-request-id"), None)
        rid = given.decode("ascii") if given is not None and SANE_ID.match(given) else REQUEST_IDS.next()
        scope.setdefault("state", {})["request_id"] = rid
        rid_header = (b"x-request-id", rid.encode("ascii"))
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), rid_header]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - start
            method, path = scope["method"], scope["path"]
            known = self._known.get((method, path))
            if known is None:
                known = self._describe(scope, method, path)
            template, middle = known
            metrics.record_request(method, template, status, elapsed)
            if self.access_log:
                # json.dumps's own layout, key for key, as the line has always been written
                ACCESS_LOG.write(
                    f'{{"request_id": "{rid}{middle}{status}, "duration_ms": {round(elapsed * 1000, 3)!r}}}\n'
                )

    def _describe(self, scope: Scope, method: str, path: str) -> tuple[str, str]:
        """The route's template (for metric labels: never the raw path, whose values are unbounded) and
        the log line's part from the method to the status."""
        found = self.routes.find(path)
        route = scope.get("route")  # an undocumented route (/metrics, /docs): its own path
        template = found[0] if found else getattr(route, "path", None) or "unmatched"
        middle = (
            f'", "method": {json_text(method)}, "route": {json_text(template)}, '
            f'"path": {json_text(clip(path, 200))}, "status": '
        )
        if found is not None and found[0] == path and method in metrics.METHODS:
            self._known[(method, path)] = (template, middle)
        return template, middle


class AccessLog:
    """The access log's lines, written to stderr in batches: stderr is line-buffered, so a line a
    request was a write(2) a request, the largest part of the log's cost. A line waits at most
    FLUSH_SECONDS (a timer on the running loop, or the next line after that long) or until
    FLUSH_LINES are waiting; whatever waits at exit is written then."""

    FLUSH_SECONDS = 0.05
    FLUSH_LINES = 256

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._first_at = 0.0
        atexit.register(self.flush)

    def write(self, line: str) -> None:
        lines = self._lines
        lines.append(line)
        if len(lines) == 1:
            self._first_at = time.monotonic()
            try:
                asyncio.get_running_loop().call_later(self.FLUSH_SECONDS, self.flush)
            except RuntimeError:  # no loop to wait on: written now
                self.flush()
        elif len(lines) >= self.FLUSH_LINES or time.monotonic() - self._first_at > self.FLUSH_SECONDS:
            self.flush()  # the timer's loop may be gone (a test client's); the next line writes them

    def flush(self) -> None:
        if self._lines:
            text = "".join(self._lines)
            self._lines.clear()
            sys.stderr.write(text)
            sys.stderr.flush()


ACCESS_LOG = AccessLog()


class RequestIds:
    """Request ids, 32 hex digits like a uuid4's: a random prefix per process and a counter. uuid4 read
    the system's random source on every request; unique ids need it once per process (a forked child
    draws its own prefix)."""

    def __init__(self) -> None:
        self.reset()
        os.register_at_fork(after_in_child=self.reset)

    def reset(self) -> None:
        self._prefix = secrets.token_hex(8)
        self._counter = itertools.count()

    def next(self) -> str:
        return f"{self._prefix}{next(self._counter):016x}"


REQUEST_IDS = RequestIds()
