"""Verify of 4M-element answers against the plain comparison an engineer writes today, in the same run:
np.array_equal(..., equal_nan=True) says only yes or no (and calls -0 equal to +0); verify compares the
bits, counts classes and locates the first 20. Also the peak memory verify allocates, against the size
of one answer: comparing in chunks keeps it a small multiple however large the tensors.

Prints figures; asserts nothing.   .venv/bin/python bench/bench_verify.py
"""

from __future__ import annotations

import base64
import sys
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.core import verify as core_verify
from app.core.config import Settings
from app.core.mismatch import mismatch_chunks
from app.ops import BY_NAME, DESCRIPTOR
from bench.timing import race

N = 1 << 22


def _wire(array: np.ndarray) -> dict:
    return {"encoding": "base64", "bytes": base64.b64encode(array.astype("<f4").tobytes()).decode()}


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    spec = np.maximum(x, y)
    settings = Settings()
    for label, wrong_share in (("conformant", 0.0), ("1% of elements wrong", 0.01)):
        answer = spec.copy()
        wrong = rng.random(N) < wrong_share
        answer[wrong] = -answer[wrong]
        descriptor = DESCRIPTOR.validate_python(
            {
                "kind": "Max",
                "inputs": [
                    {"dtype": "f32", "shape": [N], "data": _wire(x)},
                    {"dtype": "f32", "shape": [N], "data": _wire(y)},
                ],
                "outputs": [{"dtype": "f32", "shape": [N], "data": _wire(answer)}],
            }
        )
        compare_only, plain = race(
            7,
            lambda answer=answer: sum(at.size for at, _, _ in mismatch_chunks(spec, answer, True)),
            lambda answer=answer: np.array_equal(spec, answer, equal_nan=True),
        )
        tracemalloc.start()
        result = core_verify.verify(BY_NAME["Max"], descriptor, settings)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        (whole,) = race(
            3,
            lambda descriptor=descriptor, settings=settings: core_verify.verify(
                BY_NAME["Max"], descriptor, settings
            ),
        )
        print(
            f"{label:>22}: {result.outputs[0]['mismatches']:>7,} mismatches; chunked bit compare "
            f"{compare_only * 1e3:6.1f} ms vs np.array_equal {plain * 1e3:6.1f} ms ({compare_only / plain:4.2f}x); "
            f"whole verify {whole * 1e3:6.0f} ms; peak {peak / spec.nbytes:4.1f}x one answer's bytes"
        )


if __name__ == "__main__":
    main()
