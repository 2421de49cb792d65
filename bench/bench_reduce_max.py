"""ReduceMax evaluation on 4M f32 elements against np.max on the same array, in the same run.

Prints figures; asserts nothing.   .venv/bin/python bench/bench_reduce_max.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.ops.reduce_max import ReduceMaxOp, evaluate
from bench.timing import race


def main() -> None:
    rng = np.random.default_rng(0)
    f32 = rng.standard_normal((2048, 2048)).astype(np.float32)  # 4M elements
    cases = [
        ("f32 [2048,2048] axes [0,1]", f32, [0, 1]),
        ("f32 [2048,2048] axes [1]  ", f32, [1]),
        ("f32 [2048,2048] axes [0]  ", f32, [0]),
        ("bf16 [2048,2048] axes [1] ", f32.astype(ml_dtypes.bfloat16), [1]),
    ]
    for name, array, axes in cases:
        descriptor = ReduceMaxOp(
            kind="ReduceMax",
            attrs={"axes": axes},
            inputs=[{"dtype": "f32" if array.dtype == np.float32 else "bf16", "shape": list(array.shape)}],
        )
        if array.dtype == np.float32:
            baseline, label, goal = array, "np.max", "(goal <= 1.2)"
        else:  # NumPy has no bf16 loop of its own: the baseline is np.max on the same values as f32
            baseline, label = array.astype(np.float32), "np.max on an f32 copy"
            goal = "(informative: ours reduces the bf16 bits as int16, not widened)"
        ours, base = race(
            25,
            lambda d=descriptor, a=array: evaluate(d, [a]),
            lambda a=baseline, ax=tuple(axes): np.max(a, axis=ax),
        )
        print(
            f"(c) ReduceMax {name}: {ours * 1e3:7.2f} ms   {label}: {base * 1e3:7.2f} ms   ratio {ours / base:.2f}  {goal}"
        )


if __name__ == "__main__":
    main()
