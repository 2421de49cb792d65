"""The one explicit list of ops: the seed ops (ReduceMax, SegmentMax, Max, Argmax), a module each, and the
oneDNN Graph op set, a module per family whose members are `build(...)` calls (app/core/family.py).

A new op of a family: a `build(...)` call in its family's module, added to the module's OPS, and cases in
the family's file under specs/. A new family, or an op of its own: a module here, a line below, and a
case file in specs/ (tests/test_specs.py holds every op to having cases)."""

from __future__ import annotations

import functools
import operator
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from app.core.registry import Descriptor, OpSpec
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
BY_NAME: dict[str, OpSpec] = {name: spec for spec in REGISTRY.values() for name in spec.names}

# A rule's former id (from before every id named its op first: Max's bare SONNX C1, RI, ...) to its id
# now; --ignore and [tool.opspec] still read the former ones, with a warning.
RENAMED: dict[str, str] = {
    rule.former: rule.id for spec in REGISTRY.values() for rule in spec.all_rules if rule.former
}


def __getattr__(name: str) -> Any:
    """OpDescriptor and DESCRIPTOR, made on first use: they hold every op's model, and building those is
    most of a fresh process's start-up, which a check of a few ops need not pay (see `parse`). The
    service builds them as it starts, when its routes are imported."""
    if name == "OpDescriptor":
        # A tagged union on `kind`: pydantic reports only the matching op's errors, and OpenAPI shows every
        # op's attributes under one discriminator.
        union = functools.reduce(operator.or_, [spec.descriptor for spec in REGISTRY.values()])
        globals()[name] = Annotated[union, Field(discriminator="kind")]
    elif name == "DESCRIPTOR":
        globals()[name] = TypeAdapter(__getattr__("OpDescriptor"))
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return globals()[name]


class DescriptorErrors(ValueError):
    """A raw descriptor the union would refuse, with the union's own errors (pydantic's list)."""

    def __init__(self, errors: list[dict[str, Any]]):
        super().__init__(f"{len(errors)} error(s) in the descriptor")
        self.found = errors

    def errors(self) -> list[dict[str, Any]]:
        return self.found


def parse(raw: Any) -> Descriptor:
    """`raw` (JSON-shaped data) as DESCRIPTOR.validate_python reads it, by the model of its kind alone when
    the kind is one of ours: the same descriptor, or DescriptorErrors with the union's errors (its loc
    starts with the kind given, as the union's tag). An unknown or missing kind goes to the union, which
    names it. tests/ops/test_parse.py holds the two ways to the same answers."""
    kind = raw.get("kind") if type(raw) is dict else None
    spec = BY_NAME.get(kind) if type(kind) is str else None
    try:
        if spec is None:
            return __getattr__("DESCRIPTOR").validate_python(raw)
        return spec.descriptor.model_validate(raw)
    except ValidationError as exc:
        errors = exc.errors()
        if spec is not None:
            errors = [{**error, "loc": (kind, *error["loc"])} for error in errors]
        raise DescriptorErrors(errors) from None


def lookup(name: str) -> OpSpec | None:
    return BY_NAME.get(name)
