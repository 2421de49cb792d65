"""The hot routes answered without FastAPI's routing: POST /v1/validate and POST /v1/evaluate.

A compiler sends these by the thousand, each a few hundred bytes, and FastAPI's route matching, its
exception middleware and its dependency machinery cost more per request than checking the descriptor
(bench/bench_http.py: about a third of a validate request's time on one core). This layer sits inside
the body limit, so the body is already read and within its limit; it calls the same endpoint function
the FastAPI route calls, and answers an exception with the same handler the app registered for it, so
the answer's bytes are the route's own (tests/api/test_hot.py holds the two paths to equal answers,
headers and metrics). Every other request, and these paths with any other method, go on to FastAPI,
which also documents these routes in the OpenAPI document.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.limits import Replay

Endpoint = Callable[[Request], Awaitable[Response]]


class HotRoutes:
    def __init__(self, app: ASGIApp, endpoints: dict[str, Endpoint], owner: FastAPI):
        self.app = app
        self.endpoints = endpoints
        self.owner = owner  # its exception handlers, read per exception: they are registered after this

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = self.endpoints.get(scope["path"]) if scope["type"] == "http" else None
        if endpoint is None or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        # The body as BodyLimit hands it on, one message, read here so the endpoint's request.body()
        # has it at once (Starlette's stream of chunks cost ~2 us of a ~16 us validate)
        message = await receive()
        if message["type"] == "http.request" and not message.get("more_body", False):
            request = ReadRequest(scope, message.get("body", b""), receive, send)
        else:
            request = Request(scope, Replay(message, receive), send)
        try:
            response = await endpoint(request)
        except Exception as exc:
            handler = self._handler(exc)
            if handler is None:  # a bug: the server-error layer outside answers 500 and logs it
                raise
            response = handler(request, exc)
            if inspect.isawaitable(response):
                response = await response
        await response(scope, receive, send)

    def _handler(self, exc: Exception) -> Callable | None:
        """The handler the app registered for the exception's nearest class, as Starlette's exception
        middleware finds it; the catch-all for Exception belongs to the server-error layer, not here."""
        handlers = self.owner.exception_handlers
        for cls in type(exc).__mro__:
            if cls is Exception:
                return None
            if cls in handlers:
                return handlers[cls]
        return None


class ReadRequest(Request):
    """A request whose body has been read: `_body` is where Starlette's Request keeps it once read."""

    def __init__(self, scope: Scope, body: bytes, receive: Receive, send: Send):
        super().__init__(scope, receive, send)
        self._body = body
