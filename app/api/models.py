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


class OpDetail(OpSummary):
    attributes: dict[str, Any] = Field(description="JSON schema of the op's attrs object.")
    inputs: list[PortInfo]
    outputs: list[PortInfo]
    dtypes: list[dict[str, str]] = Field(description="Supported dtype combinations, one row each.")
    rules: list[RuleInfo]
    examples: list[dict[str, Any]]
    notes: list[str] = Field(description="Where real implementations differ from the spec.")


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

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    errors: list[dict[str, Any]] = Field(default_factory=list, description="Each with path and message.")
    diagnostics: list[Diagnostic] | None = None
