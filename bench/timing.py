"""Shared by the benchmark scripts: best-of-N wall time."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(repeats: int, run: Callable[[], object]) -> float:
    """The fastest of `repeats` runs, in seconds: the least disturbed by the rest of the machine."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)
