"""The shape calculator page: index.html at /, its modules, styles and icon under /web/.

The page talks to the API over HTTP only (same origin); nothing here knows an op.
"""

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"

# The page has no inline script or style and calls nothing but its own origin, so the policy can say
# exactly that; a copied page with an injected <script> runs nothing.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {"Content-Security-Policy": POLICY, "Cache-Control": "no-cache", "Referrer-Policy": "no-referrer"}


def mount_page(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html", headers=HEADERS)

    app.mount("/web", StaticFiles(directory=STATIC), name="web")
