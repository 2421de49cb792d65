"""oneDNN Graph's elementwise unary ops: dst = f(src), each element on its own.

One shape rule (dst has src's shape), one dtype table for most members (f32, bf16, f16, dst as src),
one kernel shape (f computed in f32 from the decoded src, rounded once to dst's dtype). Each member
is a row: its page, its attributes, its function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from app.core.family import Attr, In, Out, attr, build, constraints, rows, same_as_input
from app.core.mismatch import Tolerance

FAMILY = "eltwise"
# Most pages' table: f32, bf16, f16, dst as src; oneDNN's schema ("T" on src and dst) says the same.
FLOAT_SAME = rows("src dst", "f32 f32", "bf16 bf16", "f16 f16")
FLOAT_SCHEMA = constraints("src:T dst:T", T="f32 bf16 f16")

EXACT = None  # selects, compares or rounds: the answer is defined bit for bit


def _f32(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32, copy=False)


def unary(
    kind: str,
    formula: str,
    fn: Callable[[Any, np.ndarray], np.ndarray],
    *,
    attrs: Sequence[Attr] = (),
    tolerance: Tolerance | None = EXACT,
    **more: Any,
):
    """A forward elementwise op: `fn(descriptor, src in f32)` is dst before its rounding to dst's dtype."""

    def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
        with np.errstate(all="ignore"):  # inf and NaN are answers here, not faults
            return [fn(d, _f32(arrays[0]))]

    return build(
        kind,
        family=FAMILY,
        page=kind,
        summary=formula,
        inputs=(In("src", "The input tensor."),),
        outputs=(Out("dst", "src's shape; dtype per the table."),),
        table=more.pop("table", FLOAT_SAME),
        accepts=more.pop("accepts", FLOAT_SCHEMA),
        shape=same_as_input(0),
        kernel=kernel,
        attrs=attrs,
        tolerance=tolerance,
        **more,
    )


ABS = unary("Abs", "dst = |src|, elementwise.", lambda d, x: np.abs(x))
RELU = unary("ReLU", "dst = max(src, 0), elementwise.", lambda d, x: np.where(x > 0, x, np.float32(0)))
CLAMP = unary(
    "Clamp",
    "dst = min(max(src, min), max), elementwise.",
    lambda d, x: np.minimum(np.maximum(x, np.float32(attr(d, "min"))), np.float32(attr(d, "max"))),
    attrs=(
        Attr("min", "f32", "The lower bound of the output.", required=True),
        Attr("max", "f32", "The upper bound of the output.", required=True),
    ),
)

OPS = (ABS, CLAMP, RELU)
