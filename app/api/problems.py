"""Every refusal as an RFC 9457 problem body (application/problem+json) that says what and where."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from app.core.engine import Invalid, NotEvaluable
from app.core.payload import LimitExceeded
from app.parsing import describe_errors

MEDIA_TYPE = "application/problem+json"
TITLES = {
    400: "Bad request",
    404: "Not found",
    405: "Method not allowed",
    413: "Content too large",
    422: "Unprocessable content",
    500: "Internal error",
}


def problem(
    status: int, detail: str, errors: list[dict[str, Any]] | None = None, **extra: Any
) -> JSONResponse:
    body = {"type": "about:blank", "title": TITLES.get(status, "Error"), "status": status, "detail": detail}
    body["errors"] = errors or []
    body.update(extra)
    return JSONResponse(body, status_code=status, media_type=MEDIA_TYPE)


def _summary(errors: list[dict[str, Any]]) -> str:
    head = "; ".join(f"{e['path']}: {e['message']}" for e in errors[:3])
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return head + more


def install(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _malformed(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = describe_errors(exc.errors(), request.app.state.settings.max_diagnostics)
        return problem(422, _summary(errors), errors)

    @app.exception_handler(Invalid)
    async def _invalid(request: Request, exc: Invalid) -> JSONResponse:
        errors = [d for d in exc.verdict.diagnostics if d.severity == "error"]  # capped by the Report
        detail = f"the {exc.verdict.kind} descriptor is not valid: " + "; ".join(
            f"{d.path}: {d.message}" for d in errors[:3]
        )
        entries = [{"path": d.path, "message": d.message, "rule": d.rule} for d in errors]
        diagnostics = [d.model_dump() for d in exc.verdict.diagnostics]
        return problem(422, detail, entries, diagnostics=diagnostics)

    @app.exception_handler(NotEvaluable)
    async def _not_evaluable(request: Request, exc: NotEvaluable) -> JSONResponse:
        return problem(422, exc.message, [{"path": exc.path, "message": exc.message}])

    @app.exception_handler(LimitExceeded)
    async def _too_large(request: Request, exc: LimitExceeded) -> JSONResponse:
        return problem(413, exc.message, [{"path": exc.path, "message": exc.message, "limit": exc.limit}])

    @app.exception_handler(RecursionError)
    async def _too_deep(request: Request, exc: RecursionError) -> JSONResponse:
        message = "the body nests too deeply to parse"
        return problem(422, message, [{"path": "body", "message": message}])

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 400:  # FastAPI's "error parsing the body": nesting too deep for the parser
            message = f"the body could not be parsed as JSON ({exc.detail}); is it nested too deeply?"
            return problem(422, message, [{"path": "body", "message": message}])
        return problem(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def _bug(
        request: Request, exc: Exception
    ) -> JSONResponse:  # pragma: no cover - a bug's last resort
        return problem(500, f"internal error ({type(exc).__name__}); please report it with the request")
