"""Kernels through `app.evaluate` with NumPy arrays, against onnxruntime (one intra-op thread) and
OpenVINO's CPU plugin (one thread) on the same arrays, in the same run: interleaved turns, medians.
4M-element outputs (or inputs, for the reductions). Prints each figure beside its goal; asserts nothing.

    .venv/bin/python bench/bench_kernels.py [--rounds 9] [--only max|reduce|segment]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import app
from app.core.config import Settings
from bench.engines import onnx_session, openvino_segment_max
from bench.timing import race_median, verdict

NAMES = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16", np.dtype(np.int64): "s64"}
NAMES[np.dtype(ml_dtypes.bfloat16)] = "bf16"
# Eight s64 inputs and the output take 288 MiB, above the default max_total_bytes of 256 MiB.
ROOMY = Settings(max_total_bytes=1 << 30)
SAME = [(2048, 2048)] * 8
BROADCAST = [(2048, 2048), (2048, 1), (1, 2048), (2048,), (2048, 2048), (2048, 1), (2048,), (2048, 2048)]


def _random(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "i":
        return rng.integers(-(2**62), 2**62, size=shape, dtype=np.int64)
    return rng.standard_normal(shape).astype(dtype)


def _descriptor(kind: str, arrays: list[np.ndarray], **attrs) -> dict:
    tensors = [{"dtype": NAMES.get(a.dtype, "s32"), "shape": list(a.shape), "data": a} for a in arrays]
    return (
        {"kind": kind, "attrs": attrs, "inputs": tensors}
        if attrs or kind != "Max"
        else {"kind": kind, "inputs": tensors}
    )


def bench_max(rng: np.random.Generator, rounds: int) -> None:
    print("Max, 4M-element outputs, vs onnxruntime (1 thread); goal <= 1.2")
    for dtype in (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int64)):
        for count in (2, 8):
            for layout, shapes in (("same shape", SAME), ("broadcast ", BROADCAST)):
                shapes = shapes[:count] if count == 8 else [shapes[0], shapes[3]]
                arrays = [_random(rng, s, dtype) for s in shapes]
                descriptor = _descriptor("Max", arrays)
                ort = onnx_session("Max", arrays, 2)
                ours, base = race_median(rounds, lambda d=descriptor: app.evaluate(d, ROOMY), ort)
                ratio = ours / base
                print(
                    f"  Max {NAMES[dtype]:4} x{count} {layout}: ours {ours * 1e3:7.2f} ms  onnxruntime {base * 1e3:7.2f} ms"
                    f"  ratio {ratio:5.2f}  (goal <= 1.2: {verdict(ratio, 1.2)})"
                )


REDUCE_CASES = [
    ((1024, 1024), [0]),
    ((1024, 1024), [1]),
    ((1024, 1024), [0, 1]),
    ((4, 1024, 1024), [0]),
    ((4, 1024, 1024), [1]),
    ((4, 1024, 1024), [2]),
    ((4, 1024, 1024), [0, 1]),
    ((4, 1024, 1024), [0, 2]),
    ((4, 1024, 1024), [1, 2]),
    ((4, 1024, 1024), [0, 1, 2]),
]


def bench_reduce(rng: np.random.Generator, rounds: int) -> None:
    print("ReduceMax f32 vs onnxruntime (1 thread), goal <= 1.2; f16 and bf16 vs our f32 time, goal <= 1.5")
    for shape, axes in REDUCE_CASES:
        f32 = rng.standard_normal(shape).astype(np.float32)
        f16, bf16 = f32.astype(np.float16), f32.astype(ml_dtypes.bfloat16)
        runs = [
            lambda a=a, ax=axes: app.evaluate(_descriptor("ReduceMax", [a], axes=ax))
            for a in (f32, f16, bf16)
        ]
        # onnxruntime reads a copy: with four runs taking turns, it runs just before our f32 and would
        # otherwise leave that input warm in cache for it (and not the f16 / bf16 inputs), flattering
        # our f32 time against both onnxruntime's and our own 16-bit times.
        ort = onnx_session("ReduceMax", [f32.copy()], len(shape) - len(axes), axes=axes, keepdims=0)
        ours, half, brain, base = race_median(rounds * 2, *runs, ort)  # short runs: more turns
        name = f"{list(shape)} axes {axes}"
        print(
            f"  ReduceMax {name:26}: f32 {ours * 1e3:6.2f} ms  onnxruntime {base * 1e3:6.2f} ms  ratio {ours / base:5.2f}"
            f" (goal <= 1.2: {verdict(ours / base, 1.2)}) | f16/f32 {half / ours:4.2f} ({verdict(half / ours, 1.5)})"
            f"  bf16/f32 {brain / ours:4.2f} ({verdict(brain / ours, 1.5)})"
        )


def bench_segment(rng: np.random.Generator, rounds: int) -> None:
    print("SegmentMax f32, 10,000 segments from sorted random ids, vs OpenVINO CPU (1 thread)")
    for rows, inner in ((40_000, 100), (4_000_000, 1)):
        data = rng.standard_normal((rows, inner)).astype(np.float32)
        ids = np.sort(rng.integers(0, 10_000, rows)).astype(np.int32)
        count = np.array(10_000, dtype=np.int32)
        descriptor = {
            "kind": "SegmentMax",
            "attrs": {"fill_mode": "LOWEST"},
            "inputs": [
                {"dtype": "f32", "shape": [rows, inner], "data": data},
                {"dtype": "s32", "shape": [rows], "data": ids},
                {"dtype": "s32", "shape": [], "data": count},
            ],
        }
        ov = openvino_segment_max(data, ids, count)
        ours, base = race_median(rounds, lambda d=descriptor: app.evaluate(d), ov)
        # [4M x 1]: issue 23's goal (bench_kernels_apart.py times it with OpenVINO in its own process)
        limit = 1.0 if inner > 1 else 0.5
        goal = f"<= {limit}: {verdict(ours / base, limit)}"
        print(
            f"  SegmentMax [{rows:,} x {inner}]: ours {ours * 1e3:7.2f} ms  OpenVINO {base * 1e3:7.2f} ms"
            f"  ratio {ours / base:5.2f}  (goal {goal})"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", choices=["max", "reduce", "segment"])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for name, run in (("max", bench_max), ("reduce", bench_reduce), ("segment", bench_segment)):
        if args.only in (None, name):
            run(rng, args.rounds)


if __name__ == "__main__":
    main()
