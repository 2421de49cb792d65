"""SegmentMax evaluation against a bare np.maximum.reduceat on the same arrays, in the same run.

10,000 segments from sorted random ids over a [4,000,000 x 1] and a [40,000 x 100] f32 tensor. Two
baselines: np.maximum.reduceat given its segment starts for free (the goal's reference), and the same
with the starts found from the ids the plain way (np.diff, np.flatnonzero). Ours finds the starts by
binary search, fills empty segments and keeps -0 < +0. Prints figures; asserts nothing.
    .venv/bin/python bench/bench_segment_max.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.ops.segment_max import SegmentMaxOp, evaluate, run_starts
from bench.timing import race

SEGMENTS = 10_000


def main() -> None:
    rng = np.random.default_rng(0)
    for rows, inner in ((4_000_000, 1), (40_000, 100)):
        data = rng.standard_normal((rows, inner)).astype(np.float32)
        ids = np.sort(rng.integers(0, SEGMENTS, rows)).astype(np.int32)
        count = np.array(SEGMENTS, dtype=np.int32)
        starts = run_starts(ids)
        descriptor = SegmentMaxOp(
            kind="SegmentMax",
            attrs={"fill_mode": "LOWEST"},
            inputs=[
                {"dtype": "f32", "shape": [rows, inner]},
                {"dtype": "s32", "shape": [rows]},
                {"dtype": "s32", "shape": []},
            ],
        )
        ours, bare, plain = race(
            15,
            lambda d=descriptor, a=(data, ids, count): evaluate(d, list(a)),
            lambda x=data, s=starts: np.maximum.reduceat(x, s, axis=0),
            lambda x=data, i=ids: np.maximum.reduceat(x, _plain_starts(i), axis=0),
        )
        print(
            f"SegmentMax f32 [{rows:,} x {inner}], {SEGMENTS:,} segments ({SEGMENTS - starts.size} empty): "
            f"{ours * 1e3:6.2f} ms | reduceat, starts given: {bare * 1e3:6.2f} ms, ratio {ours / bare:.2f} "
            f"(goal <= 1.2) | reduceat, starts from ids: {plain * 1e3:6.2f} ms, ratio {ours / plain:.2f}"
        )


def _plain_starts(ids: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.flatnonzero(np.diff(ids)) + 1))


if __name__ == "__main__":
    main()
