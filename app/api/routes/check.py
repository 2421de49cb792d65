"""Validate and evaluate: parse (FastAPI + the ops' tagged union), then hand over to the core."""

from typing import Annotated

from fastapi import APIRouter, Body, HTTPException

from app.api.deps import SettingsDep
from app.api.models import BatchRequest, BatchResponse, EvaluateResponse, Problem, Verdict
from app.core import engine
from app.core.payload import LimitExceeded
from app.core.registry import Descriptor
from app.core.shapes import wire_shape
from app.core.tensors import TensorType
from app.ops import BY_NAME, REGISTRY, OpDescriptor

router = APIRouter(tags=["check"])

_EXAMPLES = {
    spec.kind: {"summary": spec.summary, "value": spec.examples[0]}
    for spec in REGISTRY.values()
    if spec.examples
}
DescriptorBody = Annotated[OpDescriptor, Body(openapi_examples=_EXAMPLES)]  # type: ignore[arg-type]
_PROBLEMS = {
    413: {"model": Problem, "description": "Body or evaluation over a size limit; the limit is named."},
    422: {"model": Problem, "description": "Not a descriptor (JSON, types, unknown kind or attribute)."},
}


def verdict(descriptor: Descriptor, settings) -> Verdict:
    result, _ = engine.check(BY_NAME[descriptor.kind], descriptor, settings)
    outputs = None
    if result.outputs is not None:
        outputs = [TensorType(dtype=o.dtype, shape=wire_shape(o.shape)) for o in result.outputs]
    return Verdict(valid=result.valid, kind=result.kind, outputs=outputs, diagnostics=result.diagnostics)


@router.post("/validate", response_model=Verdict, responses=_PROBLEMS, summary="Validate one descriptor")
def validate(descriptor: DescriptorBody, settings: SettingsDep) -> Verdict:
    """200 for every well-formed descriptor, valid or not: the verdict, the inferred outputs and every
    diagnostic with its rule id and path."""
    return verdict(descriptor, settings)


@router.post("/validate/batch", response_model=BatchResponse, responses=_PROBLEMS, summary="Validate many")
def validate_batch(request: BatchRequest, settings: SettingsDep) -> BatchResponse:
    if len(request.ops) > settings.max_batch:
        raise LimitExceeded(
            "ops",
            "max_batch",
            f"the batch has {len(request.ops):,} descriptors, above the limit of {settings.max_batch:,} (max_batch)",
        )
    return BatchResponse(results=[verdict(descriptor, settings) for descriptor in request.ops])


@router.post(
    "/evaluate",
    response_model=EvaluateResponse,
    responses={
        **_PROBLEMS,
        422: {"model": Problem, "description": "Not a descriptor, not valid, or no data."},
    },
    summary="Evaluate the reference kernel on the inputs' data",
)
def evaluate(descriptor: DescriptorBody, settings: SettingsDep) -> EvaluateResponse:
    """Validates first (an invalid descriptor is a 422 carrying the diagnostics); sizes are checked
    against the limits before anything is allocated. Outputs use the request's encoding."""
    result = engine.evaluate(BY_NAME[descriptor.kind], descriptor, settings)
    return EvaluateResponse(kind=result.kind, outputs=result.outputs, diagnostics=result.diagnostics)


__all__ = ["HTTPException", "router"]
