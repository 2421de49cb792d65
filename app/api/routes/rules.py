"""The rule reference: every rule id a finding can carry, and one rule with an example and its fix
(app/reference, which `opspec rule` and the docs site read too)."""

from functools import cache

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app import reference
from app.api import problems
from app.api.deps import SettingsDep
from app.api.models import Problem, RuleDetail, RuleSummary
from app.core.numbers import show
from app.core.suggest import did_you_mean

router = APIRouter(prefix="/rules", tags=["rules"])


@cache  # the book does not change while the app runs; one list per docs URL
def _listed(docs_url: str) -> list[RuleSummary]:
    return [
        RuleSummary(
            id=e.id, op=e.op, severity=e.severity, statement=e.statement, spec=e.spec, url=e.url(docs_url)
        )
        for e in reference.book().values()
    ]


@router.get(
    "", response_model=list[RuleSummary], summary="Every rule id: op, severity, statement, spec, docs"
)
def list_rules(settings: SettingsDep) -> list[RuleSummary]:
    return _listed(settings.docs_url)


@router.get(
    "/{rule_id}",
    response_model=RuleDetail,
    responses={
        404: {"model": Problem, "description": "No rule has that id; `suggestions` names the closest."}
    },
    summary="One rule: statement, severity, spec, op, an example that breaks it and the fix",
)
def get_rule(rule_id: str, request: Request, settings: SettingsDep) -> RuleDetail | JSONResponse:
    """A former id (Max's bare `C1`) answers as the rule it became, under its id now."""
    entry, _ = reference.lookup(rule_id)
    if entry is None:
        suggestions = reference.closest(rule_id)
        hint = did_you_mean(suggestions)
        message = (
            f"no rule has the id {show(rule_id)}"
            + (f"; {hint}" if hint else "")
            + " (GET /v1/rules lists them)"
        )
        error = {"path": "rule_id", "message": message, "suggestions": suggestions}
        return problems.problem(request, "not-found", message, [error])
    return RuleDetail(**reference.describe(entry, settings.docs_url))
