"""Max evaluation of 8 broadcast f32 inputs (1M outputs) against a chain of np.maximum on the same
arrays, in the same run. The chain already lets NaN through; what ours adds is +0 over -0. Then Max of
f32 [4,1024,1024] and a broadcast [1024] through `app.evaluate` against onnxruntime (one thread) on the
same arrays, taking turns, medians (issue 30's goal: at most 1.2x).

Prints figures; asserts nothing.   .venv/bin/python bench/bench_max.py
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import app
from app.ops.max import MaxOp, evaluate
from bench.timing import race, race_median, verdict

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
    against_onnxruntime(rng)


def against_onnxruntime(rng: np.random.Generator, rounds: int = 21) -> None:
    from bench.engines import onnx_session

    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in ((4, 1024, 1024), (1024,))]
    descriptor = {
        "kind": "Max",
        "inputs": [{"dtype": "f32", "shape": list(a.shape), "data": a} for a in arrays],
    }
    ort = onnx_session("Max", arrays, 3)
    ours, theirs = race_median(rounds, lambda: app.evaluate(descriptor), ort)
    ratio = ours / theirs
    print(
        f"Max f32 [4,1024,1024] and [1024]: {ours * 1e3:7.2f} ms   onnxruntime (1 thread): {theirs * 1e3:7.2f} ms   "
        f"ratio {ratio:.2f}  (goal <= 1.2: {verdict(ratio, 1.2)}; medians of {rounds}, taking turns)"
    )


if __name__ == "__main__":
    main()
