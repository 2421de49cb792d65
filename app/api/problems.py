"""Every refusal as an RFC 9457 problem body (application/problem+json) that says what and where.

Each kind of problem has a `type` URI, /problems/<slug>, that the service itself answers with a page
describing it; `instance` is the request's id (the X-Request-ID header of the same answer), so a
client's report can be matched to the access log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException

from app.core.engine import Invalid, NotEvaluable
from app.core.numbers import clip
from app.core.payload import LimitExceeded
from app.ops.parsing import describe_errors
from app.report.links import RULES_PAGE, page_url, rule_url

MEDIA_TYPE = "application/problem+json"


@dataclass(frozen=True)
class Kind:
    slug: str
    status: int
    title: str
    description: str  # the page at /problems/<slug>

    @property
    def type(self) -> str:
        return f"/problems/{self.slug}"


KINDS = {
    kind.slug: kind
    for kind in (
        Kind(
            "malformed",
            422,
            "Not a descriptor",
            "The body is not a descriptor: not JSON, a wrong type, a missing field, an unknown kind or "
            "attribute, or a value outside what the wire format allows (a dim past int64, a number JSON "
            "cannot spell). `errors` lists each with its path.",
        ),
        Kind(
            "invalid",
            422,
            "Descriptor not valid",
            "The descriptor breaks a rule of its op's specification, so it is not evaluated. `errors` lists "
            "the broken rules with their ids and paths; `diagnostics` has the full verdict.",
        ),
        Kind(
            "not-evaluable",
            422,
            "Cannot evaluate",
            "The descriptor is valid but cannot be evaluated as given: an input has no data, or an "
            "output's size is not known.",
        ),
        Kind(
            "too-large",
            413,
            "Content too large",
            "The body, a tensor, or an evaluation's memory or steps is over a limit; the limit is named "
            "(its OPSPEC_* setting).",
        ),
        Kind(
            "unsupported-media-type",
            415,
            "Unsupported media type",
            "The body's Content-Type is not one the endpoint reads: JSON endpoints take application/json "
            "or a +json type.",
        ),
        Kind(
            "request-timeout",
            408,
            "Request timeout",
            "The body did not arrive within body_timeout seconds (OPSPEC_BODY_TIMEOUT).",
        ),
        Kind("not-found", 404, "Not found", "No such path, or no such op kind (GET /v1/ops lists them)."),
        Kind(
            "method-not-allowed",
            405,
            "Method not allowed",
            "The path exists but not with this method; the Allow header lists the methods it takes.",
        ),
        Kind("internal", 500, "Internal error", "A bug in opspec; please report it with the request id."),
    )
}
BY_STATUS = {kind.status: kind for kind in reversed(KINDS.values())}  # the first of a status wins
RULED = ("malformed", "invalid")  # kinds whose errors name the rule they break


def _rules_paragraph(docs_url: str) -> str:
    """Where an error's rule is explained: its page in the docs (with an example and its fix), and
    GET /v1/rules/{id} here."""
    index = escape(page_url(docs_url, RULES_PAGE))
    example = escape(rule_url(docs_url, "ReduceMax.axes.range"))
    return (
        "<p>Each entry of <code>errors</code> that breaks a rule names it in <code>rule</code>. Every rule has "
        f'a page in the docs, with an example that breaks it and the fix: <a href="{example}">'
        'ReduceMax.axes.range</a>, for one, and <a href="' + index + '">the index of every rule</a>; '
        "<code>GET /v1/rules/{id}</code> answers the same here, and <code>opspec rule ID</code> in a "
        "terminal.</p>"
    )


def request_id(scope_or_request: Any) -> str:
    scope = getattr(scope_or_request, "scope", scope_or_request)
    return scope.get("state", {}).get("request_id", "")


def body(
    slug: str, detail: str, errors: list[dict[str, Any]] | None, instance: str, **extra: Any
) -> dict[str, Any]:
    kind = KINDS[slug]
    return {
        "type": kind.type,
        "title": kind.title,
        "status": kind.status,
        "detail": clip(detail, 1000),
        "instance": instance,
        "errors": errors or [],
        **extra,
    }


def problem(
    request: Request,
    slug: str,
    detail: str,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    content = body(slug, detail, errors, request_id(request), **extra)
    return JSONResponse(content, status_code=content["status"], media_type=MEDIA_TYPE, headers=headers)


def encoded(slug: str, detail: str, instance: str, **entry: Any) -> bytes:
    """A problem body for middleware that answers before the app runs: the body is what is wrong
    (`entry` adds to its one error, as the limit's name)."""
    return json.dumps(body(slug, detail, [{"path": "body", "message": detail, **entry}], instance)).encode()


def _summary(errors: list[dict[str, Any]]) -> str:
    head = "; ".join(f"{e['path']}: {e['message']}" for e in errors[:3])
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return head + more


def install(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _malformed(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = describe_errors(exc.errors(), request.app.state.settings.max_diagnostics)
        return problem(request, "malformed", _summary(errors), errors)

    @app.exception_handler(Invalid)
    async def _invalid(request: Request, exc: Invalid) -> JSONResponse:
        errors = [d for d in exc.verdict.diagnostics if d.severity == "error"]  # capped by the Report
        entries = [{"path": d.path, "message": d.message, "rule": d.rule} for d in errors]
        detail = f"the {exc.verdict.kind} descriptor is not valid: " + _summary(entries)
        diagnostics = [d.model_dump() for d in exc.verdict.diagnostics]
        return problem(request, "invalid", detail, entries, diagnostics=diagnostics)

    @app.exception_handler(NotEvaluable)
    async def _not_evaluable(request: Request, exc: NotEvaluable) -> JSONResponse:
        return problem(request, "not-evaluable", exc.message, [{"path": exc.path, "message": exc.message}])

    @app.exception_handler(LimitExceeded)
    async def _too_large(request: Request, exc: LimitExceeded) -> JSONResponse:
        entry = {"path": exc.path, "message": exc.message, "limit": exc.limit}
        return problem(request, "too-large", exc.message, [entry])

    @app.exception_handler(RecursionError)
    async def _too_deep(request: Request, exc: RecursionError) -> JSONResponse:
        message = "the body nests too deeply to parse"
        return problem(request, "malformed", message, [{"path": "body", "message": message}])

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 400:  # FastAPI's "error parsing the body": nesting too deep for the parser
            message = f"the body could not be parsed as JSON ({exc.detail}); is it nested too deeply?"
            return problem(request, "malformed", message, [{"path": "body", "message": message}])
        kind = BY_STATUS.get(exc.status_code, KINDS["not-found"])
        return problem(request, kind.slug, str(exc.detail), headers=exc.headers)  # 405 keeps its Allow

    @app.exception_handler(Exception)
    async def _bug(
        request: Request, exc: Exception
    ) -> JSONResponse:  # pragma: no cover - a bug's last resort
        return problem(
            request,
            "internal",
            f"internal error ({type(exc).__name__}); please report it with the request id",
        )

    @app.get("/problems/{slug}", include_in_schema=False)
    async def _describe(request: Request, slug: str) -> HTMLResponse:
        kind = KINDS.get(slug)
        if kind is None:
            raise HTTPException(404, f"no problem type {clip(slug, 60)!r}; known: {', '.join(KINDS)}")
        page = (
            f"<!doctype html><html lang=en><meta charset=utf-8><title>{escape(kind.title)} - opspec</title>"
            f"<h1>{escape(kind.title)} ({kind.status})</h1><p>{escape(kind.description)}</p>"
            + (_rules_paragraph(request.app.state.settings.docs_url) if slug in RULED else "")
            + f"<p>Problem type <code>{escape(kind.type)}</code>; see also <a href=/docs>the API docs</a>.</p>"
        )
        return HTMLResponse(page)
