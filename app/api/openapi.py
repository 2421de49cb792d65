"""The OpenAPI document: FastAPI's, plus what routes that parse their own bodies cannot declare."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from app.api.models import BatchRequest

REF = "#/components/schemas/{model}"


def build(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    batch = BatchRequest.model_json_schema(ref_template=REF)
    for name, definition in batch.pop("$defs", {}).items():
        components.setdefault(name, definition)
    components.setdefault("BatchRequest", batch)
    return schema


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
