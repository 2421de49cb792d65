from fastapi import APIRouter

from app.api.routes import check, ops

api_router = APIRouter()
api_router.include_router(ops.router)
api_router.include_router(check.router)
