from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.ops import REGISTRY

router = APIRouter(tags=["health"])


@router.get(
    "/healthz",
    summary="Liveness: the process answers",
    responses={200: {"content": {"application/json": {"example": {"status": "ok"}}}}},
)
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/readyz",
    summary="Readiness: the app has started and its op registry is loaded",
    responses={
        200: {"content": {"application/json": {"example": {"status": "ready", "ops": 4}}}},
        503: {"content": {"application/json": {"example": {"status": "starting", "ops": 0}}}},
    },
)
async def readyz() -> JSONResponse:
    ready = bool(REGISTRY)  # the app answers only once started; the ops are what it needs besides
    body = {"status": "ready" if ready else "starting", "ops": len(REGISTRY)}
    return JSONResponse(body, status_code=200 if ready else 503)
