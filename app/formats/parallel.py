"""Splitting a check run's files: across worker processes on one machine (`--jobs`) and across the
machines of a CI matrix (`--shard`).

Workers are forked where the platform can (Linux) once the parent has imported the checker, so a worker
starts with numpy, pydantic and the op registry already in memory: importing them is most of what a
fresh `opspec` process pays before it checks anything. Elsewhere they are spawned and import it all.
"""

from __future__ import annotations

import os
import signal
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

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


def chunks(weights: Sequence[int], workers: int) -> list[list[int]]:
    """The items' indices in chunks to hand out in this order: the heaviest items first, in chunks that
    shrink as the work left does (guided scheduling), so the run ends on small chunks that even out the
    workers."""
    order = sorted(range(len(weights)), key=lambda i: -weights[i])  # stable: ties keep input order
    remaining = sum(weights)
    smallest = remaining * SMALLEST_CHUNK_SHARE
    found: list[list[int]] = []
    current: list[int] = []
    size = target = 0.0
    for index in order:
        if not current:
            target = max(remaining / (workers * GUIDED_SPLIT), smallest)
        current.append(index)
        size += weights[index]
        if size >= target:
            found.append(current)
            remaining -= size
            current, size = [], 0.0
    if current:
        found.append(current)
    return found


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
    """`function` over `items` in `workers` processes, yielded in the items' order (whatever order they
    finish in); `done(n)` is called as each chunk of n items comes back. `function` must be a module-level
    function (spawn pickles it by name). An exception inside `function` is raised here, after the workers
    are stopped; a worker that dies raises WorkerDied; either way no worker is left behind, and so on
    Ctrl-C (KeyboardInterrupt here)."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    plan = chunks(weights, workers)
    results: list[Any] = [None] * len(items)
    ready = [False] * len(items)
    executor = ProcessPoolExecutor(
        max_workers=min(workers, len(plan)), mp_context=_context(), initializer=_ignore_sigint
    )
    complete = False
    try:
        pending: dict[Future, list[int]] = {
            executor.submit(_run_chunk, function, [items[i] for i in chunk]): chunk for chunk in plan
        }
        following = 0  # the first item not yet yielded
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                chunk = pending.pop(future)
                try:
                    answers = future.result()
                except BrokenProcessPool as exc:
                    raise WorkerDied(str(exc) or "a worker process ended unexpectedly") from None
                for index, answer in zip(chunk, answers, strict=True):
                    results[index], ready[index] = answer, True
                if done is not None:
                    done(len(chunk))
            while following < len(items) and ready[following]:
                yield results[following]
                results[following] = None  # the caller holds it now; keep no second reference
                following += 1
        complete = True
    finally:
        if complete:
            executor.shutdown(wait=True)  # idle workers: each ends on its own when told
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
