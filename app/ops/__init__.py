"""The one explicit list of ops. Adding an op: a module here, a line below, a case file in specs/."""

from __future__ import annotations

import functools
import operator
from typing import Annotated

from pydantic import Field, TypeAdapter

from app.core.registry import OpSpec
from app.ops import (
    argmax,
    binary,
    convolution,
    eltwise,
    interpolate,
    layout,
    matmul,
    normalization,
    pooling,
    quantization,
    reduce_max,
    reduction,
    segment_max,
    softmax,
)
from app.ops import max as max_op  # not `max`: the builtin stays usable here

# One line per op, in the order GET /v1/ops lists them.
REGISTRY: dict[str, OpSpec] = {
    spec.kind: spec
    for spec in (
        reduce_max.OP,
        segment_max.OP,
        max_op.OP,
        argmax.OP,
        *eltwise.OPS,
        *binary.OPS,
        *reduction.OPS,
        *softmax.OPS,
        *quantization.OPS,
        *layout.OPS,
        *matmul.OPS,
        *convolution.OPS,
        *pooling.OPS,
        *normalization.OPS,
        *interpolate.OPS,
    )
}  # fmt: skip

# Every accepted name (canonical or alias) to its spec.
BY_NAME: dict[str, OpSpec] = {name: spec for spec in REGISTRY.values() for name in spec.descriptor.names}

# A tagged union on `kind`: pydantic reports only the matching op's errors, and OpenAPI shows every
# op's attributes under one discriminator.
OpDescriptor = Annotated[
    functools.reduce(operator.or_, [spec.descriptor for spec in REGISTRY.values()]),
    Field(discriminator="kind"),
]
DESCRIPTOR = TypeAdapter(OpDescriptor)


def lookup(name: str) -> OpSpec | None:
    return BY_NAME.get(name)
