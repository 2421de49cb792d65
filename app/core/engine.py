"""The op-independent steps around an op's own rules: arity, port dtypes, constant payloads,
declared outputs, and the size checks that come before any evaluation allocates."""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core import dims
from app.core.config import Settings
from app.core.diagnostics import Diagnostic, Message, PathError, Report, Rule
from app.core.dtypes import DTYPES, describe
from app.core.payload import (
    LimitExceeded,
    PayloadError,
    buffer_nbytes,
    decode,
    encode,
    is_base64,
    refuse_wide_dims,
)
from app.core.registry import Descriptor, OpSpec, OutputType, port_dtype_rule
from app.core.shapes import Assumption, Dim, dims_conflict, format_shape, is_static, numel, wire_shape


def assumption_rules(prefix: str, what: str, spec: str) -> tuple[Rule, Rule]:
    """The two rules of an assumption a shape rule may rest on (Context.assume): a warning when the
    sizes are the user's names, a note when an engine made one of them up."""
    return (
        Rule(f"{prefix}.assumption", f"{what}: the answer rests on an assumption about sizes, stated once "
             "per pair (two names taken equal are one name from there on).", spec, "warning"),
        Rule(f"{prefix}.unified", f"{what}, where an engine made one of the sizes up (ONNX's unk__N, a "
             "graph's unknown dim dyn__N): the answer takes them equal, or as it must, and says so once.",
             spec, "info"),
    )  # fmt: skip


# Whether the check runs inside a graph's walk. A descriptor's unknown size (-1) is the user's own, and
# an assumption about it is a warning; in a graph an unknown size is one nobody wrote as a name (the
# walker names a graph input's and an engine's unknowns dyn__N, and what is left is opspec's own: a dim
# that depends on data it does not have), so an assumption about it is a note, as for dyn__N.
IN_GRAPH: ContextVar[bool] = ContextVar("IN_GRAPH", default=False)


class Context:
    """What a shape rule reports through, and where it gets constant inputs' values."""

    # Set on an assumption's first use (most checks make none): name -> the dim the answer reads it as.
    bindings: dict[str, Dim] | None = None
    _pairs: frozenset | set = frozenset()

    def __init__(self, spec: OpSpec, descriptor: Descriptor, settings: Settings):
        self.spec = spec
        self.descriptor = descriptor
        self.settings = settings
        self.report = Report(spec.rule_book, settings.max_diagnostics)
        self._values: dict[int, np.ndarray | None] = {}

    def error(self, rule: str, path: str, message: Message) -> None:
        self.report.error(rule, path, message)

    def warn(self, rule: str, path: str, message: Message) -> None:
        self.report.warn(rule, path, message)

    def assume(self, rule: str, path: str, assumption: Assumption, message: str | None = None) -> None:
        """An assumption the answer rests on (see assumption_rules), said once per pair of sizes; its
        binding holds for the whole answer (engine.check applies it to the outputs) and, in a graph,
        downstream."""
        if assumption.pair:
            if assumption.pair in self._pairs:
                return
            if not self._pairs:
                self._pairs = set()
            self._pairs.add(assumption.pair)  # type: ignore[union-attr]
        if assumption.binding is not None:
            if self.bindings is None:
                self.bindings = {}
            name, dim = assumption.binding
            self.bindings[name] = dims.substitute(dim, self.bindings)
        text = message or assumption.message
        if assumption.engine or (assumption.unknown and IN_GRAPH.get()):
            self.report.note(f"{rule}.unified", path, text)
        else:
            self.report.warn(f"{rule}.assumption", path, text)

    def values(self, index: int) -> np.ndarray | None:
        """Input `index`'s data as an array, or None when it has none or the data is bad (reported once)."""
        if index not in self._values:
            tensor = self.descriptor.inputs[index]
            array = None
            if tensor.data is not None and tensor.strides_fit:  # unfit strides: reported, no layout
                try:
                    array = decode(tensor, f"inputs[{index}]", self.settings)
                except PayloadError as exc:
                    rule = f"{self.spec.kind}.inputs.{exc.fault}"
                    if rule not in self.spec.rule_book:  # only ops whose spec names the fault have the rule
                        rule = f"{self.spec.kind}.inputs.data"
                    self.error(rule, exc.path, exc.message)
            self._values[index] = array
        return self._values[index]


@dataclass
class Verdict:
    kind: str
    valid: bool
    outputs: list[OutputType] | None
    diagnostics: list[Diagnostic]
    # Names the answer took to be other dims (Context.assume), for a graph to read so from here on.
    bindings: dict[str, Dim] | None = None

    def wire_outputs(self) -> list[dict[str, Any]] | None:
        """The inferred outputs as the wire has them: dtype, and shape with an unknown dim as -1."""
        if self.outputs is None:
            return None
        return [{"dtype": o.dtype, "shape": wire_shape(o.shape)} for o in self.outputs]


def _check_inputs(spec: OpSpec, ctx: Context) -> bool:
    inputs = ctx.descriptor.inputs
    low, high = spec.arity
    if not low <= len(inputs) <= high:
        ports = ", ".join(p.name + (" (optional)" if p.optional else "") for p in spec.inputs)
        wanted = f"{low}" if low == high else f"{low} to {high}"
        ctx.error(
            spec.input_count_rule,
            "inputs",
            f"{spec.kind} takes {wanted} inputs ({ports}); {len(inputs)} given",
        )
        return False
    ports = spec.inputs
    for index, tensor in enumerate(inputs):
        if tensor.strides is not None:
            _check_strides(spec, ctx, tensor, "inputs", index)
        port = ports[index] if index < len(ports) else ports[-1]  # spec.port, inline: once per input
        if tensor.dtype not in port.dtypes:
            ctx.error(
                port_dtype_rule(spec.kind, port),
                f"inputs[{index}].dtype",
                f"{port.name} has dtype {tensor.dtype}; {spec.kind} accepts {describe(port.dtypes)} there",
            )
        if tensor.data is not None:  # payload problems are reported even where no rule reads the values
            ctx.values(index)
    return True


def _check_strides(spec: OpSpec, ctx: Context, tensor: Any, where: str, index: int) -> None:
    if not tensor.strides_fit:  # the path is spelled only for a finding: most tensors have none
        ctx.error(
            f"{spec.kind}.strides.rank",
            f"{where}[{index}].strides",
            f"strides has {len(tensor.strides):,} entries but shape {format_shape(tensor.shape)} has rank "
            f"{tensor.rank}; give one stride per dim",
        )


def _check_declared(spec: OpSpec, ctx: Context, inferred: Sequence[OutputType]) -> None:
    declared = ctx.descriptor.outputs
    if declared is None:
        return
    kind = spec.kind
    if len(declared) != len(inferred):
        ctx.error(
            f"{kind}.outputs.count",
            "outputs",
            f"{kind} has {len(inferred)} output(s); {len(declared)} declared",
        )
        return
    for index, (want, got) in enumerate(zip(inferred, declared, strict=True)):
        if got.dtype == want.dtype and got.shape == want.shape:
            continue  # (the usual: declared as inferred, nothing to say)
        port = spec.outputs[min(index, len(spec.outputs) - 1)].name
        path = f"outputs[{index}]"
        if want.dtype is not None and got.dtype != want.dtype:
            ctx.error(
                f"{kind}.outputs.dtype",
                f"{path}.dtype",
                f"{port} is {want.dtype}, but {got.dtype} is declared",
            )
        if want.shape is None or got.shape is None:
            continue
        if len(got.shape) != len(want.shape):
            ctx.error(
                f"{kind}.outputs.rank",
                f"{path}.shape",
                f"{port} has rank {len(want.shape)} {format_shape(want.shape)}, but rank {len(got.shape)} "
                f"{format_shape(got.shape)} is declared",
            )
            continue
        axes = [
            axis for axis, (w, g) in enumerate(zip(want.shape, got.shape, strict=True)) if dims_conflict(w, g)
        ]
        if len(axes) == 1:
            axis = axes[0]
            ctx.error(
                f"{kind}.outputs.dim",
                f"{path}.shape[{axis}]",
                f"{port} has {want.shape[axis]} in dim {axis} (shape {format_shape(want.shape)}), but "
                f"{got.shape[axis]} is declared",
            )
        elif axes:  # one wrong declaration is one finding, however many of its dims it gets wrong
            ctx.error(
                f"{kind}.outputs.dim",
                f"{path}.shape",
                f"{port} has shape {format_shape(want.shape)}, but {format_shape(got.shape)} is declared "
                f"(dims {', '.join(map(str, axes[:-1]))} and {axes[-1]} differ)",
            )


def check(spec: OpSpec, descriptor: Descriptor, settings: Settings) -> tuple[Verdict, Context]:
    """Validate and infer: every finding is reported; outputs are given whenever they can be inferred."""
    ctx = Context(spec, descriptor, settings)
    outputs = None
    for index, declared in enumerate(descriptor.outputs or ()):
        if declared.strides is not None:
            _check_strides(spec, ctx, declared, "outputs", index)
    if _check_inputs(spec, ctx):
        inferred = spec.infer(descriptor, ctx)
        if inferred is not None:
            outputs = list(inferred) if ctx.bindings is None else _bound(inferred, ctx.bindings)
            _check_declared(spec, ctx, outputs)
        elif spec.output_dtypes is not None:
            # No outputs, but the dtypes may be known: a declared dtype is checked all the same.
            _check_declared(spec, ctx, [OutputType(dtype, None) for dtype in spec.output_dtypes(descriptor)])  # type: ignore[arg-type]
    verdict = Verdict(spec.kind, ctx.report.ok, outputs, ctx.report.diagnostics, ctx.bindings)
    return verdict, ctx


def _bound(outputs: Sequence[OutputType], bindings: dict[str, Dim]) -> list[OutputType]:
    """The outputs with the names an assumption bound read as their dims (an answer names one of two
    sizes it took equal)."""
    return [
        out
        if out.shape is None
        else OutputType(out.dtype, tuple([dims.substitute(d, bindings) for d in out.shape]))
        for out in outputs
    ]


def verdict(spec: OpSpec, descriptor: Descriptor, settings: Settings) -> Verdict:
    """check's verdict alone, by the op's quick verdict where it has one that answers."""
    if spec.quick_verdict is not None:
        quick = spec.quick_verdict(descriptor)
        if quick is not None:
            return quick
    return check(spec, descriptor, settings)[0]


# --- evaluation --------------------------------------------------------------------------------


class NotEvaluable(PathError):
    """The descriptor is valid but cannot be evaluated as given (no data, unknown sizes)."""


class Invalid(Exception):
    def __init__(self, verdict: Verdict):
        errors = "; ".join(f"{d.path}: {d.message}" for d in verdict.diagnostics if d.severity == "error")
        super().__init__(f"{verdict.kind} descriptor is not valid: {errors}")
        self.verdict = verdict

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.verdict.diagnostics


@dataclass
class Evaluation:
    kind: str
    outputs: list[dict[str, Any]]
    diagnostics: list[Diagnostic]


def evaluable(spec: OpSpec, descriptor: Descriptor, settings: Settings) -> tuple[Verdict, Context]:
    """The check an evaluation starts with: the verdict and its context (the inputs decoded once, during
    the check). Raises Invalid, or NotEvaluable when an input has no data."""
    verdict, ctx = check(spec, descriptor, settings)
    if not verdict.valid:
        raise Invalid(verdict)
    for index, tensor in enumerate(descriptor.inputs):
        if tensor.data is None:
            raise NotEvaluable(
                f"inputs[{index}].data", f"evaluation needs data on every input; inputs[{index}] has none"
            )
    return verdict, ctx


def run_elements(verdict: Verdict, descriptor: Descriptor) -> int | None:
    """The elements an evaluation reads and writes (the inputs' shapes, strided views at full size, and
    the inferred outputs), known from the check before any kernel runs; None when an output's size is
    not known. Broadcasting can make a large output from a small body."""
    if verdict.outputs is None:
        return None
    shapes = [tensor.shape for tensor in descriptor.inputs] + [out.shape for out in verdict.outputs]
    if not all(map(is_static, shapes)):
        return None
    return sum(map(numel, shapes))  # type: ignore[arg-type]


def compute(spec: OpSpec, verdict: Verdict, ctx: Context) -> list[np.ndarray]:
    """The kernel on the inputs `evaluable` decoded: one array per output, unencoded. Raises NotEvaluable
    or LimitExceeded before anything output-sized is allocated."""
    descriptor, inputs = ctx.descriptor, ctx.descriptor.inputs
    outputs = verdict.outputs or []
    arrays = [ctx.values(index) for index in range(len(inputs))]
    refuse_oversize(spec, descriptor, arrays, outputs, ctx.settings)  # type: ignore[arg-type]
    results = list(spec.evaluate(descriptor, arrays))  # type: ignore[arg-type]
    for out, array in zip(outputs, results, strict=True):
        assert array.shape == tuple(out.shape), f"{spec.kind} kernel gave {array.shape}, inferred {out.shape}"  # type: ignore[arg-type]
    return results


def run(spec: OpSpec, descriptor: Descriptor, settings: Settings) -> tuple[Verdict, list[np.ndarray]]:
    """Check, then run the kernel on the decoded inputs: the verdict and one array per output, unencoded.

    Raises Invalid, NotEvaluable or LimitExceeded (before anything output-sized is allocated)."""
    verdict, ctx = evaluable(spec, descriptor, settings)
    return verdict, compute(spec, verdict, ctx)


def refuse_oversize(
    spec: OpSpec,
    descriptor: Descriptor,
    arrays: Sequence[np.ndarray],
    outputs: Sequence[OutputType],
    settings: Settings,
    *,
    copies: int = 1,
    held: str = "inputs and outputs",
) -> None:
    """Every size and time limit of a run, before anything output-sized is allocated: each output's size
    known and within max_elements, the decoded inputs plus `copies` of every output within
    max_total_bytes (verify holds several answers per output), and the kernel's sequential steps."""
    total = sum(buffer_nbytes(array) for array in arrays)  # strided: the whole buffer
    for index, out in enumerate(outputs):
        if not is_static(out.shape):
            raise NotEvaluable(
                f"outputs[{index}]",
                f"output {index} has shape {format_shape(out.shape)}; its size is not known",
            )
        if out.dtype is None:
            raise NotEvaluable(
                f"outputs[{index}].dtype",
                f"output {index}'s dtype is not determined by the inputs; declare it in `outputs` to evaluate",
            )
        count = numel(out.shape)  # type: ignore[arg-type]
        if count > settings.max_elements:
            raise LimitExceeded(
                f"outputs[{index}]",
                "max_elements",
                f"output {index} would hold {count:,} elements {format_shape(out.shape)}, above the limit of "
                f"{settings.max_elements:,} (max_elements)",
            )
        if not count:  # with no 0 dim, the dims multiply to count, checked just above
            refuse_wide_dims(out.shape, f"output {index}", f"outputs[{index}]", settings)  # type: ignore[arg-type]
        total += copies * count * DTYPES[out.dtype].itemsize
    if total > settings.max_total_bytes:
        raise LimitExceeded(
            "inputs",
            "max_total_bytes",
            f"{held} would take {total:,} bytes, above the limit of {settings.max_total_bytes:,} "
            "(max_total_bytes)",
        )
    if spec.kernel_steps is not None:
        steps = spec.kernel_steps(descriptor, arrays)
        if steps.count > settings.max_kernel_steps:
            raise LimitExceeded(
                steps.path,
                "max_kernel_steps",
                f"{spec.kind} would take up to {steps.count:,} steps one after another ({steps.why}), above the "
                f"limit of {settings.max_kernel_steps:,} (max_kernel_steps)",
            )


def evaluate(spec: OpSpec, descriptor: Descriptor, settings: Settings) -> Evaluation:
    """`run`, with the outputs encoded for the wire in the request's own encoding."""
    return evaluation(spec, *evaluable(spec, descriptor, settings))


def evaluation(spec: OpSpec, verdict: Verdict, ctx: Context) -> Evaluation:
    """`compute` after `evaluable`, with the outputs encoded for the wire in the request's own encoding."""
    results = compute(spec, verdict, ctx)
    as_base64 = any(is_base64(t.data) for t in ctx.descriptor.inputs)
    wire = [
        {
            "dtype": out.dtype,
            "shape": list(array.shape),
            "data": encode(array, out.dtype, as_base64=as_base64),
        }
        for out, array in zip(verdict.outputs or [], results, strict=True)
    ]
    return Evaluation(spec.kind, wire, verdict.diagnostics)
