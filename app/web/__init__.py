"""The shape calculator page: index.html at /, its modules, styles and icon under /web/.

The page talks to the API over HTTP only (same origin); nothing here knows an op.
"""

from __future__ import annotations

import hashlib
import mimetypes
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request, Response

STATIC = Path(__file__).parent / "static"

# The page has no inline script or style and calls nothing but its own origin, so the policy can say
# exactly that; a copied page with an injected <script> runs nothing.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".html": "text/html"}


class Asset:
    """One file of the page, read once: a dozen small files served from memory skip the thread-pool
    hop and the stat of each request, which is most of the first render on a busy machine."""

    def __init__(self, path: Path):
        self.body = path.read_bytes()
        media_type = (
            TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        )
        charset = "; charset=utf-8" if media_type.startswith(("text/", "image/svg")) else ""
        self.content_type = media_type + charset
        self.etag = '"' + hashlib.sha256(self.body).hexdigest()[:16] + '"'

    def response(self, request: Request, headers: dict[str, str] | None = None) -> Response:
        # no-cache: revalidated on every load, so a new version is never hidden behind an old copy.
        common = {"ETag": self.etag, "Cache-Control": "no-cache", **(headers or {})}
        if request.headers.get("if-none-match") == self.etag:
            return Response(status_code=304, headers=common)
        return Response(self.body, media_type=self.content_type, headers=common)


def mount_page(app: FastAPI) -> None:
    assets = {path.name: Asset(path) for path in sorted(STATIC.iterdir()) if path.is_file()}
    page = assets.pop("index.html")
    page_headers = {"Content-Security-Policy": POLICY, "Referrer-Policy": "no-referrer"}

    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> Response:
        return page.response(request, page_headers)

    @app.get("/web/{name}", include_in_schema=False)
    async def asset(name: str, request: Request) -> Response:
        found = assets.get(name)
        if found is None:
            # Raised, not answered here: the app's handler makes it the same problem body as any 404.
            raise HTTPException(404, f"no file {name!r} in the page; it has: {', '.join(sorted(assets))}")
        return found.response(request)
