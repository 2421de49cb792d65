"""What an op is to the service: its descriptor type, ports, dtype table, rules, shape rule and kernel.

A seed op's module under app/ops/ builds its OpSpec; a family's module builds one per member (through
app/core/family.py's `build`); app/ops/__init__.py lists them all in a plain dict.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, get_args

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from app.core.diagnostics import Rule
from app.core.dtypes import FLOATS, describe
from app.core.mismatch import (
    FLOAT_CLASSES,
    ROUNDING,
    VALUE,
    Classify,
    Explain,
    Implementation,
    MismatchClass,
    Tolerance,
)
from app.core.shapes import Shape
from app.core.tensors import Tensor

if TYPE_CHECKING:
    from app.core.engine import Context

# The keys of a plain raw descriptor and of its tensors, which a quick_evaluate takes (any other key, a
# declared output or strides, goes the full way).
PLAIN_KEYS = ({"kind", "inputs"}, {"kind", "attrs", "inputs"})
PLAIN_TENSOR_KEYS = {"dtype", "shape", "data"}

_BUILDING = threading.RLock()  # one model built at a time (a model's own fields may build another's)

VARIADIC_MAX = 2147483647  # ONNX's limit on a variadic input's arity


class Attrs(BaseModel):
    """Base of every op's attribute model: unknown attribute names are errors, not silently dropped."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class Descriptor(BaseModel):
    """Base of every op's descriptor; each op narrows `kind` to a Literal of its names and `attrs`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    kind: str
    attrs: Attrs
    inputs: list[Tensor] = Field(fail_fast=True, description="Input tensors in the spec's port order.")
    outputs: list[Tensor] | None = Field(
        None, fail_fast=True, description="Optional declared outputs, checked against what inference gives."
    )

    names: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.names = get_args(cls.model_fields["kind"].annotation)


@dataclass(frozen=True)
class Port:
    name: str
    dtypes: frozenset[str]
    description: str
    optional: bool = False
    variadic: bool = False
    dtype_rule: str | None = None  # the op's own rule id for this port's dtype (Max.C1), if any


@dataclass(frozen=True)
class OutputType:
    """An inferred output: canonical dtype (None where the inputs leave it open and no output declares
    it) and shape (None dims unknown; None shape unknown rank)."""

    dtype: str | None
    shape: Shape | None


ShapeRule = Callable[[Any, "Context"], Sequence[OutputType] | None]
# The outputs' dtypes alone (None where not known), for when the shape rule gives no outputs: a declared
# output's dtype is then still checked, as that rule does not depend on the one that stopped inference.
DTypeRule = Callable[[Any], Sequence[str | None]]
Kernel = Callable[[Any, Sequence[np.ndarray]], Sequence[np.ndarray]]


@dataclass(frozen=True)
class KernelSteps:
    """A bound on the steps a kernel takes one after another (work NumPy cannot spread over an array),
    from the descriptor and the decoded inputs, so the engine can refuse a request that would run for
    many seconds before it starts."""

    count: int
    path: str  # the part of the request that drives the count, e.g. attrs.top_k
    why: str  # what the steps are, for the refusal's message


StepCount = Callable[[Any, Sequence[np.ndarray]], KernelSteps]


@dataclass(frozen=True)
class OpSpec:
    kind: str
    # The descriptor's pydantic model, or a function that builds it on first use (`descriptor`): building
    # a model takes pydantic ~1 ms, so a family's ~170 built at import were most of what a fresh
    # `opspec check` paid before reading a file, though a file uses a few of them.
    model: type[Descriptor] | Callable[[], type[Descriptor]]
    source: str  # the specification, by name
    summary: str
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    rules: tuple[Rule, ...]
    infer: ShapeRule  # validates and infers; reports through the context
    evaluate: Kernel  # runs only on a descriptor that validated
    dtype_table: tuple[dict[str, str], ...] = ()
    dtype_source: str = ""  # where the spec lists its types, cited by the per-port dtype rules
    notes: tuple[str, ...] = ()  # how real implementations differ
    examples: tuple[dict[str, Any], ...] = ()
    count_rule: str | None = None  # the op's own id for the input count (Max.C1), if it has one
    kernel_steps: StepCount | None = None  # for a kernel with sequential work: its worst case
    output_dtypes: DTypeRule | None = None
    # Verification: the op's own mismatch classes (besides the float ones and `value`), how it tells them
    # apart and explains one, and the real implementations' documented departures as alternative kernels.
    mismatch_classes: tuple[MismatchClass, ...] = ()
    classify: Classify | None = None
    explain: Explain | None = None
    implementations: tuple[Implementation, ...] = ()
    family: str = ""  # the op family it belongs to (eltwise, binary, reduction, ...): how the page groups ops
    tolerance: Tolerance | None = None  # None: the kernel's answer is exact, compared bit for bit
    extra: Any = None  # what the builder of a family of ops keeps about a member (app/core/family.py)
    # The verdict of a descriptor the full check would find nothing to report in, worked out directly, or
    # None for anything else (the full check answers): for the ops compilers send in bulk. engine.verdict
    # tries it first; each op's differential test holds it to the full check.
    quick_verdict: Callable[[Any], Any] | None = None
    # The outputs, as (dtype, array) pairs, of a raw descriptor (a dict whose data are NumPy arrays) that
    # the full way (parse, check, limits, kernel) would evaluate without a finding, computed directly, or
    # None for anything else: for the evaluations tools make in bulk. app.library's evaluate tries it
    # first; each op's differential test holds it to the full way.
    quick_evaluate: Callable[[Any, Any], list[tuple[str, np.ndarray]] | None] | None = None
    # Every name the descriptor's `kind` takes (the kind and its aliases): given with a model built later,
    # read from the model when it is given built.
    names: tuple[str, ...] = ()
    all_rules: tuple[Rule, ...] = field(init=False)
    rule_book: dict[str, Rule] = field(init=False)  # all_rules by id, built once

    def __post_init__(self) -> None:
        if isinstance(self.model, type):
            assert self.names in ((), self.model.names), f"{self.kind}: names differ from the model's"
            object.__setattr__(self, "names", self.model.names)
        assert self.kind in self.names, f"{self.kind}: its names must include the kind"
        # An op may restate a common rule under the same id (its own source, a status): its version wins.
        own = {rule.id for rule in self.rules}
        common = tuple(
            rule
            for rule in common_rules(
                self.kind, self.source, self.dtype_source or self.source, self.inputs, self.input_count_rule
            )
            if rule.id not in own
        )
        object.__setattr__(self, "all_rules", self.rules + common)
        object.__setattr__(self, "rule_book", {rule.id: rule for rule in self.all_rules})
        assert len(self.rule_book) == len(self.all_rules), f"{self.kind}: duplicate rule ids"

    @cached_property  # read for every compared output and every mismatch rule: worked out once per op
    def all_mismatch_classes(self) -> tuple[MismatchClass, ...]:
        floats = FLOAT_CLASSES if any(port.dtypes & FLOATS for port in self.outputs) else ()
        rounding = (ROUNDING,) if self.tolerance is not None and floats else ()
        return (*floats, *rounding, *self.mismatch_classes, VALUE)

    @property
    def descriptor(self) -> type[Descriptor]:
        """The descriptor's model, built on first use if it was not at import: once, under a lock, as the
        service's threads may ask at once and every descriptor of the op must be of the one class."""
        built = self.__dict__.get("_descriptor")
        if built is None:
            with _BUILDING:
                built = self.__dict__.get("_descriptor")
                if built is None:
                    built = self.model if isinstance(self.model, type) else self.model()
                    assert built.names == self.names, f"{self.kind}: the model's names differ from the spec's"
                    self.__dict__["_descriptor"] = built
        return built

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(name for name in self.names if name != self.kind)

    @cached_property  # read on every check: worked out once per op
    def input_count_rule(self) -> str:
        return self.count_rule or f"{self.kind}.inputs.count"

    @cached_property
    def arity(self) -> tuple[int, int]:
        low = sum(1 for p in self.inputs if not p.optional)
        high = VARIADIC_MAX if any(p.variadic for p in self.inputs) else len(self.inputs)
        return low, high

    def port(self, index: int) -> Port:
        return self.inputs[min(index, len(self.inputs) - 1)]


def port_dtype_rule(kind: str, port: Port) -> str:
    return port.dtype_rule or f"{kind}.{port.name}.dtype"


def common_rules(
    kind: str, source: str, dtype_source: str, inputs: tuple[Port, ...], count_rule: str
) -> tuple[Rule, ...]:
    """Rules every op has, phrased once: arity, payloads, per-port dtypes, declared outputs."""
    rules = [
        Rule(count_rule, "The number of inputs is within what the op's ports allow.", source),
        Rule(f"{kind}.attrs.unknown", "Only the op's own attributes are given (answered as a 422).", source),
        Rule(
            f"{kind}.inputs.data",
            "An input's data, when given, matches its dtype and shape.",
            "opspec wire format",
        ),
        Rule(
            f"{kind}.strides.rank",
            "A tensor's strides, when given, have one entry per dim of its shape.",
            "opspec wire format",
        ),
        Rule(f"{kind}.outputs.count", "A declared output list has one entry per output port.", source),
        Rule(f"{kind}.outputs.dtype", "A declared output's dtype is the inferred one.", source),
        Rule(
            f"{kind}.outputs.rank",
            "A declared output's rank is the inferred one, even with unknown dims.",
            source,
        ),
        Rule(f"{kind}.outputs.dim", "A declared output's known dims equal the inferred known dims.", source),
    ]
    for port in inputs:
        if port.dtype_rule is None:
            rules.append(
                Rule(
                    port_dtype_rule(kind, port),
                    f"{port.name} is one of: {describe(port.dtypes)}.",
                    dtype_source,
                )
            )
    return tuple(rules)
