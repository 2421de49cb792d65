"""Work too large for the event loop goes to a thread, at most `busy_threads` at once.

Parsing and checking hold the GIL for most of their time, so threads beyond one do not run in parallel;
they only queue for the GIL beside the event loop, and every /healthz then waits behind all of them
(measured by bench/bench_health.py: p99 125 ms with three large requests at once, 22 ms when they take
turns). The requests over the limit wait their turn without holding a thread.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import anyio
from starlette.requests import Request

T = TypeVar("T")


async def off_loop(request: Request, function: Callable[..., T], *args: Any) -> T:
    state = request.app.state
    limiter = getattr(state, "busy_limiter", None)
    if limiter is None:  # made inside the loop, on first use
        limiter = state.busy_limiter = anyio.CapacityLimiter(state.settings.busy_threads)
    return await anyio.to_thread.run_sync(partial(function, *args), limiter=limiter)
