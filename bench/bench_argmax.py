"""Argmax evaluation on 1M sa8 / fx16 elements, top_k 5, against np.argpartition + a sort of the k kept
values on the same array, in the same run.

Prints figures; asserts nothing.   .venv/bin/python bench/bench_argmax.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.ops.argmax import ArgmaxOp, evaluate
from bench.timing import race

TOP_K = 5


def baseline(rows: np.ndarray) -> np.ndarray:
    """The top k per row by argpartition, largest first (ties in no particular order)."""
    length = rows.shape[1]
    top = np.argpartition(rows, length - TOP_K, axis=1)[:, length - TOP_K :]
    order = np.argsort(np.take_along_axis(rows, top, axis=1), axis=1)[:, ::-1]
    return np.take_along_axis(top, order, axis=1)


def main() -> None:
    rng = np.random.default_rng(0)
    for dtype, numpy_type in (("sa8", np.int8), ("fx16", np.int16)):
        info = np.iinfo(numpy_type)
        values = rng.integers(info.min, info.max + 1, size=(1000, 1000), dtype=numpy_type)
        for axis, rows in ((-1, values.reshape(1, -1)), (0, values)):
            descriptor = ArgmaxOp(
                kind="Argmax",
                attrs={"axis": axis, "top_k": TOP_K},
                inputs=[{"dtype": dtype, "shape": [1000, 1000]}],
            )
            ours, base = race(9, lambda d=descriptor, v=values: evaluate(d, [v]), lambda r=rows: baseline(r))
            print(
                f"Argmax {dtype} [1000,1000] axis {axis:2d} top_k {TOP_K}: {ours * 1e3:7.2f} ms   "
                f"argpartition + sort: {base * 1e3:7.2f} ms   ratio {ours / base:.2f}  (goal <= 2)"
            )


if __name__ == "__main__":
    main()
