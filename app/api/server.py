"""Running the app under uvicorn with the time limits from Settings.

uvicorn closes an idle keep-alive connection (timeout_keep_alive) but has no limit on how long a
client may take to send its headers: a connection that sends a few bytes and stops is held for ever.
The header timer closes it after header_timeout seconds. The body's own limit (body_timeout) is the
app's BodyLimit, so it holds under any server.

The HTTP parser is httptools and the event loop uvloop where they are installed (they are
dependencies on Linux and macOS): C code where h11 and asyncio are Python. Measured once here as the
server process's CPU time per small validate request under wrk, bench/bench_http.py's bare app took
about 220 us under h11 and asyncio and 110-125 us under these. h11 is the fallback, with the same timer.
"""

from __future__ import annotations

import asyncio
import importlib.util
import signal
import sys
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.core.config import Settings, get_settings


class _HeaderTimer:
    """From the connection's start, and from the end of each answer, the next request's headers must
    arrive within Settings.header_timeout seconds. A mixin over either uvicorn protocol: both call
    connection_made, on_response_complete and connection_lost, and set `cycle` when a request's
    headers are complete.

    Module-level classes reading the settings themselves, not ones made per call: with --workers,
    uvicorn pickles its config into each worker process, and a class made inside a function cannot be
    pickled.
    """

    _header_timer: asyncio.TimerHandle | None = None
    _deadline = 0.0
    _cycle_armed: Any = None
    cycle: Any
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(OneWrite(transport, asyncio.get_running_loop()))  # type: ignore[misc]
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm(self) -> None:
        # A deadline moved, not a timer cancelled and made again on every answer: one timer per
        # connection at a time, which on firing early re-arms itself for the deadline as it stands.
        self._deadline = self.loop.time() + get_settings().header_timeout
        self._cycle_armed = self.cycle
        if self._header_timer is None:
            self._header_timer = self.loop.call_at(self._deadline, self._expire)

    def _expire(self) -> None:
        self._header_timer = None
        if self.cycle is not self._cycle_armed or self.transport.is_closing():
            return  # a request's headers arrived in time: its answer arms the timer again
        if self.loop.time() < self._deadline:
            self._header_timer = self.loop.call_at(self._deadline, self._expire)
        else:
            self.transport.close()


class OneWrite:
    """The connection's transport, with an answer's head and body sent in one write: uvicorn writes the
    status line and headers, then the body, and each write is a send(2) of its own (on loopback, the
    receiving side's work too), about a tenth of a small request's CPU time in the server. A small
    write is held until the next write joins it, or until the loop has run what is ready (call_soon),
    or until the transport is closed: nothing waits longer than the current turn of the loop, and the
    order of the bytes is kept. Everything else is the transport's own."""

    __slots__ = ("_held", "_loop", "_transport")
    HOLD_BYTES = 4096  # a head; larger writes go at once
    JOIN_BYTES = 1 << 16  # a body joined to a held head is copied: past this, two writes

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if len(data) <= self.JOIN_BYTES:
                self._transport.write(held + data)
                return
            self._transport.write(held)
        elif len(data) <= self.HOLD_BYTES and type(data) is bytes:
            self._held = data
            self._loop.call_soon(self.flush)
            return
        self._transport.write(data)

    def flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self._transport.write(held)

    def writelines(self, chunks: Any) -> None:
        self.flush()
        self._transport.writelines(chunks)

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class HeaderTimeout(_HeaderTimer, H11Protocol):
    """h11's protocol with the header timer."""


if importlib.util.find_spec("httptools") is not None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class FastHeaderTimeout(_HeaderTimer, HttpToolsProtocol):
        """httptools' protocol with the header timer."""

    PROTOCOL: type = FastHeaderTimeout
else:
    PROTOCOL = HeaderTimeout


def served_app() -> Any:
    """The app as a server runs it, made in each worker process (uvicorn's factory=True).

    Large bodies are worked on in threads that hold the GIL in long C calls; the event loop waits for
    the GIL up to the switch interval each time it wants it. 1 ms instead of 5 keeps /healthz answering
    while they run, for a little throughput. Set here, not at import, so only a served process changes
    it (tests import the app), and every worker does (--workers starts fresh interpreters)."""
    sys.setswitchinterval(get_settings().switch_interval)
    from app.api.main import app

    return app


def _stopped(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def run(settings: Settings, host: str, port: int, workers: int = 1) -> None:
    # uvicorn shuts down gracefully on SIGTERM and SIGINT, then raises the signal again under the
    # handler it found: by default that killed the process (exit 143), where the README and a
    # supervisor expect 0 for a stop asked for and done. This handler makes the re-raised signal a
    # clean exit; a second signal during shutdown still forces it, as uvicorn has it.
    for stop in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop, _stopped)
    uvicorn.run(
        "app.api.server:served_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=PROTOCOL,
        loop="auto",  # uvloop where installed, else asyncio
        timeout_keep_alive=settings.keepalive_timeout,
        access_log=False,  # the app writes its own, as JSON with the request id
        log_level="info",
    )
