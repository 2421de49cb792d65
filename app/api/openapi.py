"""The OpenAPI document: FastAPI's, plus what it cannot say by itself.

- The batch body's schema and the descriptors it refers to (the routes read their own bodies).
- Error answers as application/problem+json, with every status the service gives: 404 for a path
  parameter that names nothing, 408/413/415 on every POST.
- Examples on every answer, computed by the service itself when the document is built, so they are
  true by construction (an example that drifted from the code would be worse than none).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from app.api import problems
from app.api.models import BatchRequest, Problem

REF = "#/components/schemas/{model}"
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
POST_PROBLEMS = {
    "408": ("request-timeout", "The body did not arrive within body_timeout."),
    "413": ("too-large", "Body or evaluation over a size limit; the limit is named."),
    "415": ("unsupported-media-type", "The body's Content-Type is not one this endpoint reads."),
}


def _problem_example(slug: str) -> dict[str, Any]:
    kind = problems.KINDS[slug]
    detail = kind.description.split(":")[0].split(";")[0]
    return problems.body(
        slug, detail, [{"path": "body", "message": detail}], "0f3c1c2ad5e84c7b9f6a1d2e3b4c5d6e"
    )


def _problem_response(description: str, slug: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {problems.MEDIA_TYPE: {"schema": PROBLEM_REF, "example": _problem_example(slug)}},
    }


def _example_answers() -> dict[tuple[str, str], Any]:
    """200 answers by (method, path), from the service's own functions on each op's first example."""
    from app import reference
    from app.api.routes import check, ops, verify
    from app.core.config import Settings
    from app.core.engine import evaluate
    from app.ops import BY_NAME, DESCRIPTOR, REGISTRY

    settings = Settings()
    first = next(spec for spec in REGISTRY.values() if spec.examples)
    descriptor = DESCRIPTOR.validate_python(first.examples[0])
    verdict = json.loads(check.verdict_json(check.verdict(descriptor, settings)))
    answers: dict[tuple[str, str], Any] = {
        ("post", "/v1/validate"): verdict,
        ("post", "/v1/validate/batch"): {"results": [verdict]},
        ("get", "/v1/ops"): [ops._summary(spec) for spec in REGISTRY.values()],
        ("get", "/v1/ops/{kind}"): ops.describe(first, settings.docs_url).model_dump(mode="json"),
    }
    rule = reference.describe(reference.book()["ReduceMax.axes.range"], settings.docs_url)
    answers[("get", "/v1/rules/{rule_id}")] = rule
    answers[("get", "/v1/rules")] = [  # abridged: the answer lists every rule id
        {key: rule[key] for key in ("id", "op", "severity", "statement", "spec", "url")}
    ]
    answers[("post", "/v1/verify")] = json.loads(
        verify._verify(json.dumps(verify._EXAMPLE).encode(), settings).body
    )
    example = next(iter(check._EVALUATE_EXAMPLES.values()))["value"]
    result = evaluate(BY_NAME[example["kind"]], DESCRIPTOR.validate_python(example), settings)
    answers[("post", "/v1/evaluate")] = {
        "kind": result.kind,
        "outputs": result.outputs,
        "diagnostics": [d.model_dump(mode="json") for d in result.diagnostics],
    }
    return answers


def build(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    batch = BatchRequest.model_json_schema(ref_template=REF)
    for name, definition in batch.pop("$defs", {}).items():
        components.setdefault(name, definition)
    components.setdefault("BatchRequest", batch)
    components.setdefault("Problem", Problem.model_json_schema(ref_template=REF))
    answers = _example_answers()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status, response in list(responses.items()):
                content = response.get("content", {})
                if status == "200" and (method, path) in answers:
                    content.setdefault("application/json", {})["example"] = answers[(method, path)]
                schema_ref = content.get("application/json", {}).get("schema", {}).get("$ref", "")
                if int(status) >= 400 and schema_ref.endswith(("/Problem", "/HTTPValidationError")):
                    slug = problems.BY_STATUS.get(int(status), problems.KINDS["malformed"]).slug
                    responses[status] = _problem_response(response.get("description", ""), slug)
            if method == "post":
                for status, (slug, description) in POST_PROBLEMS.items():
                    responses.setdefault(status, _problem_response(description, slug))
            if "{" in path:
                responses.setdefault("404", _problem_response("No such resource.", "not-found"))
    # FastAPI's own 422 model is never sent: every 422 is a Problem.
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    return schema


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
