"""The FastAPI app: create_app() puts together the routers (one per routes module, V1_ROUTERS), the
problem-body error handlers, the middleware (request ids and the access log, CORS, the media-type gate,
the body limits, the hot routes), the offline docs and the page's mount. `app` is the one a served worker
runs (server.served_app)."""

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

from app.api import docs, metrics, openapi, problems
from app.api.hot import HotRoutes
from app.api.limits import BodyLimit
from app.api.middleware import Gate, MediaGate, RouteTable
from app.api.routes import check, graphs, health, ops, rules, verify
from app.core.config import Settings, get_settings
from app.web import mount_page

V1_ROUTERS = (
    check.router,
    ops.router,
    verify.router,
    graphs.router,
    rules.router,
)  # check first: its routes are the hot ones

DESCRIPTION = """\
opspec knows the specifications of tensor operations (the oneDNN Graph operation set, OpenVINO
SegmentMax-16, embARC MLI Argmax, ONNX Max under SONNX) and answers three questions about an op descriptor: is it
valid (and if not, which rule it breaks, where), what are its outputs, and what does it compute.
"""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    # /docs and /redoc are our own routes (app/api/docs.py), with their assets served by the app.
    otel = settings.opentelemetry
    app = FastAPI(
        title="opspec",
        version="0.1.0",
        description=DESCRIPTION,
        docs_url=None,
        redoc_url=None,
        telemetry={"tracing": otel, "metrics": otel, "logs": otel},
    )
    app.state.settings = settings
    problems.install(app)
    openapi.install(app)
    app.include_router(health.router)
    mount_page(app)
    # Each router straight onto the app: FastAPI matches nested routers level by level, and one level
    # fewer is a measurable part of a validate request.
    for router in V1_ROUTERS:
        app.include_router(router, prefix="/v1")
    app.include_router(metrics.router)
    docs.install(app)
    # Added innermost first: Gate (request id, log, metrics) wraps CORS, which wraps the 415 gate, the
    # body limits and the hot routes, so every answer, a preflight or a 415 too, has its id and its CORS
    # headers.
    if settings.hot_routes:
        app.add_middleware(HotRoutes, endpoints={f"/v1{path}": f for path, f in check.HOT.items()}, owner=app)
    app.add_middleware(
        BodyLimit,
        max_bytes=settings.max_body_bytes,
        timeout=settings.body_timeout,
        by_path={"/v1/graphs/validate": (settings.max_graph_bytes, "max_graph_bytes")},
    )
    routes = RouteTable(app)
    app.add_middleware(MediaGate, routes=routes)
    if settings.cors_origins:  # off by default: no page elsewhere may call a local instance
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["content-type", "x-request-id"],
            expose_headers=["x-request-id"],
        )
    app.add_middleware(Gate, routes=routes, access_log=settings.access_log)
    return app


app = create_app()
