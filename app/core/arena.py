"""Memory for large kernel outputs, reused once whoever held an output has let it go.

A fresh 32 MB array costs its pages: glibc maps every allocation that large afresh (its threshold
for that stops rising at 32 MiB on 64-bit) and the kernel zeroes each page on first touch, about
3 ms of a 7 ms s64 Max of 4M elements. onnxruntime's arena hands the same memory back run after run.
Here a large output is a view of a block the arena keeps; when no one else refers to the block (the
caller dropped the output and every view of it: NumPy views refer to the block itself), it is handed
out again, its pages already mapped. The blocks kept, held or free, take at most _KEEP bytes: past
that an output is a plain new array, so no more than that stays with the process after a burst.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

# Outputs from this size are served from blocks; below it glibc reuses freed memory by itself.
_FROM_BYTES = 1 << 24
# The blocks kept, held by callers or free, take at most this many bytes.
_KEEP = 1 << 27

_blocks: list[np.ndarray] = []
_lock = threading.Lock()  # the HTTP routes evaluate on a thread pool: one taker per block
# What getrefcount says of an array only its list refers to, looked up as _unheld looks (interpreters
# differ in whether the argument's own reference counts).
_probe = [np.empty(0)]
_ALONE = sys.getrefcount(_probe[0])
del _probe


def new_array(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An uninitialised C-contiguous array, as np.empty gives, whose memory may have held an earlier
    output that is no longer referred to."""
    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize
    for size in shape:
        nbytes *= size
    if nbytes < _FROM_BYTES:
        return np.empty(shape, dtype)
    with _lock:  # the view is made inside: the block is held before another thread looks at it
        for index in range(len(_blocks)):
            if _blocks[index].nbytes == nbytes and _unheld(index):
                return _blocks[index].view(dtype).reshape(shape)
        if _kept() + nbytes > _KEEP:  # free blocks of other sizes make room
            _blocks[:] = [_blocks[index] for index in range(len(_blocks)) if not _unheld(index)]
            if _kept() + nbytes > _KEEP:
                return np.empty(shape, dtype)
        _blocks.append(np.empty(nbytes, np.uint8))
        return _blocks[-1].view(dtype).reshape(shape)


def _unheld(index: int) -> bool:
    """Nothing but the list refers to block `index`: looked up by index, never held in a variable,
    whose reference would count."""
    return sys.getrefcount(_blocks[index]) == _ALONE


def _kept() -> int:
    return sum(block.nbytes for block in _blocks)
