"""/docs (Swagger UI) and /redoc with their scripts and styles served by the app itself.

FastAPI's defaults load them from a CDN, so the pages are blank offline, behind a proxy that blocks
the CDN, or in an air-gapped container. The files come from the fastapi-offline package (a wheel of
the same upstream Swagger UI and ReDoc builds); we use its static folder, not its app factory, so the
app stays a plain FastAPI."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = Path(fastapi_offline.__file__).parent / "static"
PREFIX = "/docs-assets"


def install(app: FastAPI) -> None:
    app.mount(PREFIX, StaticFiles(directory=ASSETS), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{PREFIX}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{PREFIX}/swagger-ui.css",
            swagger_favicon_url=f"{root}{PREFIX}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{PREFIX}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{PREFIX}/favicon.png",
            with_google_fonts=False,
        )
