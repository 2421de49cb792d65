"""Shared by the benchmark scripts: best-of-N wall time, alone or interleaved with a baseline."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(repeats: int, run: Callable[[], object]) -> float:
    """The fastest of `repeats` runs, in seconds: the least disturbed by the rest of the machine."""
    return race(repeats, run)[0]


def race(repeats: int, *runs: Callable[[], object]) -> list[float]:
    """The fastest time of each run, taking turns: a burst of load on the machine then hits every run
    alike instead of whichever happened to be timing, so the ratios between them hold still."""
    best = [float("inf")] * len(runs)
    for _ in range(repeats):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            best[index] = min(best[index], time.perf_counter() - start)
    return best
