"""Max evaluation of 8 broadcast f32 inputs (1M outputs) against a chain of np.maximum on the same
arrays, in the same run. The chain already lets NaN through; what ours adds is +0 over -0.

Prints figures; asserts nothing.   .venv/bin/python bench/bench_max.py
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.ops.max import MaxOp, evaluate
from bench.timing import race

SHAPES = [(1000, 1000), (1000, 1), (1000,), (1000, 1000), (1000, 1), (1000,), (1000, 1000), (1, 1000)]


def _inputs(rng: np.random.Generator, zero_share: float) -> list[np.ndarray]:
    """Random inputs; with zero_share > 0, all values negative but that share of results zero: the
    first input holds -0 there and, at half of those places, the last full input holds +0."""
    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in SHAPES]
    if zero_share:
        arrays = [-np.abs(a) - np.float32(1) for a in arrays]
        zero = rng.random(SHAPES[0]) < zero_share
        arrays[0][zero] = -0.0
        arrays[6][zero & (rng.random(SHAPES[0]) < 0.5)] = 0.0
    return arrays


def _report(name: str, arrays: list[np.ndarray], goal: str) -> None:
    dtype = {np.float32: "f32", np.float16: "f16", ml_dtypes.bfloat16: "bf16"}[arrays[0].dtype.type]
    descriptor = MaxOp(kind="Max", inputs=[{"dtype": dtype, "shape": list(a.shape)} for a in arrays])
    ours, chain = race(15, lambda: evaluate(descriptor, arrays), lambda: functools.reduce(np.maximum, arrays))
    print(
        f"Max {name}: {ours * 1e3:7.2f} ms   np.maximum chain: {chain * 1e3:7.2f} ms   "
        f"ratio {ours / chain:.2f}  {goal}"
    )


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"8 inputs {SHAPES} -> [1000, 1000]")
    _report("f32 random (no zeros)         ", _inputs(rng, 0.0), "(goal <= 1.5)")
    _report("f32 0.5% of results zero      ", _inputs(rng, 0.005), "(fixed where zero)")
    _report("f32 25% of results zero       ", _inputs(rng, 0.25), "(one more pass)")
    # NumPy has no bf16 loop of its own (ml_dtypes' is slow); ours widens to f32 and back.
    narrow = [a.astype(ml_dtypes.bfloat16) for a in _inputs(rng, 0.0)]
    _report("bf16 random (chain in bf16)   ", narrow, "(informative)")


if __name__ == "__main__":
    main()
