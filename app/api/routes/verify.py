"""Verify: a descriptor whose outputs carry an implementation's answer, compared with the spec's."""

from typing import Annotated

from fastapi import APIRouter, Body, Response

from app.api.deps import SettingsDep
from app.api.models import Problem, VerifyResponse
from app.core import verify as core_verify
from app.ops import BY_NAME, OpDescriptor

router = APIRouter(tags=["verify"])

_EXAMPLE = {
    "kind": "SegmentMax",
    "attrs": {"fill_mode": "LOWEST"},
    "inputs": [
        {"dtype": "f32", "shape": [5], "data": [1, "nan", 4, -2, 3]},
        {"dtype": "s32", "shape": [5], "data": [0, 0, 2, 2, 3]},
    ],
    "outputs": [{"dtype": "f32", "shape": [4], "data": [1, -3.4028234663852886e38, 4, 3]}],
}


@router.post(
    "/verify",
    response_model=VerifyResponse,
    responses={
        413: {"model": Problem, "description": "Over a size limit; the limit is named."},
        422: {
            "model": Problem,
            "description": "Not a descriptor, not valid, or an input or output without data.",
        },
    },
    summary="Verify an implementation's outputs against the spec, element by element",
)
def verify(
    descriptor: Annotated[OpDescriptor, Body(openapi_examples={"SegmentMax": {"value": _EXAMPLE}})],
    settings: SettingsDep,
) -> Response:
    """200 whenever the descriptor is valid and every input and output is readable: conformant or not,
    each output's mismatches by class, the first 20 located, and the modelled implementations it matches.
    A given output of the wrong dtype, rank or dims is a diagnostic (non-conformant, nothing compared)."""
    # A plain def: FastAPI runs it in the thread pool, so comparing large tensors never stalls the loop.
    result = core_verify.verify(BY_NAME[descriptor.kind], descriptor, settings)
    body = VerifyResponse.model_validate(
        {
            "kind": result.kind,
            "conformant": result.conformant,
            "outputs": result.outputs,
            "diagnostics": result.diagnostics,
        }
    )
    return Response(body.model_dump_json(by_alias=True), media_type="application/json")
