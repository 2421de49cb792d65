"""Splitting a check run's files: across worker processes on one machine (`--jobs`) and across the
machines of a CI matrix (`--shard`).

The command's own process checks files too, beside its helpers. Helpers are forked where the platform
can (Linux) once the parent has imported the checker, so a helper starts with numpy, pydantic and the op
registry already in memory: importing them is most of what a fresh `opspec` process pays before it
checks anything. Elsewhere they are spawned and import it all.
"""

from __future__ import annotations

import collections
import gc
import os
import signal
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from app.core import collector

if TYPE_CHECKING:  # imported where workers start: a run of one process need not pay for them
    import multiprocessing.context
    from concurrent.futures import Future, ProcessPoolExecutor

Item = TypeVar("Item")
Result = TypeVar("Result")

# Per-file cost that does not grow with the file (open, sniff, a report): a weight of bytes, so a
# chunk of many tiny files is not mistaken for no work.
FILE_OVERHEAD_BYTES = 4096
# A chunk holds about remaining / (workers * GUIDED_SPLIT) of the work still unsent: large chunks while
# much is left, small ones at the end, so no worker is left with a big chunk while the others idle.
GUIDED_SPLIT = 3
# ...but never less than this share of the whole: each chunk costs a round trip and a pickle.
SMALLEST_CHUNK_SHARE = 1 / 64
# A run lighter than this (in weight: bytes, and FILE_OVERHEAD_BYTES a file; ~400 small files, two tenths
# of a second of checking: the 283 benchdnn graphs weigh 2.9 MB) is checked as --jobs 1 checks it: a
# helper's fork, its first files run cold (its own op models, an engine's set-up) and its answers'
# pickling cost about what it saves, and more than that on a machine whose other work takes a core
# (--jobs 2 on benchdnn's graphs: 1.05-1.1x idle, 0.92-0.97x beside other load).
HELPERS_MIN_WEIGHT = 4 << 20
# Chunks handed to each helper ahead of its answers: one it works on, one queued behind it, so it does
# not idle while this process checks a file of its own.
HELPER_BACKLOG = 2


def worth_helpers(weights: Sequence[int]) -> bool:
    """Is a run of these weights worth forking helpers for (HELPERS_MIN_WEIGHT)? Else one process checks
    it, as --jobs 1 does."""
    return sum(weights) >= HELPERS_MIN_WEIGHT


def workers_for(jobs: int) -> int:
    """`--jobs 0` means a worker per core this process may run on."""
    if jobs > 0:
        return jobs
    try:
        return len(os.sched_getaffinity(0))  # a container or taskset may allow fewer than the machine has
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def shard_key(path: Path | None, name: str) -> str:
    """What decides a file's shard: its path relative to the working directory, in POSIX form, the same
    on every machine of a CI matrix that checks out the repository and runs from the same folder, and
    whatever order the files were listed in; a file outside the working directory, its absolute path;
    standard input, "-"."""
    if path is None:
        return name
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return absolute.as_posix()


def in_shard(key: str, index: int, count: int) -> bool:
    """Is the file of this key in shard `index` (1-based) of `count`? CRC-32 of the key, not Python's
    hash(): that is salted per process, and a file must land in the same shard on every machine; and a
    hash, not a position in the sorted list, so adding a file moves no other file to another shard."""
    return zlib.crc32(key.encode("utf-8", "surrogateescape")) % count == index - 1


class Guided:
    """The items' indices to hand out, the heaviest first, in chunks sized by the work still left
    (guided scheduling): large chunks while much is left, small ones at the end, so no process is left
    with a big chunk while the others idle. Sized as each chunk is taken, not planned up front: this
    process takes items one at a time beside the helpers' chunks, and a size planned for a share it did
    not take would leave a helper's last chunk large."""

    def __init__(self, weights: Sequence[int], workers: int) -> None:
        self.weights = weights
        self.workers = workers
        self.order = collections.deque(
            sorted(range(len(weights)), key=lambda i: -weights[i])
        )  # ties: input order
        self.remaining = sum(weights)
        self.smallest = self.remaining * SMALLEST_CHUNK_SHARE

    def __len__(self) -> int:
        return len(self.order)

    def chunk(self) -> list[int]:
        """The next chunk: about remaining / (workers * GUIDED_SPLIT) of the work, at least one item."""
        target = max(self.remaining / (self.workers * GUIDED_SPLIT), self.smallest)
        taken, size = [], 0
        while self.order and (not taken or size < target):
            index = self.order.popleft()
            taken.append(index)
            size += self.weights[index]
        self.remaining -= size
        return taken

    def one(self) -> int:
        index = self.order.popleft()
        self.remaining -= self.weights[index]
        return index


def _ignore_sigint() -> None:
    # Ctrl-C reaches every process of the terminal's foreground group: the parent alone handles it (and
    # stops the workers), so a worker busy on a file prints no traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_chunk(function: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    return [function(item) for item in items]


def _context() -> multiprocessing.context.BaseContext:
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


class WorkerDied(RuntimeError):
    """A worker process ended without an answer (killed, out of memory): the run cannot be complete."""


def ordered_map(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    weights: Sequence[int],
    workers: int,
    done: Callable[[int], None] | None = None,
) -> Iterator[Result]:
    """`function` over `items` in `workers` processes, this one and `workers - 1` helpers, yielded in the
    items' order (whatever order they finish in); `done(n)` is called as each chunk of n items is
    answered. `function` must be a module-level function (spawn pickles it by name). An exception inside
    `function` is raised here, after the helpers are stopped; a helper that dies raises WorkerDied;
    either way no helper is left behind, and so on Ctrl-C (KeyboardInterrupt here).

    This process checks items of its own, one at a time, between handing chunks out and taking answers
    in: it would otherwise sit waiting while the helpers work, and a file it checks is never pickled
    either way (an answer's unpickling was most of what it did per file). Each helper is kept
    HELPER_BACKLOG chunks ahead, so it has the next one queued while this process checks a file."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    plan = Guided(weights, workers)
    helpers = min(workers - 1, len(items) - 1)
    results: list[Any] = [None] * len(items)
    ready = [False] * len(items)
    # Frozen while helpers are forked: a helper's collector passes then never write to the objects it
    # shares with this process (the pages stay shared) and never walk them (they find nothing to free).
    gc.freeze()
    executor = (
        ProcessPoolExecutor(max_workers=helpers, mp_context=_context(), initializer=_ignore_sigint)
        if helpers > 0
        else None
    )
    pending: dict[Future, list[int]] = {}
    complete = False

    def answered(chunk: list[int], answers: list[Any]) -> None:
        for index, answer in zip(chunk, answers, strict=True):
            results[index], ready[index] = answer, True
        if done is not None:
            done(len(chunk))

    try:
        # The answers are kept to the end of the run: the collector's passes over them while they are
        # unpickled (most of this process's time with helpers) and added up would find nothing to free.
        with collector.paused():
            following = 0  # the first item not yet yielded
            while plan or pending:
                while executor is not None and plan and len(pending) < HELPER_BACKLOG * helpers:
                    chunk = plan.chunk()
                    pending[executor.submit(_run_chunk, function, [items[i] for i in chunk])] = chunk
                if plan:  # this process's share: the next item, while the helpers work on their chunks
                    index = plan.one()
                    answered([index], [function(items[index])])
                    finished = [future for future in pending if future.done()]
                else:
                    finished = list(wait(pending, return_when=FIRST_COMPLETED)[0])
                for future in finished:
                    chunk = pending.pop(future)
                    try:
                        answers = future.result()
                    except BrokenProcessPool as exc:
                        raise WorkerDied(str(exc) or "a worker process ended unexpectedly") from None
                    answered(chunk, answers)
                while following < len(items) and ready[following]:
                    yield results[following]
                    results[following] = None  # the caller holds it now; keep no second reference
                    following += 1
            # All the run made is young to the collector, and lives on in the report: frozen here and
            # thawed below it goes to the oldest generation unwalked (the first pass after the pause
            # walked it all at once: 0.3-0.7 s for 2,000 files' reports).
            gc.freeze()
        complete = True
    finally:
        gc.unfreeze()
        if executor is not None:
            if complete:
                executor.shutdown(wait=True)  # idle helpers: each ends on its own when told
            else:
                _stop(executor)


def _stop(executor: ProcessPoolExecutor) -> None:
    """Stop a failed or interrupted run's pool at once (it wants none of the answers still to come):
    queued chunks dropped, busy workers terminated, every worker reaped, so none is left a zombie."""
    processes = list(getattr(executor, "_processes", {}).values())  # no public handle before 3.14
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join()
    executor.shutdown(wait=True)
