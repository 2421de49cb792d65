"""Python's cyclic garbage collector, paused around work that builds many objects that all live to its end.

A graph check or a batch allocates a few objects per node or descriptor and keeps nearly all of them
until the answer is written, so the collector's passes only walk a growing heap and find nothing to
free: a quarter of a 10,000-node graph check went to them. Pausing is safe there: the work makes no
reference cycles of its own, the heap it grows is bounded by the request limits (max_graph_nodes,
max_batch) or, for a local file, grows with the file's size, and whatever cycles exist are found by the
first pass after it ends.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_blocks = 0  # paused() blocks running now, in any thread
_enable_after = False  # whether the collector was on when the first of them began


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off while any thread is inside such a block, and back as the first block found it
    once the last one ends: requests served in threads overlap, and one ending must not switch the
    collector back on under another still running."""
    global _blocks, _enable_after
    with _lock:
        if _blocks == 0:
            _enable_after = gc.isenabled()
            gc.disable()
        _blocks += 1
    try:
        yield
    finally:
        with _lock:
            _blocks = max(_blocks - 1, 0)  # 0 already in a child forked inside the block (below)
            if _blocks == 0 and _enable_after:
                gc.enable()


def _forked() -> None:
    """A forked child holds only the thread that forked, and none of the blocks the parent's threads
    were in: the collector goes back to how the first of them found it (a --jobs helper forked while its
    parent pauses the collector would otherwise run with it off for good), and the lock is a new one (a
    thread of the parent may have held it)."""
    global _lock, _blocks, _enable_after
    _lock = threading.Lock()
    if _blocks and _enable_after:
        gc.enable()
    _blocks, _enable_after = 0, False


os.register_at_fork(after_in_child=_forked)
