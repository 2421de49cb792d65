"""Verify an implementation's answer: check the descriptor, run the spec's kernel, compare element by
element, name each mismatch's cause, and say which modelled implementation gives exactly that answer."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core import engine
from app.core.config import Settings
from app.core.diagnostics import Diagnostic
from app.core.dtypes import DTYPES
from app.core.engine import Invalid, NotEvaluable
from app.core.mismatch import (
    FIRST,
    ROUNDING,
    Case,
    float_classes,
    identical,
    index_of,
    mismatch_chunks,
    within_tolerance,
)
from app.core.payload import PayloadError, decode, encode
from app.core.registry import Descriptor, OpSpec, OutputType

# Held at once: the inputs, the spec's outputs, the given outputs and one modelled answer.
ANSWERS_HELD = 3


@dataclass
class Verification:
    kind: str
    conformant: bool
    outputs: list[dict[str, Any]]
    diagnostics: list[Diagnostic]


def verify(spec: OpSpec, descriptor: Descriptor, settings: Settings) -> Verification:
    """Invalid inputs or attributes raise Invalid (as evaluate does); a given output of the wrong dtype,
    rank or dims is a diagnostic and makes the answer non-conformant, with nothing compared."""
    given = descriptor.outputs
    if not given:
        raise NotEvaluable(
            "outputs", "verify needs the implementation's answer: `outputs` with data, one per output port"
        )
    verdict, ctx = engine.check(spec, descriptor, settings)
    errors = [d for d in verdict.diagnostics if d.severity == "error"]
    if any(not d.path.startswith("outputs") for d in errors):
        raise Invalid(verdict)
    if errors:
        return Verification(spec.kind, False, [], verdict.diagnostics)
    for side, tensors in (("inputs", descriptor.inputs), ("outputs", given)):
        for index, tensor in enumerate(tensors):
            if tensor.data is None:
                raise NotEvaluable(
                    f"{side}[{index}].data",
                    f"verify needs data on every input and output; {side}[{index}] has none",
                )
    inferred = verdict.outputs or []
    if len(given) != len(inferred):  # the declared-output check said so when it could; else no shapes known
        raise NotEvaluable(
            "outputs", f"{spec.kind} has {len(inferred)} inferred output(s); {len(given)} given"
        )
    arrays = [ctx.values(index) for index in range(len(descriptor.inputs))]
    engine.refuse_oversize(
        spec,
        descriptor,
        arrays,  # type: ignore[arg-type]
        inferred,
        settings,
        copies=ANSWERS_HELD,
        held=f"the inputs and {ANSWERS_HELD} answers per output (the spec's, the given one and one modelled "
        "implementation's)",
    )
    answers = [
        _decode_given(tensor, out, index, settings)
        for index, (tensor, out) in enumerate(zip(given, inferred, strict=True))
    ]
    expected = list(spec.evaluate(descriptor, arrays))  # type: ignore[arg-type]
    case = Case(descriptor, arrays, expected, answers)  # type: ignore[arg-type]
    reports = [_compare(spec, case, index, out.dtype) for index, out in enumerate(inferred)]
    if not all(r["conformant"] for r in reports):
        _find_likenesses(spec, case, inferred, reports)
    return Verification(spec.kind, all(r["conformant"] for r in reports), reports, verdict.diagnostics)


def _decode_given(tensor: Any, out: OutputType, index: int, settings: Settings) -> np.ndarray:
    """The given output's data at the inferred shape (a declared symbol such as "N" takes its value)."""
    path = f"outputs[{index}]"
    if tensor.strides is not None and len(tensor.strides) != len(out.shape):  # type: ignore[arg-type]
        raise NotEvaluable(
            f"{path}.strides",
            f"strides has {len(tensor.strides)} entries but output {index} has rank {len(out.shape)}",  # type: ignore[arg-type]
        )
    try:
        return np.ascontiguousarray(decode(tensor.model_copy(update={"shape": out.shape}), path, settings))
    except PayloadError as exc:
        raise NotEvaluable(exc.path, f"the given output cannot be read: {exc.message}") from None


def _wire(value: Any, dtype: str) -> Any:
    return encode(np.asarray(value), dtype, as_base64=False)


def _compare(spec: OpSpec, case: Case, index: int, dtype: str) -> dict[str, Any]:
    expected, given = case.expected[index], case.given[index]
    is_float = DTYPES[dtype].is_float
    counts: Counter[str] = Counter()
    first: list[dict[str, Any]] = []
    for at, want, got in mismatch_chunks(expected, given, is_float):
        classes = _classify(spec, case, index, at, want, got, is_float)
        counts.update(classes.tolist())
        for j in range(min(FIRST - len(first), at.size)):
            entry = {
                "at": index_of(int(at[j]), expected.shape),
                "expected": _wire(want[j], dtype),
                "got": _wire(got[j], dtype),
                "class": classes[j],
            }
            detail = (
                spec.explain(case, index, int(at[j]), want[j], got[j], classes[j]) if spec.explain else None
            )
            if detail:
                entry["detail"] = detail
            first.append(entry)
    order = [c.id for c in spec.all_mismatch_classes]
    return {
        "index": index,
        "conformant": not set(counts) - {ROUNDING.id},  # differences within the op's tolerance conform
        "dtype": dtype,
        "shape": list(expected.shape),
        "elements": int(expected.size),
        "mismatches": sum(counts.values()),
        "classes": {name: counts[name] for name in sorted(counts, key=order.index)},
        "first": first,
        "like": [],
    }


def _classify(
    spec: OpSpec, case: Case, index: int, at: np.ndarray, want: np.ndarray, got: np.ndarray, is_float: bool
) -> np.ndarray:
    """Float classes first (they hold for every op), then `rounding` where the op states a tolerance and
    the given value is within it, then the op's own, then `value` for the rest."""
    classes = float_classes(want, got) if is_float else np.full(at.shape, "", dtype=object)
    if is_float and spec.tolerance is not None:
        classes[(classes == "") & within_tolerance(spec.tolerance, want, got)] = ROUNDING.id
    rest = np.flatnonzero(classes == "")
    if rest.size and spec.classify is not None:
        classes[rest] = spec.classify(case, index, at[rest], want[rest], got[rest])
    classes[classes == ""] = "value"
    return classes


def _find_likenesses(spec: OpSpec, case: Case, inferred: list[OutputType], reports: list[dict]) -> None:
    """A `like` is claimed only where the given output is, bit for bit, the modelled implementation's."""
    for implementation in spec.implementations:
        modelled = implementation.run(case.descriptor, case.inputs, case.expected)
        if modelled is None:
            continue
        for report, out, given, model in zip(reports, inferred, case.given, modelled.outputs, strict=True):
            if not report["conformant"] and identical(model, given, DTYPES[out.dtype].is_float):
                report["like"].append(
                    {
                        "implementation": implementation.name,
                        "message": f"matches {implementation.name}: {modelled.departures}",
                        "evidence": implementation.evidence,
                    }
                )
