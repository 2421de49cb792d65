"""Issue 23's kernel figures, each engine in its own process: `from app import evaluate` against
onnxruntime (one intra-op thread) and OpenVINO's CPU plugin (one thread).

In one process the engines share a heap and a cache: onnxruntime's arena, or the pages one run just
freed, change what the next run pays for its output (bench_kernels.py measures that way, and its s64
Max moved by 0.3 between runs). Here each engine builds the same inputs from the same seed in a process
of its own and times its own calls; the parent asks them in turn, one at a time, so they never run at
once. Each round takes a cold turn of every engine (its caches evicted by writing a buffer twice the
L3 first) and a warm turn of every engine (the call run once untimed just before).

A process carries luck of its own for its whole life: which core it lands on, whether its 4 MiB input
got transparent huge pages, how its buffers align. With one pair of processes per case, ReduceMax's
ratio moved from 0.98 to 1.67 between runs while each run's 21 rounds agreed with each other. So each
case is raced by several pairs of fresh processes in turn (--pairs), a few rounds each; a figure is the
median of all of an engine's turns of a kind, pooled over the pairs, and the ratio is of those medians.
The spread of the pairs' own ratios is printed beside it. Prints; asserts nothing.

    .venv/bin/python bench/bench_kernels_apart.py [--pairs 6] [--rounds 7] [--only max|reduce|segment]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import verdict

SEGMENTS = 10_000
# Larger than the L3 of the machines we run on (32 MiB): writing it evicts an engine's inputs and code.
EVICT_BYTES = 64 << 20

# name: (what, baseline engine, goal)
CASES = {
    "max-s64": ("Max s64, 2 x [4,1024,1024]", "onnxruntime", 1.2),
    "max-f16": ("Max f16, 2 x [4,1024,1024]", "onnxruntime", 1.2),
    "max-f32-row": ("Max f32, [4,1024,1024] and a broadcast [1024]", "onnxruntime", 1.2),
    "reduce-f32": ("ReduceMax f32 [1024,1024] axes [1]", "onnxruntime", 1.2),
    "segment-4m": (f"SegmentMax f32 [4,000,000 x 1], {SEGMENTS:,} segments", "openvino", 0.5),
}
GROUPS = {"max": ("max-s64", "max-f16", "max-f32-row"), "reduce": ("reduce-f32",), "segment": ("segment-4m",)}


def _inputs(case: str) -> list[np.ndarray]:
    """The case's inputs, the same in every process (one seed)."""
    rng = np.random.default_rng(23)
    if case == "max-s64":
        return [rng.integers(-(2**62), 2**62, size=(4, 1024, 1024), dtype=np.int64) for _ in range(2)]
    if case == "max-f16":
        return [rng.standard_normal((4, 1024, 1024), dtype=np.float32).astype(np.float16) for _ in range(2)]
    if case == "max-f32-row":
        return [rng.standard_normal(shape, dtype=np.float32) for shape in ((4, 1024, 1024), (1024,))]
    if case == "reduce-f32":
        return [rng.standard_normal((1024, 1024), dtype=np.float32)]
    rows = 4_000_000
    data = rng.standard_normal((rows, 1), dtype=np.float32)
    ids = np.sort(rng.integers(0, SEGMENTS, rows)).astype(np.int32)
    return [data, ids, np.array(SEGMENTS, dtype=np.int32)]


def _ours(case: str, arrays: list[np.ndarray]) -> Callable[[], object]:
    from app import evaluate

    names = {np.dtype(np.int64): "s64", np.dtype(np.float16): "f16", np.dtype(np.float32): "f32"}
    names[np.dtype(np.int32)] = "s32"
    tensors = [{"dtype": names[a.dtype], "shape": list(a.shape), "data": a} for a in arrays]
    kind, attrs = {
        "max-s64": ("Max", None),
        "max-f16": ("Max", None),
        "max-f32-row": ("Max", None),
        "reduce-f32": ("ReduceMax", {"axes": [1]}),
        "segment-4m": ("SegmentMax", {"fill_mode": "LOWEST"}),
    }[case]
    descriptor = {"kind": kind, "inputs": tensors, **({"attrs": attrs} if attrs else {})}
    return lambda: evaluate(descriptor)


def _baseline(case: str, arrays: list[np.ndarray]) -> Callable[[], object]:
    from bench.engines import onnx_session, openvino_segment_max

    if case.startswith("max"):
        return onnx_session("Max", arrays, 3)
    if case == "reduce-f32":
        return onnx_session("ReduceMax", arrays, 1, axes=[1], keepdims=0)
    return openvino_segment_max(*arrays)


def _worker(case: str, engine: str, pipe) -> None:
    """Build the engine on the case's inputs, then time one call per request: 'cold' or 'warm'."""
    run = (_ours if engine == "ours" else _baseline)(case, _inputs(case))
    scratch = np.zeros(EVICT_BYTES // 8)
    run()  # first call: code loaded, arenas made, outside any figure
    pipe.send("ready")
    while (turn := pipe.recv()) != "stop":
        if turn == "cold":
            scratch += 1.0  # read and written: the inputs, the output's old lines and the code are evicted
        else:
            run()
        start = time.perf_counter()
        run()
        pipe.send(time.perf_counter() - start)


Turns = dict[tuple[str, str], list[float]]  # (turn, engine) -> seconds


def race_apart(case: str, baseline: str, rounds: int) -> Turns:
    """One pair of fresh processes, ours and the baseline's, timed in `rounds` rounds of interleaved
    turns: every turn's time, by (turn, engine)."""
    context = multiprocessing.get_context("spawn")
    pipes, workers = {}, []
    for engine in ("ours", baseline):
        parent, child = context.Pipe()
        worker = context.Process(target=_worker, args=(case, engine, child), daemon=True)
        worker.start()
        pipes[engine] = parent
        workers.append(worker)
    for pipe in pipes.values():
        assert pipe.recv() == "ready"
    times: dict[tuple[str, str], list[float]] = {(t, e): [] for t in ("cold", "warm") for e in pipes}
    for round_ in range(rounds):
        # who goes first alternates, so neither always follows the other's eviction or allocation
        order = list(pipes) if round_ % 2 == 0 else list(pipes)[::-1]
        for turn in ("cold", "warm"):
            for engine in order:
                pipes[engine].send(turn)
                times[turn, engine].append(pipes[engine].recv())
    for pipe in pipes.values():
        pipe.send("stop")
    for worker in workers:
        worker.join()
    return times


def race_pairs(
    case: str, baseline: str, pairs: int, rounds: int
) -> dict[str, tuple[float, float, list[float]]]:
    """{'cold' | 'warm': (our median, the baseline's median, each pair's own ratio)} in seconds, the
    medians over every pair's turns."""
    pooled: Turns = {}
    ratios: dict[str, list[float]] = {"cold": [], "warm": []}
    for _ in range(pairs):
        times = race_apart(case, baseline, rounds)
        for key, values in times.items():
            pooled.setdefault(key, []).extend(values)
        for turn in ratios:
            ratios[turn].append(float(np.median(times[turn, "ours"]) / np.median(times[turn, baseline])))
    return {
        turn: (float(np.median(pooled[turn, "ours"])), float(np.median(pooled[turn, baseline])), ratios[turn])
        for turn in ("cold", "warm")
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=6, help="pairs of fresh processes per case")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of turns per pair")
    parser.add_argument("--only", choices=sorted(GROUPS))
    args = parser.parse_args()
    print(
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.pairs} pairs of processes per "
        f"case, {args.rounds} rounds each; medians over all {args.pairs * args.rounds} turns of each kind"
    )
    for group, cases in GROUPS.items():
        if args.only not in (None, group):
            continue
        for case in cases:
            what, baseline, goal = CASES[case]
            figures = race_pairs(case, baseline, args.pairs, args.rounds)
            for turn, (ours, base, pair_ratios) in figures.items():
                ratio = ours / base
                print(
                    f"  {what:48} {turn}: ours {ours * 1e3:7.2f} ms  {baseline} {base * 1e3:7.2f} ms"
                    f"  ratio {ratio:5.2f}  (goal <= {goal}: {verdict(ratio, goal)}; pairs "
                    f"{min(pair_ratios):.2f}-{max(pair_ratios):.2f})"
                )
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    main()
