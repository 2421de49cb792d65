"""create_app(): the routers, the problem-body error handlers and the body-size limit."""

from fastapi import FastAPI

from app.api import problems
from app.api.limits import BodyLimit
from app.api.main import V1_ROUTERS
from app.api.routes import health
from app.core.config import Settings, get_settings
from app.web import mount_page

DESCRIPTION = """\
opspec knows the specifications of tensor operations (oneDNN Graph ReduceMax, OpenVINO SegmentMax-16,
embARC MLI Argmax, ONNX Max under SONNX) and answers three questions about an op descriptor: is it
valid (and if not, which rule it breaks, where), what are its outputs, and what does it compute.
"""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(title="opspec", version="0.1.0", description=DESCRIPTION)
    app.state.settings = settings
    problems.install(app)
    app.include_router(health.router)
    mount_page(app)
    # Each router straight onto the app: FastAPI matches nested routers level by level, and one level
    # fewer is a measurable part of a validate request.
    for router in V1_ROUTERS:
        app.include_router(router, prefix="/v1")
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    return app


app = create_app()
