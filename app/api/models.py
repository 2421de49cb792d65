"""Request and response bodies of the HTTP API (the descriptor types themselves live with each op)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.core.diagnostics import Diagnostic
from app.core.tensors import TensorType
from app.ops import OpDescriptor


class OpSummary(BaseModel):
    kind: str
    aliases: list[str]
    source: str
    family: str = Field(
        "",
        description="The op family it belongs to (eltwise, binary, reduction, ...), by which the page groups "
        "ops; empty for an op of its own (the four seed ops).",
    )
    summary: str


class PortInfo(BaseModel):
    name: str
    dtypes: list[str]
    description: str
    optional: bool
    variadic: bool


class RuleInfo(BaseModel):
    id: str
    statement: str
    spec: str
    severity: str
    status: str | None = Field(
        None,
        description="The status code the reference implementation returns for this fault, if it has one.",
    )
    url: str = Field(description="The rule's page in the docs (under OPSPEC_DOCS_URL).")


class RuleSummary(BaseModel):
    id: str = Field(
        description="The rule's stable id, its op first: ReduceMax.axes.range, Max.C1, graph.edge."
    )
    op: str | None = Field(
        description="The op kind it belongs to; null for a reader's or the graph walker's."
    )
    severity: str
    statement: str = Field(description="What the rule says, in one line.")
    spec: str = Field(description="Where in the source specification (or SPEC-NOTES) it comes from.")
    url: str = Field(description="The rule's page in the docs (under OPSPEC_DOCS_URL).")


class RuleFinding(BaseModel):
    rule: str
    severity: str
    path: str
    message: str


class RuleExample(BaseModel):
    descriptor: dict[str, Any] = Field(description="A descriptor that breaks the rule.")
    findings: list[RuleFinding] = Field(description="What POST /v1/validate reports for it.")
    fix: str = Field(description="The change that makes it pass, e.g. `set inputs[1].shape[0] to 1`.")
    fixed: dict[str, Any] = Field(
        description="The descriptor with the fix made: it passes, with nothing to report."
    )
    source: str = Field(description="Where the example comes from: a case of specs/, or a valid one changed.")


class RuleDetail(RuleSummary):
    status: str | None = Field(
        None,
        description="The status code the reference implementation returns for this fault, if it has one.",
    )
    former_id: str | None = Field(
        None, description="The id the rule had before every id named its op first (Max's bare C1)."
    )
    example: RuleExample | None = Field(
        description="A descriptor that breaks it and its fix; null where none is known."
    )


class MismatchClassInfo(BaseModel):
    id: str
    description: str


class ImplementationInfo(BaseModel):
    name: str
    evidence: str = Field(description="Where the modelled behaviour is recorded.")


class ToleranceInfo(BaseModel):
    exact: bool = Field(
        description="True: verify compares the outputs bit for bit (NaNs equal whatever payload)."
    )
    ulps: int = Field(
        description="An output within this many values of its dtype from the spec's conforms (class `rounding`)."
    )
    absolute: float = Field(description="... or within this absolute difference (for values near 0).")
    why: str = Field(
        description="Why the value is exact, or what makes it inexact and where the bound comes from."
    )


class OpDetail(OpSummary):
    attributes: dict[str, Any] = Field(description="JSON schema of the op's attrs object.")
    inputs: list[PortInfo]
    outputs: list[PortInfo]
    dtypes: list[dict[str, str]] = Field(description="Supported dtype combinations, one row each.")
    rules: list[RuleInfo]
    examples: list[dict[str, Any]]
    notes: list[str] = Field(description="Where real implementations differ from the spec.")
    mismatch_classes: list[MismatchClassInfo] = Field(
        description="What POST /v1/verify calls a wrong element of this op's output, by cause."
    )
    implementations: list[ImplementationInfo] = Field(
        description="Real implementations' departures from the spec, modelled so verify can say which one an "
        "answer matches."
    )
    tolerance: ToleranceInfo = Field(description="How POST /v1/verify compares this op's outputs.")


class Verdict(BaseModel):
    valid: bool = Field(description="True when no diagnostic is an error.")
    kind: str = Field(description="The canonical kind.")
    outputs: list[TensorType] | None = Field(description="Inferred outputs, whenever they can be inferred.")
    diagnostics: list[Diagnostic]


class BatchRequest(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "ops": [
                        {
                            "kind": "ReduceMax",
                            "attrs": {"axes": [1]},
                            "inputs": [{"dtype": "f32", "shape": [2, 3]}],
                        },
                        {
                            "kind": "ReduceMax",
                            "attrs": {"axes": [4]},
                            "inputs": [{"dtype": "f32", "shape": [2, 3]}],
                        },
                    ]
                }
            ]
        }
    )

    ops: list[OpDescriptor] = Field(
        fail_fast=True, description="Descriptors, each answered by its own verdict, in order."
    )


class BatchResponse(BaseModel):
    results: list[Verdict]


class TensorData(BaseModel):
    dtype: str
    shape: list[int]
    data: Any


class EvaluateResponse(BaseModel):
    kind: str
    outputs: list[TensorData]
    diagnostics: list[Diagnostic]


class Problem(BaseModel):
    """RFC 9457 problem details, with what went wrong and where."""

    type: str = Field(description="The kind of problem: a URI on this service whose page describes it.")
    title: str
    status: int
    detail: str
    instance: str = Field(description="The request's id, as in its X-Request-ID header.")
    errors: list[dict[str, Any]] = Field(
        default_factory=list, description="Each with path and message (and rule or limit where one applies)."
    )
    diagnostics: list[Diagnostic] | None = Field(
        None, description="The full verdict, for an invalid descriptor."
    )


class Mismatch(BaseModel):
    at: list[int] = Field(description="The element's index in the output.")
    expected: Any = Field(description="The spec's value, written as evaluate writes it ('nan', -0.0).")
    got: Any
    # `class` is a Python keyword: the field takes it as its wire name.
    class_: str = Field(alias="class", description="The mismatch's class, listed by GET /v1/ops/{kind}.")
    detail: str | None = Field(
        None, description="What this mismatch is, in one sentence, where the op can say."
    )

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class Likeness(BaseModel):
    implementation: str
    message: str = Field(description="'matches <implementation>: <where it departs from the spec>'.")
    evidence: str


class OutputVerdict(BaseModel):
    index: int
    conformant: bool
    dtype: str
    shape: list[int]
    elements: int
    mismatches: int
    classes: dict[str, int] = Field(description="Mismatches per class, in the op's order of classes.")
    first: list[Mismatch] = Field(description="The first 20 mismatches in row-major order.")
    like: list[Likeness] = Field(
        description="Modelled implementations whose answer the given output equals bit for bit."
    )


class VerifyResponse(BaseModel):
    kind: str
    conformant: bool
    outputs: list[OutputVerdict] = Field(
        description="Empty when a given output's dtype, rank or dims are wrong."
    )
    diagnostics: list[Diagnostic]
