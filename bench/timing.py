"""Shared by the benchmark scripts: best-of-N wall time, alone or interleaved with a baseline."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(repeats: int, run: Callable[[], object]) -> float:
    """The fastest of `repeats` runs, in seconds: the least disturbed by the rest of the machine."""
    return race(repeats, run)[0]


def race(
    repeats: int, *runs: Callable[[], object], clock: Callable[[], float] = time.perf_counter
) -> list[float]:
    """The fastest time of each run, taking turns: a burst of load on the machine then hits every run
    alike instead of whichever happened to be timing, so the ratios between them hold still. With
    clock=time.process_time, CPU time: on a shared machine wall time mostly measures the others."""
    best = [float("inf")] * len(runs)
    for _ in range(repeats):
        for index, run in enumerate(runs):
            start = clock()
            run()
            best[index] = min(best[index], clock() - start)
    return best


def race_fresh(
    repeats: int,
    *runs: tuple[Callable[[], Any], Callable[[Any], object]],
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """`race` for runs that each take something made fresh before every run, untimed (a graph to walk
    that a walk leaves its caches on): each run is (set-up, run on what the set-up made)."""
    best = [float("inf")] * len(runs)
    for _ in range(repeats):
        for index, (setup, run) in enumerate(runs):
            made = setup()
            start = clock()
            run(made)
            best[index] = min(best[index], clock() - start)
            del made
    return best


def race_median(repeats: int, *runs: Callable[[], object]) -> list[float]:
    """The median time of each run, taking turns as `race` does: for figures where a typical run, not
    the luckiest, is the claim (the kernel goals)."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            times[index].append(time.perf_counter() - start)
    return [sorted(t)[len(t) // 2] for t in times]


def verdict(ratio: float, goal: float, *, at_least: bool = False) -> str:
    """`met` or `missed by N%` against a ratio goal (at most, or at least with at_least)."""
    met = ratio >= goal if at_least else ratio <= goal
    if met:
        return "met"
    off = goal / ratio - 1 if at_least else ratio / goal - 1
    return f"MISSED by {off:.0%}"
