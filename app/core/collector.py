"""Python's cyclic garbage collector, paused around work that builds many objects that all live to its end.

A graph check or a batch allocates a few objects per node or descriptor and keeps nearly all of them
until the answer is written, so the collector's passes only walk a growing heap and find nothing to
free: a quarter of a 10,000-node graph check went to them. Pausing is safe there: the work makes no
reference cycles of its own, the heap it grows is bounded by the request limits (max_graph_nodes,
max_batch), and whatever cycles exist are found by the first pass after it ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block; back on after it unless it was off already (another thread's
    block, or the caller's own choice), so nested and concurrent blocks leave it as they found it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
