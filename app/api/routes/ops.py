from functools import cache

from fastapi import APIRouter, HTTPException

from app.api.deps import SettingsDep
from app.api.models import (
    ImplementationInfo,
    MismatchClassInfo,
    OpDetail,
    OpSummary,
    PortInfo,
    RuleInfo,
    ToleranceInfo,
)
from app.core.dtypes import DTYPES
from app.core.numbers import show
from app.core.registry import OpSpec, Port
from app.ops import BY_NAME, REGISTRY
from app.report.links import rule_url

router = APIRouter(prefix="/ops", tags=["ops"])


def _summary(spec: OpSpec) -> dict:
    return {
        "kind": spec.kind,
        "aliases": list(spec.aliases),
        "source": spec.source,
        "family": spec.family,
        "summary": spec.summary,
    }


def _port(port: Port) -> PortInfo:
    return PortInfo(
        name=port.name,
        dtypes=[name for name in DTYPES if name in port.dtypes],  # in DTYPES order, as messages list them
        description=port.description,
        optional=port.optional,
        variadic=port.variadic,
    )


@router.get(
    "", response_model=list[OpSummary], summary="Every op: kind, aliases, source spec, family, summary"
)
async def list_ops() -> list[dict]:
    return [_summary(spec) for spec in REGISTRY.values()]


@router.get(
    "/{kind}", response_model=OpDetail, summary="One op: attributes, ports, dtypes, rules, examples, notes"
)
async def get_op(kind: str, settings: SettingsDep) -> OpDetail:
    spec = BY_NAME.get(kind)
    if spec is None:
        raise HTTPException(404, f"unknown kind {show(kind)}; known kinds: {', '.join(BY_NAME)}")
    return detail(spec.kind, settings.docs_url)


# The registry does not change while the app runs: each op's detail (its attrs' JSON schema above all,
# about 1 ms) is built once, on its first GET, not on every one.
@cache
def detail(kind: str, docs_url: str) -> OpDetail:
    return describe(REGISTRY[kind], docs_url)


def describe(spec: OpSpec, docs_url: str) -> OpDetail:
    attrs_model = spec.descriptor.model_fields["attrs"].annotation
    return OpDetail(
        **_summary(spec),
        attributes=attrs_model.model_json_schema(),  # type: ignore[union-attr]
        inputs=[_port(p) for p in spec.inputs],
        outputs=[_port(p) for p in spec.outputs],
        dtypes=list(spec.dtype_table),
        rules=[
            RuleInfo(
                id=r.id,
                statement=r.statement,
                spec=r.spec,
                severity=r.severity,
                status=r.status,
                url=rule_url(docs_url, r.id),
            )
            for r in spec.all_rules
        ],
        examples=list(spec.examples),
        notes=list(spec.notes),
        mismatch_classes=[
            MismatchClassInfo(id=c.id, description=c.description) for c in spec.all_mismatch_classes
        ],
        implementations=[ImplementationInfo(name=i.name, evidence=i.evidence) for i in spec.implementations],
        tolerance=_tolerance(spec),
    )


EXACT_WHY = "The spec defines each output value exactly (a selection, comparison or single rounding)."


def _tolerance(spec: OpSpec) -> ToleranceInfo:
    t = spec.tolerance
    if t is None:
        return ToleranceInfo(exact=True, ulps=0, absolute=0.0, why=EXACT_WHY)
    return ToleranceInfo(exact=False, ulps=t.ulps, absolute=t.absolute, why=t.why)
